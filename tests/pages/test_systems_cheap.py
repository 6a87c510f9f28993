"""The systems page's second upload, "Cheap labels (optional)" (issue 34): the same ranked lists
judged with cheap labels on more queries; the prediction-powered card comes before the gold
card and quotes ``core.inputs.compare_cheap`` on the lists scored by core (EN and KO), the
report's summary holds the PPI figures, and a bad cheap file is one error while the gold card
stays."""
import csv
import html
import io
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from core.inputs import compare_cheap, compare_golden, load_lists, metric_key, score_lists
from core.views.format import interval

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "systems.py")
DEMO = ROOT / "data" / "demo_lists.csv"


def _cheap_bytes():
    """The demo lists with cheap gold_ids: one relevant id dropped on a fifth of the queries,
    plus 200 more queries (copies of the demo's lists under new ids, labels dropped the same
    way)."""
    rows = list(csv.DictReader(io.StringIO(DEMO.read_text(encoding="utf-8"))))
    rng = np.random.default_rng(3)
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()

    def cheap(row, cid):
        ids = row["gold_ids"].split("|")
        if len(ids) > 1 and rng.uniform() < 0.2:
            ids = ids[:-1]
        return {**row, "case_id": cid, "gold_ids": "|".join(ids)}

    for row in rows:
        w.writerow(cheap(row, row["case_id"]))
    for j in range(200):
        w.writerow(cheap(rows[j % len(rows)], f"x{j}"))
    return out.getvalue().encode()


@pytest.fixture
def reports(monkeypatch):
    import pages._ui as ui
    calls = []
    real = ui.report_downloads

    def record(page, title, sections, **kw):
        calls.append({"sections": sections, **kw})
        return real(page, title, sections, **kw)

    monkeypatch.setattr(ui, "report_downloads", record)
    return calls


def _texts(at):
    return [html.unescape(e.value) for kind in (at.warning, at.info, at.markdown, at.caption)
            for e in kind]


def test_cheap_lists_put_the_ppi_card_first_en_and_ko(reports):
    lang, words = "en", "PPI interval"
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.run()
    at.file_uploader(key="systems_cheap_upload").set_value(
        ("cheap.csv", _cheap_bytes(), "text/csv")).run()
    assert not at.exception and not at.error
    call = reports[-1]
    a, b, key = call["params"]["a"], call["params"]["b"], call["params"]["metric"]
    k = call["params"]["k"]
    gold = score_lists(load_lists(DEMO.read_bytes(), DEMO.name), k).golden(key)
    cheap = score_lists(load_lists(_cheap_bytes(), "cheap.csv"), k).golden(key)
    ref = compare_cheap(compare_golden(gold, a, b, resamples=500), cheap)
    d = ref.difference
    assert d.n_gold == len(gold.scores) and d.n_cheap == d.n_gold + 200
    ppi_ci = interval(d.ci_low, d.ci_high, "score", signed=True)
    gold_ci = interval(d.gold_only_low, d.gold_only_high, "score", signed=True)
    cards = [x for x in _texts(at) if words in x]
    assert cards and ppi_ci in cards[0] and gold_ci in cards[0]
    md = [html.unescape(m.value) for m in at.markdown]
    first_ppi = next(i for i, x in enumerate(md) if words in x)
    from core.i18n import t
    assert t("cheap.gold_card_title", lang) in [c.value for c in at.caption]
    assert any(words not in x and x.strip() for x in md[first_ppi + 1:])   # the gold card below
    summary = call["summary"]
    assert summary["difference"]["b_minus_a"] == d.estimate
    assert (summary["difference"]["ci_low"], summary["difference"]["ci_high"]) == (d.ci_low,
                                                                                  d.ci_high)
    assert summary["ppi"]["n_cheap"] == d.n_cheap and summary["ppi"]["lambda"] == d.lam
    assert call["sections"][0].text.strip()
    assert metric_key("ndcg", 10) == key
    at.session_state["lang"] = "ko"
    at.run()
    assert not at.exception
    ko = [x for x in _texts(at) if "PPI 구간" in x]
    assert ko and ppi_ci in ko[0] and gold_ci in ko[0]
    assert reports[-1]["summary"]["ppi"] == summary["ppi"]


def test_a_bad_cheap_file_is_one_error_and_the_gold_card_stays(reports):
    at = AppTest.from_file(PAGE, default_timeout=180).run()
    bad = b"case_id,query,group,gold_ids,bm25\nc01,x,g,doc1,doc1|doc2\n"
    at.file_uploader(key="systems_cheap_upload").set_value(("bad.csv", bad, "text/csv")).run()
    assert not at.exception
    assert len(at.error) == 1
    assert "ppi" not in reports[-1]["summary"]


DEMO_TREC = ROOT / "data" / "demo_trec"
RUNS = ("bm25.run", "dense.run", "hybrid.run")


def _trec_files():
    """Gold qrels on the first third of the demo's queries; cheap qrels on every query, with
    each relevant label of the demo kept on four queries in five (a cheap source that misses
    some relevant documents)."""
    lines = [x for x in (DEMO_TREC / "qrels.txt").read_text().splitlines() if x.split()]
    qids = sorted({x.split()[0] for x in lines})
    gold_q = set(qids[: len(qids) // 3])
    gold = "\n".join(x for x in lines if x.split()[0] in gold_q) + "\n"
    rng = np.random.default_rng(5)
    cheap = "\n".join(x if x.split()[3] == "0" or rng.uniform() < 0.8
                      else " ".join(x.split()[:3] + ["0"]) for x in lines) + "\n"
    return gold.encode(), cheap.encode(), len(gold_q)


def test_trec_cheap_qrels_card_equals_core_en_and_ko(reports, tmp_path, monkeypatch):
    """TREC runs + gold qrels + cheap qrels: the PPI card's interval, gold-only interval,
    lambda and worth-about figures, and the report's ``ppi`` block, equal
    ``compare_cheap`` on the runs scored by core under both qrels (EN, then KO)."""
    from core.i18n import t
    from core.inputs import read_qrels, read_run, score_runs
    from core.views.cheap import cheap_lines
    gold_b, cheap_b, n_gold_q = _trec_files()
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.run()
    at.segmented_control(key="systems_source").set_value("trec").run()
    at.file_uploader(key="systems_qrels_upload").set_value(("gold.qrels", gold_b, "text/plain"))
    at.file_uploader(key="systems_runs_upload").set_value(
        [(n, (DEMO_TREC / n).read_bytes(), "text/plain") for n in RUNS])
    at.file_uploader(key="systems_cheap_upload").set_value(("cheap.qrels", cheap_b,
                                                            "text/plain"))
    at.run()
    assert not at.exception and not at.error
    call = reports[-1]
    a, b, key = call["params"]["a"], call["params"]["b"], call["params"]["measure"]
    runs = [read_run((DEMO_TREC / n).read_bytes(), n) for n in RUNS]
    gold = score_runs(runs, read_qrels(gold_b, "gold.qrels"), [key],
                      qrels_file="gold.qrels").golden(key)
    cheap = score_runs(runs, read_qrels(cheap_b, "cheap.qrels"), [key],
                       qrels_file="cheap.qrels").golden(key)
    ref = compare_cheap(compare_golden(gold, a, b, resamples=500), cheap)
    d = ref.difference
    assert d.n_gold <= n_gold_q and d.n_cheap > d.n_gold
    ppi_ci = interval(d.ci_low, d.ci_high, "score", signed=True)
    gold_ci = interval(d.gold_only_low, d.gold_only_high, "score", signed=True)
    summary = call["summary"]
    assert summary["difference"]["b_minus_a"] == d.estimate
    assert (summary["difference"]["ci_low"], summary["difference"]["ci_high"]) == (d.ci_low,
                                                                                  d.ci_high)
    assert summary["ppi"] == {**ref.ppi_dict(),
                              "gold_difference": summary["ppi"]["gold_difference"]}
    for lang, words in (("en", "PPI interval"), ("ko", "PPI 구간")):
        if lang == "ko":
            at.session_state["lang"] = "ko"
            at.run()
            assert not at.exception and not at.error
        cards = [x for x in _texts(at) if words in x]
        assert cards and ppi_ci in cards[0] and gold_ci in cards[0]
        assert f"{d.lam:.2f}" in cards[0] and f"{d.effective_n:,.0f}" in cards[0]
        assert t("cheap.gold_card_title", lang) in [c.value for c in at.caption]
        # the report's cheap-label section is core's lines in the page's language
        texts = "\n".join(s.text for s in reports[-1]["sections"])
        assert all(line.strip() in texts for line in cheap_lines(ref, lang))
    assert reports[-1]["summary"]["ppi"] == summary["ppi"]
    # the page's summary JSON is compare --json's on the same files (the TREC block names the
    # cheap qrels too)
    import contextlib
    import json
    from core.__main__ import main
    (tmp_path / "gold.qrels").write_bytes(gold_b)
    (tmp_path / "cheap.qrels").write_bytes(cheap_b)
    for n in RUNS:
        (tmp_path / n).write_bytes((DEMO_TREC / n).read_bytes())
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["compare", "--format", "trec", "--qrels", "gold.qrels", "--cheap-qrels",
                     "cheap.qrels", "--measure", key, "--a", a, "--b", b, *RUNS,
                     "--resamples", str(call["params"]["resamples"]), "--json"])
    cli = json.loads(out.getvalue())
    assert code in (0, 1) and cli["cheap_qrels"] == "cheap.qrels" == summary["cheap_qrels"]
    assert set(cli) <= set(summary)   # the page adds what it shows besides (no harm, pairs)
    assert {k: summary[k] for k in ("format", "measure", "qrels", "cheap_qrels", "difference",
                                    "ppi")} == {k: cli[k] for k in ("format", "measure", "qrels",
                                                                    "cheap_qrels", "difference",
                                                                    "ppi")}
