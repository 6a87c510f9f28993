"""core._kernels: the compiled resampling loops against a plain-Python replay of the same
counter-based streams (splitmix64, Lemire's multiply-and-reject, one sign bit per value)."""
import numpy as np
import pytest

from core import _kernels
from core.paired.streams import stream_key

MASK = (1 << 64) - 1
GOLDEN, M1, M2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def _mix(z):
    z = ((z ^ (z >> 30)) * M1) & MASK
    z = ((z ^ (z >> 27)) * M2) & MASK
    return z ^ (z >> 31)


def _start(key, r):
    return _mix((int(key) + (r + 1) * GOLDEN) & MASK)


def _words(state):
    while True:
        state = (state + GOLDEN) & MASK
        yield _mix(state)


def _draws(key, r, n):
    """The n case indices resample r draws: Lemire on each 32-bit half, low half first."""
    thresh = ((1 << 32) - n) % n
    out = []
    for word in _words(_start(key, r)):
        for half in (word & 0xFFFFFFFF, word >> 32):
            m = half * n
            if len(out) < n and (m & 0xFFFFFFFF) >= thresh:
                out.append(m >> 32)
        if len(out) == n:
            return out


def test_splitmix_matches_the_reference_generator():
    """splitmix64 seeded with 0 gives 0xE220A8397B1DCDAF first (Vigna's reference code)."""
    state, word = _kernels.splitmix(np.uint64(0))
    assert int(word) == 0xE220A8397B1DCDAF == next(_words(0))
    state, word = _kernels.splitmix(state)
    gen = _words(0)
    next(gen)
    assert int(word) == next(gen)


@pytest.mark.parametrize("n", [1, 7, 33])
def test_bootstrap_means_are_the_means_of_the_replayed_draws(n):
    values = np.random.default_rng(n).normal(size=n)
    key = stream_key(11)
    got = _kernels.bootstrap_means(values, key, 0, 5)
    want = [np.mean(values[_draws(key, r, n)]) for r in range(5)]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 7, 37, 2_001])
def test_bootstrap_means_sd_gives_the_replayed_draws_mean_and_sd_in_one_pass(n):
    """Issue 25: the studentized intervals' SDs come from the same pass as the means; row 0
    equals ``bootstrap_means`` exactly (not merely closely), row 1 is the SD (ddof 1) of the
    very cases drawn."""
    rng = np.random.default_rng(n)
    x = rng.random(n) - np.round(rng.random(n), 1)
    key = stream_key(9)
    out = _kernels.bootstrap_means_sd(x, float(x.mean()), key, 3, 40)
    assert out.shape == (2, 40)
    assert np.array_equal(out[0], _kernels.bootstrap_means(x, key, 3, 40))
    for r in range(40):
        drawn = x[_draws(key, 3 + r, n)]
        assert out[1, r] == pytest.approx(drawn.std(ddof=1) if n > 1 else 0.0, abs=1e-12)


def test_bootstrap_means_sd_gives_a_tied_resample_no_spread():
    """A resample of one repeated value has SD exactly 0 (its rounding must not pass for a
    tiny spread: the studentized value would be enormous), wherever the tie lies and whatever
    the offset of the data; a resample with two values does not."""
    key = stream_key(3)
    for x in (np.array([0.1, 0.7]), np.array([1000.1, 1000.7, 1000.3]),
              np.array([1e-9, 3e-9, 2e-9]), np.array([0.3, 0.3, 0.3, 0.3])):
        n = x.size
        out = _kernels.bootstrap_means_sd(x, float(x.mean()), key, 0, 2_000)
        tied = np.array([len(set(_draws(key, r, n))) == 1 for r in range(2_000)])
        assert tied.any()
        assert (out[1, tied] == 0).all()
        if np.ptp(x) > 0:
            assert (out[1, ~tied] > 0).all()


def test_compare_paired_uses_the_one_pass_sds_with_identical_intervals():
    """The calibrated-t / bootstrap-t CI of compare_paired equals the one whose SDs
    ``difference_interval`` draws again itself, and ``paired_bootstrap``'s."""
    from core.paired import stats
    from core.paired.compare import compare_paired
    from core.paired.difference import difference_interval, paired_data

    rng = np.random.default_rng(4)
    a, b = rng.random(300), rng.lognormal(0, 1, 300) / 5
    for interval in ("calibrated_t", "bootstrap_t"):
        one = compare_paired(a, b, resamples=2_000, seed=3, interval=interval)
        data = paired_data(a, b)
        two = difference_interval(data, one.bootstrap.distribution, confidence=0.95,
                                        interval=interval, seed=3)
        assert (one.bootstrap.ci_low, one.bootstrap.ci_high, one.bootstrap.interval) == two
        pb = stats.paired_bootstrap(a, b, resamples=2_000, seed=3, interval=interval)
        assert (pb.ci_low, pb.ci_high) == two[:2]
        assert np.array_equal(pb.distribution, one.bootstrap.distribution)


def test_signflip_sums_use_one_fair_sign_bit_per_value():
    values = np.arange(1.0, 131.0)  # two full 64-value words and a tail of 2
    key = stream_key(2, 1)
    got = _kernels.signflip_sums(values, key, 0, 4)
    for r in range(4):
        gen = _words(_start(key, r))
        signs = []
        for start in range(0, 130, 64):
            bits = next(gen)
            signs += [1.0 if (bits >> b) & 1 else -1.0 for b in range(min(64, 130 - start))]
        assert got[r] == pytest.approx(float(np.dot(signs, values)), abs=1e-9)


def test_resamples_do_not_depend_on_batching():
    x = np.random.default_rng(0).random(50)
    key = stream_key(9)
    whole = _kernels.bootstrap_means(x, key, 0, 10)
    parts = np.concatenate([_kernels.bootstrap_means(x, key, s, 3) for s in range(0, 10, 3)][:3]
                           + [_kernels.bootstrap_means(x, key, 9, 1)])
    assert np.array_equal(whole, parts)


def test_bootstrap_sets_gives_each_sets_means_and_sds():
    rng = np.random.default_rng(4)
    sets = rng.normal(size=(3, 15))
    key = stream_key(21)
    out = _kernels.bootstrap_sets(sets, key, 4)
    assert out.shape == (2, 3, 4)
    np.testing.assert_allclose(out[0, 0], _kernels.bootstrap_means(sets[0], key, 0, 4), atol=1e-12)
    for s in range(3):
        skey = np.uint64((int(key) + s * M1) & MASK)
        for r in range(4):
            drawn = sets[s][_draws(skey, r, 15)]
            assert out[0, s, r] == pytest.approx(drawn.mean(), abs=1e-12)
            assert out[1, s, r] == pytest.approx(drawn.std(ddof=1), abs=1e-12)
    tied = _kernels.bootstrap_sets(np.full((1, 8), 0.1), key, 3)
    assert (tied[1] == 0).all()  # a constant set: SD exactly 0


@pytest.fixture
def threads():
    """Run a block at a given numba thread count, restoring the default after."""
    import numba

    default = numba.get_num_threads()
    yield numba.set_num_threads
    numba.set_num_threads(default)


def test_every_parallel_kernel_gives_the_same_numbers_at_any_thread_count(threads):
    """Issue 25: the two cores are used (prange over resamples), and a resample's draws depend
    on (seed, r) only, so 1 thread and all threads give identical arrays, as do the public
    comparisons built on them."""
    import numba

    from core.latency.resample import nested_bootstrap_quantiles, paired_median_ratio_bootstrap
    from core.paired.compare import compare_paired

    rng = np.random.default_rng(7)
    a, b = rng.random(3_001), rng.random(3_001)
    key = stream_key(5)
    groups = [rng.lognormal(3, 0.4, rng.integers(3, 9)) for _ in range(60)]
    qa = np.repeat(np.arange(60), 5)

    def run():
        cp = compare_paired(a, b, resamples=3_000, seed=5, interval="bootstrap_t")
        return [_kernels.bootstrap_means(b - a, key, 0, 3_001),
                _kernels.bootstrap_means_sd(b - a, 0.01, key, 0, 3_001),
                _kernels.signflip_sums(b - a, key, 0, 3_001),
                _kernels.bootstrap_sets(np.vstack((a[:500], b[:500])), key, 777),
                nested_bootstrap_quantiles(groups, [0.5, 0.95], resamples=501, seed=5),
                paired_median_ratio_bootstrap(a[:300], qa, b[:300], qa, 60, resamples=2_001,
                                              seed=5)[1],
                cp.bootstrap.distribution, np.array([cp.bootstrap.ci_low, cp.bootstrap.ci_high,
                                                     cp.randomization_p, cp.rate_a.ci_low,
                                                     cp.rate_b.ci_high])]

    results = []
    for n in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        threads(n)
        results.append(run())
    for one, many in zip(results[0], results[-1]):
        assert np.array_equal(one, many)
