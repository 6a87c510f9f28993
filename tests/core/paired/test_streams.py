"""core.paired.streams: counter-based keys and per-resample seeds."""
import numpy as np
import pytest

from core.paired.streams import STREAM_BOOTSTRAP, STREAM_SIGNFLIP, resample_seeds, stream_key


def test_keys_depend_on_seed_and_stream_only():
    assert stream_key(3) == stream_key(3, STREAM_BOOTSTRAP)
    assert stream_key(3, STREAM_SIGNFLIP) != stream_key(3)
    assert stream_key(3) != stream_key(4)
    assert isinstance(stream_key(0), np.uint64)


def test_resample_seeds_do_not_depend_on_how_many_are_asked_for():
    long, short = resample_seeds(5, 100), resample_seeds(5, 10)
    assert np.array_equal(long[:10], short)
    assert len(set(long.tolist())) == 100


@pytest.mark.parametrize("seed", [-1, 1.5, "1", True])
def test_bad_seeds_are_refused_at_the_public_door(seed):
    """``stream_key`` trusts its seed (validate once, issue 31); the doors that take a seed
    from a caller check it: ``resample_seeds`` here, ``paired_bootstrap`` in core.paired.stats."""
    from core.paired.stats import paired_bootstrap
    with pytest.raises(ValueError, match="seed"):
        resample_seeds(seed, 10)
    with pytest.raises(ValueError, match="seed"):
        paired_bootstrap([0.1, 0.5, 0.3], [0.2, 0.4, 0.9], resamples=10, seed=seed)


def test_row_keys_follow_bootstrap_sets_convention():
    """Row s of a run keyed by k draws from k + s * M1 (wrapping), as
    ``core._kernels.bootstrap_sets`` does: row 0 is the run itself, rows differ."""
    from core import _kernels
    from core.paired.streams import STREAM_METHODS, row_key

    key = stream_key(7, STREAM_METHODS)
    assert row_key(key, 0) == key and row_key(key, 1) != key
    assert int(row_key(key, 2)) == (int(key) + 2 * 0xBF58476D1CE4E5B9) % (1 << 64)
    sets = np.random.default_rng(1).random((3, 9))
    out = _kernels.bootstrap_sets(sets, key, 5)
    for s in range(3):
        np.testing.assert_allclose(out[0, s], _kernels.bootstrap_means(sets[s], row_key(key, s),
                                                                       0, 5), atol=1e-12)
