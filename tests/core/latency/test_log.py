"""core.latency.log.load_timings: long and wide timing logs, run order, cache and time
columns, numbers through the one parser, and errors naming the cell."""
import numpy as np
import pytest

from core.errors import InputError
from core.latency.log import TimingLog, load_timings


def test_long_log_with_runs_cache_and_decimal_commas():
    text = ("query_id;method;latency_ms;run;cache\n"
            "q1;bm25;12,5;2;miss\nq1;bm25;10;1;hit\nq1;dense;30,25;1;\nq2;bm25;9;1;miss\n")
    log = load_timings(text.encode(), "t.csv")
    assert isinstance(log, TimingLog) and log.layout == "long" and log.n_rows == 4
    assert log.methods == ("bm25", "dense") and log.has_run and log.has_cache
    f = log.frame
    q1 = f[(f["query"] == "q1") & (f["method"] == "bm25")]
    assert q1.set_index("run")["latency_ms"].to_dict() == {1: 10.0, 2: 12.5}  # by run column
    assert f.loc[f["method"] == "dense", "latency_ms"].item() == 30.25
    assert f["cache"].tolist()[:2] == [0.0, 1.0] and np.isnan(f["cache"].iloc[2])


def test_wide_log_ranks_repetitions_by_row_and_lists_blanks():
    log = load_timings(b"query_id,A,B\nq1,10,5\nq1,12,\nq2,20,9\n", "w.csv")
    assert log.layout == "wide" and log.methods == ("A", "B") and not log.has_run
    a = log.frame[log.frame["method"] == "A"]
    assert a["run"].tolist() == [1, 2, 1] and a["latency_ms"].tolist() == [10, 12, 20]
    assert log.blank == ("row 3 (B)",)


def test_timestamps_order_the_runs():
    text = ("query_id,method,latency_ms,timestamp\n"
            "q1,A,30,2024-01-01 10:00:05\nq1,A,10,2024-01-01 10:00:01\n")
    log = load_timings(text.encode(), "ts.csv")
    assert log.has_timestamp
    assert log.frame.sort_values("run")["latency_ms"].tolist() == [10.0, 30.0]


@pytest.mark.parametrize("text,code,row,column", [
    (b"query_id,A,B\nq1,10,fast\n", "latency.err_bad_latency", 2, "B"),
    (b"query_id,A,B\nq1,10,0\n", "latency.err_not_positive", 2, "B"),
    (b"query_id,A,B\nq1,10,1,500\n", None, None, None),
    (b"query_id;A;B\nq1;10;1,500\n", "ambiguous_number", 2, "B"),
    (b"query_id,method,latency_ms,run\nq1,A,3,1\nq1,A,4,1\n", "latency.err_duplicate_run", 3, "run"),
    (b"query_id,method,latency_ms,run\nq1,A,3,1.5\n", "latency.err_bad_run", 2, "run"),
    (b"query_id,method,latency_ms,cache\nq1,A,3,maybe\n", "latency.err_bad_cache", 2, "cache"),
    (b"method,latency_ms\nA,3\n", "latency.err_no_query", None, None),
    (b"query_id,A\n,3\n", "latency.err_blank_query", 2, "query_id"),
])
def test_errors_name_the_cell(text, code, row, column):
    if code is None:  # an unquoted thousands comma in a comma CSV is an extra field
        with pytest.raises(InputError):
            load_timings(text, "bad.csv")
        return
    with pytest.raises(InputError) as e:
        load_timings(text, "bad.csv")
    assert (e.value.code, e.value.row, e.value.column) == (code, row, column)


def _runs_by_pandas(log: TimingLog, key: str) -> list[int]:
    """The run ranks as load_timings computed them before issue 25 (pandas sort + cumcount on
    the strings), for the frame's rows in its order."""
    f = log.frame.copy()
    f["mpos"] = f["method"].map({m: i for i, m in enumerate(log.methods)})
    f["pos"] = np.arange(len(f))
    s = f.sort_values(["method", "query", key, "row"], kind="stable")
    s["r"] = s.groupby(["method", "query"], sort=False).cumcount() + 1
    return s.sort_values("pos")["r"].tolist()


@pytest.mark.parametrize("seed", range(6))
def test_run_ranks_and_row_order_equal_the_pandas_reading(seed):
    """Issue 25: repetitions are ranked on integer codes with one lexsort; the ranks and the
    frame's row order are those of sorting the strings with pandas, in long logs (by run
    column, or by timestamp with ties, or by row) and wide ones."""
    rng = np.random.default_rng(seed)
    n = 300
    q = rng.choice([f"q{i}" for i in range(12)] + ["Q1", "가", "q10"], n)
    m = rng.choice(["dense", "bm25", "Hybrid"], n)
    lat = np.round(rng.lognormal(3, 0.5, n), 3)
    stamp = rng.integers(0, 40, n)          # ties within a (query, method)
    long_ts = "query_id,method,latency_ms,timestamp\n" + "".join(
        f"{a},{b},{c},{d}\n" for a, b, c, d in zip(q, m, lat, stamp))
    long_row = "query_id,method,latency_ms\n" + "".join(
        f"{a},{b},{c}\n" for a, b, c in zip(q, m, lat))
    wide = "query_id,A,B\n" + "".join(f"{a},{c},{c * 2 if i % 7 else ''}\n"
                                       for i, (a, c) in enumerate(zip(q, lat)))
    seen = {}
    run_rows = []
    for a, b in zip(q, m):
        seen[a, b] = seen.get((a, b), 0) + 1
        run_rows.append(seen[a, b])
    order = rng.permutation(n)
    long_run = "query_id,method,latency_ms,run\n" + "".join(
        f"{q[i]},{m[i]},{lat[i]},{run_rows[i]}\n" for i in order)
    for text, key in ((long_ts, "order"), (long_row, "order"), (wide, "order"),
                      (long_run, None)):
        log = load_timings(text.encode(), "t.csv")
        f = log.frame
        assert f["row"].tolist() == sorted(f["row"].tolist())   # file order kept
        if key is None:   # a run column: its labels are the ranks here
            assert f["run"].tolist() == [run_rows[i] for i in order]
        else:
            assert f["run"].tolist() == _runs_by_pandas(log, key)
        assert log.methods == tuple(dict.fromkeys(f.sort_values(["row"], kind="stable")
                                                  ["method"]))


@pytest.mark.parametrize("text,row,query,method,run", [
    ("query_id,method,latency_ms,run\nq1,A,1,1\nq2,A,2,1\nq1,B,3,1\nq1,A,4,2\nq2,A,5,1\n"
     "q1,A,6,2\n", 6, "q2", "A", "1"),
    ("query_id,method,latency_ms,run\nq1,A,1,2\nq1,A,2,2.0\n", 3, "q1", "A", "2"),
])
def test_a_repeated_run_names_its_first_repeat_in_file_order(text, row, query, method, run):
    with pytest.raises(InputError) as e:
        load_timings(text.encode(), "d.csv")
    assert e.value.code == "latency.err_duplicate_run"
    err, p = e.value, e.value.params
    assert (err.row, p["query"], p["method"], p["run"]) == (row, query, method, run)
    assert err.column == "run" and err.file == "d.csv"
