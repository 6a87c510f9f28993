"""The golden page with a second upload, "Cheap labels (optional)" (issue 34): the prediction-
powered card comes first and quotes ``core.inputs.cheap.compare_cheap``'s figures (EN and KO),
the gold card follows unchanged, and a bad cheap file is one clear error while the page keeps
running."""
import html
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from core.inputs import compare_cheap, compare_golden, load_golden
from core.views.format import interval

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "golden.py")
DEMO = ROOT / "data" / "demo_golden.csv"


def _cheap_bytes():
    gold = load_golden(DEMO.read_bytes(), DEMO.name)
    cs = gold.cases
    rng = np.random.default_rng(0)
    lines = ["case_id," + ",".join(cs.methods)]
    for i, cid in enumerate(cs.ids):
        vals = [int(v) if rng.uniform() > 0.1 else 1 - int(v) for v in cs.values[i]]
        lines.append(",".join([cid, *map(str, vals)]))
    for j in range(300):
        a = int(rng.uniform() < 0.8)
        b = int(rng.uniform() < 0.75)
        lines.append(f"extra{j},{a},{b}" + ",0" * (len(cs.methods) - 2))
    return ("\n".join(lines) + "\n").encode()


def _texts(at):
    return [html.unescape(e.value) for kind in (at.warning, at.info, at.markdown, at.caption)
            for e in kind]


def test_cheap_upload_puts_the_ppi_card_first_en_and_ko():
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    at.file_uploader(key="golden_cheap_upload").set_value(
        ("cheap.csv", _cheap_bytes(), "text/csv")).run()
    assert not at.exception and not at.error
    gold = load_golden(DEMO.read_bytes(), DEMO.name)
    ref = compare_cheap(compare_golden(gold, resamples=20_000),
                        load_golden(_cheap_bytes(), "cheap.csv"))
    d = ref.difference
    ppi_ci = interval(d.ci_low, d.ci_high, "rate", signed=True)
    gold_ci = interval(d.gold_only_low, d.gold_only_high, "rate", signed=True)
    texts = _texts(at)
    cards = [t for t in texts if "PPI interval" in t]
    assert cards and ppi_ci in cards[0] and gold_ci in cards[0]
    assert f"worth about {d.effective_n:,.0f} gold cases" in cards[0]
    # the PPI card comes before the gold card
    md = [html.unescape(m.value) for m in at.markdown]
    first_ppi = next(i for i, t in enumerate(md) if "PPI interval" in t)
    first_gold = next(i for i, t in enumerate(md) if "95% CI" in t and "PPI" not in t)
    assert first_ppi < first_gold
    at.session_state["lang"] = "ko"
    at.run()
    ko = [t for t in _texts(at) if "PPI 구간" in t]
    assert ko and ppi_ci in ko[0] and "골드 케이스 약" in ko[0]


def test_a_bad_cheap_file_is_one_error_and_the_gold_card_stays():
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    at.file_uploader(key="golden_cheap_upload").set_value(
        ("short.csv", b"case_id,title-only,RRF\nzz1,1,0\nzz2,0,1\nzz3,1,1\n",
         "text/csv")).run()
    assert not at.exception
    assert len(at.error) == 1 and "cheap-label file has no value" in at.error[0].value
    assert any("No significant difference at 95%" in t for t in _texts(at))


def test_presenting_shows_only_the_ppi_card():
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    at.file_uploader(key="golden_cheap_upload").set_value(
        ("cheap.csv", _cheap_bytes(), "text/csv")).run()
    assert not at.exception
    assert any("Gold labels only" == c.value for c in at.caption)
    at.session_state["app_present"] = True
    at.run()
    assert not at.exception
    md = [html.unescape(m.value) for m in at.markdown]
    assert any("PPI interval" in t for t in md)
    assert not any("Gold labels only" == c.value for c in at.caption)


def _constant_cheap_bytes():
    """Cheap labels that carry no information: every method 1 on every case."""
    gold = load_golden(DEMO.read_bytes(), DEMO.name)
    cs = gold.cases
    lines = ["case_id," + ",".join(cs.methods)]
    lines += [",".join([cid] + ["1"] * len(cs.methods)) for cid in cs.ids]
    lines += [",".join([f"extra{j}"] + ["1"] * len(cs.methods)) for j in range(300)]
    return ("\n".join(lines) + "\n").encode()


def test_useless_cheap_labels_show_the_gold_only_interval_en_and_ko():
    """Constant cheap labels (lambda 0): the card says they do not help and its PPI interval
    is the gold-only one it quotes (the same numbers), in EN and KO; the verdicts agree."""
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    at.file_uploader(key="golden_cheap_upload").set_value(
        ("cheap.csv", _constant_cheap_bytes(), "text/csv")).run()
    assert not at.exception and not at.error
    gold = load_golden(DEMO.read_bytes(), DEMO.name)
    ref = compare_cheap(compare_golden(gold, resamples=20_000),
                        load_golden(_constant_cheap_bytes(), "cheap.csv"))
    d = ref.difference
    assert d.lam == 0 and not d.helps and ref.verdict == ref.gold_only_verdict
    assert abs(d.ci_low - d.gold_only_low) < 1e-12 and abs(d.ci_high - d.gold_only_high) < 1e-12
    ci = interval(d.ci_low, d.ci_high, "rate", signed=True)
    assert ci == interval(d.gold_only_low, d.gold_only_high, "rate", signed=True)
    for lang, card_word, note in (("en", "PPI interval", "do not help"),
                                  ("ko", "PPI 구간", "도움이 되지 않습니다")):
        at.session_state["lang"] = lang
        at.run()
        texts = _texts(at)
        cards = [t for t in texts if card_word in t]
        assert cards and cards[0].count(ci) >= 2      # the PPI and the gold-only interval
        assert any(note in t for t in texts)
