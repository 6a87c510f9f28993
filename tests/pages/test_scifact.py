"""The scifact page, driven with AppTest on the tiny synthetic BEIR folder (real BM25, real
MiniLM on 25 documents)."""
import html
import shutil
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from core.retrieval import encode_job, live
from core.retrieval.beir import load_beir
from core.retrieval.scifact import evaluate, means, run_retrievers

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "scifact.py")
TINY = ROOT / "tests" / "fixtures" / "beir_tiny"
TIMEOUT = 240


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A copy of the fixture in a folder named 'scifact', found through the env var."""
    dest = tmp_path / "scifact"
    shutil.copytree(TINY, dest)
    monkeypatch.setenv("NOISEFLOOR_BEIR_DIR", str(dest))
    return dest


def settle(at):
    """Run the page, and again once the server's encode jobs (started by that run) end:
    a browser would see the progress fragment rerun the page."""
    at.run()
    if encode_job.running():
        for key in encode_job.running():
            encode_job.wait(key, timeout=TIMEOUT)
        at.run()
    return at


def _run(lang="en"):
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.session_state["lang"] = lang
    return settle(at)


def _unescaped(df):
    """A table as ``show_table`` drew it, its labels without the Markdown escapes, cells int."""
    import re
    un = lambda x: re.sub(r"\\(.)", r"\1", str(x))  # noqa: E731
    return df.map(int).rename(index=un, columns=un)


def test_page_end_to_end(folder):
    at = _run()
    assert not at.exception, at.exception
    assert at.title[0].value == "scifact live: BM25 vs dense vs hybrid"
    assert any("25 documents, 12 judged queries, 14 judgements" in m.value for m in at.markdown)
    verdicts = [html.unescape(m.value) for m in at.markdown if "verdict-card" in m.value]
    assert any("these 12 queries" in v or "better than" in v for v in verdicts)
    # issue 32: scifact has no clusters, and says so
    assert any("Independent queries" in c.value for c in at.caption)
    # the numbers on screen are core.retrieval.scifact's numbers
    data = load_beir(folder)
    expect = means(evaluate(data, run_retrievers(data, ["bm25", "dense"])))
    shown = {m.label: m.value for m in at.metric}
    assert shown["BM25"] == f"{expect['bm25']['ndcg@10']:.3f}"
    assert shown["Dense"] == f"{expect['dense']['ndcg@10']:.3f}"
    # the exact test beside the CI (core.views.paired), the Hit@10 2x2 and the two
    # drill-down top-10 lists (wrapped), Judged@10 and the rank intervals of the three
    assert len(at.table) == 6
    # the Hit@10 2x2 (core.views.two_by_two.outcome_table, issue 37): rows BM25, columns Dense;
    # each line's total is that retriever's Hit@10 count
    hits = _unescaped(next(x.value for x in at.table if "Total" in list(x.value.columns)))
    assert list(hits.index) == ["BM25: hit", "BM25: no hit", "Total"]
    assert list(hits.columns) == ["Dense: hit", "Dense: no hit", "Total"]
    assert hits.loc["BM25: hit", "Total"] == round(expect["bm25"]["hit@10"] * 12)
    assert hits.loc["Total", "Dense: hit"] == round(expect["dense"]["hit@10"] * 12)
    assert (hits.iloc[:2, :2].sum(axis=1) == hits.iloc[:2, 2]).all()
    assert (hits.iloc[:2, :2].sum(axis=0) == hits.iloc[2, :2]).all()
    assert hits.loc["Total", "Total"] == 12
    # send the measured means to the BEIR Table 2 page
    at.button(key="scifact_send").click().run()
    sent = at.session_state["scifact_measured"]
    assert set(sent) == {"bm25", "dense", "hybrid"}
    assert sent["bm25"]["ndcg@10"] == pytest.approx(expect["bm25"]["ndcg@10"], abs=1e-12)
    assert set(sent["hybrid"]) == {"ndcg@10", "recall@100", "hit@10", "mrr@10"}
    # the per-query tables stay in the session for the Switch? page
    kept = at.session_state["scifact_tables"]
    assert (kept["metric"], kept["collection"], len(kept["queries"])) == \
        ("ndcg@10", "scifact", 12)
    assert kept["tables"]["bm25"]["ndcg@10"].mean() == pytest.approx(
        expect["bm25"]["ndcg@10"], abs=1e-12)


def test_slider_drill_down_and_settings(folder):
    at = _run()
    at.slider(key="scifact_queries").set_value(10).run()
    assert not at.exception, at.exception
    assert any(h.value == "Mean over 10 queries" for h in at.subheader)
    at.selectbox(key="scifact_b_name").set_value("hybrid")
    at.selectbox(key="scifact_metric").set_value("mrr@10")
    at.selectbox(key="scifact_tokenizer").set_value("char_bigram")
    at.number_input(key="scifact_k1").set_value(1.2)
    at.run()
    assert not at.exception, at.exception
    assert "Hybrid (RRF)" in {m.label for m in at.metric}
    if at.selectbox(key="scifact_drill") is not None and at.selectbox(key="scifact_drill").options:
        assert any(m.value.startswith("Query q") for m in at.markdown)


def test_same_retriever_and_bad_folder(folder, tmp_path, monkeypatch):
    monkeypatch.setenv("NOISEFLOOR_ALLOW_ANY_PATH", "1")  # the free path field (issue 12)
    at = _run()
    at.selectbox(key="scifact_b_name").set_value("bm25").run()
    assert not at.exception and at.error  # A and B must differ
    at.text_input(key="scifact_path").set_value(str(tmp_path / "nope")).run()
    assert not at.exception
    assert any("folder not found" in e.value for e in at.error)
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tghost\t1\n")
    at.text_input(key="scifact_path").set_value(str(folder)).run()
    assert any("row 2" in e.value and "ghost" in e.value for e in at.error)


def test_korean(folder):
    at = _run("ko")
    assert not at.exception, at.exception
    assert at.title[0].value.startswith("scifact 실측")
    assert any("문서 25개" in m.value for m in at.markdown)
    # the NOISEFLOOR_BEIR_DIR folder first, named, never the machine's path (issue 37); the
    # shipped copy may follow when an earlier test of the run unpacked it
    options = at.selectbox(key="scifact_folder").options
    assert options[0] == "scifact (NOISEFLOOR_BEIR_DIR의 폴더)"
    assert not any(str(folder.parent) in o for o in options), options
    hits = _unescaped(next(x.value for x in at.table if "합계" in list(x.value.columns)))
    assert list(hits.index) == ["BM25: 있음", "BM25: 없음", "합계"]
    assert list(hits.columns)[:2] == ["Dense: 있음", "Dense: 없음"]
    assert hits.loc["합계", "합계"] == 12


def test_fresh_machine_uses_the_shipped_copy(tmp_path, monkeypatch):
    """No folder, no env var, no network: the default folder is unpacked from the archive
    shipped in data/beir/ (here a tiny one) and the page shows results with no other step."""
    import core.retrieval.beir as beir

    digest = beir.pack_beir(TINY, tmp_path / "bundle.tar.gz")
    monkeypatch.delenv("NOISEFLOOR_BEIR_DIR", raising=False)
    # the folder list too: a scifact folder already unpacked elsewhere must not be offered
    monkeypatch.setattr(beir, "BEIR_ROOT", tmp_path / "beir")
    monkeypatch.setattr(beir, "DEFAULT_DIR", tmp_path / "beir" / "scifact")
    monkeypatch.setattr(beir, "BUNDLE", tmp_path / "bundle.tar.gz")
    monkeypatch.setattr(beir, "BUNDLE_SHA256", digest)
    at = _run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert beir.is_beir_dir(tmp_path / "beir" / "scifact")
    assert any("25 documents, 12 judged queries" in m.value for m in at.markdown)
    assert all(btn.key != "scifact_download" for btn in at.button)
    # the folder is named for what it is, not by the machine's absolute path (issue 37)
    assert at.selectbox(key="scifact_folder").options == [
        "data/beir/scifact (the copy shipped with NoiseFloor)"]
    assert not any(str(tmp_path) in m.value for m in [*at.markdown, *at.caption])


def test_korean_copies_are_translated_and_present_shows_card_and_one_chart(folder):
    import re
    raw_keys = re.compile(r"\b(a_wins|b_wins|ci_low|ci_high|query_id|b_better|a_better|"
                          r"no_difference|True|False|mean)\b")
    at = _run("ko")
    assert not at.exception, at.exception
    copies = [c.value for c in at.code]
    assert copies
    raw = sorted({m.group(0) for c in copies for m in raw_keys.finditer(c)})
    assert raw == [], raw
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.query_params["view"] = "present"
    at.run()
    assert not at.exception, at.exception
    assert sum("verdict-card" in m.value for m in at.markdown) == 1
    assert len(at.get("vega_lite_chart")) == 1 and len(at.metric) == 0


def test_the_encode_belongs_to_the_server_not_the_tab(folder, tmp_path, monkeypatch):
    """A tab opens the page: BM25 shows at once, the document encode starts as a server job
    with one progress bar. The tab closes; another opens the page and sees the same job's
    progress (no second encode, no stale prompt). When the job ends, the page shows the
    verdict from the vectors it wrote."""
    import threading

    import core.retrieval.search as retrieval
    from tests.core.retrieval.test_cache import FakeModel

    gate, loads = threading.Event(), []

    class Gated(FakeModel):
        def encode(self, texts, **kw):
            if threading.current_thread().name.startswith("noisefloor-encode"):
                gate.wait(60)  # the job's encode waits; the page's own timing does not
            return super().encode(texts, **kw)

    def load(*a, **k):
        loads.append(1)
        return Gated()

    monkeypatch.setattr(retrieval, "load_model", load)
    monkeypatch.setattr(retrieval, "model_dimension", lambda *a, **k: 8)
    monkeypatch.setattr(retrieval, "CACHE_DIR", tmp_path / "cache")
    monkeypatch.setenv("NOISEFLOOR_CONFIRM_SECONDS", "1000000")
    st.cache_resource.clear()
    live.forget()  # the server's model, dense results and spot checks
    try:
        first = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
        first.session_state["lang"] = "en"
        first.run()
        assert not first.exception, first.exception
        assert any(h.value == "BM25 on 12 queries (ready)" for h in first.subheader)
        bars = first.get("progress")
        assert len(bars) == 1 and "0 done, measuring the speed" in bars[0].proto.text
        # BM25's own card at once, while the dense side waits: its mean and interval
        cards = [html.unescape(m.value) for m in first.markdown if "verdict-card" in m.value]
        assert len(cards) == 1 and "verdict-neutral" in cards[0]
        assert "BM25 alone, while the dense side gets ready (ndcg@10)" in cards[0]
        data = load_beir(folder)
        bm25 = evaluate(data, run_retrievers(data, ["bm25"]))["bm25"]["ndcg@10"]
        assert f"BM25 scores {bm25.mean():.3f} on 12 queries." in cards[0]
        assert encode_job.running()
        del first  # the tab is closed: the job goes on
        second = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
        second.session_state["lang"] = "en"
        second.run()
        bars = second.get("progress")
        assert len(bars) == 1 and "Encoding 25 documents" in bars[0].proto.text
        assert not second.warning and len(encode_job.running()) == 1
        gate.set()
        for key in encode_job.running():
            assert encode_job.wait(key, timeout=TIMEOUT).state == "done"
        second.run()
        assert not second.exception, second.exception
        assert any("verdict-card" in m.value for m in second.markdown)
        assert not second.get("progress")  # nothing stale
        assert any("encoded earlier on this machine" in c.value for c in second.caption)
        assert len(loads) == 1  # one model for the server, shared by the job
    finally:
        gate.set()
        st.cache_resource.clear()
        live.forget()  # the server's model, dense results and spot checks


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_margin_answers_on_the_card_and_keeps_the_url(folder, lang):
    from core.views import format as fmt
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.session_state["lang"] = lang
    at.query_params["margin"] = "0.2"
    settle(at)
    assert not at.exception, at.exception
    assert at.number_input(key="scifact_margin_score").value == 0.2
    comp_card = html.unescape(next(m.value for m in at.markdown if "verdict-card" in m.value))
    assert 'class="verdict-band"' in comp_card and 'class="verdict verdict-margin"' in comp_card
    # the card says core.paired.margin's answer for core.retrieval.scifact's comparison of these queries
    from core.paired.margin import margin_decision
    from core.retrieval.scifact import compare_retrievers, subsample
    data = load_beir(folder)
    tables = evaluate(data, run_retrievers(data, ["bm25", "dense"]))
    comp = compare_retrievers(tables, "bm25", "dense", "ndcg@10",
                              queries=subsample(data.query_ids, data.n_queries, seed=0),
                              resamples=int(at.number_input(key="scifact_resamples").value))
    want = margin_decision(comp, 0.2)
    # the card's sentence of that answer (an interval clear of -0.2 whose one-sided test does
    # not agree reads as held back: with 12 tie-heavy queries the tie-kept test, issue 36)
    from core.views.verdicts import margin_sentence
    assert margin_sentence(want, a="BM25", b="Dense", lang=lang) in comp_card
    assert fmt.diff(want.mean, "score") in comp_card
    q = at.query_params["margin"]
    assert (q[0] if isinstance(q, list) else q) == "0.2"
    assert fmt.margin(0.2, "score") in comp_card


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_judged_at_10_for_bm25_dense_and_hybrid(folder, lang):
    from core.inputs.judged import beir_bounds
    from core.retrieval.scifact import with_hybrid

    at = _run(lang)
    assert not at.exception, at.exception
    title = "빠진 레이블" if lang == "ko" else "Missing labels"
    assert any(title in s.value and "BM25" in s.value for s in at.subheader)
    table = next(t.value for t in at.table
                 if any("Judged" in str(c) for c in t.value.columns))
    first = table.columns[0]
    assert list(table[first]) == ["BM25", "Dense", "Hybrid \\(RRF\\)"]  # escaped cells
    data = load_beir(folder)
    rankings = with_hybrid(run_retrievers(data, ["bm25", "dense"]))
    jb = beir_bounds(data, rankings, "ndcg@10", "bm25", "dense", resamples=200)
    judged_col = next(c for c in table.columns if "Judged" in str(c))
    assert list(table[judged_col]) == [f"{100 * jb.judged[m].mean():.1f}%"
                                       for m in ("bm25", "dense", "hybrid")]
    label = "판정 없는" if lang == "ko" else "Download the unjudged"
    assert any(b.label.startswith(label) for b in at.get("download_button"))


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_tied_for_best_of_all_three_on_the_card_and_rank_intervals_below(folder, lang):
    """The card's extra line and the rank section are core.retrieval.scifact.rank_retrievers on the
    page's queries and settings (all 12, nDCG@10, 10,000 resamples, seed 0)."""
    from core.retrieval.scifact import DEFAULT_RESAMPLES, rank_retrievers, with_hybrid
    from core.views.best_set import rank_text
    from core.views.scifact import NAMES, best_line

    at = _run(lang)
    assert not at.exception, at.exception
    data = load_beir(folder)
    tables = evaluate(data, with_hybrid(run_retrievers(data, ["bm25", "dense"])))
    bs = rank_retrievers(tables, "ndcg@10", resamples=DEFAULT_RESAMPLES, seed=0)
    card = next(html.unescape(m.value) for m in at.markdown if "verdict-card" in m.value)
    assert 'class="verdict-best"' in card and best_line(bs, "ndcg@10", lang, NAMES) in card
    title = "순위 구간" if lang == "ko" else "Rank intervals of all 3"
    assert any(title in s.value for s in at.subheader)
    table = next(t.value.reset_index() for t in at.table
                 if any(("rank interval" in str(c)) or ("순위 구간" in str(c))
                        for c in t.value.columns))
    names = [str(x).replace("\\", "") for x in table.iloc[:, 0]]
    assert names == [NAMES[r.name] for r in bs.ranks]
    assert list(table.iloc[:, 3]) == [rank_text(r.rank_low, r.rank_high) for r in bs.ranks]
    assert len(at.get("vega_lite_chart")) >= 4   # by n, bootstrap, ranks, scatter


def test_a_re_encode_keeps_serving_the_verdict_to_every_visitor(folder, tmp_path, monkeypatch):
    """Issue 37: one click on "Re-encode every document live" took the verdict away from
    every visitor for the whole encode. Now the verdict stays (from the vectors in use
    before), the re-encode's bar shows under the vectors line, and a second visitor sees
    the verdict too; when it ends, the page uses the new vectors."""
    import threading

    import core.retrieval.search as retrieval
    from tests.core.retrieval.test_cache import FakeModel

    hold = threading.Event()
    gate = threading.Event()

    class Held(FakeModel):
        def encode(self, texts, **kw):
            if hold.is_set() and threading.current_thread().name.startswith("noisefloor-encode"):
                gate.wait(60)
            return super().encode(texts, **kw)

    monkeypatch.setattr(retrieval, "load_model", lambda *a, **k: Held())
    monkeypatch.setattr(retrieval, "model_dimension", lambda *a, **k: 8)
    monkeypatch.setattr(retrieval, "CACHE_DIR", tmp_path / "cache")
    monkeypatch.setenv("NOISEFLOOR_CONFIRM_SECONDS", "1000000")
    st.cache_resource.clear()
    live.forget()  # the server's model, dense results and spot checks
    st.cache_data.clear()
    try:
        first = _run()
        assert not first.exception, first.exception

        def verdict(at):
            cards = [html.unescape(m.value) for m in at.markdown if "verdict-card" in m.value]
            assert len(cards) == 1, cards
            assert "BM25 alone" not in cards[0]   # the paired verdict, not the waiting card
            return cards[0]

        before = verdict(first)
        hold.set()
        first.button(key="scifact_encode_all").click().run()
        assert not first.exception, first.exception
        assert len(encode_job.running()) == 1
        assert verdict(first) == before
        bars = first.get("progress")
        assert len(bars) == 1 and "Encoding 25 documents" in bars[0].proto.text
        assert any("the verdict above still uses the vectors in use before it" in c.value
                   for c in first.caption)
        assert first.button(key="scifact_encode_all").disabled
        other = AppTest.from_file(PAGE, default_timeout=TIMEOUT)   # another visitor
        other.session_state["lang"] = "en"
        other.run()
        assert not other.exception, other.exception
        assert verdict(other) == before and len(other.get("progress")) == 1
        gate.set()
        for key in encode_job.running():
            assert encode_job.wait(key, timeout=TIMEOUT).state == "done"
        first.run()
        assert not first.exception, first.exception
        verdict(first)
        assert not first.get("progress")
        assert not first.button(key="scifact_encode_all").disabled
    finally:
        gate.set()
        st.cache_resource.clear()
        live.forget()  # the server's model, dense results and spot checks
        st.cache_data.clear()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_no_harm_section_is_the_pairs_per_query_shares(folder, lang):
    """The no-harm lines are core.paired.harm.no_harm of the page's A and B per query on the
    page's metric (delta 0.05, alpha 2), with the drill-down's anchor linked when B hurts some
    query; alpha 5 is one click (English run)."""
    from core.paired.harm import no_harm
    from core.retrieval.scifact import with_hybrid
    from core.views.harm import harm_lines
    from core.views.scifact import NAMES

    at = _run(lang)
    assert not at.exception, at.exception
    a, b = at.selectbox(key="scifact_a").value, at.selectbox(key="scifact_b_name").value
    data = load_beir(folder)
    tables = evaluate(data, with_hybrid(run_retrievers(data, ["bm25", "dense"])))
    h = no_harm(tables[a]["ndcg@10"].to_numpy(float), tables[b]["ndcg@10"].to_numpy(float))
    texts = [html.unescape(m.value).replace("\\", "") for m in at.markdown]
    for line in harm_lines(h, NAMES[a], NAMES[b], "score", lang):
        assert any(line.replace("\\", "") in t for t in texts), line
    assert any("(#scifact-drill)" in t for t in texts) == (h.hurt > 0)
    if lang != "en":  # AppTest re-reads the folder box by its English label: one language
        return
    at.selectbox(key="scifact_alpha").set_value(5)
    settle(at)
    h5 = no_harm(tables[a]["ndcg@10"].to_numpy(float), tables[b]["ndcg@10"].to_numpy(float),
                 alpha=5)
    assert h5.trisk is None or any(f"{h5.trisk:.2f}" in m.value for m in at.markdown)
