"""Anytime-valid intervals for a golden set that grows and is looked at again and again
(issue 33): a confidence sequence for B − A and for each method's mean, valid at every n at
once, its e-process test, and the history of every look.

**The sequence** (Waudby-Smith & Ramdas 2024, "Estimating means of bounded random variables
by betting", *JRSS-B* 86:1-27, section 4: the hedged capital process with predictable
plug-in bets). For values x_1, x_2, ... in [0, 1] with mean m and a candidate mean m':

    mu_t      = (1/2 + x_1 + ... + x_t) / (t + 1)                 (mu_0 = 1/2)
    s2_t      = (1/4 + sum_{i<=t} (x_i - mu_i)^2) / (t + 1)       (s2_0 = 1/4)
    bet_i     = sqrt(2 log(2/alpha) / (s2_{i-1} i log(1 + i)))     (predictable: uses x_<i)
    K+_t(m')  = prod_{i<=t} (1 + min(bet_i, c/m') (x_i - m'))
    K-_t(m')  = prod_{i<=t} (1 - min(bet_i, c/(1 - m')) (x_i - m'))
    K_t(m')   = max(theta K+_t(m'), (1 - theta) K-_t(m')),   theta = 1/2, c = 1/2

K+ and K- are non-negative martingales when m' = m, so theta K+ + (1 - theta) K- is one too and
Ville's inequality gives P(exists t: K_t(m) >= 1/alpha) <= alpha. The confidence sequence is
C_t = {m' : K_s(m') < 1/alpha for every s <= t} (the running intersection, still valid:
Howard, Ramdas, McAuliffe & Sekhon 2021, *Ann. Statist.* 49:1055, section 3), read on a grid of
``GRID`` candidates (the hull of the candidates kept). Paired differences d = B − A in
[-1, 1] (0/1 outcomes, scores in [0, 1]) enter as x = (d + 1)/2, so the interval of B − A
is 2 C_t − 1; each method's own mean in [0, 1] enters as is.

**The test** is the e-process of the same bets at B − A = 0: E_t = K_t(1/2) on x = (d + 1)/2,
bounded by the test martingale (K+ + K-)/2; its anytime-valid p-value is
p_t = min(1, 1 / max_{s<=t} E_s) (Ramdas, Grünwald, Vovk & Shafer 2023, *Statist. Sci.*
38:576). The verdict stays the one rule (``core.paired.stats.verdict``): the interval leaves out
0 and p_t < alpha; with the running intersection the two agree by construction.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core import checks
from core.paired.difference import PairedData, paired_data
from core.paired.difference import tango_limits
from core.paired.intervals import z_two_sided
from core.paired.significance import mcnemar_midp
from core.paired.skew_intervals import t_quantile
from core.paired.stats import significance_level, verdict

METHOD = "betting_hedged_prpl"   # Waudby-Smith & Ramdas 2024, hedged capital, PrPl bets
GRID = 2001            # candidate means on [0, 1]: B − A read to 0.001, a method's mean to 0.0005
TRUNCATION = 0.5       # c: a bet never stakes more than half the capital against one value
FIRST_LOOK = 10        # the history starts at the 10th case (or at n when fewer)
MAX_LOOKS = 500        # above this many cases the history keeps every k-th look (k stated)
SORTED_P = 0.001       # runs_p below this: the rows look sorted by outcome (``looks_sorted``)
_CHUNK = 256           # rows per block while the kept candidates are carried forward


def predictable_bets(x: np.ndarray, alpha: float) -> np.ndarray:
    """The predictable plug-in bets bet_i of the module docstring (Waudby-Smith & Ramdas 2024,
    the PrPl rule tuned for every t, eq. for lambda^PrPl with log(2/alpha) for the two-sided,
    hedged process): bet_i = sqrt(2 log(2/alpha) / (s2_{i-1} i log(1 + i))), where s2 is the
    regularised running variance (prior 1/4 as one fake observation at 1/2). ``x`` (checked
    by the caller) lies in [0, 1]; works along the last axis of a 2-D array too."""
    x = np.asarray(x, dtype=float)
    n = x.shape[-1]
    t = np.arange(1, n + 1, dtype=float)
    mu = (0.5 + np.cumsum(x, axis=-1)) / (t + 1)
    s2 = (0.25 + np.cumsum((x - mu) ** 2, axis=-1)) / (t + 1)
    prev = np.concatenate([np.full(x.shape[:-1] + (1,), 0.25), s2[..., :-1]], axis=-1)
    return np.sqrt(2.0 * math.log(2.0 / alpha) / (prev * t * np.log1p(t)))


def _log_steps(x: np.ndarray, bets: np.ndarray, m: np.ndarray):
    """log(1 + bet+ (x - m')) and log(1 - bet- (x - m')) for rows x (r,) and candidates m' (g,):
    two (r, g) arrays. The truncations c/m' and c/(1 - m') keep every factor >= 1 - c > 0."""
    with np.errstate(divide="ignore"):
        up = np.minimum(bets[:, None], TRUNCATION / m[None, :])
        down = np.minimum(bets[:, None], TRUNCATION / (1.0 - m[None, :]))
    dev = x[:, None] - m[None, :]
    return np.log1p(up * dev), np.log1p(-down * dev)


def log_capital(x, m, alpha: float) -> np.ndarray:
    """log K_t(m') of the module docstring for every t (rows) and candidate m' (columns):
    the hedged capital max(K+/2, K-/2) with the predictable plug-in bets. ``x`` in [0, 1] and
    ``m`` in [0, 1] are trusted (the public doors check them)."""
    x = np.asarray(x, dtype=float)
    m = np.atleast_1d(np.asarray(m, dtype=float))
    up, down = _log_steps(x, predictable_bets(x, alpha), m)
    return np.maximum(np.cumsum(up, axis=0), np.cumsum(down, axis=0)) + math.log(0.5)


def unit_sequence(x, alpha: float, *, grid: int = GRID) -> tuple[np.ndarray, np.ndarray]:
    """The confidence sequence for the mean of ``x`` (values in [0, 1], trusted) at every t:
    arrays ``lo``, ``hi`` (length n), the hull of the grid candidates m' = j/(grid - 1) with
    K_s(m') < 1/alpha at every s <= t. Candidates are dropped once they leave (the running
    intersection), so the work shrinks as the sequence narrows; the result equals the full
    grid's. If every candidate has left (probability <= alpha when the mean is constant) the
    last kept hull stays."""
    x = np.asarray(x, dtype=float)
    n = x.size
    bets = predictable_bets(x, alpha)
    m = np.linspace(0.0, 1.0, grid)
    keep = np.arange(grid)
    up_sum = np.zeros(grid)
    down_sum = np.zeros(grid)
    bound = math.log(1.0 / alpha) - math.log(0.5)   # K >= 1/alpha  <=>  max(log K+-) >= bound
    lo = np.empty(n)
    hi = np.empty(n)
    last = (0.0, 1.0)
    for start in range(0, n, _CHUNK):
        stop = min(n, start + _CHUNK)
        up, down = _log_steps(x[start:stop], bets[start:stop], m[keep])
        up = np.cumsum(up, axis=0) + up_sum[keep]
        down = np.cumsum(down, axis=0) + down_sum[keep]
        alive = np.logical_and.accumulate(np.maximum(up, down) < bound, axis=0)
        any_alive = alive.any(axis=1)
        first = np.argmax(alive, axis=1)
        last_idx = alive.shape[1] - 1 - np.argmax(alive[:, ::-1], axis=1)
        for row in range(stop - start):
            if any_alive[row]:
                last = (m[keep[first[row]]], m[keep[last_idx[row]]])
            lo[start + row], hi[start + row] = last
        survivors = alive[-1]
        if survivors.any():
            up_sum[keep] = up[-1]
            down_sum[keep] = down[-1]
            keep = keep[survivors]
        else:
            keep = keep[:0]
        if keep.size == 0:
            lo[stop:], hi[stop:] = last
            break
    return lo, hi


def e_process(d, alpha: float) -> np.ndarray:
    """E_t of the module docstring: the hedged capital at B − A = 0 of the differences ``d``
    (in [-1, 1], trusted), at every t; a 2-D ``d`` holds one set per row. Its running maximum
    gives the anytime-valid p (``anytime_p``)."""
    x = (np.asarray(d, dtype=float) + 1.0) / 2.0
    bets = np.minimum(predictable_bets(x, alpha), TRUNCATION / 0.5)
    dev = x - 0.5
    up = np.cumsum(np.log1p(bets * dev), axis=-1)
    down = np.cumsum(np.log1p(-bets * dev), axis=-1)
    return np.exp(np.maximum(up, down)) * 0.5


def anytime_p(e: np.ndarray) -> np.ndarray:
    """p_t = min(1, 1 / max_{s<=t} E_s) along the last axis: valid however often it is read
    (Ville's inequality)."""
    return np.minimum(1.0, 1.0 / np.maximum.accumulate(np.asarray(e, dtype=float), axis=-1))


def look_points(n: int) -> tuple[np.ndarray, int]:
    """The looks of the history: every case from the 10th (from the 1st when n < 10) while
    that makes at most ``MAX_LOOKS`` looks, else every k-th case with k = ceil((n - 10 + 1) /
    MAX_LOOKS); the last case is always a look. Returns (looks, k)."""
    first = FIRST_LOOK if n >= FIRST_LOOK else 1
    step = max(1, math.ceil((n - first + 1) / MAX_LOOKS))
    looks = np.arange(first, n + 1, step)
    if looks[-1] != n:
        looks = np.append(looks, n)
    return looks, step


@dataclass(frozen=True)
class Look:
    """One look at the growing set: after the first ``n`` cases, B − A, its confidence
    sequence, the e-process's anytime-valid p and the verdict then."""

    n: int
    b_minus_a: float
    ci_low: float
    ci_high: float
    p: float
    verdict: str

    def to_dict(self) -> dict:
        return {"n": self.n, "b_minus_a": self.b_minus_a, "ci_low": self.ci_low,
                "ci_high": self.ci_high, "p": self.p, "verdict": self.verdict}


@dataclass(frozen=True)
class SequentialMean:
    """One method's mean on the first n cases with its confidence sequence (valid at every n)."""

    n: int
    mean: float
    ci_low: float
    ci_high: float

    def to_dict(self) -> dict:
        return {"n": self.n, "rate": self.mean, "ci_low": self.ci_low, "ci_high": self.ci_high}


@dataclass(frozen=True)
class SequentialComparison:
    """B − A on a set read case by case in arrival order (``sequential_compare``): the
    confidence sequence and e-process at the last look (``last``), every look (``history``:
    every ``step``-th case from the 10th), each method's own sequence (``a``, ``b``), and what
    peeking would cost a fixed-n verdict on data like these (``peeking``, or None)."""

    method: str
    confidence: float
    binary: bool
    step: int
    history: tuple[Look, ...]
    a: SequentialMean
    b: SequentialMean
    peeking: "PeekingCost | None" = None
    order_p: float = 1.0   # runs test of the signs in this order (``runs_p``): small = sorted
    # the fixed-n interval at each look, for contrast on the chart (``fixed_intervals``):
    # (low, high) per look; Tango's for 0/1, the t-interval for scores (``fixed_name``)
    fixed: tuple = ()
    fixed_name: str = ""

    @property
    def last(self) -> Look:
        return self.history[-1]

    @property
    def n(self) -> int:
        return self.last.n

    def to_dict(self) -> dict:
        out = {"method": self.method, "test": "e_process", "confidence": self.confidence,
               "n": self.n, "b_minus_a": self.last.b_minus_a, "ci_low": self.last.ci_low,
               "ci_high": self.last.ci_high, "p": self.last.p, "verdict": self.last.verdict,
               "a": self.a.to_dict(), "b": self.b.to_dict(), "look_every": self.step,
               "first_look": self.history[0].n,
               "history": [look.to_dict() for look in self.history]}
        if self.peeking is not None:
            out["peeking"] = self.peeking.to_dict()
        out["order_p"] = self.order_p
        out["looks_sorted"] = self.looks_sorted
        return out

    @property
    def looks_sorted(self) -> bool:
        """The signs of B − A come in far fewer runs than in any arrival order that is not
        sorted by outcome (``runs_p`` < ``SORTED_P``): the rows were likely sorted, and the
        sequence, which reads them as the order the cases arrived, should not be trusted."""
        return self.order_p < SORTED_P


@dataclass(frozen=True)
class PeekingCost:
    """How often a fixed-n verdict would say "better" or "worse" at some look on null sets
    shaped like the data (``peeking_cost``): ``rate`` of ``sets`` with its Monte-Carlo SE,
    over ``looks`` looks; ``test`` names the fixed-n test simulated (the mid-p McNemar test
    for 0/1, the t-test for scores: the verdict also needs its interval, so this is an upper
    bound, "up to")."""

    rate: float
    mc_se: float
    sets: int
    looks: int
    test: str

    def to_dict(self) -> dict:
        return {"rate": self.rate, "mc_se": self.mc_se, "sets": self.sets, "looks": self.looks,
                "test": self.test}


def runs_p(d) -> float:
    """One-sided p of the Wald–Wolfowitz runs test (Wald & Wolfowitz 1940, *Ann. Math.
    Statist.* 11:147) on the signs of the non-zero differences in the order given: with n+
    and n- of each sign and R runs, under a random order E[R] = 1 + 2 n+ n- / N and
    Var[R] = 2 n+ n- (2 n+ n- - N) / (N^2 (N - 1)), N = n+ + n-; p = Phi((R + 1/2 - E[R]) /
    sd) (continuity-corrected normal). Too few runs (every win, then every loss) means the
    rows were sorted by outcome rather than kept in the order the cases arrived. 1 when
    either sign has fewer than 2 cases."""
    signs = np.sign(np.asarray(d, dtype=float))
    signs = signs[signs != 0]
    pos = int(np.count_nonzero(signs > 0))
    neg = signs.size - pos
    if pos < 2 or neg < 2:
        return 1.0
    runs = 1 + int(np.count_nonzero(signs[1:] != signs[:-1]))
    total = pos + neg
    mean = 1 + 2 * pos * neg / total
    var = 2 * pos * neg * (2 * pos * neg - total) / (total ** 2 * (total - 1))
    if var <= 0:
        return 1.0
    z = (runs + 0.5 - mean) / math.sqrt(var)
    return float(min(1.0, 0.5 * math.erfc(-z / math.sqrt(2))))


def fixed_intervals(data: PairedData, looks, confidence: float) -> tuple[str, list]:
    """The fixed-n interval of B − A on the first n cases at each look, the one a reader who
    peeks would see: Tango's (``core.paired.difference.tango_limits``, the card's default for
    0/1 outcomes) or, for scores, the t-interval (mean +/- t(1 - alpha/2, n - 1) s / sqrt(n);
    the card's calibrated t-interval is never narrower). Returns (name, [(low, high), ...])."""
    d = data.d
    idx = np.asarray(looks) - 1
    k = np.asarray(looks, dtype=float)
    if data.binary:
        wins = np.cumsum(d > 0)[idx].astype(float)
        losses = np.cumsum(d < 0)[idx].astype(float)
        lo, hi = tango_limits(wins, losses, k, z_two_sided(confidence))
        return "tango", [(float(a), float(b)) for a, b in zip(lo, hi)]
    mean = np.cumsum(d)[idx] / k
    var = np.maximum(np.cumsum(d * d)[idx] - k * mean ** 2, 0.0) / np.maximum(k - 1, 1)
    half = t_quantile(1 - significance_level(confidence) / 2, np.maximum(k - 1, 1)) * np.sqrt(
        var / k)
    return "t", [(float(m - h), float(m + h)) for m, h in zip(mean, half)]


def _mean_sequence(v: np.ndarray, alpha: float, n: int) -> SequentialMean:
    lo, hi = unit_sequence(v, alpha)
    return SequentialMean(n=n, mean=float(v.mean()), ci_low=round(float(lo[-1]), 10),
                          ci_high=round(float(hi[-1]), 10))


def sequential_data(data: PairedData, confidence: float = 0.95, *, peeking: bool = True,
                    sets: int = 2000, seed: int = 0) -> SequentialComparison:
    """``sequential_compare`` on an already checked ``PairedData`` (the caller checked that
    every value lies in [0, 1]: ``checks.sequential_iv``)."""
    alpha = significance_level(confidence)
    d = data.d
    n = data.n
    lo, hi = unit_sequence((d + 1.0) / 2.0, alpha)
    p = anytime_p(e_process(d, alpha))
    looks, step = look_points(n)
    means = np.cumsum(d) / np.arange(1, n + 1)
    history = []
    for k in looks:
        i = k - 1
        low, high = round(2.0 * lo[i] - 1.0, 10), round(2.0 * hi[i] - 1.0, 10)
        history.append(Look(n=int(k), b_minus_a=float(means[i]), ci_low=float(low),
                            ci_high=float(high), p=float(p[i]),
                            verdict=verdict(low, high, float(p[i]), confidence=confidence)))
    cost = peeking_cost(data, looks, confidence, sets=sets, seed=seed) if peeking else None
    fixed_name, fixed = fixed_intervals(data, looks, confidence)
    return SequentialComparison(method=METHOD, confidence=confidence, binary=data.binary,
                                step=step, history=tuple(history),
                                a=_mean_sequence(data.a, alpha, n),
                                b=_mean_sequence(data.b, alpha, n), peeking=cost,
                                order_p=runs_p(d), fixed=tuple(fixed), fixed_name=fixed_name)


def sequential_compare(a, b, confidence: float = 0.95, *, peeking: bool = True,
                       sets: int = 2000, seed: int = 0) -> SequentialComparison:
    """The confidence sequence of B − A (baseline ``a``, new ``b``, aligned, in the order the
    cases arrived, every value in [0, 1]), each method's own sequence, the e-process test and
    the history of looks (module docstring; Waudby-Smith & Ramdas 2024). With ``peeking``,
    also what a fixed-n verdict would risk at the same looks (``peeking_cost``, ``sets`` null
    sets from ``seed``)."""
    confidence = checks.confidence(confidence)
    data = checks.sequential_iv(paired_data(a, b))
    sets = checks.whole("sets", sets, lo=100)
    seed = checks.seed(seed)
    return sequential_data(data, confidence, peeking=peeking, sets=sets, seed=seed)


def _midp_reject(lo_count: np.ndarray, m: np.ndarray, alpha: float) -> np.ndarray:
    """Whether ``core.paired.significance.mcnemar_midp`` (the verdict's test for 0/1) gives
    p < alpha, for arrays of the smaller discordant count and the discordant total; each
    distinct (count, total) pair is tested once."""
    lo_count = np.asarray(lo_count, dtype=np.int64)
    m = np.asarray(m, dtype=np.int64)
    width = int(m.max(initial=0)) + 1
    code, inverse = np.unique(lo_count * width + m, return_inverse=True)
    k, total = code // width, code % width
    rejects = np.array([mcnemar_midp(int(i), int(j - i)) < alpha for i, j in zip(k, total)])
    return rejects[inverse.reshape(lo_count.shape)]


def fixed_n_rejections(d: np.ndarray, looks: np.ndarray, alpha: float, binary: bool) -> np.ndarray:
    """For null sets ``d`` (sets x cases, rows trusted), whether the fixed-n test rejects at
    each look (sets x looks): the mid-p McNemar test for 0/1 differences, the two-sided
    one-sample t-test for scores (zero spread with a non-zero mean rejects)."""
    idx = np.asarray(looks) - 1
    if binary:
        wins = np.cumsum(d > 0, axis=1)[:, idx]
        losses = np.cumsum(d < 0, axis=1)[:, idx]
        return _midp_reject(np.minimum(wins, losses), wins + losses, alpha)
    k = np.asarray(looks, dtype=float)
    s1 = np.cumsum(d, axis=1)[:, idx]
    s2 = np.cumsum(d * d, axis=1)[:, idx]
    mean = s1 / k
    var = np.maximum(s2 - k * mean ** 2, 0.0) / np.maximum(k - 1, 1)
    se = np.sqrt(var / k)
    crit = t_quantile(1 - alpha / 2, np.maximum(k - 1, 1))
    scale = np.maximum(1.0, np.abs(s1)) * 1e-12
    with np.errstate(divide="ignore", invalid="ignore"):
        tstat = np.where(se > 0, np.abs(mean) / se, np.where(np.abs(s1) > scale, np.inf, 0.0))
    return (tstat > crit) & (k >= 2)


def peeking_cost(data: PairedData, looks, confidence: float = 0.95, *, sets: int = 2000,
                 seed: int = 0) -> PeekingCost:
    """How often a fixed-n test would reject at some look when nothing differs, on null sets
    shaped like the data (Armitage, McPherson & Rowe 1969, *JRSS-A* 132:235: repeated
    significance tests): for 0/1 outcomes each case is discordant with the data's discordant
    share, each discordant pair a coin flip; for scores the cases are drawn with replacement
    from the observed |B − A| with random signs (mean 0, the data's spread and ties). ``sets``
    sets, Monte-Carlo SE sqrt(r (1 - r) / sets). The fixed-n verdict also needs its interval to
    leave out 0, so the rate is an upper bound on its any-look false verdicts."""
    alpha = significance_level(confidence)
    looks = np.asarray(looks, dtype=int)
    n = int(looks[-1])
    rng = np.random.default_rng(seed)
    d = data.d
    if data.binary:
        q = float(np.count_nonzero(d)) / d.size
        u = rng.random((sets, n))
        null = np.where(u < q / 2, 1.0, np.where(u < q, -1.0, 0.0))
    else:
        null = rng.choice(np.abs(d), size=(sets, n)) * rng.choice((-1.0, 1.0), size=(sets, n))
    hit = fixed_n_rejections(null, looks, alpha, data.binary).any(axis=1)
    rate = float(hit.mean())
    return PeekingCost(rate=rate, mc_se=math.sqrt(rate * (1 - rate) / sets), sets=sets,
                       looks=int(looks.size),
                       test="mcnemar_midp" if data.binary else "t_test")


@dataclass(frozen=True)
class SequentialPlan:
    """How many cases a sequential verdict needs at a true difference (``sequential_plan``):
    by simulation of ``sets`` sets read case by case up to ``max_n``, the mean (``expected_n``;
    sets that never decide count as ``max_n``, so it is then a lower bound and ``reached`` < 1
    says so), the median and the n by which a share ``power`` of the sets has said "better"
    (``n_power``, None when fewer reach it by ``max_n``)."""

    expected_n: float
    median_n: int | None
    n_power: int | None
    power: float
    reached: float
    sets: int
    max_n: int
    model: str

    def to_dict(self) -> dict:
        return {"method": "simulation", "model": self.model, "expected_n": self.expected_n,
                "median_n": self.median_n, "n_power": self.n_power, "power": self.power,
                "reached": self.reached, "sets": self.sets, "max_n": self.max_n}


def sequential_plan(diff: float, *, discordance: float | None = None,
                    sigma: float | None = None, confidence: float = 0.95, power: float = 0.8,
                    sets: int = 1000, max_n: int = 3000, seed: int = 0) -> SequentialPlan:
    """The cases needed for the sequential verdict to say "better" when B − A is truly
    ``diff`` > 0: 0/1 outcomes with ``discordance`` (each case B-only right with probability
    (discordance + diff)/2, A-only right with (discordance - diff)/2), or scores whose
    differences are normal with mean ``diff`` and SD ``sigma`` cut to [-1, 1]. Each of ``sets``
    simulated sets (seeded) is read case by case through the e-process (``e_process``) until it
    first says "better" (anytime p < alpha), up to ``max_n`` cases. The expected n of a
    sequential test has no closed form for these bets; it is simulated (Monte-Carlo SE of the
    mean about SD / sqrt(sets))."""
    confidence = checks.confidence(confidence)
    alpha = significance_level(confidence)
    diff = checks.between("diff", diff, 1e-6, 1.0)
    power = checks.between("power", power, 0.01, 0.999)
    sets = checks.whole("sets", sets, lo=100, hi=100_000)
    max_n = checks.whole("max_n", max_n, lo=10, hi=100_000)
    seed = checks.seed(seed)
    if (discordance is None) == (sigma is None):
        raise ValueError("give either discordance (0/1 outcomes) or sigma (scores)")
    if discordance is not None:
        discordance = checks.between("discordance", discordance, diff, 1.0)
        model = "binary"
    else:
        sigma = checks.between("sigma", sigma, 1e-6, 2.0)
        model = "normal_cut"
    rng = np.random.default_rng(seed)
    stop = np.full(sets, max_n + 1)
    block = max(1, min(sets, 2_000_000 // max_n))
    for start in range(0, sets, block):
        rows = min(block, sets - start)
        if discordance is not None:
            u = rng.random((rows, max_n))
            d = np.where(u < (discordance + diff) / 2, 1.0,
                         np.where(u < discordance, -1.0, 0.0))
        else:
            d = np.clip(rng.normal(diff, sigma, (rows, max_n)), -1.0, 1.0)
        hit = (anytime_p(e_process(d, alpha)) < alpha) & (np.cumsum(d, axis=1) > 0)
        first = np.where(hit.any(axis=1), np.argmax(hit, axis=1) + 1, max_n + 1)
        stop[start:start + rows] = first
    done = stop <= max_n
    ordered = np.sort(stop)
    k_med = int(math.ceil(0.5 * sets)) - 1
    k_pow = int(math.ceil(power * sets)) - 1
    return SequentialPlan(
        expected_n=float(np.minimum(stop, max_n).mean()),
        median_n=int(ordered[k_med]) if ordered[k_med] <= max_n else None,
        n_power=int(ordered[k_pow]) if ordered[k_pow] <= max_n else None,
        power=power, reached=float(done.mean()), sets=sets, max_n=max_n, model=model)


ORDER_FILE = {"by": "file_order", "column": None, "unsorted_rows": []}
ORDER_QUERIES = {"by": "query_order", "column": None, "unsorted_rows": []}


def sequential_block(seq, arrival=None, *, queries: bool = False) -> dict:
    """The JSON ``sequential`` block of the CLI and of every page's report summary: the
    sequence (``SequentialComparison.to_dict``) and the order the cases were read in (file
    order, a date/added column, or, ``queries``, the order a BEIR collection's queries were
    compared)."""
    order = (ORDER_QUERIES if queries else ORDER_FILE) if arrival is None else arrival.to_dict()
    return {**seq.to_dict(), "order": dict(order)}
