"""Issue 32 item 2 on the pages (AppTest, EN and KO): with a cluster column the margin, the
no-harm shares, the groups and the best set take the document as the unit, each number
checked against core on the same data; repeated runs show their line on the golden page; the
one-line cluster suggestion on the systems page."""
import html
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from core.i18n import t

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = str(ROOT / "pages" / "golden.py")
SYSTEMS = str(ROOT / "pages" / "systems.py")
RUNS = (ROOT / "tests" / "fixtures" / "clusters" / "golden_runs.csv").read_bytes()


def _plain(text) -> str:
    """Markdown escapes undone (pages._ui.esc): the text as the reader sees it."""
    return re.sub(r"\\(.)", r"\1", text) if isinstance(text, str) else text


def _texts(at):
    return "\n".join(_plain(html.unescape(e.value))
                     for kind in (at.warning, at.success, at.info, at.caption, at.markdown)
                     for e in kind)


def _golden_file() -> bytes:
    """12 documents x 4 questions, a group nested in the documents, scores."""
    rng = np.random.default_rng(4)
    rows = ["case_id,document,group,base,new"]
    for doc in range(12):
        shift = rng.normal(0.05, 0.1)
        for q in range(4):
            a = float(rng.random())
            b = float(np.clip(a + shift + rng.normal(0, 0.05), 0, 1))
            rows.append(f"doc{doc}_q{q},doc{doc},{'early' if doc < 6 else 'late'},"
                        f"{a:.4f},{b:.4f}")
    return ("\n".join(rows) + "\n").encode()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_golden_margin_harm_and_groups_take_the_clusters(lang):
    from core.inputs import compare_golden, load_clustered
    from core.inputs.groups import compare_by_group
    from core.paired import cluster_margin, no_harm
    from core.views import format as fmt
    data = _golden_file()
    cl = load_clustered(data, "g.csv")
    res = compare_golden(cl.golden, "base", "new", resamples=1000)
    labels = [cl.labels[i] for i in res.case_ids]
    cm = cluster_margin(res.a_values, res.b_values, labels, 0.02, resamples=1000)
    h = no_harm(res.a_values, res.b_values, delta=0.05, clusters=labels)
    gc = compare_by_group(res.case_ids, res.a_values, res.b_values, cl.golden.group_labels,
                          clusters=cl.labels, resamples=1000, name_a="base", name_b="new")
    at = AppTest.from_file(GOLDEN, default_timeout=180)
    at.session_state["lang"] = lang
    at.session_state["golden_resamples"] = 1000
    at.run()
    at.file_uploader(key="golden_upload").set_value(("g.csv", data, "text/csv")).run()
    at.number_input(key="golden_margin_score").set_value(0.02).run()
    assert not at.exception and not at.error
    texts = _texts(at)
    key = {"holds": "clusters.margin_holds", "unsure": "clusters.margin_unsure",
           "fails": "clusters.margin_fails"}[cm.state]
    assert t(key, lang, a="base", b="new", clusters=12, lo=fmt.diff(cm.ci_low, "score"),
             hi=fmt.diff(cm.ci_high, "score"), limit=fmt.diff(-0.02, "score")) in texts
    assert t("clusters.harm_unit", lang, clusters=12) in texts
    assert h.n_clusters == 12 and f"{h.hurt}/48" in texts
    assert fmt.pct(h.hurt_ci[1], 1) in texts                # the cluster interval's upper end
    assert t("clusters.groups_unit", lang) in texts
    table = next(d.value for d in at.table
                 if t("groups.col_group", lang) in [_plain(str(c)) for c in d.value.columns])
    table.columns = [_plain(str(c)) for c in table.columns]
    shown = [_plain(x) for x in table[t("groups.col_ci", lang, level="95%")]]
    assert shown == [fmt.interval(g.ci_low, g.ci_high, "score", signed=True)
                     for g in gc.groups]
    assert t("clusters.page_independent", lang) in texts


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_golden_shows_the_cluster_block_with_the_clustered_self_check(lang):
    """The golden page's 'Clusters' block shows what ``python -m core compare`` prints with
    clusters: each method's and B − A's cluster-robust interval and the clustered self-check's
    measured rate (core.paired.cluster_check), recomputed here from the same file."""
    from core.inputs import compare_golden, load_clustered
    from core.inputs.clusters import compare_in_clusters
    from core.views import format as fmt
    from core.views.clusters import cluster_lines, self_check_lines
    data = _golden_file()
    cl = load_clustered(data, "g.csv")
    res = compare_golden(cl.golden, "base", "new", resamples=1000)
    cc = compare_in_clusters(res, cl.labels, "document", resamples=1000)
    assert cc.self_check is not None and cc.summary.n_clusters == 12
    at = AppTest.from_file(GOLDEN, default_timeout=180)
    at.session_state["lang"] = lang
    at.session_state["golden_resamples"] = 1000
    at.run()
    at.file_uploader(key="golden_upload").set_value(("g.csv", data, "text/csv")).run()
    assert not at.exception and not at.error
    assert [_plain(e.label) for e in at.expander].count(t("clusters.page_title", lang)) == 1
    texts = _texts(at)
    measured = self_check_lines(cc, lang)[0]
    assert fmt.pct(cc.self_check.null_rejection) in measured and measured in texts
    lines = cluster_lines(cc, "base", "new", "document", False, lang)
    assert lines and all(line in texts for line in lines)
    d = cc.difference   # B − A's clustered interval, as the card shows it
    assert fmt.diff(d.ci_low, "score") in texts and fmt.diff(d.ci_high, "score") in texts
    for est in (cc.a, cc.b):   # each method's cluster-robust interval
        assert fmt.value(est.ci_low, "score") in texts and fmt.value(est.ci_high, "score") in texts


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_golden_runs_line(lang):
    """A long file with a run column: the golden page shows the runs line with
    core.inputs.clusters.runs_block's numbers (k, the run-to-run share, sign flips)."""
    from core.inputs import compare_golden, load_clustered, runs_block
    from core.views.clusters import runs_lines
    cl = load_clustered(RUNS, "r.csv")
    res = compare_golden(cl.golden, resamples=1000)
    block = runs_block(cl.runs, res)
    at = AppTest.from_file(GOLDEN, default_timeout=180)
    at.session_state["lang"] = lang
    at.session_state["golden_resamples"] = 1000
    at.run()
    at.file_uploader(key="golden_upload").set_value(("r.csv", RUNS, "text/csv")).run()
    assert not at.exception and not at.error
    texts = _texts(at)
    lines = runs_lines(block, lang)
    assert len(lines) == 2 and all(line in texts for line in lines)   # runs + unequal runs
    assert f"{block['sign_flips']}" in lines[0] and block["k_max"] == 3


def _lists_file(clustered_ids: bool) -> bytes:
    rows = ["case_id,query,gold_ids,bm25,dense,hybrid"]
    for i in range(24):
        gold = f"d{i}"
        cid = f"doc{i // 4}_q{i % 4}" if clustered_ids else f"q{i}"
        bm25 = f"{gold}|x" if i % 3 else f"x|{gold}"   # rank 2 sometimes: scores, not 0/1
        rows.append(f"{cid},question {i},{gold},{bm25},{gold if i % 4 else 'y'}|x,{gold}|x")
    return ("\n".join(rows) + "\n").encode()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_systems_suggests_the_cluster_option_when_ids_look_clustered(lang):
    hint = t("clusters.hint", lang, sources=6, example="doc0")
    at = _systems(_lists_file(True), lang)
    assert not at.exception and not at.error
    assert hint in _texts(at)
    plain = _systems(_lists_file(False), lang)
    assert not plain.exception and hint not in _texts(plain)
    assert not any("--cluster" in x for x in _texts(plain).splitlines())


def _systems(data: bytes, lang: str, side: bytes | None = None, margin: float = 0.0):
    """The systems page on a lists upload (and a qid,cluster side file, a margin), the
    language set after the uploads (a widget's options are translated)."""
    at = AppTest.from_file(SYSTEMS, default_timeout=180)
    at.session_state["systems_resamples"] = 1000
    at.run()
    at.file_uploader(key="systems_lists_upload").set_value(("l.csv", data, "text/csv")).run()
    if side is not None:
        at.file_uploader(key="systems_clusters_upload").set_value(
            ("c.csv", side, "text/csv")).run()
    if margin:
        at.number_input(key="systems_margin_score").set_value(margin).run()
    at.session_state["lang"] = lang
    return at.run()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_systems_best_set_and_margin_take_the_side_file_clusters(lang):
    """Three systems and a qid,cluster side file: the best set's reason says clusters as the
    unit (core.paired.best_set with the clusters: the same set), the margin line is the
    cluster one."""
    from core.inputs import compare_golden, score_lists
    from core.inputs.clusters import load_lists_clustered
    from core.paired import best_set, cluster_margin
    from core.views import format as fmt
    data = _lists_file(False)
    side = ("qid,cluster\n" + "".join(f"q{i},doc{i // 4}\n" for i in range(24))).encode()
    ls, _, _ = load_lists_clustered(data, "p.csv")
    gs = score_lists(ls, 10).golden("ndcg@10")
    labels = {f"q{i}": f"doc{i // 4}" for i in range(24)}
    bs = best_set(gs.scores, resamples=1000, clusters=[labels[str(i)] for i in gs.scores.index])
    res = compare_golden(gs, "bm25", "dense", resamples=1000)
    cm = cluster_margin(res.a_values, res.b_values, [labels[i] for i in res.case_ids], 0.05,
                        resamples=1000)
    at = _systems(data, lang, side, 0.05)
    assert not at.exception and not at.error
    texts = _texts(at)
    assert bs.n_clusters == 6
    assert t("clusters.best_reason_mcb", lang, level="95%", n="24", clusters=6) in texts
    key = {"holds": "clusters.margin_holds", "unsure": "clusters.margin_unsure",
           "fails": "clusters.margin_fails"}[cm.state]
    assert t(key, lang, a="bm25", b="dense", clusters=6, lo=fmt.diff(cm.ci_low, "score"),
             hi=fmt.diff(cm.ci_high, "score"), limit=fmt.diff(-0.05, "score")) in texts
    assert t("clusters.cli_few", lang, clusters=6) in texts
    # the Clusters block: each method's and B − A's CR2 interval and the clustered self-check
    from core.inputs.clusters import compare_in_clusters
    from core.views.clusters import cluster_lines, self_check_lines
    cc = compare_in_clusters(res, labels, "c.csv", resamples=1000)
    assert cc.self_check is not None
    assert self_check_lines(cc, lang)[0] in texts
    assert all(line in texts for line in cluster_lines(cc, "bm25", "dense", "c.csv", False, lang))


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_switch_page_says_it_reads_a_clustered_file_as_independent(lang):
    """The Switch? page has no clustered quality condition (decide --quality does): with a
    cluster column in the quality file it says so in one line, naming the file; without one
    it does not."""
    quality = _golden_file()
    latency = (ROOT / "data" / "demo_switch_latency.csv").read_text()
    latency = latency.replace("rerank", "base").replace("hybrid", "new").encode()
    at = AppTest.from_file(str(ROOT / "pages" / "decide.py"), default_timeout=180)
    at.session_state["lang"] = lang
    at.session_state["decide_resamples"] = 1000
    at.run()
    at.file_uploader(key="decide_quality_upload").set_value(("g.csv", quality, "text/csv"))
    at.file_uploader(key="decide_latency_upload").set_value(("t.csv", latency, "text/csv")).run()
    assert not at.exception
    line = t("clusters.decide_page_independent", lang, file="g.csv")
    assert line in _texts(at)
    plain = b"\n".join(b",".join(r.split(b",")[:1] + r.split(b",")[2:]) if r else r
                       for r in quality.split(b"\n"))   # the document column dropped
    at.file_uploader(key="decide_quality_upload").set_value(("p.csv", plain, "text/csv")).run()
    assert not at.exception
    assert t("clusters.decide_page_independent", lang, file="p.csv") not in _texts(at)


def _lists_runs_file() -> bytes:
    """12 queries x 3 trials (q11 has 2: unequal K), three systems whose rank of the gold
    document changes from trial to trial."""
    rows = ["case_id,query,gold_ids,trial,bm25,dense"]
    for i in range(12):
        for r in range(3 if i != 11 else 2):
            gold = f"d{i}"
            bm25 = f"{gold}|x" if (i + r) % 3 else f"x|{gold}"
            dense = f"{gold}|x" if (i * r) % 4 else f"x|y|{gold}"
            rows.append(f"q{i},question {i},{gold},{r + 1},{bm25},{dense}")
    return ("\n".join(rows) + "\n").encode()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_systems_reads_repeated_runs_of_lists(lang):
    """A lists file with a trial column: the systems page shows core's runs lines (the
    mean over runs as the case value, the run-to-run share, the sign flips, unequal K) and
    says the judged bounds are left out."""
    from core.inputs import compare_golden, runs_block, score_lists
    from core.inputs.clusters import load_lists_clustered
    from core.views.clusters import runs_lines
    data = _lists_runs_file()
    ls, _, _ = load_lists_clustered(data, "l.csv")
    sc = score_lists(ls, 10)
    res = compare_golden(sc.golden("ndcg@10"), a="bm25", b="dense", resamples=1000)
    block = runs_block(sc.runs["ndcg@10"], res)
    assert block["sign_flips"] > 0 and block["unequal_cases"] == ["q11"]
    at = _systems(data, lang)
    assert not at.exception and not at.error
    texts = _texts(at)
    lines = runs_lines(block, lang)
    assert len(lines) == 2 and all(line in texts for line in lines)
    assert t("clusters.runs_no_judged", lang) in texts
