"""Files on disk, safely: reading files NoiseFloor did not write itself (cache entries, model
configs) only as regular files, with a size limit, opened so that a FIFO or a device can never
block a run; writing its own (caches, vectors, encode chunks) atomically (``atomic_write``)."""
from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path

MAX_SIDECAR_BYTES = 64 * 1024


class NotRegularFile(OSError):
    """A path that is not a regular file (a FIFO, device or folder) or is too large."""


class FileTooLarge(NotRegularFile):
    """A regular file larger than the limit; ``size`` is its size in bytes (at least
    ``limit + 1`` when it grew while being read)."""

    def __init__(self, path: str, size: int) -> None:
        super().__init__(path)
        self.size = size


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of ``path`` when it is a regular file of at most ``limit`` bytes, else
    ``NotRegularFile`` (``FileTooLarge`` for a regular file over the limit). Opened
    non-blocking and checked with ``fstat`` before reading, so a FIFO or a device
    (``/dev/zero``) put in place of a file can never hang a run or fill memory; at most
    ``limit + 1`` bytes are ever read."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(str(path))
        if info.st_size > limit:
            raise FileTooLarge(str(path), info.st_size)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise FileTooLarge(str(path), len(data))
    return data


_POOLING_MODES = ("pooling_mode_cls_token", "pooling_mode_mean_tokens",
                  "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens",
                  "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken")


def folder_dimension(folder: Path) -> int | None:
    """The width of a sentence-transformers model's embeddings read from its folder, without
    loading weights: the last ``Dense`` layer's ``out_features`` in ``modules.json``, else
    the pooling layer's ``word_embedding_dimension`` times its number of pooling modes (as
    sentence-transformers' ``Pooling.get_pooling_output_dimension``). None when the files
    do not say."""
    folder = Path(folder)
    if not folder.is_dir():
        return None
    try:
        modules = json.loads(read_regular(folder / "modules.json", MAX_SIDECAR_BYTES))
        dim = None
        for module in modules:
            kind = str(module.get("type", ""))
            if not kind.endswith(("Pooling", "Dense")):
                continue
            cfg = json.loads(read_regular(folder / str(module.get("path", "")) /
                                          "config.json", MAX_SIDECAR_BYTES))
            if kind.endswith("Dense"):
                dim = int(cfg["out_features"])
            else:
                modes = sum(bool(cfg.get(m)) for m in _POOLING_MODES) or 1
                dim = int(cfg["word_embedding_dimension"]) * modes
        return dim if dim and dim > 0 else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it over ``path``
    (``os.replace`` is atomic); the temporary file is removed on any failure, Ctrl-C
    included, so an interrupted write leaves nothing behind."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
