"""core.retrieval.beir_grid: the stored BEIR Table 2 grid, lenient names, thousandths and cell parsing."""
import math

import pytest

from core.retrieval.beir_grid import (DATA, KINDS, Grid, load_grid, norm_name, parse_grid, parse_score,
                            to_milli)
from core.errors import InputError

GRID = """# citation: someone 2021
# metric: nDCG@10
# kinds: BM25=lexical; DPR=dense
dataset,BM25,DPR
SciFact,0.665,0.318
FiQA-2018,0.236,0.112
"""


def test_norm_name_drops_accents_case_and_punctuation_keeps_hangul():
    assert norm_name("Touché-2020") == "touche2020"
    assert norm_name("nDCG@10") == "ndcg10"
    assert norm_name(" 데이터 셋 ") == "데이터셋"


@pytest.mark.parametrize("x,milli", [(0.6745, 675), (0.6744, 674), ("0.0005", 1), (1, 1000),
                                     (0.1 + 0.2, 300)])
def test_to_milli_rounds_half_up_on_the_decimal_text(x, milli):
    assert to_milli(x) == milli


def test_to_milli_refuses_non_numbers():
    for bad in ("abc", float("nan")):
        with pytest.raises(ValueError, match="x must be"):
            to_milli(bad)


def test_parse_grid_reads_meta_kinds_and_values():
    g = parse_grid(GRID, "g.csv")
    assert g.models == ["BM25", "DPR"] and g.datasets == ["SciFact", "FiQA-2018"]
    assert g.kinds == {"BM25": "lexical", "DPR": "dense"} and g.citation == "someone 2021"
    assert g.metric == "nDCG@10" and g.url == ""
    assert g.frame.loc["SciFact", "DPR"] == 0.318


@pytest.mark.parametrize("text,code,row", [
    (GRID.replace("0.318", ""), "beir_table.err_grid_blank", 5),
    (GRID.replace("0.318", "31.8"), "beir_table.err_percent", 5),
    (GRID.replace("DPR=dense", "DPR=magic"), "beir_table.err_grid_kind", None),
    (GRID.replace("dataset,", "name,"), "beir_table.err_grid_first_column", None),
    (GRID.replace("FiQA-2018", "SciFact"), "beir_table.err_duplicate_dataset", None),
])
def test_parse_grid_names_the_bad_cell(text, code, row):
    with pytest.raises(InputError) as e:
        parse_grid(text, "g.csv")
    assert e.value.code == code and e.value.file == "g.csv"
    if row is not None:
        assert e.value.row == row


def test_the_stored_grid_is_the_paper_table():
    g = load_grid()
    assert DATA.name == "beir_table2.csv" and len(g.datasets) == 18
    assert set(g.kinds.values()) <= set(KINDS) and "BM25" in g.models
    assert g.frame.loc["SciFact", "BM25"] == pytest.approx(0.665)
    assert "arXiv:2104.08663" in g.citation


def test_grid_lookups_and_new_grids():
    g = parse_grid(GRID)
    assert g.model("bm25") == "BM25" and g.dataset("fiqa") == "FiQA-2018"
    assert g.dataset("scifact") == "SciFact" and g.dataset("nothing") is None
    with pytest.raises(ValueError, match="baseline must be one of"):
        g.model("ColBERT")
    g2 = g.with_column("mine", {"SciFact": 0.7})
    assert isinstance(g2, Grid) and g2.kinds["mine"] == "yours" and "mine" not in g.models
    assert math.isnan(g2.frame.loc["FiQA-2018", "mine"])
    with pytest.raises(ValueError, match="already a column"):
        g.with_column("bm25", {})
    assert g.subset(["FiQA-2018"]).datasets == ["FiQA-2018"]
    long = g.long("BM25")
    assert len(long) == 4 and long.loc[long["model"] == "DPR", "diff"].round(3).tolist() == \
        [-0.347, -0.124]


def test_parse_score():
    assert parse_score(" 0,5 ", file="f", row=2, column="c") == 0.5
    assert parse_score("", file="f", row=2, column="c") is None
    for bad, code in (("x", "beir_table.err_bad_value"), ("65", "beir_table.err_percent"),
                      ("-0.1", "beir_table.err_bad_value"), ("1,000", "ambiguous_number")):
        with pytest.raises(InputError) as e:
            parse_score(bad, file="f", row=3, column="c")
        assert (e.value.code, e.value.row, e.value.column) == (code, 3, "c")
