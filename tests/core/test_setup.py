"""The checkout's setup promises (issue 22): the file watcher leaves the virtualenv, the cache
and the unpacked data alone, the README says what the tests need and cost, and the suite's
own state lives in a temporary folder, not in the checkout."""
import fnmatch
import os
import re
import tomllib
from pathlib import Path

from tests.shared_data import ROOT


def test_the_file_watcher_skips_venv_cache_and_unpacked_data():
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    server = cfg["server"]
    assert server["fileWatcherType"] == "poll"  # no recursive inotify watch of the checkout
    skipped = server["folderWatchBlacklist"]
    for folder in (".venv/lib/x.py", "data/cache/emb.npy", "data/beir/scifact/corpus.jsonl",
                   "data/beir/nfcorpus/queries.jsonl"):
        # the matching Streamlit does (streamlit.file_util.file_is_in_folder_glob)
        assert any(fnmatch.fnmatch(os.path.dirname(folder) + "/", g.rstrip("/") + "/*")
                   for g in skipped), folder
    assert not any(fnmatch.fnmatch("pages/", g.rstrip("/") + "/*") for g in skipped)


def test_readme_names_chromium_the_duration_and_the_install_size():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "Chromium" in text and "apt-get install chromium" in text
    assert re.search(r"\d+ minutes on 2 (quiet )?cores", text) and re.search(r"\d(\.\d)? GB", text)


def test_the_suite_keeps_its_state_out_of_the_checkout():
    import core.retrieval.beir
    import core.retrieval.search

    for path in (core.retrieval.search.CACHE_DIR, core.retrieval.beir.BEIR_ROOT):
        assert not Path(path).resolve().is_relative_to(ROOT), path
    assert core.retrieval.beir.BUNDLE.is_relative_to(ROOT)  # the shipped archive is only read
