"""all-MiniLM-L6-v2 in numpy: the bundled model's sentence embeddings without importing torch.

The scifact page's first dense verdict waited about 10 s for ``import torch``,
sentence-transformers and transformers before it encoded anything (issue 37, item 7).
``NumpyBert`` reads the same files sentence-transformers reads from the model folder and
computes the same function, so nothing else changes:

* ``modules.json`` must list exactly Transformer, Pooling and Normalize; ``1_Pooling/config.json``
  must ask for mean pooling only; ``config.json`` a ``bert`` with absolute positions and the
  ``gelu`` (erf) activation; ``sentence_bert_config.json`` gives ``max_seq_length`` (256) and
  ``do_lower_case``. Any other folder is refused (``supports``), and the caller uses
  sentence-transformers instead.
* Tokens: the ``tokenizers`` library on the folder's ``tokenizer.json`` (the fast tokenizer
  transformers builds from the same file), truncated to ``max_seq_length`` tokens including
  [CLS] and [SEP] (sentence-transformers' ``truncation="longest_first"``), no padding across
  texts: each batch is padded to its longest text and the pads are masked.
* Weights: ``model.safetensors`` read by ``safetensors.numpy`` (float32).
* The network, BERT (Devlin et al. 2019; ``transformers.models.bert.modeling_bert``):
  h = LayerNorm(E_word[t] + E_pos[i] + E_type[0]); per layer,
  a = softmax(Q K^T / sqrt(d_head) + mask) V per head, h = LayerNorm(h + a W_o + b_o),
  h = LayerNorm(h + gelu(h W_1 + b_1) W_2 + b_2) with gelu(x) = x/2 (1 + erf(x / sqrt 2)) and
  LayerNorm(x) = (x - mean) / sqrt(var + eps) * gamma + beta (biased variance, eps 1e-12).
* Pooling (sentence-transformers ``Pooling``, mean tokens): e = sum_i m_i h_i / max(sum_i m_i,
  1e-9) over the text's own tokens (m = attention mask); ``Normalize``: e / max(|e|_2, 1e-12).

Equal to ``SentenceTransformer(folder).encode(..., normalize_embeddings=True)`` within float32
rounding (``tests/core/retrieval/test_bert_numpy.py``: cosine >= 0.99999 and max |diff|
<= 1e-5 on a few hundred scifact texts, long ones truncated at 256 tokens). Speed against
torch: ``bench/bench_encoders.py``, figures in ``docs/speed.md``.
"""
from __future__ import annotations

import json
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from core import checks

ENCODER = "numpy-bert/2"   # the encoder's name in cache sidecars; bump when the arithmetic changes
# (2: parts sized by tokens, not texts: the same numbers up to float32 rounding, not bit for bit)
ENCODER_ENV = "NOISEFLOOR_ENCODER"   # "torch" (or "sentence-transformers"): never this encoder
MODULES = ("sentence_transformers.models.Transformer", "sentence_transformers.models.Pooling",
           "sentence_transformers.models.Normalize")
FILES = ("modules.json", "config.json", "sentence_bert_config.json", "1_Pooling/config.json",
         "tokenizer.json", "model.safetensors")
SPLIT, TOKENS = 2, 2048   # a call is cut in at least 2 parts of at most 2,048 tokens, pads
# included (NumpyBert.encode): 8 texts of 256 tokens, 80 queries of 25
_MAX_JSON = 1 << 20   # the folder's small JSON files; tokenizer.json is read by tokenizers


def _json(path: Path) -> object:
    with open(path, "rb") as fh:
        raw = fh.read(_MAX_JSON + 1)
    if len(raw) > _MAX_JSON:
        raise ValueError(f"{path.name} is larger than {_MAX_JSON} bytes")
    return json.loads(raw.decode("utf-8"))


def supports(folder: str | Path) -> bool:
    """True when ``folder`` holds a sentence-transformers model ``NumpyBert`` computes exactly:
    Transformer -> mean Pooling -> Normalize over a BERT with absolute positions and erf gelu,
    weights in ``model.safetensors`` and a ``tokenizer.json``. False for anything else
    (a missing or unreadable file included): the caller then loads sentence-transformers."""
    root = Path(folder)
    try:
        if not all((root / f).is_file() for f in FILES):
            return False
        modules = _json(root / "modules.json")
        config = _json(root / "config.json")
        pooling = _json(root / "1_Pooling" / "config.json")
        st_config = _json(root / "sentence_bert_config.json")
    except (OSError, ValueError):
        return False
    if not isinstance(modules, list) or \
            tuple(m.get("type") if isinstance(m, dict) else None for m in modules) != MODULES:
        return False
    if [m.get("path") for m in modules[:2]] != ["", "1_Pooling"]:
        return False
    if not (isinstance(config, dict) and isinstance(pooling, dict) and
            isinstance(st_config, dict)):
        return False
    modes = {k: v for k, v in pooling.items() if k.startswith("pooling_mode")}
    if modes.get("pooling_mode_mean_tokens") is not True or \
            any(v for k, v in modes.items() if k != "pooling_mode_mean_tokens"):
        return False
    if pooling.get("include_prompt", True) is not True:
        return False
    if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu" or \
            config.get("position_embedding_type", "absolute") != "absolute":
        return False
    if config.get("is_decoder") or config.get("add_cross_attention"):
        return False
    try:
        heads, width = int(config["num_attention_heads"]), int(config["hidden_size"])
        int(config["num_hidden_layers"])
        float(config.get("layer_norm_eps", 1e-12))
        seq = int(st_config.get("max_seq_length") or config["max_position_embeddings"])
    except (KeyError, TypeError, ValueError):
        return False
    return heads > 0 and width % heads == 0 and 0 < seq <= int(
        config.get("max_position_embeddings", 512))


def usable(folder: str | Path) -> bool:
    """``supports(folder)``, unless the operator set ``NOISEFLOOR_ENCODER`` to ``torch`` (or
    ``sentence-transformers``): then sentence-transformers computes it. On by default since
    its calls are sized by tokens (``TOKENS``): with 8 texts a call, inside the Streamlit
    server its many small numpy calls waited for the GIL behind the server's own threads
    and the scifact page's first verdict came later than with torch (``docs/speed.md``)."""
    off = os.environ.get(ENCODER_ENV, "").strip().lower() in ("torch", "sentence-transformers")
    return not off and supports(folder)


def _layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """(x - mean) / sqrt(var + eps) * gamma + beta over the last axis (biased variance),
    float32 as torch's ``nn.LayerNorm``."""
    centred = x - x.mean(axis=-1, keepdims=True)
    var = np.einsum("...i,...i->...", centred, centred)[..., None] / np.float32(x.shape[-1])
    centred /= np.sqrt(var + np.float32(eps))
    centred *= gamma
    centred += beta
    return centred


@dataclass(frozen=True)
class _Layer:
    qkv_w: np.ndarray    # (width, 3 width): [W_q | W_k | W_v] transposed for x @ w
    qkv_b: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray
    ln1_g: np.ndarray
    ln1_b: np.ndarray
    up_w: np.ndarray
    up_b: np.ndarray
    down_w: np.ndarray
    down_b: np.ndarray
    ln2_g: np.ndarray
    ln2_b: np.ndarray


@dataclass(frozen=True)
class NumpyBert:
    """A loaded model (``load_bert``): ``encode`` takes the arguments the codebase passes to
    ``SentenceTransformer.encode`` and returns the same float32 rows."""

    folder: str
    max_seq_length: int
    heads: int
    eps: float
    tokenizer: object = field(repr=False)
    word: np.ndarray = field(repr=False)
    position: np.ndarray = field(repr=False)
    token_type: np.ndarray = field(repr=False)
    emb_ln: tuple = field(repr=False)
    layers: tuple = field(repr=False)
    do_lower_case: bool = False
    encoder: str = ENCODER

    def get_sentence_embedding_dimension(self) -> int:
        return int(self.word.shape[1])

    get_embedding_dimension = get_sentence_embedding_dimension

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text: [CLS] ... [SEP], at most ``max_seq_length`` of them."""
        if self.do_lower_case:
            texts = [t.lower() for t in texts]
        return [e.ids for e in self.tokenizer.encode_batch(list(texts))]

    def _forward(self, ids: list[list[int]]) -> np.ndarray:
        """Mean-pooled last hidden states (float32, one row per text) of one batch."""
        n, length = len(ids), max(len(t) for t in ids)
        width, heads = self.word.shape[1], self.heads
        head = width // heads
        tok = np.zeros((n, length), dtype=np.int64)
        mask = np.zeros((n, length), dtype=np.float32)
        for i, t in enumerate(ids):
            tok[i, :len(t)] = t
            mask[i, :len(t)] = 1.0
        h = self.word[tok] + self.position[:length] + self.token_type[0]
        h = _layer_norm(h, *self.emb_ln, self.eps).reshape(n * length, width)
        # pads get the most negative float32 added before the softmax (as transformers does):
        # their weight is exp(-huge) = 0 exactly
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        scale = np.float32(1.0 / math.sqrt(head))
        for lay in self.layers:
            qkv = h @ lay.qkv_w
            qkv += lay.qkv_b
            # (n, heads, length, head) each, contiguous, K transposed: numpy's stacked matmul
            # calls BLAS only on matrices with one unit stride (a strided view is 2-3x slower)
            qkv = qkv.reshape(n, length, 3, heads, head)
            q = np.ascontiguousarray(qkv[:, :, 0].transpose(0, 2, 1, 3))
            k_t = np.ascontiguousarray(qkv[:, :, 1].transpose(0, 2, 3, 1))
            v = np.ascontiguousarray(qkv[:, :, 2].transpose(0, 2, 1, 3))
            scores = q @ k_t                                  # (n, heads, length, length)
            scores *= scale
            scores += bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(n * length, width)
            att = ctx @ lay.out_w
            att += lay.out_b
            att += h
            h = _layer_norm(att, lay.ln1_g, lay.ln1_b, self.eps)
            up = h @ lay.up_w
            up += lay.up_b
            up = _gelu(up)
            down = up @ lay.down_w
            down += lay.down_b
            down += h
            h = _layer_norm(down, lay.ln2_g, lay.ln2_b, self.eps)
        h = h.reshape(n, length, width)
        summed = np.einsum("nlw,nl->nw", h, mask)
        return summed / np.maximum(mask.sum(axis=1, keepdims=True), np.float32(1e-9))

    def encode(self, texts: Sequence[str], batch_size: int = 32,
               normalize_embeddings: bool = False, convert_to_numpy: bool = True,
               show_progress_bar: bool = False, **_ignored) -> np.ndarray:
        """Sentence embeddings (float32, one row per text, in the order given), as
        ``SentenceTransformer.encode`` computes them: texts sorted by length (longest
        first), each padded to the longest of its part and the pads masked, mean pooling, then L2 normalisation (the
        model's Normalize module: with or without ``normalize_embeddings``, as there).
        ``convert_to_numpy`` and ``show_progress_bar`` are accepted for the same call shape;
        the result is always a numpy array.

        The texts, longest first, are cut into parts (``parts``) of at most ``TOKENS``
        tokens, pads included, and at least ``SPLIT`` parts: few large numpy calls (64
        scifact queries in 2 parts instead of 8 parts of 8 texts; inside the Streamlit server each
        call may wait for the GIL behind the server's own threads), computed side by side by
        ``threads()`` threads with BLAS on one thread (numpy releases the GIL inside its
        loops): the element-wise work runs on both cores too, and a loaded machine does not
        make BLAS's own threads spin (OpenBLAS at 2 threads under a load of 12 used 3x the
        CPU of one thread). ``batch_size`` is accepted for the call shape; a row's numbers
        depend only on the texts of the call, never on the thread count (the same call, the
        same bits; the same text elsewhere in a call: within float32 rounding, as BLAS's
        kernels on some CPUs round a matrix's edge rows in another order)."""
        checks.whole("batch_size", batch_size, lo=1)
        texts = list(texts)
        width = self.get_sentence_embedding_dimension()
        out = np.empty((len(texts), width), dtype=np.float32)
        if not texts:
            return out
        ids = self.tokenize(texts)
        order = np.argsort([-len(t) for t in ids], kind="stable")
        batches = [order[a:b] for a, b in parts([len(ids[i]) for i in order])]
        with _one_blas_thread(), ThreadPoolExecutor(threads()) as pool:
            for sel, rows in zip(batches, pool.map(
                    lambda sel: self._forward([ids[i] for i in sel]), batches)):
                out[sel] = rows
        # the folder's Normalize module, always (``supports`` requires it);
        # ``normalize_embeddings`` would normalise again, which changes nothing
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), np.float32(1e-12))
        return out


def parts(lengths: Sequence[int], tokens: int = TOKENS, split: int = SPLIT
          ) -> list[tuple[int, int]]:
    """(start, end) of consecutive parts of texts whose token counts ``lengths`` are sorted
    longest first: a part grows while (texts in it) x (its first, longest text) <= ``tokens``
    (a text longer than that is a part alone); when that gives fewer than ``split`` parts,
    the texts are cut in ``min(split, n)`` parts of equal count instead (both threads work)."""
    n = len(lengths)
    bounds, start = [], 0
    while start < n:
        size = max(1, tokens // max(int(lengths[start]), 1))
        bounds.append((start, min(start + size, n)))
        start += size
    if len(bounds) < min(split, n):
        k = min(split, n)
        cuts = [round(i * n / k) for i in range(k + 1)]
        bounds = list(zip(cuts[:-1], cuts[1:]))
    return bounds


def threads() -> int:
    """Threads computing the halves of a batch: 2, or 1 on a one-core machine."""
    return 2 if (os.cpu_count() or 1) > 1 else 1


_BLAS = {"users": 0, "limit": None}   # encodes running in this process, the limit they share
_BLAS_LOCK = threading.Lock()


@contextmanager
def _one_blas_thread():
    """BLAS (numpy's OpenBLAS) on one thread while any encode of this process runs
    (``threadpoolctl``); the first one in sets the limit, the last one out restores it."""
    # lazy: threadpoolctl finds the loaded BLAS libraries, only when encoding
    from threadpoolctl import threadpool_limits

    with _BLAS_LOCK:
        if _BLAS["users"] == 0:
            _BLAS["limit"] = threadpool_limits(1, user_api="blas")
        _BLAS["users"] += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS["users"] -= 1
            if _BLAS["users"] == 0:
                _BLAS["limit"].restore_original_limits()


def _gelu(x: np.ndarray) -> np.ndarray:
    """gelu(x) = x / 2 * (1 + erf(x / sqrt 2)) (BERT's exact "gelu"), in place of ``x``."""
    from scipy.special import erf

    half = x * np.float32(0.5)
    x *= np.float32(1.0 / math.sqrt(2.0))
    erf(x, out=x)
    x += np.float32(1.0)
    x *= half
    return x


def load_bert(folder: str | Path) -> NumpyBert:
    """``NumpyBert`` from a model folder that ``supports`` accepts (ValueError otherwise)."""
    # lazy: tokenizers and safetensors are read only when the numpy encoder is used
    from safetensors.numpy import load_file
    # lazy: (see above)
    from tokenizers import Tokenizer

    root = Path(folder)
    if not supports(root):
        raise ValueError(f"folder is not a BERT mean-pooling sentence model NumpyBert computes: "
                         f"{root}")
    config = _json(root / "config.json")
    st_config = _json(root / "sentence_bert_config.json")
    max_len = int(st_config.get("max_seq_length") or config["max_position_embeddings"])
    tokenizer = Tokenizer.from_file(str(root / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_len, strategy="longest_first")
    w = load_file(str(root / "model.safetensors"))
    w = {k[5:] if k.startswith("bert.") else k: v for k, v in w.items()}

    def f32(name: str) -> np.ndarray:
        return np.ascontiguousarray(w[name], dtype=np.float32)

    def t32(name: str) -> np.ndarray:   # torch's Linear stores (out, in); x @ W^T
        return np.ascontiguousarray(w[name].T, dtype=np.float32)

    layers = []
    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}."
        att = p + "attention."
        layers.append(_Layer(
            qkv_w=np.concatenate([t32(att + f"self.{x}.weight") for x in ("query", "key",
                                                                           "value")], axis=1),
            qkv_b=np.concatenate([f32(att + f"self.{x}.bias") for x in ("query", "key",
                                                                         "value")]),
            out_w=t32(att + "output.dense.weight"), out_b=f32(att + "output.dense.bias"),
            ln1_g=f32(att + "output.LayerNorm.weight"), ln1_b=f32(att + "output.LayerNorm.bias"),
            up_w=t32(p + "intermediate.dense.weight"), up_b=f32(p + "intermediate.dense.bias"),
            down_w=t32(p + "output.dense.weight"), down_b=f32(p + "output.dense.bias"),
            ln2_g=f32(p + "output.LayerNorm.weight"), ln2_b=f32(p + "output.LayerNorm.bias")))
    return NumpyBert(
        folder=str(root), max_seq_length=max_len, heads=int(config["num_attention_heads"]),
        eps=float(config.get("layer_norm_eps", 1e-12)), tokenizer=tokenizer,
        word=f32("embeddings.word_embeddings.weight"),
        position=f32("embeddings.position_embeddings.weight"),
        token_type=f32("embeddings.token_type_embeddings.weight"),
        emb_ln=(f32("embeddings.LayerNorm.weight"), f32("embeddings.LayerNorm.bias")),
        layers=tuple(layers), do_lower_case=bool(st_config.get("do_lower_case", False)))
