"""core.streams: counter-based keys and per-resample seeds."""
import numpy as np
import pytest

from core.streams import STREAM_BOOTSTRAP, STREAM_SIGNFLIP, resample_seeds, stream_key


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
def test_bad_seeds_are_refused(seed):
    with pytest.raises(ValueError):
        stream_key(seed)
