"""core.inputs.cheap (issue 34): a gold comparison sharpened by a cheap-label file, through
``python -m core compare GOLD --cheap CHEAP`` and ``--format trec --cheap-qrels``: the JSON's
``difference``/``methods``/``verdict`` hold the PPI figures (equal to ``core.paired.ppi`` on the
paired arrays, and to ``ppi_py`` with the z method), the gold card moves under ``ppi``, one
clear message per bad input, and outputs without cheap labels carry no trace of them."""
import json

import numpy as np
import pytest

from core.__main__ import main
from core.errors import InputError
from core.inputs.cheap import CheapComparison, compare_cheap
from core.inputs.golden import load_golden
from core.inputs.systems import compare_golden
from core.paired.ppi import ppi_difference, ppi_mean


def _write(path, rows, header="case_id,A,B"):
    path.write_text(header + "\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n",
                    encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(7)
    n_all, n = 300, 30
    a = rng.beta(2, 2, n_all)
    b = np.clip(a + rng.normal(0.04, 0.08, n_all), 0, 1)
    ca = np.clip(a + 0.1 + rng.normal(0, 0.06, n_all), 0, 1)   # cheap labels flatter A
    cb = np.clip(b + rng.normal(0, 0.06, n_all), 0, 1)
    gold = _write(tmp_path / "gold.csv",
                  [(f"q{i}", f"{a[i]:.4f}", f"{b[i]:.4f}") for i in range(n)])
    # the cheap file lists its cases in another order, with one blank cheap-only row
    order = rng.permutation(n_all)
    rows = [(f"q{i}", f"{ca[i]:.4f}", f"{cb[i]:.4f}") for i in order]
    rows.append(("extra", "", "0.5"))
    cheap = _write(tmp_path / "cheap.csv", rows)
    return tmp_path, gold, cheap


def _arrays(gold, cheap):
    g = load_golden(open(gold, "rb").read(), gold)
    c = load_golden(open(cheap, "rb").read(), cheap)
    res = compare_golden(g, resamples=500)
    return g, c, res


def test_figures_equal_ppi_on_the_paired_arrays(files):
    _, gold, cheap = files
    g, c, res = _arrays(gold, cheap)
    cc = compare_cheap(res, c)
    where = {cid: i for i, cid in enumerate(c.cases.ids)}
    rows = [where[cid] for cid in res.case_ids]
    rest = [i for i, cid in enumerate(c.cases.ids) if cid not in set(res.case_ids)
            and cid != "extra"]
    va = c.cases.values[:, c.cases.methods.index("A")]
    vb = c.cases.values[:, c.cases.methods.index("B")]
    assert cc.rate_a == ppi_mean(res.a_values, va[rows], va[rest])
    assert cc.rate_b == ppi_mean(res.b_values, vb[rows], vb[rest])
    assert cc.difference == ppi_difference(res.a_values, res.b_values, va[rows], vb[rows],
                                           va[rest], vb[rest])
    assert (cc.n_gold, cc.n_cheap, cc.left_out) == (30, 300, ("extra",))
    assert isinstance(cc, CheapComparison) and not cc.binary
    # the cheap labels' +0.1 on A is taken out: the PPI B − A stays near the gold one
    assert abs(cc.difference.estimate - np.mean(res.b_values - res.a_values)) < 0.03


def test_cli_json_holds_the_ppi_figures(files, capsys):
    _, gold, cheap = files
    assert main(["compare", gold, "--cheap", cheap, "--resamples", "500", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    g, c, res = _arrays(gold, cheap)
    cc = compare_cheap(res, c)
    diff = d["difference"]
    assert (diff["b_minus_a"], diff["ci_low"], diff["ci_high"], diff["p"]) == (
        cc.difference.estimate, cc.difference.ci_low, cc.difference.ci_high,
        cc.difference.p_value)
    assert diff["interval"] == "ppi++_t" and diff["test"] == "ppi++ t-test"
    assert d["methods"]["A"]["rate"] == cc.rate_a.estimate
    assert d["methods"]["B"]["ci_high"] == cc.rate_b.ci_high
    assert d["verdict"] == cc.verdict
    ppi = d["ppi"]
    assert {"lambda", "correlation", "n_gold", "n_cheap", "effective_n", "gold_only",
            "gold_difference", "methods", "test"} <= set(ppi)
    assert ppi["gold_only"]["ci_low"] == cc.difference.gold_only_low
    assert ppi["n_gold"] == 30 and ppi["n_cheap"] == 300
    # the gold card's own difference, whole, under ppi (nothing lost)
    assert ppi["gold_difference"] == res.to_dict()["difference"]


def test_cli_text_leads_with_ppi_and_keeps_the_gold_card(files, capsys):
    _, gold, cheap = files
    assert main(["compare", gold, "--cheap", cheap, "--resamples", "500"]) == 0
    out = capsys.readouterr().out
    g, c, res = _arrays(gold, cheap)
    cc = compare_cheap(res, c)
    first = out.splitlines()[0]
    assert first.startswith("Cheap labels (") and "30 gold cases + 270" in first
    assert f"worth about {cc.difference.effective_n:,.0f} gold cases" in out
    assert f"lambda {cc.difference.lam:.2f}" in out
    assert "30 paired cases" in out          # the gold card follows


def test_without_cheap_labels_nothing_changes(capsys):
    from pathlib import Path
    demo = str(Path(__file__).resolve().parents[3] / "data" / "demo_golden.csv")
    assert main(["compare", demo, "--resamples", "500", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert "ppi" not in d and d["difference"]["interval"] != "ppi++_t"
    assert main(["compare", demo, "--resamples", "500"]) == 0
    assert "Cheap labels" not in capsys.readouterr().out


def _err(capsys):
    return capsys.readouterr().err.strip()


def test_cheap_ids_not_covering_the_gold_ones(files, capsys):
    tmp, gold, _ = files
    bad = _write(tmp / "short.csv", [(f"q{i}", 0.5, 0.6) for i in range(3, 200)])
    assert main(["compare", gold, "--cheap", bad]) == 2
    err = _err(capsys)
    assert "short.csv" in err and "3 of the 30 gold cases (q0, q1, q2)" in err
    assert len(err.splitlines()) == 1


def test_method_missing_from_the_cheap_file(files, capsys):
    tmp, gold, _ = files
    bad = _write(tmp / "other.csv", [(f"q{i}", 0.5, 0.6) for i in range(200)], "case_id,A,C")
    assert main(["compare", gold, "--cheap", bad]) == 2
    err = _err(capsys)
    assert "no method 'B'" in err and "A, C" in err and len(err.splitlines()) == 1


def test_different_scales(files, capsys):
    tmp, gold, _ = files
    bad = _write(tmp / "binary.csv", [(f"q{i}", i % 2, (i + 1) % 2) for i in range(200)])
    assert main(["compare", gold, "--cheap", bad]) == 2
    err = _err(capsys)
    assert "gold file holds scores" in err and "0/1" in err and len(err.splitlines()) == 1


def test_too_few_cheap_only_cases(files):
    tmp, gold, _ = files
    g = load_golden(open(gold, "rb").read(), gold)
    res = compare_golden(g, resamples=500)
    same = _write(tmp / "same.csv", [(f"q{i}", 0.5, 0.6) for i in range(31)])
    with pytest.raises(InputError) as e:
        compare_cheap(res, load_golden(open(same, "rb").read(), same))
    assert e.value.code == "cheap.err_too_few"
    assert "1 cheap-only" in e.value.message("en") and e.value.message("ko")


def test_cheap_needs_the_right_format(files, capsys):
    _, gold, cheap = files
    assert main(["compare", gold, "--format", "lists", "--cheap", cheap]) == 2
    assert "--cheap-qrels" in _err(capsys)
    assert main(["compare", gold, "--cheap-qrels", cheap]) == 2
    assert "--format trec" in _err(capsys)
    assert main(["compare", gold, "--cheap", cheap, "--margin", "0.02"]) == 2
    assert "--margin" in _err(capsys)


def test_zero_one_outcomes_and_korean(tmp_path):
    rng = np.random.default_rng(3)
    a = (rng.uniform(size=400) < 0.6).astype(int)
    b = (rng.uniform(size=400) < 0.7).astype(int)
    flip = rng.uniform(size=(2, 400)) < 0.08
    ca, cb = np.where(flip[0], 1 - a, a), np.where(flip[1], 1 - b, b)
    gold = _write(tmp_path / "g.csv", [(f"c{i}", a[i], b[i]) for i in range(40)])
    cheap = _write(tmp_path / "c.csv", [(f"c{i}", ca[i], cb[i]) for i in range(400)])
    g = load_golden(open(gold, "rb").read(), gold)
    res = compare_golden(g, resamples=500)
    cc = compare_cheap(res, load_golden(open(cheap, "rb").read(), cheap))
    assert cc.binary and cc.rate_a.ci_low >= -0.1
    from core.views.cheap import cheap_lines
    en, ko = cheap_lines(cc, "en"), cheap_lines(cc, "ko")
    assert len(en) == len(ko)
    # rates in %, the difference in %p, the same figures in both languages
    assert f"{100 * cc.rate_a.estimate:.1f}%" in en[1] and f"{100 * cc.rate_a.estimate:.1f}%" in ko[1]
    assert "%p" in en[3] and "%p" in ko[3]
    # 0/1 outcomes: the Jeffreys MOVER interval, its inverted test named in the text and JSON
    d = cc.difference
    assert d.mover and cc.rate_a.mover and d.interval_name == "ppi++_mover_t"
    assert "PPI++ test, the interval inverted" in en[3] and "PPI++ t-test" not in en[3]
    out = cc.apply({"a": "A", "b": "B", "methods": {"A": {}, "B": {}}, "difference": None})
    assert out["difference"]["interval"] == "ppi++_mover_t"
    assert out["difference"]["test"] == out["ppi"]["test"] == "ppi++ inverted mover interval"
    assert out["methods"]["A"]["interval"] == "ppi++_mover_t"
    assert (d.ci_low > 0 or d.ci_high < 0) == (d.p_value < 0.05)


def test_trec_cheap_qrels_score_runs_under_both(tmp_path, capsys):
    from pathlib import Path
    d = Path(__file__).resolve().parents[3] / "data" / "demo_trec"
    qrels = (d / "qrels.txt").read_text().splitlines()
    qids = sorted({line.split()[0] for line in qrels if line.strip()})
    gold_q = set(qids[: len(qids) // 3])
    gold_path = tmp_path / "gold_qrels.txt"
    gold_path.write_text("\n".join(line for line in qrels if line.split()
                                   and line.split()[0] in gold_q) + "\n")
    args = ["compare", str(d / "bm25.run"), str(d / "dense.run"), "--format", "trec",
            "--qrels", str(gold_path), "--cheap-qrels", str(d / "qrels.txt"),
            "--resamples", "500", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ppi"]["n_gold"] == out["n_cases"] <= len(gold_q)
    assert out["ppi"]["n_cheap"] > out["ppi"]["n_gold"]
    assert out["cheap_qrels"] == str(d / "qrels.txt")
    # cheap qrels equal to gold on the gold queries: the correlation is 1 and the cheap-only
    # queries are worth more gold ones
    assert out["ppi"]["correlation"] == pytest.approx(1.0)
    assert out["ppi"]["lambda"] > 0.3 and out["ppi"]["effective_n"] > out["ppi"]["n_gold"]


def test_decide_reads_the_quality_condition_off_the_ppi_interval(tmp_path, capsys):
    """``decide --cheap``: the quality condition holds / is unsure / fails by the PPI interval
    of B − A against −margin (``compare_cheap`` on the same pair), the decision combines it
    with speed, the gold-only condition is kept under ``ppi``; without --cheap, no ``ppi``."""
    from pathlib import Path
    root = Path(__file__).resolve().parents[3]
    gold, lat = str(root / "data" / "demo_switch_golden.csv"), str(root / "data" / "demo_switch_latency.csv")
    g = load_golden(open(gold, "rb").read(), gold)
    rng = np.random.default_rng(1)
    cs = g.cases
    rows = [(cid, *(int(v) if rng.uniform() > 0.05 else 1 - int(v) for v in cs.values[i]))
            for i, cid in enumerate(cs.ids)]
    rows += [(f"x{j}", int(rng.uniform() < 0.8), int(rng.uniform() < 0.8)) for j in range(900)]
    cheap = _write(tmp_path / "cheap.csv", rows, "case_id," + ",".join(cs.methods))
    base = ["decide", "--quality", gold, "--latency", lat, "--margin", "2pp",
            "--resamples", "1000", "--json"]
    main(base)
    plain = json.loads(capsys.readouterr().out)
    assert "ppi" not in plain
    main(base + ["--cheap", cheap])
    d = json.loads(capsys.readouterr().out)
    res = compare_golden(g, d["a"], d["b"], resamples=1000)
    cc = compare_cheap(res, load_golden(open(cheap, "rb").read(), cheap))
    lo, hi = cc.difference.ci_low, cc.difference.ci_high
    state = "holds" if lo > -0.02 else "fails" if hi < -0.02 else "unsure"
    q = d["conditions"]["quality"]
    assert q["state"] == state and q["bound"] == (hi if state == "fails" else lo)
    assert d["ppi"]["ci_low"] == lo and d["ppi"]["quality_gold_only"] == plain["conditions"]["quality"]
    assert d["ppi"]["decision_gold_only"] == plain["decision"]
    speed = d["conditions"]["speed"]["state"]
    expect = ("stay" if "fails" in (state, speed) else
              "switch" if (state, speed) == ("holds", "holds") else "inconclusive")
    assert d["decision"] == expect
    assert main(base + ["--cheap", cheap, "--format", "lists"]) == 2
    assert "--cheap takes a golden-case" in capsys.readouterr().err


def test_the_correlation_shown_is_that_of_the_differences(files, capsys):
    """PPI++ tunes lambda for B − A on the per-case differences, so the card and the JSON give
    the gold–cheap correlation of gold B − A against cheap B − A on the gold cases (issue 34),
    not a method's: here the cheap labels flatter A only, and the two differ."""
    _, gold, cheap = files
    g, c, res = _arrays(gold, cheap)
    where = {cid: i for i, cid in enumerate(c.cases.ids)}
    rows = [where[cid] for cid in res.case_ids]
    va = c.cases.values[:, c.cases.methods.index("A")][rows]
    vb = c.cases.values[:, c.cases.methods.index("B")][rows]
    rho_d = np.corrcoef(res.b_values - res.a_values, vb - va)[0, 1]
    rho_a = np.corrcoef(res.a_values, va)[0, 1]
    assert abs(rho_d - rho_a) > 0.01
    assert main(["compare", gold, "--cheap", cheap, "--resamples", "500", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ppi"]["correlation"] == pytest.approx(rho_d)
    assert main(["compare", gold, "--cheap", cheap, "--resamples", "500"]) == 0
    assert f"gold–cheap correlation of B − A {rho_d:.2f}" in capsys.readouterr().out


@pytest.mark.parametrize("shift", [0.0, 0.35])
def test_cheap_labels_without_information_show_the_gold_only_figures(tmp_path, shift):
    """0/1 outcomes with constant cheap labels (lambda tuned to 0): B − A's PPI interval is
    the gold-only interval shown beside it (to 1e-12), the two verdicts agree, and the EN and
    KO text and card say the cheap labels do not help while quoting the same numbers."""
    from core.views.cheap import cheap_card, cheap_lines
    from core.views.format import interval
    rng = np.random.default_rng(5)
    a = (rng.uniform(size=20) < 0.5).astype(int)
    b = (rng.uniform(size=20) < 0.5 + shift).astype(int)
    gold = _write(tmp_path / "g.csv", [(f"c{i}", a[i], b[i]) for i in range(20)])
    cheap = _write(tmp_path / "c.csv", [(f"c{i}", 1, 1) for i in range(320)])
    res = compare_golden(load_golden(open(gold, "rb").read(), gold), resamples=500)
    cc = compare_cheap(res, load_golden(open(cheap, "rb").read(), cheap))
    d = cc.difference
    assert cc.binary and d.mover and d.lam == 0 and not d.helps
    assert (d.ci_low, d.ci_high) == pytest.approx((d.gold_only_low, d.gold_only_high),
                                                  abs=1e-12)
    assert d.effective_n == pytest.approx(20, rel=1e-12) and cc.verdict == cc.gold_only_verdict
    for r in (cc.rate_a, cc.rate_b):
        assert (r.ci_low, r.ci_high) == pytest.approx((r.gold_only_low, r.gold_only_high),
                                                      abs=1e-12)
    ci = interval(d.ci_low, d.ci_high, "rate", signed=True)
    assert ci == interval(d.gold_only_low, d.gold_only_high, "rate", signed=True)
    for lang, note in (("en", "do not help"), ("ko", "도움이 되지 않습니다")):
        text = "\n".join(cheap_lines(cc, lang))
        assert note in text and text.count(ci) >= 2     # PPI and gold-only, the same numbers
        card = cheap_card(cc, lang)
        assert note in card.warning and ci in card.interval and ci in card.reason
    assert cheap_card(cc, "en").tone == cheap_card(cc, "ko").tone
    js = cc.ppi_dict()["gold_only"]
    assert js["interval"] == "mover_t" and js["verdict"] == cc.verdict
    assert (js["ci_low"], js["ci_high"]) == (d.gold_only_low, d.gold_only_high)
