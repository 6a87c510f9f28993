"""core.retrieval.beir_table: the stored grid against the paper's Table 2, hand-counted tallies, the sign
test against scipy.stats.binomtest, uploads, the story and the beir-table CLI."""
import io
import json
import string

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from core.__main__ import main
from core.retrieval.beir_grid import DATA, Grid, load_grid, norm_name, parse_grid, to_milli
from core.retrieval.beir_table import scifact_ranking, sign_test_p, tally
from core.retrieval.beir_upload import parse_user_column, tally_user, user_column_name
from core.views.beir_table import heatmap_chart, story, tally_chart, tally_text
from core.errors import InputError
from core.i18n import catalog

# BEIR (Thakur et al., NeurIPS 2021, arXiv:2104.08663v4) Table 2, nDCG@10, as quoted in issue 4.
ISSUE_TABLE = """
| dataset | BM25 | DPR | ANCE | TAS-B | GenQ | ColBERT | docT5query |
|---|---|---|---|---|---|---|---|
| TREC-COVID | 0.656 | 0.332 | 0.654 | 0.481 | 0.619 | 0.677 | 0.713 |
| BioASQ | 0.465 | 0.127 | 0.306 | 0.383 | 0.398 | 0.474 | 0.431 |
| NFCorpus | 0.325 | 0.189 | 0.237 | 0.319 | 0.319 | 0.305 | 0.328 |
| NQ | 0.329 | 0.474 | 0.446 | 0.463 | 0.358 | 0.524 | 0.399 |
| HotpotQA | 0.603 | 0.391 | 0.456 | 0.584 | 0.534 | 0.593 | 0.580 |
| FiQA-2018 | 0.236 | 0.112 | 0.295 | 0.300 | 0.308 | 0.317 | 0.291 |
| Signal-1M | 0.330 | 0.155 | 0.249 | 0.289 | 0.281 | 0.274 | 0.307 |
| TREC-NEWS | 0.398 | 0.161 | 0.382 | 0.377 | 0.396 | 0.393 | 0.420 |
| Robust04 | 0.408 | 0.252 | 0.392 | 0.427 | 0.362 | 0.391 | 0.437 |
| ArguAna | 0.315 | 0.175 | 0.415 | 0.429 | 0.493 | 0.233 | 0.349 |
| Touche-2020 | 0.367 | 0.131 | 0.240 | 0.162 | 0.182 | 0.202 | 0.347 |
| CQADupStack | 0.299 | 0.153 | 0.296 | 0.314 | 0.347 | 0.350 | 0.325 |
| Quora | 0.789 | 0.248 | 0.852 | 0.835 | 0.830 | 0.854 | 0.802 |
| DBPedia | 0.313 | 0.263 | 0.281 | 0.384 | 0.328 | 0.392 | 0.331 |
| SCIDOCS | 0.158 | 0.077 | 0.122 | 0.149 | 0.143 | 0.145 | 0.162 |
| FEVER | 0.753 | 0.562 | 0.669 | 0.700 | 0.669 | 0.771 | 0.714 |
| Climate-FEVER | 0.213 | 0.148 | 0.198 | 0.228 | 0.175 | 0.184 | 0.201 |
| SciFact | 0.665 | 0.318 | 0.507 | 0.643 | 0.644 | 0.671 | 0.675 |
"""
KINDS = {"BM25": "lexical", "DPR": "dense", "ANCE": "dense", "TAS-B": "dense",
         "GenQ": "dense", "ColBERT": "late-interaction", "docT5query": "sparse"}


def _issue_rows():
    lines = [ln.strip() for ln in ISSUE_TABLE.strip().splitlines()]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines[2:]]
    return header, rows


@pytest.fixture(scope="module")
def grid():
    return load_grid()


@pytest.fixture(scope="module")
def bm25(grid):
    return tally(grid, "BM25")


def _mini(values: dict, kinds: dict | None = None) -> Grid:
    frame = pd.DataFrame(values, index=pd.Index([f"d{i}" for i in range(
        len(next(iter(values.values()))))], name="dataset"), dtype=float)
    return Grid(frame, kinds or {m: "dense" for m in values}, {})


# ----------------------------------------------------------------------------- the data file
def test_every_cell_matches_the_paper(grid):
    header, rows = _issue_rows()
    assert grid.models == header[1:]
    assert grid.datasets == [r[0] for r in rows]
    for r in rows:
        for model, cell in zip(header[1:], r[1:]):
            assert grid.frame.loc[r[0], model] == float(cell), (r[0], model)
            assert to_milli(grid.frame.loc[r[0], model]) == to_milli(cell)
    assert grid.frame.shape == (18, 7) and not grid.frame.isna().any().any()


def test_citation_kinds_and_metric_are_read_from_the_file(grid):
    assert "Thakur" in grid.citation and "Gurevych" in grid.citation
    assert "2104.08663v4" in grid.citation and "Table 2" in grid.citation
    assert grid.url == "https://arxiv.org/abs/2104.08663v4"
    assert grid.metric == "nDCG@10"
    assert grid.kinds == KINDS


def test_grid_file_errors_name_row_and_column():
    good = DATA.read_text(encoding="utf-8")
    with pytest.raises(InputError) as e:
        parse_grid(good.replace("GenQ=dense; ", ""))
    assert e.value.code == "beir_table.err_grid_kind" and e.value.column == "GenQ"
    with pytest.raises(InputError) as e:
        parse_grid(good.replace("NQ,0.329,", "NQ,,"))
    assert e.value.code == "beir_table.err_grid_blank" and e.value.column == "BM25"
    assert e.value.row == 6 + 4  # 5 header-comment lines + CSV header, NQ is the 4th data row


# ----------------------------------------------------------------------------- tally by hand
def test_tally_counted_by_hand(bm25):
    # DPR beats BM25 only on NQ (0.474 > 0.329).
    dpr = bm25.row("DPR")
    assert (dpr.baseline_wins, dpr.model_wins, dpr.ties) == (17, 1, 0)
    # docT5query loses to BM25 on BioASQ, HotpotQA, Signal-1M, Touche-2020, FEVER, Climate-FEVER.
    d5 = bm25.row("docT5query")
    assert (d5.baseline_wins, d5.model_wins, d5.ties) == (6, 12, 0)
    # ColBERT: wins TREC-COVID, BioASQ, NQ, FiQA, CQADupStack, Quora, DBPedia, FEVER, SciFact.
    col = bm25.row("ColBERT")
    assert (col.baseline_wins, col.model_wins, col.ties) == (9, 9, 0)
    # ANCE wins NQ, FiQA, ArguAna, Quora.
    assert (bm25.row("ANCE").baseline_wins, bm25.row("ANCE").model_wins) == (14, 4)
    assert [r.model for r in bm25.rows] == ["DPR", "ANCE", "TAS-B", "GenQ", "ColBERT",
                                            "docT5query"]


def test_ties_and_relative_difference_on_a_small_grid():
    g = _mini({"A": [0.5, 0.4, 0.2], "B": [0.6, 0.4, 0.1]})
    r = tally(g, "A").row("B")
    assert (r.baseline_wins, r.model_wins, r.ties) == (1, 1, 1)
    # ((0.6-0.5)/0.5 + 0 + (0.1-0.2)/0.2) / 3 = (0.2 - 0.5) / 3 = -10 %
    assert r.mean_relative_diff_pct == pytest.approx(-10.0, abs=1e-12)
    assert r.sign_test_p == pytest.approx(1.0)


def test_equal_at_three_decimals_is_a_tie():
    assert to_milli(0.6745) == 675 and to_milli(0.6744) == 674 and to_milli("0.665") == 665
    g = _mini({"A": [0.665, 0.5], "B": [0.6654, 0.5004999]})
    r = tally(g, "A").row("B")
    assert r.ties == 2 and r.baseline_wins == r.model_wins == 0 and r.sign_test_p is None
    assert r.mean_relative_diff_pct > 0  # computed on the values as given


def test_mean_relative_difference_matches_numpy(grid, bm25):
    header, rows = _issue_rows()
    arr = np.array([[float(c) for c in r[1:]] for r in rows])
    for j, model in enumerate(header[1:]):
        if model == "BM25":
            continue
        expected = 100 * np.mean((arr[:, j] - arr[:, 0]) / arr[:, 0])
        assert bm25.row(model).mean_relative_diff_pct == pytest.approx(expected, abs=1e-9)


def test_baseline_ge_all_dense_and_first_by_hand(bm25):
    assert bm25.dense_models == ("DPR", "ANCE", "TAS-B", "GenQ")
    assert bm25.baseline_ge_all_dense == (
        "TREC-COVID", "BioASQ", "NFCorpus", "HotpotQA", "Signal-1M", "TREC-NEWS",
        "Touche-2020", "SCIDOCS", "FEVER", "SciFact")
    assert bm25.baseline_first == ("HotpotQA", "Signal-1M", "Touche-2020")
    assert bm25.first_place_counts == {"BM25": 3, "DPR": 0, "ANCE": 0, "TAS-B": 1, "GenQ": 1,
                                       "ColBERT": 7, "docT5query": 6}


def test_first_place_counts_equal_pandas_idxmax(grid):
    expected = grid.frame.idxmax(axis=1).value_counts()  # the paper has no tie at the top
    counts = tally(grid, "DPR").first_place_counts
    assert {m: c for m, c in counts.items() if c} == expected.to_dict()


def test_dense_baseline_is_not_its_own_rival(grid):
    r = tally(grid, "tas-b")  # case-insensitive
    assert r.baseline == "TAS-B" and r.dense_models == ("DPR", "ANCE", "GenQ")
    assert "TAS-B" not in [row.model for row in r.rows]


def test_shared_first_counts_for_each():
    g = _mini({"A": [0.5, 0.3], "B": [0.5, 0.4]})
    r = tally(g, "A")
    assert r.first_place_counts == {"A": 1, "B": 2} and r.baseline_first == ("d0",)


def test_bad_arguments_raise_value_error(grid):
    with pytest.raises(ValueError, match="baseline must be one of"):
        tally(grid, "SPLADE")
    with pytest.raises(ValueError, match="grid must be a Grid"):
        tally(grid.frame, "BM25")
    with pytest.raises(ValueError, match="model_wins"):
        sign_test_p(-1, 3)


# ----------------------------------------------------------------------------- sign test
@pytest.mark.parametrize("n", range(1, 31))
def test_sign_test_equals_scipy_binomtest(n):
    for wins in range(n + 1):
        ref = binomtest(wins, n, 0.5, alternative="two-sided").pvalue
        assert sign_test_p(wins, n - wins) == pytest.approx(ref, abs=1e-12)


def test_sign_test_in_the_tally_equals_binomtest(bm25):
    for r in bm25.rows:
        ref = binomtest(r.model_wins, r.model_wins + r.baseline_wins, 0.5).pvalue
        assert r.sign_test_p == pytest.approx(ref, abs=1e-12)
    assert sign_test_p(0, 0) is None


# ----------------------------------------------------------------------------- uploads
def test_upload_names_are_matched_leniently(grid):
    data = ("dataset,nDCG@10\nscifact,0.672\nfiqa,0.25\nwebis-touche2020,0.30\n"
            "dbpedia-entity,0.4\nTREC covid,0.7\nCLIMATE_FEVER,0.2\n").encode()
    col = parse_user_column(data, grid, "mine.csv")
    assert list(col.values) == ["TREC-COVID", "FiQA-2018", "Touche-2020", "DBPedia",
                                "Climate-FEVER", "SciFact"]  # paper order
    assert col.spelled["SciFact"] == "scifact" and col.n_datasets == 6
    assert norm_name("Touché-2020") == "touche2020" and grid.dataset("Touché 2020") == \
        "Touche-2020"


def test_upload_korean_cp949_tsv_and_xlsx(grid):
    cp949 = "데이터셋\t점수\nSciFact\t0.7\nNQ\t0.5\n".encode("cp949")
    assert parse_user_column(cp949, grid, "k.tsv").values == {"NQ": 0.5, "SciFact": 0.7}
    buf = io.BytesIO()
    pd.DataFrame({"dataset": ["nfcorpus", "quora"], "ndcg@10": [0.33, 0.88]}).to_excel(
        buf, index=False)
    assert parse_user_column(buf.getvalue(), grid, "x.xlsx").values == {
        "NFCorpus": 0.33, "Quora": 0.88}


@pytest.mark.parametrize("body,code,row,column", [
    ("dataset,ndcg@10\nscifact,0.6\nmsmarco,0.4\nfoo,0.1\n", "beir_table.err_unknown_dataset",
     3, "dataset"),
    ("dataset,ndcg@10\nscifact,0.6\nSciFact,0.5\n", "beir_table.err_duplicate_dataset", 3,
     "dataset"),
    ("dataset,ndcg@10\nscifact,67.2\n", "beir_table.err_percent", 2, "ndcg@10"),
    ("dataset,ndcg@10\nscifact,high\n", "beir_table.err_bad_value", 2, "ndcg@10"),
    ("dataset,ndcg@10\nscifact,-0.1\n", "beir_table.err_bad_value", 2, "ndcg@10"),
    ("dataset,ndcg@10\nscifact,\n", "beir_table.err_blank_value", 2, "ndcg@10"),
    ("dataset,ndcg@10\n,0.5\n", "beir_table.err_blank_dataset", 2, "dataset"),
    ("name,x,y\nscifact,1,2\n", "beir_table.err_columns", None, None),
])
def test_upload_errors_name_file_row_and_column(grid, body, code, row, column):
    with pytest.raises(InputError) as e:
        parse_user_column(body.encode(), grid, "up.csv")
    assert (e.value.code, e.value.file, e.value.row, e.value.column) == (code, "up.csv", row,
                                                                          column)
    assert "up.csv" in str(e.value)


def test_unknown_names_are_all_listed(grid):
    with pytest.raises(InputError) as e:
        parse_user_column(b"dataset,ndcg@10\nmsmarco,0.4\nfoo,0.1\n", grid, "u.csv")
    msg = str(e.value)
    assert "'msmarco' (row 2)" in msg and "'foo' (row 3)" in msg and "SciFact" in msg
    assert e.value.params["count"] == 2


def test_user_column_tallied_by_hand(grid):
    col = parse_user_column(b"dataset,ndcg@10\nscifact,0.672\nnfcorpus,0.33\nfiqa,0.25\n"
                            b"touche,0.30\n", grid, "mine.csv")
    own = tally_user(grid, col)
    assert own.baseline == "yours" and own.n_datasets == 4
    # vs BM25: yours wins SciFact, NFCorpus, FiQA-2018; BM25 wins Touche-2020 (0.367).
    bm = own.row("BM25")
    assert (bm.baseline_wins, bm.model_wins, bm.ties) == (3, 1, 0)
    # relative difference of BM25 to yours: mean of (bm25 - yours) / yours
    exp = 100 * np.mean([(0.665 - .672) / .672, (.325 - .33) / .33, (.236 - .25) / .25,
                         (.367 - .30) / .30])
    assert bm.mean_relative_diff_pct == pytest.approx(exp, abs=1e-9)
    assert own.baseline_first == ("NFCorpus",)
    # and as a row against BM25 in the full table, on the 4 datasets it has
    full = tally(grid.with_column("mine", col.values), "BM25", rank_columns=grid.models)
    mine = full.row("mine")
    assert (mine.baseline_wins, mine.model_wins, mine.n_datasets) == (1, 3, 4)
    assert full.first_place_counts == tally(grid, "BM25").first_place_counts
    assert user_column_name("runs/BM25.csv", grid) == "BM25 (yours)"


# ----------------------------------------------------------------------------- scifact
def test_scifact_ranking_with_measured(grid):
    ranking = scifact_ranking(grid, {"bm25": {"ndcg@10": 0.6717, "recall@100": 0.9},
                                     "dense": {"recall@100": 0.8},  # no ndcg@10: skipped
                                     "hybrid": {"nDCG@10": 0.665}})
    assert list(ranking["name"]) == ["docT5query", "bm25", "ColBERT", "hybrid", "BM25",
                                     "GenQ", "TAS-B", "ANCE", "DPR"]
    assert list(ranking["rank"]) == [1, 2, 3, 4, 4, 6, 7, 8, 9]  # 0.665 = 0.665: shared rank
    assert list(ranking["source"]).count("measured") == 2
    assert len(scifact_ranking(grid, None)) == 7
    with pytest.raises(ValueError, match="must be a number"):
        scifact_ranking(grid, {"bm25": {"ndcg@10": "high"}})


# ----------------------------------------------------------------------------- words
def test_story_is_built_from_the_tally(bm25, grid):
    text = story(bm25, "en")
    # DPR and ANCE lose with p < 0.05; docT5query wins more often; numbers from the tally.
    behind = next(ln for ln in text.splitlines() if "Lose broadly" in ln)
    assert "DPR" in behind and "ANCE" in behind and "won 1, lost 17" in behind
    assert "won 4, lost 14" in behind
    ahead = next(ln for ln in text.splitlines() if "Win more often" in ln)
    assert "docT5query" in ahead and "won 12, lost 6" in ahead and "+3.5%" in ahead
    assert "dense 19–53" in text  # 1+4+8+6 wins, 17+14+10+12 losses
    # change the data, the story changes: a grid where DPR wins everywhere
    flipped = grid.frame.copy()
    flipped["DPR"] = flipped["BM25"] + 0.01
    t2 = story(tally(Grid(flipped, grid.kinds, grid.meta), "BM25"), "en")
    assert "Beat BM25 broadly" in t2 and "DPR" in next(
        ln for ln in t2.splitlines() if "Beat BM25 broadly" in ln)
    ko = story(bm25, "ko")
    assert "1승 17패" in ko and "Lose" not in ko


def test_tally_text_lists_every_row(bm25, grid):
    text = tally_text(bm25, grid)
    assert all(m in text for m in ("DPR", "docT5query")) and "<0.001" in text
    assert "10 of 18" in text and "HotpotQA, Signal-1M, Touche-2020" in text


def test_i18n_same_keys_and_fields():
    en = {k: v for k, v in catalog("en").items() if k.startswith("beir_table.")}
    ko = {k: v for k, v in catalog("ko").items() if k.startswith("beir_table.")}
    assert all(k.endswith("_one") for k in en.keys() - ko.keys())  # Korean: one plural form
    assert ko.keys() <= en.keys()

    def fields(s):
        return {f for _, f, _, _ in string.Formatter().parse(s) if f}
    assert all(fields(en[k]) == fields(ko[k]) for k in ko)
    for kind in KINDS.values():
        assert f"beir_table.kind_{kind}" in en


# ----------------------------------------------------------------------------- charts
def test_charts_build(grid, bm25):
    for mode in ("value", "diff"):
        spec = heatmap_chart(grid, "BM25", mode=mode).to_dict()
        data = next(iter(spec["datasets"].values()))
        assert len(data) == 18 * 7
    with pytest.raises(ValueError, match="mode"):
        heatmap_chart(grid, "BM25", mode="rank")
    spec = tally_chart(bm25, labels={"baseline_wins": "b", "model_wins": "m",
                                     "ties": "t"}).to_dict()
    rows = next(iter(spec["datasets"].values()))
    assert sum(r["count"] for r in rows) == 6 * 18


# ----------------------------------------------------------------------------- CLI
def test_cli_json_default(capsys):
    assert main(["beir-table", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["baseline"] == "BM25"
    assert set(out["rows"][0]) >= {"model", "kind", "baseline_wins", "model_wins", "ties",
                                   "mean_relative_diff_pct", "sign_test_p"}
    assert [r["model"] for r in out["rows"]] == ["DPR", "ANCE", "TAS-B", "GenQ", "ColBERT",
                                                 "docT5query"]
    assert len(out["baseline_ge_all_dense"]) == 10
    assert out["baseline_first"] == ["HotpotQA", "Signal-1M", "Touche-2020"]
    assert out["first_place_counts"]["ColBERT"] == 7


def test_cli_add_and_errors(tmp_path, capsys):
    f = tmp_path / "mine.csv"
    f.write_text("dataset,ndcg@10\nscifact,0.672\nnq,0.5\n", encoding="utf-8")
    assert main(["beir-table", "--baseline", "colbert", "--add", str(f), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["baseline"] == "ColBERT" and out["rows"][-1]["model"] == "mine"
    assert out["rows"][-1]["n_datasets"] == 2
    assert out["added"]["n_datasets"] == 2 and out["added"]["datasets"] == ["NQ", "SciFact"]
    assert main(["beir-table", "--add", str(f)]) == 0
    assert "mine: 2 of 18 datasets" in capsys.readouterr().out
    f.write_text("dataset,ndcg@10\nmsmarco,0.4\n", encoding="utf-8")
    assert main(["beir-table", "--add", str(f)]) == 2
    assert "msmarco" in capsys.readouterr().err
    assert main(["beir-table", "--baseline", "nope"]) == 2
    assert "baseline must be one of" in capsys.readouterr().err


def test_strongest_rival_is_the_dense_model_with_most_wins(bm25):
    from core.retrieval.beir_table import strongest_rival
    dense = [r for r in bm25.rows if r.kind == "dense"]
    rival = strongest_rival(bm25)
    assert rival.model == max(dense, key=lambda r: r.model_wins).model == "TAS-B"
    assert strongest_rival(bm25, None).model_wins == max(r.model_wins for r in bm25.rows)
    assert strongest_rival(bm25, "yours") is None
    with pytest.raises(ValueError, match="kind"):
        strongest_rival(bm25, "neural")


def test_tally_card_numbers_come_from_the_rival_row(bm25, grid):
    from core.retrieval.beir_table import strongest_rival
    from core.views.beir_table import tally_card
    rival = strongest_rival(bm25)
    card = tally_card(bm25, metric=grid.metric)
    assert card.value == f"{rival.baseline_wins} of {rival.n_datasets}"
    assert f"p = {rival.sign_test_p:.3f}" in card.interval and card.tone == "neutral"
    ko = tally_card(bm25, metric=grid.metric, lang="ko")
    assert ko.value == f"{rival.n_datasets}개 중 {rival.baseline_wins}개"
