"""Argument checks for every public function, in one place (scipy's ``_iv`` style).

scipy validates each public function once, at the door, in a private "input validation"
helper (``stats/_resampling.py``: ``bootstrap`` -> ``_bootstrap_iv``). Here the helpers live
in one module so the rules are the same everywhere:

* a **whole number** is an ``int`` or a numpy integer (``operator.index`` semantics, as numpy
  and scipy use): ``5.0``, ``"5"`` and ``True`` are refused, whatever the function;
* a **number** is an ``int`` or ``float`` (numpy ones too), never a ``bool`` or a string;
* a **seed** is a whole number in [0, 2^63 - 1] on every path (binary and continuous);
* a **confidence** level is a number in [0.5, 1).

Primitive checks (``whole``, ``number``, ``share``, ``choice``, ``values``, ``pair``,
``confidence``, ``resamples``, ``seed``) raise ``ValueError`` naming the argument; one
``*_iv`` function per family of public functions (``bootstrap_iv``, ``counts_iv``,
``rate_plan_iv``, ...) combines them. A programming mistake (wrong type, out-of-range
argument) is a ``ValueError``; an impossible *user* input (a planning target no sample size
can meet) is a ``core.errors.InputError`` with a translatable code.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from core.errors import InputError

MAX_RESAMPLES = 10_000_000
MAX_SEED = 2**63 - 1


# ----------------------------------------------------------------------------- primitives
def whole(name: str, v, *, lo: int | None = None, hi: int | None = None) -> int:
    """``v`` as an ``int`` when it is a whole number in [lo, hi] (either bound optional)."""
    if isinstance(v, (bool, np.bool_)):
        raise ValueError(f"{name} must be a whole number, got {v!r}")
    try:
        x = operator.index(v)
    except TypeError:
        raise ValueError(f"{name} must be a whole number, got {v!r}") from None
    if (lo is not None and x < lo) or (hi is not None and x > hi):
        if hi is None:
            what = "a non-negative whole number" if lo == 0 else f"a whole number >= {lo:,}"
        elif lo is None:
            what = f"a whole number <= {hi:,}"
        else:
            what = f"a whole number between {lo:,} and {hi:,}"
        raise ValueError(f"{name} must be {what}, got {v!r}")
    return int(x)


def number(name: str, v, *, finite: bool = True) -> float:
    """``v`` as a ``float`` when it is a real number (``bool`` and strings refused)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(
            v, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number, got {v!r}")
    x = float(v)
    if finite and not math.isfinite(x):
        raise ValueError(f"{name} must be a finite number, got {v!r}")
    return x


def between(name: str, v, lo: float, hi: float) -> float:
    """A real number in [lo, hi]."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(
            v, (int, float, np.integer, np.floating)) or not lo <= float(v) <= hi:
        raise ValueError(f"{name} must be a number in [{lo:g}, {hi:g}], got {v!r}")
    return float(v)


def share(name: str, v) -> float:
    """A number strictly between 0 and 1 (a probability, persistence, level)."""
    x = number(name, v, finite=False)
    if not 0.0 < x < 1.0:
        raise ValueError(f"{name} must be a number strictly between 0 and 1, got {v!r}")
    return x


def choice(name: str, v, options) -> object:
    """``v`` when it is one of ``options``; the message lists them."""
    if v not in tuple(options):
        raise ValueError(f"{name} must be one of {', '.join(map(str, options))}, got {v!r}")
    return v


def confidence(c) -> float:
    """A confidence level in [0.5, 1)."""
    if isinstance(c, (bool, np.bool_)) or not isinstance(
            c, (int, float, np.integer, np.floating)) or not 0.5 <= float(c) < 1.0:
        raise ValueError(f"confidence must be a number in [0.5, 1), got {c!r}")
    return float(c)


def resamples(r, *, hi: int = MAX_RESAMPLES) -> int:
    """A whole number of resamples in [1, hi]."""
    return whole("resamples", r, lo=1, hi=hi)


def seed(s) -> int:
    """A whole-number seed in [0, 2^63 - 1]: the same rule on every random path."""
    return whole("seed", s, lo=0, hi=MAX_SEED)


def values(name: str, x, *, min_n: int = 1) -> np.ndarray:
    """A one-dimensional float array of at least ``min_n`` finite values."""
    arr = np.asarray(x, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size < min_n:
        raise ValueError(f"{name} needs at least {min_n} values, got {arr.size}")
    # A finite sum proves every value finite (NaN and inf propagate through a sum) in one
    # cheap pass; only when the sum is not finite (a bad value, or a huge-valued overflow) is
    # each value looked at.
    if not math.isfinite(float(np.sum(arr))) and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values; drop or fix them first")
    return arr


def pair(a, b, *, min_n: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Two paired value vectors (``values``) of the same length."""
    a = values("a", a, min_n=min_n)
    b = values("b", b, min_n=min_n)
    if a.shape != b.shape:
        raise ValueError(f"a and b must be paired (same length), got {a.size} and {b.size}")
    return a, b


def labels(name: str, x) -> np.ndarray:
    """A one-dimensional vector of relevance labels 0, 1 or 2 (as int64)."""
    a = np.asarray(x)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {a.shape}")
    if a.size and not np.isin(a, (0, 1, 2)).all():
        raise ValueError(f"{name} must hold labels 0, 1 or 2 only")
    return a.astype(np.int64)


def instance(name: str, v, kind, what: str | None = None):
    """``v`` when it is an instance of ``kind`` (a type or a tuple of types)."""
    if not isinstance(v, kind):
        if what is None:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            what = " or ".join(f"a {k.__name__}" for k in kinds)
        raise ValueError(f"{name} must be {what}, got {type(v).__name__} {v!r:.60}")
    return v


def each(name: str, items, kind, what: str) -> list:
    """``items`` as a list whose every element is an instance of ``kind``."""
    out = list(items)
    if not all(isinstance(x, kind) for x in out):
        raise ValueError(f"{name} must be {what}")
    return out


def mapping(name: str, v, value_kind=object, what: str | None = None) -> dict:
    """A dict whose values are instances of ``value_kind``."""
    if not isinstance(v, dict) or not all(isinstance(x, value_kind) for x in v.values()):
        raise ValueError(f"{name} must be {what or 'a dict'}")
    return v


def text(name: str, v, *, what: str = "a non-empty string") -> str:
    """A string with something other than spaces in it."""
    if not isinstance(v, str) or not v.strip():
        raise ValueError(f"{name} must be {what}, got {v!r:.60}")
    return v


def positive(name: str, v) -> float:
    """A finite number above 0."""
    x = number(name, v)
    if not x > 0:
        raise ValueError(f"{name} must be a number above 0, got {v!r}")
    return x


def axis_span(lo, hi, *, log: bool = False) -> tuple[float, float]:
    """An axis's ends: two finite numbers with ``lo < hi`` (both above 0 on a ``log`` axis)."""
    lo = positive("lo", lo) if log else number("lo", lo)
    hi = number("hi", hi)
    if not hi > lo:
        raise ValueError(f"hi must be above lo, got lo={lo!r}, hi={hi!r}")
    return lo, hi


def nonempty(name: str, items, *, what: str = "item") -> list:
    """``items`` as a list holding at least one element."""
    out = list(items)
    if not out:
        raise ValueError(f"{name} must hold at least one {what}")
    return out


def same_length(**seqs) -> int:
    """The common length of the named sequences (``same_length(query_ids=q, query_texts=t)``)."""
    sizes = {k: len(v) for k, v in seqs.items()}
    if len(set(sizes.values())) > 1:
        names = " and ".join(sizes)
        raise ValueError(f"{names} must have the same length, got "
                         + ", ".join(f"{k}={n}" for k, n in sizes.items()))
    return next(iter(sizes.values()), 0)


def distinct(name: str, items) -> list:
    """``items`` as a list with no element twice."""
    out = list(items)
    if len(set(out)) != len(out):
        raise ValueError(f"{name} must have distinct names, got {out}")
    return out


def probabilities(name: str, p) -> np.ndarray:
    """A one-dimensional array of numbers in [0, 1] (p-values)."""
    arr = np.asarray(p, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional")
    if arr.size and (not np.all(np.isfinite(arr)) or arr.min() < 0 or arr.max() > 1):
        raise ValueError(f"{name} must be numbers in [0, 1]")
    return arr


def at_least(name: str, x, lo: float) -> np.ndarray:
    """Numbers (a scalar or an array, e.g. sample sizes for a curve) all at least ``lo``."""
    arr = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(arr)) or np.any(arr < lo):
        raise ValueError(f"{name} must be >= {lo:g}")
    return arr


# ----------------------------------------------------------------------------- core.paired.stats
def wilson_iv(successes, n, conf) -> tuple[int, int, float]:
    """``wilson_interval``: n >= 1 cases, 0 <= successes <= n, a confidence level."""
    n = whole("n", n, lo=1)
    successes = whole("successes", successes)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be a whole number in [0, n={n}], got {successes!r}")
    return successes, n, confidence(conf)


def bootstrap_iv(n_resamples, conf, s) -> tuple[int, float, int]:
    """Bootstrap and resampling functions: resamples, confidence, seed."""
    return resamples(n_resamples), confidence(conf), seed(s)


def resampling_iv(n_resamples, s) -> tuple[int, int]:
    """Randomization tests: resamples and seed."""
    return resamples(n_resamples), seed(s)


def counts_iv(**counts) -> tuple[int, ...]:
    """Exact tests on counts (``mcnemar_exact``, ``sign_test_p``): non-negative whole numbers,
    the same rule for both (``mcnemar_exact(5.0, 3)`` and ``sign_test_p(5.0, 3)`` both refuse)."""
    return tuple(whole(name, v, lo=0) for name, v in counts.items())


# ----------------------------------------------------------------------------- core.paired.margin
def margin(m, *, binary: bool, span: float | None = None) -> float:
    """A margin delta >= 0 on the difference's own scale: below 1 for 0/1 outcomes (a share:
    0.02 is 2 %p); for scores below ``span``, the largest loss B - A can show (1 for scores
    in [0, 1], else their range): a margin that large could never be failed
    (``InputError("margin.err_cannot_fail")``)."""
    x = number("margin", m)
    if x < 0 or (binary and x >= 1):
        where = "in [0, 1) for 0/1 outcomes (0.02 = 2 %p)" if binary else ">= 0"
        raise ValueError(f"margin must be a number {where}, got {m!r}")
    if not binary and span is not None and span > 0 and x >= span:
        raise InputError("margin.err_cannot_fail", value=f"{x:g}", span=f"{span:g}")
    return x


MAX_SLOWDOWN = 10.0  # the largest B/A time ratio a speed limit may allow (the Switch? page's)
MIN_SLOWDOWN = 0.1


def max_slowdown(v) -> float:
    """A limit on B's time over A's (``--max-slowdown``): a number in [``MIN_SLOWDOWN``,
    ``MAX_SLOWDOWN``]. Beyond 10x a limit is no longer a speed condition (1e308 could never
    fail); ``inf``/``nan`` are refused the same way (``InputError("switch.err_max_slowdown")``)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(
            v, (int, float, np.integer, np.floating)) or not MIN_SLOWDOWN <= v <= MAX_SLOWDOWN:
        raise InputError("switch.err_max_slowdown", value=str(v)[:40], lo=f"{MIN_SLOWDOWN:g}",
                         hi=f"{MAX_SLOWDOWN:g}")
    return float(v)


# ----------------------------------------------------------------------------- core.planning.sample_size
def plan_number(name: str, x) -> float:
    """A number for the planner; a non-finite one is an ``InputError`` the page translates."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(
            x, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number, got {x!r}")
    x = float(x)
    if not math.isfinite(x):
        raise InputError("sample_size.err_not_finite", name=name)
    return x


def plan_rate(rate) -> float:
    p = plan_number("rate", rate)
    if not 0.0 < p < 1.0:
        raise InputError("sample_size.err_rate", value=f"{p:g}")
    return p


def plan_half_width(half_width) -> float:
    e = plan_number("half_width", half_width)
    if not 0.0 < e < 1.0:
        raise InputError("sample_size.err_half_width", value=f"{e:g}")
    return e


def plan_level(name: str, x) -> float:
    v = plan_number(name, x)
    if not 0.0 < v < 1.0:
        raise InputError("sample_size.err_level", name=name, value=f"{v:g}")
    return v


def plan_discordance(discordance, diff) -> tuple[float, float]:
    d = plan_number("discordance", discordance)
    delta = plan_number("diff", diff)
    if not 0.0 < d <= 1.0:
        raise InputError("sample_size.err_discordance", value=f"{d:g}")
    if abs(delta) > d + 1e-12:
        raise InputError("sample_size.err_diff_gt_discordance", diff=f"{delta:g}",
                         discordance=f"{d:g}")
    if d - delta * delta <= 0.0:
        raise InputError("sample_size.err_no_variance", diff=f"{delta:g}", discordance=f"{d:g}")
    return d, delta


def plan_sigma(sigma) -> float:
    s = plan_number("sigma", sigma)
    if not s > 0.0:
        raise InputError("sample_size.err_sigma", value=f"{s:g}")
    return s


def plan_margin(margin, diff) -> tuple[float, float]:
    """Non-inferiority plans: a margin 0 < delta < 1 (a share, or score units) and an assumed
    true difference B - A above -delta (at or below it, non-inferiority is false and no n
    shows it)."""
    m = plan_number("margin", margin)
    if not 0.0 < m < 1.0:
        raise InputError("sample_size.err_margin", value=f"{m:g}")
    delta = plan_number("diff", diff)
    if not delta > -m:
        raise InputError("sample_size.err_ni_diff", diff=f"{delta:g}", margin=f"{m:g}")
    return m, delta


def plan_n(n, *, name: str = "n", min_n: int = 1) -> int:
    return whole(name, n, lo=min_n)


def current_n_iv(current_n, *, min_n: int = 1) -> int | None:
    return None if current_n is None else plan_n(current_n, name="current_n", min_n=min_n)


def rate_plan_iv(rate, half_width, conf) -> tuple[float, float, float]:
    """One binary rate: 0 < rate < 1, 0 < half_width < 1, a confidence level."""
    return plan_rate(rate), plan_half_width(half_width), confidence(conf)


def power_plan_iv(alpha, power) -> tuple[float, float]:
    """Test designs: 0 < alpha < 1 and 0 < power < 1."""
    return plan_level("alpha", alpha), plan_level("power", power)


# ----------------------------------------------------------------------------- core.agreement.levels
def agreement_iv(weights, n_resamples, conf, s, batch, *, weight_options) -> tuple:
    """``source_agreement`` and ``rank_sources``."""
    choice("weights", weights, weight_options)
    return (weights, whole("resamples", n_resamples, lo=1, hi=1_000_000), confidence(conf),
            seed(s), whole("batch", batch, lo=1, hi=1_000_000))


def split_half_iv(splits, s, batch) -> tuple[int, int, int]:
    """``split_half``: splits, seed, batch."""
    return (whole("splits", splits, lo=1, hi=100_000), seed(s),
            whole("batch", batch, lo=1, hi=100_000))


# ----------------------------------------------------------------------------- core.latency.compare
def _groups_iv(groups) -> list[np.ndarray]:
    """Per-query latency groups: a non-empty list of non-empty 1-D arrays of finite numbers."""
    if not isinstance(groups, (list, tuple)) or len(groups) < 1:
        raise ValueError("groups must be a non-empty list of 1-D arrays")
    arrays = [np.asarray(g, dtype=float) for g in groups]
    if (any(a.ndim != 1 or a.size == 0 for a in arrays)
            or not np.isfinite(np.concatenate(arrays)).all()):   # one pass over all values
        raise ValueError("groups must be non-empty 1-D arrays of finite numbers")
    return arrays


def probs(p) -> np.ndarray:
    """Quantile levels: at least one number in [0, 1]."""
    arr = np.asarray(p, dtype=float).ravel()
    if arr.size == 0 or np.any((arr < 0) | (arr > 1)) or not np.all(np.isfinite(arr)):
        raise ValueError(f"probs must be numbers in [0, 1], got {p!r}")
    return arr


def quantile_bootstrap_iv(groups, p, n_resamples, s) -> tuple:
    """``nested_bootstrap_quantiles``: groups, quantile levels, resamples, seed."""
    return _groups_iv(groups), probs(p), resamples(n_resamples), seed(s)


def timings_iv(a_values, a_query, b_values, b_query, nq, n_resamples, s) -> tuple:
    """``paired_median_ratio_bootstrap``: each method's latencies (> 0) with the query index
    of each in [0, nq), resamples and seed."""
    a, b = np.asarray(a_values, float), np.asarray(b_values, float)
    qa, qb = np.asarray(a_query, np.int64), np.asarray(b_query, np.int64)
    if a.shape != qa.shape or b.shape != qb.shape or a.size == 0 or b.size == 0:
        raise ValueError("values and query indices must be non-empty and of equal length")
    nq = whole("nq", nq, lo=1)
    if qa.min() < 0 or qb.min() < 0 or qa.max() >= nq or qb.max() >= nq:
        raise ValueError(f"query indices must lie in [0, nq={nq})")
    if not (np.all(a > 0) and np.all(b > 0)) or not (np.all(np.isfinite(a))
                                                     and np.all(np.isfinite(b))):
        raise ValueError("latencies must be finite and above 0")
    return a, qa, b, qb, nq, resamples(n_resamples), seed(s)


def warmup_iv(permutations, alpha, min_slowdown, s) -> tuple[int, float, float, int]:
    """``detect_warmup``: permutations, 0 < alpha < 1, min_slowdown >= 1, seed."""
    alpha = share("alpha", alpha)
    slow = number("min_slowdown", min_slowdown)
    if slow < 1:
        raise ValueError(f"min_slowdown must be >= 1, got {min_slowdown!r}")
    return resamples(permutations), alpha, slow, seed(s)


def latency_iv(conf, n_resamples, quantile_resamples, s, drop_warmup) -> tuple:
    """``compare_latency``: confidence, both resample counts, seed, runs to drop (>= 0)."""
    return (confidence(conf), resamples(n_resamples),
            whole("quantile_resamples", quantile_resamples, lo=1, hi=MAX_RESAMPLES), seed(s),
            whole("drop_warmup", drop_warmup, lo=0))


# ----------------------------------------------------------------------------- core.paired.sequential
def sequential_iv(data):
    """``core.paired.sequential``: a checked ``PairedData`` whose values all lie in [0, 1] (0/1
    outcomes or unit scores), so B − A lies in [-1, 1], the range the betting confidence
    sequence needs to be valid at every n."""
    if not (data.binary or data.unit_scores):
        raise ValueError("the sequential mode needs every value of a and b in [0, 1] "
                         "(0/1 outcomes or scores such as nDCG, recall, MRR)")
    return data
