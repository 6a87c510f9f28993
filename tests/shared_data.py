"""Where tests find their data: the repo's own fixtures and the shared BEIR scifact copy.

The shared copy is read from ``$NOISEFLOOR_SHARED_BEIR`` or ``../shared/beir/scifact`` beside
the checkout (never committed). A developer without it gets a clear skip; under CI (``CI`` set)
the tests run anyway and fail loudly, because CI always has it.
"""
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "tests" / "fixtures" / "beir_tiny"
SHARED = Path(os.environ.get("NOISEFLOOR_SHARED_BEIR")
              or ROOT.parent / "shared" / "beir" / "scifact")
HAVE_SHARED = (SHARED / "corpus.jsonl").is_file()

needs_shared = pytest.mark.skipif(
    not HAVE_SHARED and not os.environ.get("CI"),
    reason=f"shared BEIR scifact copy not found at {SHARED} (set NOISEFLOOR_SHARED_BEIR)")


def left_skewed_pair(seed: int, n: int = 22):
    """(a, b) unit scores whose B − A is left-skewed with 18% ties at 0 (a long tail of
    losses): the shape where a score margin's skew guard moves the interval's lower end
    (issue 36; core.paired.margin)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    d = np.where(rng.random(n) < 0.18, 0.0, 0.05 - 0.12 * rng.gamma(1.2, 1.0, n))
    a = np.full(n, 0.6)
    return a, (a + d).clip(0, 1)
