"""Suite-wide settings. Translations are strict in tests: an unknown key or a template that
cannot be filled raises (``core.i18n.strict``) instead of showing "{n}" to a user. The
browser tests' server inherits the setting through the environment.

Tests leave the checkout alone: before any ``core`` module is imported, the embedding cache
(``NOISEFLOOR_CACHE_DIR``) and the folder where BEIR collections are unpacked and listed
(``NOISEFLOOR_BEIR_ROOT``, normally ``data/beir/``) point into one temporary folder for the
session, removed at exit. The shipped files (``data/beir/scifact.tar.gz``, the shipped
vectors) are only read. The browser tests' server inherits both variables."""
import atexit
import os
import shutil
import tempfile
from pathlib import Path

os.environ.setdefault("NOISEFLOOR_STRICT_I18N", "1")

_STATE = Path(tempfile.mkdtemp(prefix="noisefloor-tests-"))
atexit.register(shutil.rmtree, _STATE, ignore_errors=True)
os.environ["NOISEFLOOR_CACHE_DIR"] = str(_STATE / "cache")
os.environ["NOISEFLOOR_BEIR_ROOT"] = str(_STATE / "beir")
