"""The ranked-lists & many-systems page under AppTest: both demos, uploads, bad uploads."""
import gzip
import html
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.inputs.lists import load_lists, score_lists
from core.paired.multi import compare_many
from core.views.verdicts import fmt_p
from core.inputs.trec import read_qrels, read_run, score_runs

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "systems.py")
DEMO_TREC = ROOT / "data" / "demo_trec"



def _unescape(text):
    """st.table cells are escaped Markdown (pages._ui.show_table): the text as shown."""
    return re.sub(r"\\(.)", r"\1", text) if isinstance(text, str) else text


def _pairs_table(at):
    """The many-systems pairs table as the reader sees it (escapes undone)."""
    frame = next(d.value.reset_index() for d in at.table
                 if any("Holm" in str(c) for c in d.value.columns))
    frame.columns = [_unescape(c) for c in frame.columns]
    return frame.map(_unescape)

def _page(resamples=1000):
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["systems_resamples"] = resamples
    return at.run()


def _texts(at):
    return [html.unescape(e.value) for kind in (at.warning, at.success, at.info, at.caption,
                                                at.markdown) for e in kind]


def test_lists_demo_reaches_a_verdict_and_a_matrix():
    at = _page()
    assert not at.exception and not at.error
    texts = _texts(at)
    assert any("bm25" in t and "dense" in t and ("No significant" in t or "better" in t)
               for t in texts)
    assert any("Holm" in t for t in texts)
    # the means table is the data's: same numbers as core.inputs.lists
    ref = score_lists(load_lists((ROOT / "data" / "demo_lists.csv").read_bytes(),
                                 "demo_lists.csv"), 10).means()
    shown = at.dataframe[0].value
    assert shown.loc["ndcg@10", "hybrid"] == f"{ref.at['hybrid', 'ndcg@10']:.3f}"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["bm25"] == f"{ref.at['bm25', 'ndcg@10']:.3f}"
    # pairs table: 3 pairs, translated headers, core.paired.multi's Holm p-values in one unit
    pairs = _pairs_table(at)
    many = compare_many(score_lists(load_lists((ROOT / "data" / "demo_lists.csv").read_bytes(),
                                               "demo_lists.csv"), 10).values["ndcg@10"],
                        mode="all", baseline=None, resamples=1000, confidence=0.95, seed=0)
    assert list(pairs["p (Holm)"]) == [fmt_p(p_.p_holm) for p_ in many.pairs]
    assert list(pairs["B − A"]) == [f"{p_.mean:+.3f}" for p_ in many.pairs]  # mean is B − A
    assert "B wins / ties / A wins" in pairs.columns and "p_holm" not in pairs.columns
    # drill-down: side-by-side lists for the first disagreement
    side = at.dataframe[-1].value
    assert list(side.columns) == ["rank", "bm25", "bm25 relevant", "dense", "dense relevant"]


def test_lists_metric_k_and_baseline_mode():
    at = _page()
    at.selectbox(key="systems_metric").set_value("hit")
    at.number_input(key="systems_k").set_value(3)
    at.radio(key="systems_mode").set_value("baseline")
    at.run()
    assert not at.exception and not at.error
    at.selectbox(key="systems_baseline").set_value("hybrid").run()
    pairs = _pairs_table(at)
    # the baseline is A of every pair (the table's index), so B − A = system − baseline
    assert set(pairs.iloc[:, 0]) == {"hybrid"} and len(pairs) == 2
    assert "hybrid" not in set(pairs["B"])
    # hit@3 is binary: Wilson intervals
    assert any("Wilson" in c for c in _texts(at))


def test_trec_demo_reports_missing_and_unjudged_queries():
    at = _page()
    at.segmented_control(key="systems_source").set_value("trec").run()
    assert not at.exception and not at.error
    texts = _texts(at)
    assert any("'dense' has no results for 1 judged" in t and "q50" in t for t in texts)
    assert any("'hybrid' has 1 query that is not in the qrels" in t for t in texts)
    qrels = read_qrels((DEMO_TREC / "qrels.txt").read_bytes(), "qrels.txt")
    runs = [read_run((DEMO_TREC / n).read_bytes(), n) for n in ("bm25.run", "dense.run",
                                                                  "hybrid.run")]
    ref = score_runs(runs, qrels, ["nDCG@10"]).means()
    assert at.dataframe[0].value.loc["nDCG@10", "hybrid"] == f"{ref.at['hybrid', 'nDCG@10']:.3f}"
    at.selectbox(key="systems_measure").set_value("R@100").run()
    assert not at.exception and not at.error


def test_trec_upload_gz_two_runs_and_korean():
    qrels = b"q1 0 a 1\nq1 0 b 0\nq2 0 c 2\nq3 0 d 1\nq4 0 e 1\n"
    good = "".join(f"{q} Q0 {d} 1 2.0 good\n" for q, d in
                   [("q1", "a"), ("q2", "c"), ("q3", "d"), ("q4", "e")]).encode()
    bad = "".join(f"{q} Q0 x{q} 1 2.0 bad\n" for q in ("q1", "q2", "q3", "q4")).encode()
    at = _page()
    at.segmented_control(key="systems_source").set_value("trec").run()
    at.file_uploader(key="systems_qrels_upload").set_value(("q.txt", qrels, "text/plain"))
    at.file_uploader(key="systems_runs_upload").set_value(
        [("good.run.gz", gzip.compress(good), "application/gzip"),
         ("bad.run", bad, "text/plain")])
    at.run()
    assert not at.exception and not at.error
    # nDCG@10 is 1 or 0 on every query here, so the page treats it as binary (Wilson)
    assert at.metric[0].label == "good" and at.metric[0].value == "100.0% (4/4)"
    # 4 of 4 queries for "good": the CI excludes 0, but the exact McNemar p is 0.125 (issue
    # #11): no winner, and the page says why.
    assert not any("good is better than bad" in t for t in _texts(at))
    assert any("No significant difference" in t for t in _texts(at))
    assert any("with 4 discordant pairs the smallest possible p" in t for t in _texts(at))
    at.session_state["lang"] = "ko"
    at.run()
    assert not at.exception
    assert any("엇갈린 쌍이 4개뿐이면" in t for t in _texts(at))


@pytest.mark.parametrize("content,needle", [
    (b"case_id,query,gold_ids,A,B\nq1,x,d1,\"[\"\"d1\"\",\",d2\nq2,y,d2,d2,d3\n",
     "row 2, column 'A'"),
    (b"case_id,query,A,B\nq1,x,d1,d2\nq2,y,d2,d3\n", "no reference column"),
])
def test_bad_lists_upload_names_the_place(content, needle):
    at = _page()
    at.file_uploader(key="systems_lists_upload").set_value(("bad.csv", content, "text/csv"))
    at.run()
    assert not at.exception
    assert any(needle in e.value for e in at.error)


def test_bad_run_line_names_file_and_line():
    at = _page()
    at.segmented_control(key="systems_source").set_value("trec").run()
    at.file_uploader(key="systems_qrels_upload").set_value(("q.txt", b"q1 0 a 1\n",
                                                            "text/plain"))
    at.file_uploader(key="systems_runs_upload").set_value(
        [("r.run", b"q1 Q0 a 1 2.0 t\nq1 Q0 b 2 oops t\n", "text/plain")])
    at.run()
    assert not at.exception
    assert any("r.run, row 2, column 'score'" in e.value for e in at.error)



RAW_KEYS = re.compile(r"\b(mean_a|mean_b|p_holm|ci_low|ci_high|b_better|a_better|"
                      r"no_difference|cohens_dz|case_id|True|False)\b")


def test_korean_tables_and_copies_carry_no_raw_keys():
    """Every table a person reads or copies (screen, Markdown/LaTeX copies) is translated;
    the JSON/CSV downloads keep their English keys."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["lang"] = "ko"
    at.run()
    assert not at.exception
    copies = [c.value for c in at.code]
    assert copies, "no Markdown/LaTeX copies"
    raw = sorted({m.group(0) for c in copies for m in RAW_KEYS.finditer(c)})
    assert raw == [], raw
    shown = [str(list(t.value.columns)) + t.value.to_string() for t in at.table]
    raw = sorted({m.group(0) for s in shown for m in RAW_KEYS.finditer(s)})
    assert raw == [], raw
    assert any("B − A" in s for s in shown)


def test_presentation_view_and_heatmap_rows():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["view"] = "present"
    at.run()
    assert not at.exception
    assert sum("verdict-card" in m.value for m in at.markdown) == 1
    assert len(at.get("vega_lite_chart")) == 1 and len(at.metric) == 0
    from core.views.multi import matrix_chart
    scores = score_lists(load_lists((ROOT / "data" / "demo_lists.csv").read_bytes(),
                                    "demo_lists.csv"), 10).golden("ndcg@10").scores
    spec = matrix_chart(compare_many(scores, resamples=1_000)).to_dict()
    assert spec["height"] == {"step": 56}   # a band per row, never a shared fixed height


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_margin_on_the_systems_pair_in_both_languages(lang):
    from core.inputs.systems import compare_golden
    from core.i18n import t
    from core.paired.margin import margin_decision
    from core.views import format as fmt
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["systems_resamples"] = 1000
    at.session_state["lang"] = lang
    at.query_params["margin"] = "0.05"
    at.run()
    assert not at.exception and not at.error
    assert at.number_input(key="systems_margin_score").value == 0.05
    scores = score_lists(load_lists((ROOT / "data" / "demo_lists.csv").read_bytes(),
                                    "demo_lists.csv"), 10)
    want = margin_decision(compare_golden(scores.golden("ndcg@10"), "bm25", "dense",
                                          resamples=1000).comparison, 0.05)
    card = html.unescape(next(m.value for m in at.markdown if "verdict-card" in m.value))
    assert t(f"margin.verdict_{want.verdict}", lang, a="bm25", b="dense", margin="0.050",
             est=fmt.diff(want.mean, "score"), lo=fmt.diff(want.ci_low, "score"),
             hi=fmt.diff(want.ci_high, "score")) in card
    assert 'class="verdict-band"' in card
    if lang == "ko":   # AppTest re-reads the Korean lists selectbox with an English label
        return
    at.number_input(key="systems_margin_score").set_value(0.0).run()
    card = html.unescape(next(m.value for m in at.markdown if "verdict-card" in m.value))
    assert "verdict-band" not in card and "margin" not in at.query_params


def _demo_trec_scores():
    qrels = read_qrels((DEMO_TREC / "qrels.txt").read_bytes(), "qrels.txt")
    runs = [read_run((DEMO_TREC / n).read_bytes(), n) for n in ("bm25.run", "dense.run",
                                                                  "hybrid.run")]
    return score_runs(runs, qrels, ["nDCG@10"])


def _trec_with_groups(lang, groups=None):
    """The TREC demo with a qid,group side file uploaded (the demo runs and qrels stay)."""
    groups = groups or "qid,group\n" + "".join(f"q{i:02d},{'short' if i % 3 else 'long'}\n"
                                               for i in range(1, 51))
    qrels_data = (DEMO_TREC / "qrels.txt").read_bytes()
    at = _page()
    at.segmented_control(key="systems_source").set_value("trec").run()
    at.file_uploader(key="systems_qrels_upload").set_value(("qrels.txt", qrels_data,
                                                            "text/plain"))
    at.file_uploader(key="systems_runs_upload").set_value(
        [(n, (DEMO_TREC / n).read_bytes(), "text/plain") for n in ("bm25.run", "dense.run",
                                                                    "hybrid.run")])
    at.file_uploader(key="systems_groups_upload").set_value(("groups.csv", groups.encode(),
                                                             "text/csv"))
    at.run()
    # the language last: AppTest formats widget values in English between runs
    at.session_state["lang"] = lang
    return at.run(), groups


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_trec_groups_side_file_and_judged_at_10(lang):
    from core.inputs.systems import compare_golden
    from core.inputs.groups import by_group, read_group_file
    from core.inputs.judged import trec_bounds

    at, groups = _trec_with_groups(lang)
    assert not at.exception and not at.error
    ts = _demo_trec_scores()
    gs = ts.golden("nDCG@10").with_groups(read_group_file(groups.encode(), "groups.csv"),
                                          "groups.csv")
    ref = by_group(compare_golden(gs, "bm25", "dense", resamples=1000), resamples=1000)
    col = "그룹" if lang == "ko" else "group"
    tables = [t.value.rename(columns=lambda c: _unescape(c).replace("\u2060", ""))
              for t in at.table]
    table = next(t for t in tables if col in t.columns)
    assert list(table[col]) == ["short", "long"]
    assert [int(x) for x in table["n"]] == [g.n for g in ref.groups]
    assert list(table["dense − bm25"]) == [f"{g.diff:+.3f}" for g in ref.groups]
    # Judged@10 of each run, as core.inputs.judged (= ir_measures) computes it, in %
    jb = trec_bounds(ts, "bm25", "dense", resamples=1000)
    judged = next(t for t in tables if "Judged@10" in t.columns)
    method = "방법" if lang == "ko" else "method"
    assert list(judged[method]) == ["bm25", "dense", "hybrid"]
    assert list(judged["Judged@10"]) == [f"{100 * jb.judged[m].mean():.1f}%"
                                         for m in ("bm25", "dense", "hybrid")]
    assert any(b.label.startswith("판정 없는" if lang == "ko" else "Download the unjudged")
               for b in at.get("download_button"))
    title = "빠진 레이블" if lang == "ko" else "Missing labels"
    assert any(title in s.value for s in at.subheader)


def test_a_verdict_that_depends_on_missing_labels_is_flagged():
    # A finds the one judged document first; B puts two unjudged documents above it
    cases = [f"c{i:02d}" for i in range(30)]
    rows = ["case_id,query,gold_ids,A,B"] + [
        f"{c},question {c},g{c},g{c}|a{c},b{c}|x{c}|g{c}" for c in cases]
    at = _page()
    at.file_uploader(key="systems_lists_upload").set_value(
        ("labels.csv", ("\n".join(rows) + "\n").encode(), "text/csv"))
    at.run()
    at.selectbox(key="systems_metric").set_value("hit")
    at.number_input(key="systems_k").set_value(2)
    at.run()
    assert not at.exception and not at.error
    assert any("depends on labels that are missing" in w.value for w in at.warning)
    # no group column: the hint says how to add one
    assert any("'group'" in c.value for c in at.caption)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_lists_demo_shows_its_query_groups(lang):
    """data/demo_lists.csv carries a 'group' column (query type): the demo itself shows B − A
    per group, core.inputs.groups' numbers, and no hint about adding groups."""
    from core.inputs.systems import compare_golden
    from core.inputs.groups import by_group

    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["lang"] = lang
    at.session_state["systems_resamples"] = 1000
    at.run()
    assert not at.exception and not at.error
    title = "질의 그룹별 ('group')" if lang == "ko" else "By query group ('group')"
    assert any(title in _unescape(s.value) for s in at.subheader)
    assert not any("'group'" in c.value for c in at.caption)   # the hint is gone
    gs = score_lists(load_lists((ROOT / "data" / "demo_lists.csv").read_bytes(),
                                "demo_lists.csv"), 10).golden("ndcg@10")
    ref = by_group(compare_golden(gs, "bm25", "dense", resamples=1000), resamples=1000)
    col = "그룹" if lang == "ko" else "group"
    table = next(t.value for t in at.table if col in t.value.columns)
    assert list(table[col]) == [g.group for g in ref.groups] == ["account", "billing",
                                                                  "product"]
    assert [int(x) for x in table["n"]] == [g.n for g in ref.groups] == [12, 14, 14]
    assert list(table["dense − bm25"]) == [f"{g.diff:+.3f}" for g in ref.groups]
    word = "순열" if lang == "ko" else "Permutation"
    assert any(word in m.value for m in at.markdown)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_group_file_ids_outside_the_runs_are_named_or_refused(lang):
    extra = "qid,group\n" + "".join(f"q{i:02d},{'a' if i % 2 else 'b'}\n"
                                    for i in range(1, 51)) + "zz9,a\n"
    at, _ = _trec_with_groups(lang, extra)
    assert not at.exception and not at.error
    word = "쓰지 않았습니다" if lang == "ko" else "not among the compared queries"
    assert any(word in w.value and "zz9" in w.value for w in at.warning)
    at, _ = _trec_with_groups(lang, "qid,group\nnope,a\nnada,b\n")
    assert not at.exception
    assert any("groups.csv" in e.value and "nope" in e.value for e in at.error)


@pytest.mark.parametrize("lang, header, note", [
    ("en", "98.33% CI (adjusted)", "each is at 98.33%, so that all 3 hold together at 95%"),
    ("ko", "98.33% 신뢰구간 (보정)", "각 구간은 98.33% 구간이어서 3개가 함께 95%로")])
def test_the_pairs_table_shows_intervals_at_the_level_of_its_verdicts(lang, header, note):
    """Issue 37: dense vs hybrid showed the 95% CI [+0.005, +0.235] beside "no clear
    difference" (Holm p 0.072). The table's interval is now at the verdicts' level (Holm:
    1 - 0.05/3 per pair, Bonferroni), core.paired.multi's adjusted interval, and that pair's holds 0;
    the note says which level it is. Every "no clear difference" with an adjusted p below
    alpha shows an interval holding 0."""
    from core.views import format as fmt
    from core.i18n import t
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["systems_resamples"] = 1000
    at.session_state["lang"] = lang
    at.run()
    assert not at.exception and not at.error
    frame = next(d.value.reset_index() for d in at.table
                 if any(header in _unescape(str(c)) for c in d.value.columns))
    frame.columns = [_unescape(c) for c in frame.columns]
    frame = frame.map(_unescape)
    many = compare_many(score_lists(load_lists((ROOT / "data" / "demo_lists.csv").read_bytes(),
                                               "demo_lists.csv"), 10).values["ndcg@10"],
                        resamples=1000, seed=0)
    assert many.adjusted_confidence == pytest.approx(1 - 0.05 / 3)
    assert list(frame[header]) == [fmt.interval(p.adj_ci_low, p.adj_ci_high, "score",
                                                signed=True) for p in many.pairs]
    by = {(p.a, p.b): p for p in many.pairs}
    hd = by[("dense", "hybrid")]
    assert hd.ci_low > 0 and hd.p_holm >= 0.05 and hd.verdict == "no_difference"
    assert hd.adj_ci_low < 0 < hd.adj_ci_high  # the shown interval holds 0
    no_diff = t("systems.verdict_no_difference", lang)
    verdict_col = t("systems.col_verdict", lang)
    for (_, row), p in zip(frame.iterrows(), many.pairs):
        if row[verdict_col] == no_diff and p.p_holm < 0.05:
            assert p.adj_ci_low <= 0 <= p.adj_ci_high
    assert any(note in _unescape(c.value) for c in at.caption)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_lists_with_a_cluster_column_give_the_cluster_card(lang):
    """Issue 32: a lists file whose 'source' column names each query's document: the column
    is not a system, and the A vs B card treats the document as the unit (its interval equals
    core.inputs.clusters.compare_in_clusters on the same pair)."""
    from core.inputs.clusters import compare_in_clusters, load_lists_clustered
    from core.inputs.systems import compare_golden
    from core.views import format as fmt
    rows = ["case_id,query,source,gold_ids,bm25,dense"]
    for i in range(24):
        gold = f"d{i}"
        bm = f"{gold}|x" if i % 3 else f"x|{gold}"
        de = f"{gold}|x" if i % 4 else f"y|x"
        rows.append(f"q{i},question {i},doc{i // 4},{gold},{bm},{de}")
    data = ("\n".join(rows) + "\n").encode()
    ls, labels, col = load_lists_clustered(data, "c.csv")
    gs = score_lists(ls, 10).golden("ndcg@10")
    res = compare_golden(gs, "bm25", "dense", resamples=1000)
    cc = compare_in_clusters(res, labels, "c.csv", resamples=1000)
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["systems_resamples"] = 1000
    at.run()
    at.file_uploader(key="systems_lists_upload").set_value(("c.csv", data, "text/csv")).run()
    at.session_state["lang"] = lang
    at.run()
    assert not at.exception and not at.error
    assert at.selectbox(key="systems_a").options == ["bm25", "dense"]
    texts = "\n".join(_texts(at))
    lo, hi = fmt.diff(cc.difference.ci_low, "score"), fmt.diff(cc.difference.ci_high, "score")
    assert f"[{lo}, {hi}]" in texts
    assert ("clusters as the unit" in texts) if lang == "en" else ("클러스터 단위" in texts)
