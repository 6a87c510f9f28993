"""core.checks: one set of argument rules for every public function."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core import checks
from core.agreement.levels import source_agreement, split_half
from core.retrieval.beir_table import sign_test_p
from core.paired.multi import compare_many
from core.paired.compare import compare_paired, rate_estimate
from core.paired.significance import mcnemar_exact, randomization_p
from core.planning.sample_size import plan_paired, plan_rate
from core.paired.stats import bootstrap_mean, paired_bootstrap, resolution, wilson_interval
from core.paired.streams import resample_seeds

BIN_A, BIN_B = [1, 0, 1, 1, 0, 1], [0, 0, 1, 0, 0, 1]
CONT_A, CONT_B = [0.1, 0.5, 0.3, 0.9], [0.2, 0.4, 0.3, 0.5]


@pytest.mark.parametrize("v", [5.0, "5", True, np.float64(5.0), None, 2.5])
def test_whole_refuses_anything_but_integers(v):
    with pytest.raises(ValueError, match="count must be a whole number"):
        checks.whole("count", v)


def test_whole_accepts_python_and_numpy_integers():
    assert checks.whole("count", 5) == 5
    assert checks.whole("count", np.int64(5), lo=0, hi=5) == 5
    with pytest.raises(ValueError, match="count must be a whole number between 0 and 4"):
        checks.whole("count", 5, lo=0, hi=4)
    with pytest.raises(ValueError, match="count must be a non-negative whole number"):
        checks.whole("count", -1, lo=0)


@pytest.mark.parametrize("call", [lambda a, b: mcnemar_exact(a, b),
                                  lambda a, b: sign_test_p(a, b)])
@pytest.mark.parametrize("a,name", [(5.0, None), (-1, None), (True, None)])
def test_exact_tests_on_counts_follow_one_rule(call, a, name):
    with pytest.raises(ValueError, match="must be a (non-negative )?whole number"):
        call(a, 3)


def test_exact_tests_agree_on_whole_numbers():
    assert mcnemar_exact(5, 3) == sign_test_p(5, 3)
    assert mcnemar_exact(np.int64(5), 3) == sign_test_p(np.int64(5), 3)


SEEDED = [
    lambda s: paired_bootstrap(BIN_A, BIN_B, resamples=1000, seed=s),
    lambda s: paired_bootstrap(CONT_A, CONT_B, resamples=1000, seed=s),
    lambda s: bootstrap_mean(BIN_A, resamples=1000, seed=s),
    lambda s: bootstrap_mean(CONT_A, resamples=1000, seed=s),
    lambda s: randomization_p(BIN_A, BIN_B, resamples=1000, seed=s),
    lambda s: randomization_p(CONT_A, CONT_B, resamples=1000, seed=s),
    lambda s: rate_estimate(BIN_A, seed=s),
    lambda s: rate_estimate(CONT_A, resamples=1000, seed=s),
    lambda s: compare_paired(BIN_A, BIN_B, resamples=1000, seed=s),
    lambda s: compare_paired(CONT_A, CONT_B, resamples=1000, seed=s),
    lambda s: resample_seeds(s, 10),
]


@pytest.mark.parametrize("call", SEEDED)
@pytest.mark.parametrize("seed", ["x", True, 1.0, -1, None])
def test_seed_is_checked_on_every_path(call, seed):
    with pytest.raises(ValueError, match="seed must be"):
        call(seed)


def test_seed_is_checked_in_other_modules():
    import pandas as pd
    df = pd.DataFrame({"a": CONT_A, "b": CONT_B})
    with pytest.raises(ValueError, match="seed must be"):
        compare_many(df, resamples=1000, seed="x")
    with pytest.raises(ValueError, match="seed must be"):
        compare_many(df, resamples=1000, seed=True)


@pytest.mark.parametrize("kwargs,match", [
    (dict(resamples=2.5), "resamples must be a whole number"),
    (dict(resamples=0), "resamples must be a whole number between 1"),
    (dict(confidence=1.0), "confidence must be a number in"),
    (dict(confidence=True), "confidence must be a number in"),
    (dict(confidence="0.95"), "confidence must be a number in"),
])
def test_bootstrap_family_messages(kwargs, match):
    for call in (lambda: paired_bootstrap(CONT_A, CONT_B, **kwargs),
                 lambda: bootstrap_mean(CONT_A, **kwargs),
                 lambda: compare_paired(BIN_A, BIN_B, **kwargs)):
        with pytest.raises(ValueError, match=match):
            call()


def test_wilson_and_resolution_use_the_whole_number_rule():
    with pytest.raises(ValueError, match="successes must be a whole number"):
        wilson_interval(5.0, 10)
    with pytest.raises(ValueError, match="n must be a whole number"):
        wilson_interval(5, 10.0)
    with pytest.raises(ValueError, match="n must be a whole number >= 1"):
        resolution(0)
    assert wilson_interval(np.int64(5), 10) == wilson_interval(5, 10)


def test_planner_rules():
    with pytest.raises(ValueError, match="current_n must be a whole number"):
        plan_rate(0.8, 0.05, current_n=30.0)
    with pytest.raises(ValueError, match="rate must be a number"):
        plan_rate(True, 0.05)
    with pytest.raises(ValueError, match="current_n must be a whole number >= 1"):
        plan_paired(0.2, 0.05, 0.05, current_n=0)


def test_agreement_rules():
    from core.agreement.files import load_labels
    data = b"query_id,doc_id,gold,crowd\nq1,d1,1,1\nq1,d2,0,0\nq2,d1,2,1\nq2,d2,0,1\n"
    labels = load_labels(data, "l.csv")
    with pytest.raises(ValueError, match="seed must be"):
        source_agreement(labels, "crowd", resamples=100, seed="x")
    with pytest.raises(ValueError, match="weights must be one of linear, quadratic"):
        source_agreement(labels, "crowd", weights="cubic")
    with pytest.raises(ValueError, match="splits must be a whole number"):
        split_half(labels, splits=2.0)


# ----------------------------------------------------------------------------- the primitives
# added for the remaining public functions (issue 14): one rule and one message shape each.
def test_instance_names_the_argument_and_the_type():
    from core.serialize import to_csv_bytes
    with pytest.raises(ValueError, match=r"df must be a pandas DataFrame, got list"):
        to_csv_bytes([1, 2])


def test_whole_number_rules_reach_retrieval_and_tables():
    from core.retrieval.encode_job import estimate_encode
    from core.inputs.tables import read_table
    with pytest.raises(ValueError, match=r"sample must be a whole number, got True"):
        estimate_encode(["a"], None, sample=True)
    with pytest.raises(ValueError, match=r"max_columns must be a whole number, got 5.0"):
        read_table(b"a,b\n1,2\n", "x.csv", max_columns=5.0)


def test_same_length_names_both_sequences():
    from core.agreement.labels import confusion
    with pytest.raises(ValueError, match=r"gold and other must have the same length, got "
                                         r"gold=2, other=3"):
        confusion([0, 1], [0, 1, 2])


def test_choice_and_distinct():
    from core.views.verdicts import verdict_sentence
    with pytest.raises(ValueError, match=r"unit must be one of cases, queries, got 'rows'"):
        verdict_sentence("no_difference", a="A", b="B", mean=0.0, ci_low=-0.1, ci_high=0.1,
                         n=10, confidence=0.95, unit="rows")
    with pytest.raises(ValueError, match=r"runs must have distinct names"):
        checks.distinct("runs", ["a", "a"])


def test_probabilities_and_at_least():
    from core.paired.multi import holm
    from core.planning.sample_size import wilson_half_width
    with pytest.raises(ValueError, match=r"pvalues must be numbers in \[0, 1\]"):
        holm([0.2, 1.5])
    with pytest.raises(ValueError, match=r"n must be >= 1"):
        wilson_half_width(0.5, [10, 0])


def test_margin():
    assert checks.margin(0.02, binary=True) == 0.02
    assert checks.margin(3, binary=False) == 3.0
    for bad, binary in ((-0.1, False), (1.0, True), ("0.1", True), (float("inf"), False)):
        with pytest.raises(ValueError, match="margin"):
            checks.margin(bad, binary=binary)


def test_axis_span_needs_lo_below_hi_and_positive_ends_on_a_log_axis():
    assert checks.axis_span(-1, 2) == (-1.0, 2.0)
    assert checks.axis_span(0.1, 30, log=True) == (0.1, 30.0)
    for lo, hi, log in ((1, 1, False), (2, 1, False), (0, 1, True), (-1, 1, True),
                        (float("nan"), 1, False), ("0", 1, False)):
        with pytest.raises(ValueError):
            checks.axis_span(lo, hi, log=log)


# ----------------------------------------------------------------------------- validate once
def _counted_checks(monkeypatch) -> "collections.Counter":
    """Wrap every function of ``core.checks`` so that each call is counted under the argument
    it checks: ``seed`` and ``resamples`` where their rule runs (``whole("seed")``,
    ``whole("resamples")``), ``confidence``, the ``interval`` choice and each value vector
    (``values("a")``, ``values("b")``). Module functions call each other through the module,
    so a check reached through ``bootstrap_iv`` counts once, where its rule runs."""
    import collections
    import functools

    counts = collections.Counter()

    def wrap(name, f):
        @functools.wraps(f)
        def counted(*args, **kw):
            if name in ("whole", "values", "choice") and args and isinstance(args[0], str):
                counts[args[0]] += 1
            elif name == "confidence":
                counts["confidence"] += 1
            return f(*args, **kw)
        return counted

    for name in dir(checks):
        f = getattr(checks, name)
        if callable(f) and getattr(f, "__module__", "") == "core.checks" and not isinstance(f, type):
            monkeypatch.setattr(checks, name, wrap(name, f))
    return counts


@pytest.mark.parametrize("rows, binary", [
    ([(f"c{i}", 0.2 + 0.6 * ((i * 7) % 11) / 11, 0.25 + 0.6 * ((i * 5) % 13) / 13)
      for i in range(40)], False),
    ([(f"c{i}", int(i % 3 != 0), int(i % 4 != 0)) for i in range(40)], True),
], ids=["scores", "binary"])
def test_one_compare_checks_each_argument_once(rows, binary, tmp_path, monkeypatch, capsys):
    """Issue 31, validate once (scipy's ``_iv`` style): ``python -m core compare FILE --json``
    on one two-method file checks the seed, the resamples, the confidence, the interval and
    each vector exactly once, at ``compare_paired``'s door; everything below trusts them
    (before issue 31 a scores compare checked the seed 10 times, the confidence 11, the
    vectors 3 times each; a 0/1 compare the confidence 5 times: Tango's interval, shown and
    in the self-check, through ``core.paired.difference.table_interval`` now, and the rates'
    Wilson z through ``z_of``)."""
    from core.__main__ import main

    f = tmp_path / "g.csv"
    f.write_text("case_id,A,B\n" + "".join(f"{c},{a},{b}\n" for c, a, b in rows))
    counts = _counted_checks(monkeypatch)
    assert main(["compare", str(f), "--json", "--resamples", "1000", "--seed", "3"]) == 0
    assert '"b_minus_a"' in capsys.readouterr().out
    for arg in ("seed", "resamples", "interval", "a", "b", "confidence"):
        assert counts[arg] == 1, (arg, dict(counts))


def test_a_lists_compare_checks_each_argument_once_per_door(monkeypatch, capsys):
    """Issue 31 for several systems: ``compare --format lists`` enters five public doors
    (``compare_paired`` through ``compare_golden``, ``compare_many``, ``best_set``,
    ``by_group``, ``lists_bounds``); each checks the confidence and the seed once, and the
    interval (``best_set`` takes none), and nothing below them checks again (before, at
    e5d08a2: the confidence 28 times, the seed 17, the interval 10, counted by this very
    wrapper: ``compare_many`` through ``paired_bootstrap`` and
    ``difference_interval`` per pair, ``by_group`` through ``compare_paired``,
    ``cases_needed`` and ``verdict`` per group, the judged pool through ``compare_paired``
    per reading)."""
    from core.__main__ import main

    demo = Path(__file__).resolve().parents[2] / "data" / "demo_lists.csv"
    counts = _counted_checks(monkeypatch)
    assert main(["compare", str(demo), "--format", "lists", "--json", "--resamples",
                 "1000"]) == 0
    out = capsys.readouterr().out
    assert '"best_set"' in out and '"groups"' in out and '"judged"' in out and '"pairs"' in out
    assert (counts["confidence"], counts["seed"], counts["interval"]) == (5, 5, 4), dict(counts)


def test_trusted_helpers_still_have_a_checked_door():
    """What the compare path no longer re-checks is checked at every public door that takes
    it from a caller."""
    with pytest.raises(ValueError, match="seed"):
        paired_bootstrap(CONT_A, CONT_B, resamples=10, seed=-1)
    with pytest.raises(ValueError, match="interval"):
        paired_bootstrap(CONT_A, CONT_B, resamples=10, interval="nope")
    with pytest.raises(ValueError, match="confidence"):
        compare_paired(CONT_A, CONT_B, resamples=10, confidence=1.5)
    with pytest.raises(ValueError, match="seed"):
        resample_seeds(-1, 10)


def test_rate_estimate_checks_the_confidence_once(monkeypatch):
    """Issue 31: ``rate_estimate`` of 0/1 values checks its level once (it went through
    ``wilson_interval``'s door a second time) and gives ``wilson_interval``'s bounds."""
    x = np.array([1, 0, 1, 1, 0, 1, 1, 1, 0, 1], dtype=float)
    counts = _counted_checks(monkeypatch)
    r = rate_estimate(x, confidence=0.9)
    assert counts["confidence"] == 1 and counts["values"] == 1, dict(counts)
    assert (r.ci_low, r.ci_high) == wilson_interval(7, 10, 0.9)
