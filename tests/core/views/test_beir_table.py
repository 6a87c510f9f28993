"""core.views.beir_table: every number in the story, the CLI text and the charts comes from
the tally (``core.retrieval.beir_table``)."""
import pytest

from core.retrieval.beir_grid import load_grid, parse_grid
from core.retrieval.beir_table import scifact_ranking, tally
from core.views.beir_table import heatmap_chart, scifact_chart, story, tally_chart, tally_text

GRID = parse_grid("""# kinds: BM25=lexical; DPR=dense; ColBERT=late-interaction
dataset,BM25,DPR,ColBERT
A,0.600,0.500,0.650
B,0.300,0.400,0.350
C,0.700,0.200,0.700
""")


def _data(chart):
    return [d for d in chart.to_dict()["datasets"].values()]


def test_story_groups_models_by_standing_with_their_counts():
    res = tally(GRID, "BM25")
    text = story(res)
    lines = text.splitlines()
    assert len(lines) >= 2 and all(line.startswith("- ") for line in lines)
    dpr, col = res.row("DPR"), res.row("ColBERT")
    assert (dpr.model_wins, dpr.baseline_wins, col.model_wins, col.ties) == (1, 2, 2, 1)
    assert "DPR" in text and "ColBERT" in text and "BM25" in text
    assert story(res, "ko") != text
    with pytest.raises(ValueError):
        story("not a tally")


def test_tally_text_has_one_row_per_model_with_its_duels():
    res = tally(GRID, "BM25")
    text = tally_text(res, GRID)
    row = next(line for line in text.splitlines() if line.strip().startswith("DPR"))
    assert row.split()[1:5] == ["dense", "2", "1", "0"]
    assert all(any(line.strip().startswith(m) for line in text.splitlines())
               for m in ("DPR", "ColBERT"))


def test_heatmap_values_and_differences():
    values = _data(heatmap_chart(GRID, "bm25", mode="value"))[0]
    assert len(values) == 9 and {r["label"] for r in values} >= {"0.600", "0.650"}
    diffs = _data(heatmap_chart(GRID, "BM25", mode="diff"))[0]
    dpr_a = next(r for r in diffs if r["dataset"] == "A" and r["model"] == "DPR")
    assert dpr_a["label"] == "-0.100"
    with pytest.raises(ValueError, match="mode"):
        heatmap_chart(GRID, "BM25", mode="ratio")


def test_tally_chart_bars_span_the_counts():
    res = tally(GRID, "BM25")
    labels = {"baseline_wins": "BM25 wins", "model_wins": "model wins", "ties": "ties"}
    bars = _data(tally_chart(res, labels=labels))[0]
    col = {r["part"]: r for r in bars if r["model"] == "ColBERT"}
    assert col["ties"]["end"] - col["ties"]["start"] == 1
    assert col["model wins"]["end"] - col["model wins"]["start"] == 2
    assert "BM25 wins" not in col  # no loss: no zero-width bar
    with pytest.raises(ValueError, match="labels"):
        tally_chart(res, labels={"ties": "x"})


def test_scifact_chart_labels_paper_and_measured_rows():
    ranking = scifact_ranking(load_grid(), {"mine": {"ndcg@10": 0.9}})
    rows = _data(scifact_chart(ranking, source_labels={"paper": "paper", "measured": "ours"}))[0]
    assert rows[0]["label"] == "mine (ours)" and rows[0]["ndcg@10"] == 0.9
    bm25 = next(r for r in rows if r["name"] == "BM25")
    assert bm25["label"] == "BM25 (paper)" and bm25["ndcg@10"] == pytest.approx(0.665)
    assert len(rows) == len(ranking)


def test_tally_card_states_the_duel_with_the_strongest_dense_rival():
    from core.retrieval.beir_table import strongest_rival
    from core.views.beir_table import tally_card

    res = tally(GRID, "BM25")
    rival = strongest_rival(res)
    assert rival.model == "DPR"  # the only dense model
    card = tally_card(res, metric="nDCG@10")
    text = " ".join((card.label, card.value, card.interval, card.sentence, card.reason))
    assert "DPR" in text and "BM25" in text
    assert str(rival.baseline_wins) in text and str(rival.n_datasets) in text
    assert card.tone in ("better", "worse", "neutral")
    only_base = tally(parse_grid("# kinds: BM25=lexical; X=lexical\ndataset,BM25,X\nA,0.5,0.4\n"),
                      "BM25")
    assert tally_card(only_base, metric="nDCG@10").label  # no dense model: any kind


@pytest.mark.parametrize("lang, wins", [("en", ("BM25 wins", "model wins")),
                                        ("ko", ("BM25 승", "모델 승"))])
def test_tally_text_header_names_whose_wins_each_column_counts(lang, wins):
    """Issue 37: the header read "model kind base model ties". Each column now says what it
    counts, and each number sits under its header (right edges line up, in display columns
    for the Korean header)."""
    from core.views.charts import display_width
    res = tally(GRID, "BM25")
    lines = tally_text(res, GRID, lang).splitlines()
    header = lines[1]
    assert wins[0] in header and wins[1] in header and "base model" not in header
    row = next(line for line in lines if line.strip().startswith("DPR"))
    r = next(r for r in res.rows if r.model == "DPR")
    for label, value in ((wins[0], r.baseline_wins), (wins[1], r.model_wins)):
        end = display_width(header[:header.index(label) + len(label)])
        assert row[:end].rstrip().endswith(f" {value}")
def test_tally_chart_names_every_model_on_its_axis():
    """Issue 37: the presentation view named 3 of 6 models (Streamlit's theme dropped every
    other label once they were 20 px). The axis keeps them all, in the tally's order."""
    from core.views.charts import enlarge, present_rows
    res = tally(load_grid(), "BM25")
    assert len(res.rows) >= 6
    labels = {"baseline_wins": "BM25 wins", "model_wins": "model wins", "ties": "ties"}
    chart = tally_chart(res, labels=labels)
    spec = chart.to_dict()
    y = spec["layer"][0]["encoding"]["y"]
    assert y["axis"]["labelOverlap"] is False and y["axis"]["labelLimit"] == 0
    assert y["sort"] == [r.model for r in res.rows]
    drawn = {r["model"] for r in _data(chart)[0]}
    assert drawn == {r.model for r in res.rows}
    big = enlarge(chart, height=present_rows(len(res.rows), 130)).to_dict()
    assert big["height"] >= 30 * len(res.rows)
    assert big["config"]["axisDiscrete"]["labelOverlap"] is False
