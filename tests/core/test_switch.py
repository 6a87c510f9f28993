"""core.switch: each condition against its interval by hand, the combination (0/1/3), the
choice of A and B across two files, and decisions on generated files whose truth is known."""
import numpy as np
import pytest

from core.errors import InputError
from core.inputs.golden import load_golden
from core.inputs.systems import compare_golden
from core.latency.compare import compare_latency
from core.latency.log import load_timings
from core.paired.margin import margin_decision
from core.planning.noninferiority import cases_needed_noninferiority
from core.views.switch import decision_text
from core.switch import (Condition, combine, decide_files, decide_retrievers, decide_switch,
                         pick_pair, quality_condition, speed_condition)

FAST = dict(resamples=1000, quantile_resamples=50, seed=3)


def golden_csv(table, names=("base", "cand")) -> bytes:
    """A 0/1 golden file with ``table`` = {(a, b): count}."""
    rows = [p for p, k in table.items() for _ in range(k)]
    lines = [f"case_id,{names[0]},{names[1]}"]
    lines += [f"c{i},{a},{b}" for i, (a, b) in enumerate(rows)]
    return ("\n".join(lines) + "\n").encode()


def scores_csv(n, shift, names=("base", "cand"), seed=0) -> bytes:
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.2, 0.8, n)
    b = np.clip(a + shift + rng.normal(0, 0.05, n), 0, 1)
    lines = [f"case_id,{names[0]},{names[1]}"]
    lines += [f"c{i},{x:.4f},{y:.4f}" for i, (x, y) in enumerate(zip(a, b))]
    return ("\n".join(lines) + "\n").encode()


def latency_csv(ratio, n=40, names=("base", "cand"), seed=0, noise=0.05) -> bytes:
    rng = np.random.default_rng(seed)
    base = np.exp(rng.normal(np.log(50), 0.4, n))
    lines = [f"query_id,{names[0]},{names[1]}"]
    for q in range(n):
        lines.append(f"q{q},{base[q] * np.exp(rng.normal(0, noise)):.3f},"
                     f"{base[q] * ratio * np.exp(rng.normal(0, noise)):.3f}")
    return ("\n".join(lines) + "\n").encode()


# 600 cases, 6% discordant, B − A = +0.3 %p: non-inferior at 2 %p, unsure at 1 %p
CLOSE = {(1, 1): 480, (0, 0): 84, (0, 1): 19, (1, 0): 17}
# 300 cases, B loses 10 %p (40 vs 10): inferior at 2 %p
WORSE = {(1, 1): 200, (0, 0): 50, (0, 1): 10, (1, 0): 40}


def test_speed_condition_reads_the_interval_ends():
    assert speed_condition(0.66, 0.77, 1.10) == Condition("speed", "holds", 0.77, 1.10, 0.0)
    c = speed_condition(1.2, 1.4, 1.10)
    assert c.state == "fails" and c.bound == 1.2 and c.gap == pytest.approx(0.1)
    c = speed_condition(0.9, 1.25, 1.10)
    assert c.state == "unsure" and c.bound == 1.25 and c.gap == pytest.approx(0.15)
    assert speed_condition(0.9, 1.10, 1.10).holds   # "at most" the limit


def test_combine_is_switch_only_when_both_hold_and_stay_when_either_fails():
    h, f, u = (Condition("x", s, 0, 0, 0) for s in ("holds", "fails", "unsure"))
    assert combine(h, h) == "switch"
    assert combine(f, h) == combine(h, f) == combine(f, u) == combine(u, f) == "stay"
    assert combine(u, h) == combine(h, u) == combine(u, u) == "inconclusive"


def _quality(table, margin):
    gs = load_golden(golden_csv(table), file="q.csv")
    comp = compare_golden(gs, "base", "cand", resamples=1000, seed=1)
    return comp, margin_decision(comp.comparison, margin)


@pytest.mark.parametrize("table, margin, state", [(CLOSE, 0.02, "holds"),
                                                   (CLOSE, 0.01, "unsure"),
                                                   (WORSE, 0.02, "fails")])
def test_quality_condition_follows_the_margin_verdict(table, margin, state):
    comp, m = _quality(table, margin)
    q = quality_condition(m)
    assert q.state == state and q.limit == -margin
    if state == "holds":
        assert q.bound == m.ci_low > -margin and q.gap == 0
    elif state == "fails":
        assert q.bound == m.ci_high < -margin
        assert q.gap == pytest.approx(-margin - m.ci_high)
    else:
        assert q.gap == pytest.approx(-margin - m.ci_low) and q.gap > 0


@pytest.mark.parametrize("table, margin, ratio, slow, decision, code", [
    (CLOSE, 0.02, 0.7, 1.10, "switch", 0),
    (CLOSE, 0.02, 1.5, 1.10, "stay", 1),       # quality holds, far too slow
    (WORSE, 0.02, 0.7, 1.10, "stay", 1),       # fast but loses 10 %p
    (CLOSE, 0.01, 0.7, 1.10, "inconclusive", 3),
    (CLOSE, 0.02, 1.1, 1.10, "inconclusive", 3),   # ratio right at the limit
])
def test_decisions_on_generated_files(table, margin, ratio, slow, decision, code):
    dec = decide_files(golden_csv(table), "q.csv", latency_csv(ratio), "l.csv",
                       margin=margin, max_slowdown=slow, **FAST)
    assert (dec.decision, dec.exit_code) == (decision, code)
    assert dec.to_dict()["exit_code"] == code and dec.to_dict()["decision"] == decision
    assert (dec.a, dec.b) == ("base", "cand")
    # the speed bounds are compare_latency's geometric-mean interval, unchanged
    lat = compare_latency(load_timings(latency_csv(ratio), file="l.csv"), "base", "cand",
                          resamples=1000, quantile_resamples=50, seed=3)
    assert (dec.ratio_low, dec.ratio_high) == (lat.ratio.geo_ci_low, lat.ratio.geo_ci_high)
    assert dec.speed_condition.bound in (lat.ratio.geo_ci_low, lat.ratio.geo_ci_high)


def test_inconclusive_quality_carries_the_planners_next_step():
    dec = decide_files(golden_csv(CLOSE), "q.csv", latency_csv(0.7), "l.csv", margin="1pp",
                       **FAST)
    assert dec.quality_condition.state == "unsure" and dec.margin == pytest.approx(0.01)
    gs = load_golden(golden_csv(CLOSE), file="q.csv")
    comp = compare_golden(gs, "base", "cand", resamples=1000, seed=3)
    want = cases_needed_noninferiority(comp.a_values, comp.b_values, 0.01)
    assert dec.next_step == want and dec.next_step.n_needed > dec.n_cases
    assert dec.to_dict()["next_step"]["url_params"]["mode"] == "noninferiority"


def test_scores_use_the_margin_on_their_scale():
    dec = decide_files(scores_csv(80, 0.0), "q.csv", latency_csv(0.8), "l.csv", margin=0.05,
                       **FAST)
    assert dec.kind == "score" and dec.decision == "switch"
    dec = decide_files(scores_csv(80, -0.2), "q.csv", latency_csv(0.8), "l.csv", margin=0.05,
                       **FAST)
    assert dec.decision == "stay" and dec.quality_condition.state == "fails"


def test_pick_pair_defaults_and_refuses_a_name_missing_from_either_file():
    assert pick_pair(["x", "y", "z"], ["z", "y", "x"], None, None, quality_file="q",
                     latency_file="l") == ("x", "y")
    assert pick_pair(["x", "y", "z"], ["z", "x"], "z", None, quality_file="q",
                     latency_file="l") == ("z", "x")
    with pytest.raises(InputError) as e:
        pick_pair(["x", "y"], ["x", "w"], None, None, quality_file="q.csv",
                  latency_file="l.csv")
    assert e.value.code == "switch_method_missing"
    assert e.value.file == "l.csv" and e.value.params["method"] == "y"
    assert "q.csv" in str(e.value) and "l.csv" in str(e.value)
    with pytest.raises(InputError) as e:
        pick_pair(["x", "y"], ["x", "y"], "x", "x", quality_file="q", latency_file="l")
    assert e.value.code == "same_method"


def test_mismatched_files_are_refused_naming_both():
    with pytest.raises(InputError) as e:
        decide_files(golden_csv(CLOSE), "q.csv", latency_csv(0.7, names=("base", "new")),
                     "l.csv", margin=0.02, **FAST)
    assert e.value.code == "switch_method_missing"
    assert "'cand'" in str(e.value) and "q.csv" in str(e.value) and "l.csv" in str(e.value)


def test_decide_switch_refuses_different_pairs_or_levels():
    gs = load_golden(golden_csv(CLOSE), file="q.csv")
    comp = compare_golden(gs, "base", "cand", resamples=1000)
    log = load_timings(latency_csv(0.7), file="l.csv")
    with pytest.raises(ValueError):
        decide_switch(comp, compare_latency(log, "cand", "base", resamples=1000,
                                            quantile_resamples=20), 0.02)
    with pytest.raises(ValueError):
        decide_switch(comp, compare_latency(log, "base", "cand", resamples=1000,
                                            quantile_resamples=20, confidence=0.9), 0.02)


def _renamed(log: bytes) -> bytes:
    """tests.latency_logs names the methods A and B; the quality files here use base/cand."""
    text = log.decode().replace("query_id,A,B\n", "query_id,base,cand\n")
    return text.replace(",A,", ",base,").replace(",B,", ",cand,").encode()


def test_a_log_whose_units_look_mixed_gives_no_speed_verdict():
    from tests.latency_logs import wide_log
    log = _renamed(wide_log(queries=40, ratio=0.7, b_scale=1 / 1000))  # B logged in seconds
    dec = decide_files(golden_csv(CLOSE), "q.csv", log, "l.csv", margin=0.02, **FAST)
    # the interval alone would say "B is 1,000x faster": the unit check withholds it
    assert dec.ratio_high < 0.01
    assert dec.speed_condition.state == "unsure"
    assert dec.speed_condition.reason == "units_unclear"
    assert (dec.decision, dec.exit_code) == ("inconclusive", 3)
    assert dec.to_dict()["conditions"]["speed"]["reason"] == "units_unclear"
    assert "units look mixed" in decision_text(dec, "en")
    assert "단위" in decision_text(dec, "ko")


@pytest.mark.parametrize("gain, state", [(1.5, "unsure"), (1.0, "unsure")])
def test_b_always_second_withholds_a_speed_win(gain, state):
    from tests.latency_logs import pair_log
    # B always runs right after A; with a 1.5x cache gain B looks 1.5x faster at a true 1.0
    log = _renamed(pair_log(queries=40, ratio=1.0, gain=gain, order="fixed"))
    dec = decide_files(golden_csv(CLOSE), "q.csv", log, "l.csv", margin=0.02,
                       max_slowdown=1.10, **FAST)
    assert dec.speed_condition.state == state
    assert dec.speed_condition.reason == "order_fixed"
    assert dec.decision == "inconclusive"
    assert "randomise" in decision_text(dec, "en")


def test_a_speed_loss_against_the_orders_pull_stands():
    from tests.latency_logs import pair_log
    # B always second (the order helps B) and B is still 1.5x slower: "do not switch" stands
    log = _renamed(pair_log(queries=40, ratio=1.5, gain=1.0, order="fixed"))
    dec = decide_files(golden_csv(CLOSE), "q.csv", log, "l.csv", margin=0.02, **FAST)
    assert dec.speed_condition.state == "fails" and dec.speed_condition.reason == ""
    assert dec.decision == "stay"


def test_a_random_order_keeps_the_speed_verdict():
    from tests.latency_logs import pair_log
    log = _renamed(pair_log(queries=40, ratio=0.7, order="random"))
    dec = decide_files(golden_csv(CLOSE), "q.csv", log, "l.csv", margin=0.02, **FAST)
    assert dec.speed_condition.state == "holds" and dec.decision == "switch"


def test_the_timing_logs_warnings_travel_with_the_decision():
    from tests.latency_logs import pair_log
    log = _renamed(pair_log(queries=40, ratio=1.0, gain=1.5, order="fixed"))
    dec = decide_files(golden_csv(CLOSE), "q.csv", log, "l.csv", margin=0.02, **FAST)
    codes = [w.code for w in dec.latency_warnings]
    assert "order_pair" in codes
    assert "order_pair" in [w["code"] for w in dec.to_dict()["latency_warnings"]]
    assert "timing log:" in decision_text(dec, "en")


# ----------------------------------------------------------------------------- issue 23 item 2
def test_an_unsure_speed_condition_carries_the_latency_plans_next_step():
    """The speed step is the latency page's plan retargeted to log(max/ratio): the queries
    for the upper bound to reach the limit if the ratio stays as observed."""
    lat = latency_csv(1.05, n=12, noise=0.15)
    dec = decide_files(golden_csv(CLOSE), "q.csv", lat, "l.csv", margin=0.02,
                       max_slowdown=1.2, **FAST)
    assert dec.speed_condition.state == "unsure" and dec.ratio < 1.2
    log = load_timings(lat, file="l.csv")
    latency = compare_latency(log, "base", "cand", **FAST)
    want = latency.plan.retarget(1.2 / latency.ratio.geo_mean_ratio - 1, 0.95)
    ns = dec.next_step_speed
    assert ns.n_needed == want.n_queries > ns.n_have == 12
    assert ns.plan == want and ns.ratio == dec.ratio and ns.max_slowdown == 1.2
    out = dec.to_dict()["next_step_speed"]
    assert out["n_needed"] == want.n_queries and out["plan"]["target"] == pytest.approx(
        1.2 / dec.ratio - 1)
    assert f"About {want.n_queries} queries would show that cand takes at most 1.20×" \
        in decision_text(dec)


def test_no_speed_step_when_the_ratio_is_at_the_limit_or_speed_is_settled():
    lat = latency_csv(1.05, n=12, noise=0.15)
    at_limit = decide_files(golden_csv(CLOSE), "q.csv", lat, "l.csv", margin=0.02,
                            max_slowdown=1.12, **FAST)
    assert at_limit.speed_condition.state == "unsure" and at_limit.ratio >= 1.12
    assert at_limit.next_step_speed.n_needed is None
    assert "more queries would not show that cand is fast enough" in decision_text(at_limit)
    held = decide_files(golden_csv(CLOSE), "q.csv", latency_csv(0.7), "l.csv", margin=0.02,
                        **FAST)
    assert held.speed_condition.holds and held.next_step_speed is None
    assert held.to_dict()["next_step_speed"] is None


def _trec_files():
    from pathlib import Path
    root = Path(__file__).resolve().parents[2] / "data" / "demo_trec"
    runs = tuple((n, (root / n).read_bytes()) for n in ("bm25.run", "dense.run"))
    return (root / "qrels.txt").read_bytes(), runs


def test_trec_runs_are_scored_per_query_and_decided_through_the_margin():
    from core.inputs.trec import read_qrels, read_run, score_runs
    qrels, runs = _trec_files()
    lat = latency_csv(0.7, names=("bm25", "dense"))
    dec = decide_files(qrels, "qrels.txt", lat, "l.csv", margin=0.2, quality_format="trec",
                       runs=runs, measure="nDCG@10", **FAST)
    ts = score_runs([read_run(d, n) for n, d in runs], read_qrels(qrels, "qrels.txt"),
                    ["nDCG@10"], qrels_file="qrels.txt")
    comp = compare_golden(ts.golden("nDCG@10"), "bm25", "dense", resamples=1000, seed=3)
    want = margin_decision(comp.comparison, 0.2)
    assert (dec.a, dec.b, dec.kind) == ("bm25", "dense", "score")
    assert dec.quality == want and dec.n_cases == comp.n_cases
    assert dec.quality_source == "qrels.txt [nDCG@10]"


def test_trec_without_runs_or_with_a_run_missing_from_the_log_is_refused():
    qrels, runs = _trec_files()
    with pytest.raises(InputError) as ei:
        decide_files(qrels, "qrels.txt", latency_csv(0.7), "l.csv", margin=0.2,
                     quality_format="trec", **FAST)
    assert ei.value.code == "switch.err_need_runs"
    with pytest.raises(InputError) as ei:
        decide_files(qrels, "qrels.txt", latency_csv(0.7), "l.csv", margin=0.2,
                     quality_format="trec", runs=runs, **FAST)
    assert ei.value.code == "switch_method_missing"
    assert "bm25.run" in str(ei.value) and "l.csv" in str(ei.value)


def _tables(n=60, shift=0.0, seed=0):
    """Per-query tables as core.retrieval.scifact.evaluate gives them (one column per measure)."""
    import pandas as pd
    from core.retrieval.scifact import MEASURES
    rng = np.random.default_rng(seed)
    ids = [f"q{i}" for i in range(n)]
    base = rng.uniform(0.1, 0.9, n)
    out = {}
    for name, off in (("bm25", 0.0), ("dense", shift), ("hybrid", shift / 2)):
        v = np.clip(base + off + rng.normal(0, 0.05, n), 0, 1)
        out[name] = pd.DataFrame({m: (v > 0.5).astype(float) if m.startswith("hit") else v
                                  for m in MEASURES}, index=pd.Index(ids, name="query_id"))
    return out


def test_retrievers_decide_on_the_scifact_comparison():
    from core.retrieval.scifact import compare_retrievers
    tables = _tables()
    lat = latency_csv(0.8, names=("bm25", "dense"))
    dec = decide_retrievers(tables, lat, "l.csv", margin="0.05", collection="scifact",
                            **FAST)
    comp = compare_retrievers(tables, "bm25", "dense", "ndcg@10", resamples=1000, seed=3)
    assert (dec.a, dec.b) == ("bm25", "dense") and dec.quality == margin_decision(comp, 0.05)
    assert dec.decision == "switch" and dec.quality_source == "scifact [ndcg@10]"
    sub = decide_retrievers(tables, latency_csv(0.8, names=("bm25", "hybrid")), "l.csv",
                            margin=0.05, queries=[f"q{i}" for i in range(20)],
                            metric="hit@10", b="hybrid", **FAST)
    assert sub.n_cases == 20 and sub.kind == "rate" and sub.b == "hybrid"


def test_retrievers_missing_from_the_timing_log_are_refused():
    with pytest.raises(InputError) as ei:
        decide_retrievers(_tables(), latency_csv(0.8), "l.csv", margin=0.05, **FAST)
    assert ei.value.code == "switch_method_missing" and "scifact" in str(ei.value)


def test_harm_condition_reads_the_hurt_share_interval():
    from core.paired import no_harm
    from core.switch import combine, harm_condition
    h = no_harm([1] * 90 + [1] * 10, [1] * 90 + [0] * 10)  # 10% hurt, Wilson ~[5.5%, 17.4%]
    lo, hi = h.hurt_ci
    assert harm_condition(h, 0.2) == Condition("harm", "holds", hi, 0.2, 0.0)
    c = harm_condition(h, 0.1)
    assert c.state == "unsure" and c.bound == hi and c.gap == pytest.approx(hi - 0.1)
    c = harm_condition(h, 0.05)
    assert c.state == "fails" and c.bound == lo and c.gap == pytest.approx(lo - 0.05)
    ok = Condition("quality", "holds", 0, 0, 0)
    fast = Condition("speed", "holds", 1, 1.1, 0)
    assert combine(ok, fast) == "switch"
    assert combine(ok, fast, harm_condition(h, 0.1)) == "inconclusive"
    assert combine(ok, fast, harm_condition(h, 0.05)) == "stay"
