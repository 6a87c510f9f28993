"""Spot checks kept across processes (core/retrieval/spot_record.py, issue 37 item 7): a record
is trusted only when its key, computed from the files now, is the one it was written under
and its digest and threshold hold; a tampered record or a changed file means a new check.
Every folder is temporary (``NOISEFLOOR_SPOT_DIR``, a fake model folder)."""
import json
import pytest

import core.retrieval.spot_record as spot_record
import core.retrieval.vectors as vectors
from core.retrieval.beir import load_beir
from core.retrieval.search import DEFAULT_MODEL
from core.retrieval.spot_record import (files_sha256, recall, record_key, record_path,
                                        records_dir, remember)
from core.retrieval.vectors import (MIN_COSINE, SPOT_N, SPOT_SEED, checks_on_record,
                                    shipped_vectors, spot_check_pending, write_shipped)
from tests.core.retrieval.test_cache import FakeModel
from tests.shared_data import TINY

SPOT = dict(n=SPOT_N, seed=SPOT_SEED, threshold=MIN_COSINE)
CHECK = dict(n=25, seed=SPOT_SEED, min_cosine=0.99999, threshold=MIN_COSINE)


@pytest.fixture
def model_dir(tmp_path):
    """A model folder: weights, tokenizer and configuration files."""
    folder = tmp_path / "model"
    (folder / "1_Pooling").mkdir(parents=True)
    (folder / "model.safetensors").write_bytes(b"weights" * 100)
    (folder / "tokenizer.json").write_text('{"vocab": [1, 2]}')
    (folder / "1_Pooling" / "config.json").write_text('{"pooling_mode_mean_tokens": true}')
    return folder


def _key(model_dir, **kw):
    args = dict(kind="docs", vectors_sha256="a" * 64, texts_sha256="b" * 64,
                model_source=str(model_dir), model_key=DEFAULT_MODEL, **SPOT)
    args.update(kw)
    return record_key(**args)


def test_records_live_where_the_environment_says_else_beside_the_kernels(monkeypatch,
                                                                         tmp_path):
    monkeypatch.setenv("NOISEFLOOR_SPOT_DIR", str(tmp_path / "x"))
    assert records_dir() == tmp_path / "x"
    monkeypatch.delenv("NOISEFLOOR_SPOT_DIR")
    from core.kernel_cache import default_root
    assert records_dir() == default_root().parent / "spot-checks"


def test_a_passed_check_is_recalled_under_the_same_key(model_dir):
    key = _key(model_dir)
    path = remember(key, **CHECK)
    assert path == record_path(key) and path.parent == records_dir()
    assert recall(key) == CHECK
    assert recall(_key(model_dir)) == CHECK   # the key is computed again from the files


def test_a_failed_check_is_never_recorded(model_dir):
    key = _key(model_dir)
    assert remember(key, **{**CHECK, "min_cosine": 0.9}) is None
    assert recall(key) is None and not record_path(key).exists()


def test_a_model_that_is_not_a_folder_has_no_key(tmp_path):
    assert record_key("docs", "a" * 64, "b" * 64, "sentence-transformers/x", "x", **SPOT) \
        is None
    assert remember(None, **CHECK) is None and recall(None) is None


@pytest.mark.parametrize("change", ["vectors", "texts", "model_key", "spot_n", "threshold"])
def test_another_file_texts_model_or_setting_is_another_key(model_dir, change):
    key = _key(model_dir)
    remember(key, **CHECK)
    other = {"vectors": dict(vectors_sha256="c" * 64), "texts": dict(texts_sha256="c" * 64),
             "model_key": dict(model_key="another/model"), "spot_n": dict(n=SPOT_N + 1),
             "threshold": dict(threshold=0.9)}[change]
    assert recall(_key(model_dir, **other)) is None


@pytest.mark.parametrize("name", ["model.safetensors", "tokenizer.json", "1_Pooling/config.json"])
def test_a_changed_model_file_means_a_new_check(model_dir, name):
    remember(_key(model_dir), **CHECK)
    path = model_dir / name
    path.write_bytes(path.read_bytes() + b" ")
    assert recall(_key(model_dir)) is None


def test_another_encoder_means_a_new_check(model_dir, monkeypatch):
    key = _key(model_dir)
    remember(key, **CHECK)
    monkeypatch.setattr(spot_record, "encoder_version", lambda model_key: "numpy-bert/99")
    assert recall(_key(model_dir)) is None


def test_another_encoder_source_or_library_means_a_new_check(model_dir, monkeypatch):
    key = _key(model_dir)
    remember(key, **CHECK)
    monkeypatch.setattr(spot_record, "_versions", lambda names: {n: "0.0" for n in names})
    assert recall(_key(model_dir)) is None


@pytest.mark.parametrize("tamper", ["min_cosine", "min_cosine_resigned", "key", "digest",
                                    "threshold_resigned", "cut", "not_json", "folder"])
def test_a_tampered_record_is_not_trusted(model_dir, tamper):
    """Edited by hand (with or without a new digest), cut short, or not a file: refused."""
    import hashlib

    key = _key(model_dir)
    path = remember(key, **CHECK)
    record = json.loads(path.read_text())

    def resign(rec):
        body = json.dumps({"key": rec["key"], "check": rec["check"]}, sort_keys=True,
                          separators=(",", ":")).encode()
        rec["digest"] = hashlib.sha256(body).hexdigest()

    if tamper == "min_cosine":
        record["check"]["min_cosine"] = 0.5
    elif tamper == "min_cosine_resigned":
        record["check"]["min_cosine"] = 0.5
        resign(record)
    elif tamper == "key":
        record["key"]["model_files_sha256"] = "0" * 64
    elif tamper == "digest":
        record["digest"] = "0" * 64
    elif tamper == "threshold_resigned":
        record["check"].update(min_cosine=0.5, threshold=0.1)
        resign(record)
    if tamper == "cut":
        path.write_text(path.read_text()[:40])
    elif tamper == "not_json":
        path.write_text("not json")
    elif tamper == "folder":
        path.unlink()
        path.mkdir()
    else:
        path.write_text(json.dumps(record))
    assert recall(key) is None


def test_an_unwritable_folder_keeps_no_record_and_raises_nothing(model_dir, monkeypatch,
                                                                 tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("NOISEFLOOR_SPOT_DIR", str(blocker / "spot"))
    key = _key(model_dir)
    assert remember(key, **CHECK) is None and recall(key) is None


def test_files_sha256_covers_every_file_or_the_suffixes_asked(model_dir, tmp_path):
    every = files_sha256(model_dir)
    weights = files_sha256(model_dir, (".safetensors",))
    assert every != weights and len(every) == 64
    assert files_sha256(tmp_path / "missing") is None
    (tmp_path / "empty").mkdir()
    assert files_sha256(tmp_path / "empty") is None
    (model_dir / "extra.txt").write_text("x")
    assert files_sha256(model_dir) != every and files_sha256(model_dir, (".safetensors",)) \
        == weights


# ----------------------------------------------------------------------- through vectors
@pytest.fixture
def shipped_tiny(tmp_path, model_dir, monkeypatch):
    """The tiny corpus's vectors shipped in a temporary folder, the fake model folder as
    the default model's files, nothing checked in this process."""
    tiny = load_beir(TINY)
    ship = tmp_path / "ship"
    write_shipped(FakeModel().encode(list(tiny.texts)), name="tiny",
                  content_hash=tiny.content_hash, model_key=DEFAULT_MODEL,
                  model_source=str(model_dir), folder=ship)
    monkeypatch.setattr(vectors, "resolve_model", lambda name=None: (str(model_dir),
                                                                     DEFAULT_MODEL))
    monkeypatch.setattr(vectors, "_CHECKED", {})
    return tiny, ship


def _loader(loads):
    def get():
        loads.append(1)
        return FakeModel()
    get.from_files = True
    return get


def test_a_check_passed_in_one_process_spares_the_next_its_model(shipped_tiny, monkeypatch):
    """The record outlives the process (here: the in-process memory is emptied): the next
    run uses the shipped vectors without loading the model, with the same check."""
    tiny, ship = shipped_tiny
    loads = []
    first, _ = shipped_vectors(tiny.texts, tiny.content_hash, get_model=_loader(loads),
                               folder=ship)
    assert first.check.passed and len(loads) == 1
    assert len(list(records_dir().glob("spot-docs-*.json"))) == 1
    monkeypatch.setattr(vectors, "_CHECKED", {})          # a new process
    assert not spot_check_pending(tiny.content_hash, folder=ship)
    again, notes = shipped_vectors(tiny.texts, tiny.content_hash, get_model=_loader(loads),
                                   folder=ship)
    assert notes == [] and again.source == "shipped" and len(loads) == 1
    assert again.check == first.check


def test_a_tampered_record_or_changed_vectors_mean_the_check_runs_again(shipped_tiny,
                                                                        monkeypatch):
    tiny, ship = shipped_tiny
    loads = []
    shipped_vectors(tiny.texts, tiny.content_hash, get_model=_loader(loads), folder=ship)
    record = next(records_dir().glob("spot-docs-*.json"))
    data = json.loads(record.read_text())
    data["check"]["min_cosine"] = 0.2
    record.write_text(json.dumps(data))
    monkeypatch.setattr(vectors, "_CHECKED", {})
    assert spot_check_pending(tiny.content_hash, folder=ship)
    got, _ = shipped_vectors(tiny.texts, tiny.content_hash, get_model=_loader(loads),
                             folder=ship)
    assert got.check.passed and len(loads) == 2               # checked again, recorded again
    assert json.loads(record.read_text())["check"]["min_cosine"] > 0.999
    # the same vectors written again: the same bytes, the same key, still on record
    write_shipped(FakeModel().encode(list(tiny.texts)), name="tiny",
                  content_hash=tiny.content_hash, model_key=DEFAULT_MODEL,
                  model_source=str(ship), folder=ship)
    monkeypatch.setattr(vectors, "_CHECKED", {})
    assert not spot_check_pending(tiny.content_hash, folder=ship)
    # other vectors shipped (another file's SHA-256): another key, checked again
    write_shipped(FakeModel().encode([t + " " for t in tiny.texts]), name="tiny",
                  content_hash=tiny.content_hash, model_key=DEFAULT_MODEL,
                  model_source=str(ship), folder=ship)
    assert spot_check_pending(tiny.content_hash, folder=ship)


def test_a_model_handed_in_is_never_recorded(shipped_tiny):
    tiny, ship = shipped_tiny
    got, _ = shipped_vectors(tiny.texts, tiny.content_hash, get_model=FakeModel, folder=ship)
    assert got.check.passed and list(records_dir().glob("*.json")) == []


def test_checks_on_record_needs_both_documents_and_queries(shipped_tiny, monkeypatch):
    """The dense job skips loading the model only when both checks are on record."""
    from core.retrieval.vectors import shipped_queries, write_shipped_queries

    tiny, ship = shipped_tiny
    qids = tiny.query_ids
    qtexts = [tiny.queries[q] for q in qids]
    shipped_vectors(tiny.texts, tiny.content_hash, get_model=_loader([]), folder=ship)
    assert not checks_on_record(qids, qtexts, tiny.content_hash, folder=ship)  # no queries
    block = write_shipped_queries(FakeModel().encode(qtexts), name="tiny", query_ids=qids,
                                  texts=qtexts, folder=ship)
    write_shipped(FakeModel().encode(list(tiny.texts)), name="tiny",
                  content_hash=tiny.content_hash, model_key=DEFAULT_MODEL,
                  model_source=str(ship), folder=ship, extra={"queries": block})
    assert not checks_on_record(qids, qtexts, tiny.content_hash, folder=ship)  # not checked
    shipped_queries(qids, qtexts, tiny.content_hash, get_model=_loader([]), folder=ship)
    monkeypatch.setattr(vectors, "_CHECKED", {})          # a new process: from the records
    assert checks_on_record(qids, qtexts, tiny.content_hash, folder=ship)
    assert not checks_on_record(qids, qtexts[:-1] + ["edited"], tiny.content_hash,
                                folder=ship)
    assert not checks_on_record(qids, qtexts, "another corpus", folder=ship)
