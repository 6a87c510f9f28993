"""Rebuild ``data/beir/scifact.tar.gz`` from a BEIR scifact folder, byte for byte.

    .venv/bin/python data/beir/make_scifact_bundle.py ../shared/beir/scifact

Writes the archive with ``core.retrieval.beir.pack_beir`` (sorted names, fixed mtime/uid/gid, gzip
mtime 0) and prints its SHA-256, which must equal ``core.retrieval.beir.BUNDLE_SHA256``.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.retrieval.beir import BUNDLE, BUNDLE_SHA256, pack_beir  # noqa: E402

if __name__ == "__main__":
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/beir/scifact")
    digest = pack_beir(src, BUNDLE)
    print(f"{BUNDLE} {BUNDLE.stat().st_size:,} bytes sha256 {digest}")
    if digest != BUNDLE_SHA256:
        print(f"differs from core.retrieval.beir.BUNDLE_SHA256 = {BUNDLE_SHA256}: update the constant")
        sys.exit(1)
