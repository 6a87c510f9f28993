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
