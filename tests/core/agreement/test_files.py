"""core.agreement.files: label files (one table, two joined tables, qrels), label cells through
the one number parser, and run files read into the one ``core.inputs.trec.Run``."""
import gzip

import numpy as np
import pandas as pd
import pytest

from core.agreement.files import (MISSING, LabelSet, load_label_files, load_labels, load_run,
                               load_runs, parse_labels)
from core.errors import InputError
from core.inputs.trec import Run


def test_parse_labels_reads_numbers_blank_as_missing_and_names_bad_cells():
    s = pd.Series(["0", "1", "2", "", "1.0", "2,0"], index=range(2, 8))
    assert parse_labels(s, "crowd", "f.csv").tolist() == [0, 1, 2, MISSING, 1, 2]
    with pytest.raises(InputError) as e:
        parse_labels(pd.Series(["1", "3", "yes"], index=[2, 3, 4]), "crowd", "f.csv")
    assert (e.value.code, e.value.row, e.value.column) == ("agreement.err_bad_label", 3, "crowd")
    assert e.value.params["count"] == 2


def test_load_labels_one_table_with_korean_headers_and_text_columns():
    data = "질의,문서,정답,crowd,메모\nq1,d1,1,1,x\nq1,d2,0,,y\nq2,d3,2,1,z\n".encode("cp949")
    ls = load_labels(data, "k.csv")
    assert isinstance(ls, LabelSet) and ls.gold_name == "정답" and ls.names == ["crowd"]
    assert ls.gold.tolist() == [1, 0, 2] and ls.sources["crowd"].tolist() == [1, MISSING, 1]
    assert ls.graded and ls.ignored_columns == ("메모",) and ls.n_pairs == 3
    assert ls.missing_counts() == {"정답": 0, "crowd": 1}
    assert ls.summary()["n_queries"] == 2


@pytest.mark.parametrize("data,code", [
    (b"query_id,doc_id,crowd\nq,d,1\n", "agreement.err_no_gold"),
    (b"query_id,doc_id,gold\nq,d,1\n", "agreement.err_no_sources"),
    (b"query_id,doc_id,gold,x\nq,d,1,1\nq,d,0,0\n", "agreement.err_duplicate_pair"),
    (b"a,b,gold,x\nq,d,1,1\n", "agreement.err_no_keys"),
])
def test_load_labels_refuses_with_a_code(data, code):
    with pytest.raises(InputError) as e:
        load_labels(data, "bad.csv")
    assert e.value.code == code and e.value.file == "bad.csv"


def test_load_label_files_joins_on_pairs_and_reports_the_unmatched():
    gold = b"q1 0 d1 1\nq1 0 d2 0\nq3 0 d9 2\n"
    other = b"query_id,doc_id,llm\nq1,d1,1\nq1,d2,1\nq2,d4,0\n"
    ls = load_label_files(gold, "gold.qrels", other, "llm.csv")
    assert ls.n_pairs == 2 and ls.names == ["llm"]
    assert ls.gold.tolist() == [1, 0] and ls.sources["llm"].tolist() == [1, 1]
    assert ls.unmatched == {"gold_only": [("q3", "d9")], "other_only": [("q2", "d4")]}


def test_load_run_reads_trec_plain_gzip_and_rank_tables_into_one_run_type():
    trec = b"q1 Q0 a 1 1.5 t\nq1 Q0 b 2 2,5 t\n"
    for data in (trec, gzip.compress(trec)):
        run = load_run(data, "runs/x.run")
        assert isinstance(run, Run) and run.format == "trec" and run.name == "x"
        assert run.ranking == {"q1": ["b", "a"]}
    table = load_run(b"query_id,doc_id,rank\nq1,b,2\nq1,a,1\n", "sys.tsv")
    assert (table.name, table.format, table.ranking) == ("sys", "table", {"q1": ["a", "b"]})
    with pytest.raises(InputError) as e:
        load_run(b"query_id,doc_id,rank\nq1,a,0\n", "t.csv")
    assert e.value.code == "agreement.err_run_rank" and e.value.row == 2
    with pytest.raises(InputError):
        load_run(b"", "empty.run")


def test_load_runs_makes_names_unique_like_core_trec():
    trec = b"q1 Q0 a 1 1 t\n"
    runs = load_runs([(trec, "a/x.run"), (trec, "b/x.run"), (trec, "y.run")])
    assert [r.name for r in runs] == ["x", "x (2)", "y"]
    assert all(np.array_equal(list(r.docs), ["q1"]) for r in runs)
