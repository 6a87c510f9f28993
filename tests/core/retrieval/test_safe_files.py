"""core.retrieval.safe_files: only regular files within a size limit are read (a FIFO never blocks),
and a model's width is read from its config files without loading it."""
import json
import os

import pytest

from core.retrieval.search import bundled_model_path
from core.retrieval.safe_files import MAX_SIDECAR_BYTES, NotRegularFile, folder_dimension, read_regular


def test_read_regular_reads_small_regular_files(tmp_path):
    f = tmp_path / "a.json"
    f.write_bytes(b"12345")
    assert read_regular(f, 5) == b"12345"
    with pytest.raises(NotRegularFile):
        read_regular(f, 4)  # over the limit
    with pytest.raises(NotRegularFile):
        read_regular(tmp_path, 100)  # a folder
    with pytest.raises(OSError):
        read_regular(tmp_path / "missing", 100)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "cache.npy"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile):
        read_regular(fifo, MAX_SIDECAR_BYTES)


def _model(folder, modules, configs):
    folder.mkdir()
    (folder / "modules.json").write_text(json.dumps(modules))
    for path, cfg in configs.items():
        (folder / path).mkdir(parents=True, exist_ok=True)
        (folder / path / "config.json").write_text(json.dumps(cfg))
    return folder


def test_folder_dimension_from_pooling_and_dense_layers(tmp_path):
    pooling = {"type": "sentence_transformers.models.Pooling", "path": "1_Pooling"}
    pool_cfg = {"word_embedding_dimension": 384, "pooling_mode_mean_tokens": True}
    m = _model(tmp_path / "m", [pooling], {"1_Pooling": pool_cfg})
    assert folder_dimension(m) == 384
    two = {**pool_cfg, "pooling_mode_max_tokens": True}
    assert folder_dimension(_model(tmp_path / "m2", [pooling], {"1_Pooling": two})) == 768
    dense = {"type": "sentence_transformers.models.Dense", "path": "2_Dense"}
    m3 = _model(tmp_path / "m3", [pooling, dense],
                {"1_Pooling": pool_cfg, "2_Dense": {"out_features": 128}})
    assert folder_dimension(m3) == 128


def test_folder_dimension_is_none_when_the_files_do_not_say(tmp_path):
    assert folder_dimension(tmp_path / "nothing") is None
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "modules.json").write_text("not json")
    assert folder_dimension(tmp_path / "bad") is None


def test_the_bundled_model_is_384_wide():
    path = bundled_model_path()
    if path is None:
        pytest.skip("no bundled model in this checkout")
    assert folder_dimension(path) == 384
