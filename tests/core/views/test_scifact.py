"""core.views.scifact: the sentence, the CLI text and the charts of a retriever comparison
carry its own numbers (B − A on the measure's scale)."""
import numpy as np
import pandas as pd

from core.paired.best import best_set
from core.i18n import t
from core.retrieval.scifact import MEASURES, ScifactResult, ci_by_n, compare_retrievers, rank_retrievers
from core.views.best_set import best_lines, best_sentence, renamed
from core.views.verdicts import verdict_sentence
from core.views.format import signed
from core.views.scifact import (NAMES, best_line, ci_by_n_chart, comparison_sentence,
                                result_text, scatter_chart)


def _tables(n=60, seed=0, hybrid=False):
    rng = np.random.default_rng(seed)
    idx = pd.Index([f"q{i:03d}" for i in range(n)], name="query_id")
    a = rng.random(n).round(2)
    b = np.clip(a + rng.normal(0.1, 0.1, n), 0, 1).round(2)
    h = np.clip(b + rng.normal(0.0, 0.05, n), 0, 1).round(2)   # level with dense
    out = {}
    for name, vals in (("bm25", a), ("dense", b)) + ((("hybrid", h),) if hybrid else ()):
        out[name] = pd.DataFrame({m: vals for m in MEASURES}, index=idx)
        out[name]["hit@10"] = (vals > 0.3).astype(float)
    return out


def _comparison():
    return compare_retrievers(_tables(), "bm25", "dense", "ndcg@10", resamples=2000, seed=1)


def test_comparison_sentence_uses_display_names_and_the_score_scale():
    c = _comparison()
    bs = c.bootstrap
    assert comparison_sentence(c, names=NAMES) == verdict_sentence(
        c.verdict, a="BM25", b="Dense", mean=bs.mean, ci_low=bs.ci_low, ci_high=bs.ci_high,
        n=60, confidence=0.95, unit="queries", kind="score")
    assert c.verdict == "b_better" and comparison_sentence(c).startswith("dense")


def test_result_text_lists_scores_duels_and_the_difference():
    c = _comparison()
    res = ScifactResult({"name": "tiny", "path": "x", "n_docs": 1234, "n_queries": 70,
                         "n_judgements": 80}, {"bm25": {"ndcg@10": 0.5}}, c, {})
    out = result_text(res)
    lines = out.splitlines()
    assert lines[0] == "tiny: 1,234 documents, 60 of 70 judged queries"
    assert f"bm25 wins {c.a_wins}, dense wins {c.b_wins}, ties {c.ties}" in out
    assert f"dense − bm25: {signed(c.bootstrap.mean, 4)}" in out
    assert comparison_sentence(c) in lines


def test_scatter_groups_equal_pairs_and_draws_the_diagonal():
    c = _comparison()
    data = list(scatter_chart(c).to_dict()["datasets"].values())
    pts = next(d for d in data if d and "queries" in d[0])
    assert sum(p["queries"] for p in pts) == 60
    assert len(pts) == len(set(zip(c.a_values.round(6), c.b_values.round(6))))
    assert any(d == [{"x": 0.0, "y": 0.0}, {"x": 1.0, "y": 1.0}] for d in data)


def test_ci_by_n_chart_highlights_the_chosen_size():
    rows = ci_by_n(_tables(), "bm25", "dense", "ndcg@10", [10, 20, 40, 60], resamples=1000)
    data = list(ci_by_n_chart(rows, 20).to_dict()["datasets"].values())
    pts = next(d for d in data if d and "chosen" in d[0])
    assert [p["n"] for p in pts] == [10, 20, 40, 60]
    assert [p["chosen"] for p in pts] == [False, True, False, False]
    assert pts[-1]["mean"] == rows["mean"].iloc[-1]


def test_best_line_names_the_tied_set_of_all_three_in_both_languages():
    tables = _tables(hybrid=True)
    bs = rank_retrievers(tables, "ndcg@10", resamples=2000, seed=1)
    ref = best_set(pd.DataFrame({r: tables[r]["ndcg@10"] for r in ("bm25", "dense", "hybrid")}),
                   resamples=2000, seed=1)
    assert bs.best == ref.best and bs.critical == ref.critical   # one path: core.paired.best
    assert set(bs.best) == {"dense", "hybrid"} and bs.behind == ("bm25",)
    en = best_line(bs, "ndcg@10", "en", NAMES)
    assert en.startswith("All 3 retrievers on ndcg@10: Best: ")
    assert "cannot tell which; BM25 is behind both." in en
    assert "Dense" in en and "Hybrid (RRF)" in en and "bm25" not in en
    ko = best_line(bs, "ndcg@10", "ko", NAMES)
    assert ko == t("scifact.best_line", "ko", k=3, metric="ndcg@10",
                   sentence=best_sentence(renamed(bs, NAMES), "ko"))
    assert "BM25" in ko and "알 수 없습니다" in ko


def test_renamed_keeps_the_numbers_and_maps_every_name():
    bs = rank_retrievers(_tables(hybrid=True), "ndcg@10", resamples=500, seed=0)
    shown = renamed(bs, NAMES)
    assert shown.systems == tuple(NAMES[s] for s in bs.systems)
    assert [r.rank_low for r in shown.ranks] == [r.rank_low for r in bs.ranks]
    assert [r.behind_of for r in shown.ranks] == [tuple(NAMES[x] for x in r.behind_of)
                                                  for r in bs.ranks]
    assert {(p.a, p.b) for p in shown.pairs} == {(NAMES[p.a], NAMES[p.b]) for p in bs.pairs}
    assert renamed(bs, None) is bs


def test_result_text_ends_the_comparison_with_the_tied_for_best_lines():
    tables = _tables(hybrid=True)
    c = compare_retrievers(tables, "bm25", "dense", "ndcg@10", resamples=1000, seed=1)
    bs = rank_retrievers(tables, "ndcg@10", resamples=1000, seed=1)
    res = ScifactResult({"name": "tiny", "path": "x", "n_docs": 10, "n_queries": 60,
                         "n_judgements": 80}, {}, c, {}, best=bs)
    out = result_text(res)
    assert "\n".join(best_lines(bs)) in out
    assert "Tied for best (95%, all 3 systems at once" in out


# ----------------------------------------------------------------------------- issue 37
def test_step_lines_carry_the_counts_and_the_eta_of_the_step():
    from core.retrieval.encode_job import step_status
    from core.views.scifact import duration, step_text
    s = step_status("check", 4.0, done=8, total=32)
    assert step_text(s, "en") == ("Checking the shipped vectors: 8 of 32 sample documents "
                                  "and queries encoded live: 4 s so far, about 12 s left.")
    assert "32개 중 8개" in step_text(s, "ko") and "약 12 s 남음" in step_text(s, "ko")
    s = step_status("load", 3.0, last=95.0)
    assert step_text(s, "en") == "Loading the dense model: 3 s so far, about 1 min 32 s left."
    s = step_status("load", 20.0, last=12.0)
    assert step_text(s, "en").endswith("20 s so far, longer than last time (12 s).")
    s = step_status("queries", 1.0, total=300)
    assert step_text(s, "en").startswith("Encoding the 300 queries")
    assert "no estimate yet" in step_text(s, "en")
    assert "예상 시간이 없습니다" in step_text(s, "ko")
    assert duration(None) == "…" and duration(59.6) == "1 min 00 s" and duration(5) == "5 s"


def test_waiting_card_shows_bm25s_own_score_and_interval():
    from core.paired.compare import rate_estimate
    from core.retrieval.scifact import retriever_estimate
    from core.views.scifact import waiting_card
    tables = _tables()
    est = retriever_estimate(tables, "bm25", "ndcg@10", resamples=2000, seed=3)
    ref = rate_estimate(tables["bm25"]["ndcg@10"].to_numpy(), resamples=2000, seed=3)
    assert (est.mean, est.ci_low, est.ci_high) == (ref.mean, ref.ci_low, ref.ci_high)
    card = waiting_card(est, metric="ndcg@10", confidence=0.95, lang="en")
    assert card.tone == "neutral" and card.value == f"{est.mean:.3f}"
    assert card.interval == f"95% CI [{est.ci_low:.3f}, {est.ci_high:.3f}]"
    assert card.sentence.startswith(f"BM25 scores {est.mean:.3f} on 60 queries.")
    hits = retriever_estimate(tables, "bm25", "hit@10", queries=list(tables["bm25"].index[:20]))
    assert hits.interval == "wilson" and hits.n == 20
    ko = waiting_card(hits, metric="hit@10", confidence=0.9, lang="ko")
    assert ko.value == f"{100 * hits.mean:.1f}%" and "질의 20개" in ko.sentence
    assert ko.interval.startswith("90% ")


def test_folder_label_never_shows_the_machines_path(tmp_path, monkeypatch):
    """Issue 37: the page listed the BEIR folder by its absolute path. The default folder is
    the copy shipped with NoiseFloor, folders under data/beir/ are named from there, a folder
    of the checkout relative to it, any other by its name and the variable that named it."""
    import core.retrieval.beir as beir
    from core.views.scifact import folder_label
    monkeypatch.setattr(beir, "BEIR_ROOT", tmp_path / "beir")
    monkeypatch.setattr(beir, "DEFAULT_DIR", tmp_path / "beir" / "scifact")
    assert folder_label(tmp_path / "beir" / "scifact") == \
        "data/beir/scifact (the copy shipped with NoiseFloor)"
    assert folder_label(str(tmp_path / "beir" / "nfcorpus")) == "data/beir/nfcorpus"
    assert folder_label(beir.REPO_ROOT / "tests" / "fixtures" / "beir_tiny") == \
        "tests/fixtures/beir_tiny"
    outside = folder_label(tmp_path / "elsewhere" / "mine")
    assert outside == "mine (the folder in NOISEFLOOR_BEIR_DIR)"
    assert folder_label(tmp_path / "beir" / "scifact", "ko").startswith("data/beir/scifact (")
    for label in (outside, folder_label(tmp_path / "beir" / "nfcorpus")):
        assert str(tmp_path) not in label
def test_split_names_are_translated_and_other_names_kept():
    """Issue 36: the BEIR split reads '테스트' in Korean, 'test' in English; a folder's own
    split name is shown as it is."""
    from core.views.scifact import split_name
    assert split_name("test", "ko") == "테스트" and split_name("test", "en") == "test"
    assert split_name("dev", "ko") == "개발" and split_name("my_split", "ko") == "my_split"
    assert "테스트 분할" in t("scifact.collection", "ko", name="scifact", docs="1", queries="1",
                           judgements="1", split=split_name("test", "ko"))
