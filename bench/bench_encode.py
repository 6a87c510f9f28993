"""Faster live document encodes? all-MiniLM-L6-v2 backends against plain torch, in one run.

Candidates: the numpy encoder the app uses for the bundled model
(``core.retrieval.bert_numpy``, issue 37: no torch import), and (issue 22, item 4):
sentence-transformers' ONNX backend (``backend="onnx"``, needs
``optimum-onnx[onnxruntime]``), its OpenVINO backend (``backend="openvino"``, needs
``optimum-intel[openvino]``), torch dynamic int8 quantisation of the Linear layers
(``torch.ao.quantization.quantize_dynamic``), and plain torch with one thread instead of the
default. Each encodes the same seeded random sample of scifact documents (best of
``--repeats`` wall times, CPU time beside it); the printed ratio is documents per second
against plain torch in this run, and the quality is the min cosine with plain torch's
vectors of the same documents. A backend that cannot load prints why.

Adopt one only when it is faster here *and* ``--quality`` (a full encode of the 5,183
documents with it: dense nDCG@10 within 0.002 of 0.6451, per-query wins/losses/ties against
BM25 within 3 of 73/67/160) holds, *and* its dependency installs from requirements.txt.

``--load``: each of torch and numpy loaded by ``core.retrieval.search.load_model(None)`` in a
fresh interpreter (imports included; ``NOISEFLOOR_ENCODER`` picks the encoder), wall and CPU
seconds, best of ``--repeats``: what a first visit pays before it can encode anything.

Run: ``python bench/bench_encode.py [--docs 256] [--repeats 2] [--only torch,numpy]
[--quality NAME] [--load]``.
"""
from __future__ import annotations

import argparse
import copy
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _data():
    from core.retrieval.beir import find_or_download, load_beir

    return load_beir(find_or_download(None))


def _candidates(source: str):
    """(name, loader) for each backend; a loader returns a model or raises."""
    import torch
    from sentence_transformers import SentenceTransformer

    def plain():
        return SentenceTransformer(source, device="cpu")

    def one_thread():
        m = plain()
        m._bench_threads = 1
        return m

    def int8():
        m = plain()
        layer = m[0]
        name = "model" if isinstance(getattr(layer, "model", None), torch.nn.Module) \
            else "auto_model"  # sentence-transformers 6 names the module "model"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch.ao's deprecation notices
            setattr(layer, name, torch.ao.quantization.quantize_dynamic(
                copy.deepcopy(getattr(layer, name)), {torch.nn.Linear}, dtype=torch.qint8))
        return m

    def onnx():
        return SentenceTransformer(source, device="cpu", backend="onnx")

    def openvino():
        return SentenceTransformer(source, device="cpu", backend="openvino")

    def numpy_bert():
        from core.retrieval.bert_numpy import load_bert

        return load_bert(source)

    return [("torch", plain), ("numpy", numpy_bert), ("torch, 1 thread", one_thread), ("torch dynamic int8", int8),
            ("onnx", onnx), ("openvino", openvino)]


def _encode(model, texts):
    import torch

    if not isinstance(model, torch.nn.Module):   # the numpy encoder: its own threads
        return model.encode(texts, batch_size=32, normalize_embeddings=True)
    threads = torch.get_num_threads()
    if getattr(model, "_bench_threads", None):
        torch.set_num_threads(model._bench_threads)
    try:
        return model.encode(texts, batch_size=32, normalize_embeddings=True,
                            convert_to_numpy=True, show_progress_bar=False)
    finally:
        torch.set_num_threads(threads)


def measure(texts, repeats: int, only: tuple[str, ...] = ()) -> list[dict]:
    import numpy as np

    from core.retrieval.search import resolve_model

    source, _ = resolve_model(None)
    rows, reference = [], None
    for name, load in _candidates(source):
        if only and name not in only:
            continue
        try:
            model = load()
            _encode(model, texts[:16])  # warm-up (and, for onnx/openvino, export)
        except Exception as exc:  # noqa: BLE001 - a backend that cannot load is a finding
            rows.append({"name": name, "error": (str(exc).splitlines() or [repr(exc)])[0][:160]})
            continue
        best, cpu, emb = float("inf"), 0.0, None
        for _ in range(repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            emb = _encode(model, texts)
            best = min(best, time.perf_counter() - t0)
            cpu += time.process_time() - c0
        emb = np.asarray(emb, dtype=np.float64)
        if reference is None:
            reference = emb
        cos = np.sum(emb * reference, axis=1) / (np.linalg.norm(emb, axis=1) *
                                                 np.linalg.norm(reference, axis=1))
        rows.append({"name": name, "seconds": best, "cpu": cpu / repeats,
                     "docs_per_s": len(texts) / best, "min_cosine": float(cos.min())})
    base = rows[0]
    for r in rows:
        if "seconds" in r:
            r["speedup"] = base["seconds"] / r["seconds"]
            r["cpu_speedup"] = base["cpu"] / r["cpu"]
    return rows


def quality(name: str) -> dict:
    """Full encode with one backend: dense nDCG@10 and W/L/T against BM25 (B − A = dense −
    BM25, ties within core.retrieval.scifact.TIE_TOL)."""
    import numpy as np

    from core.retrieval.search import bm25_search, dense_search, resolve_model
    from core.retrieval.scifact import TIE_TOL, evaluate

    data = _data()
    model = dict(_candidates(resolve_model(None)[0]))[name]()
    qids = data.query_ids
    qtexts = [data.queries[q] for q in qids]
    docs, queries = _encode(model, list(data.texts)), _encode(model, qtexts)
    tables = evaluate(data, {"bm25": bm25_search(data.texts, qids, qtexts),
                             "dense": dense_search(qids, queries, docs)})
    diff = (tables["dense"]["ndcg@10"] - tables["bm25"]["ndcg@10"]).to_numpy()
    return {"ndcg@10": float(tables["dense"]["ndcg@10"].mean()),
            "bm25_wins": int(np.sum(diff < -TIE_TOL)), "dense_wins": int(np.sum(diff > TIE_TOL)),
            "ties": int(np.sum(np.abs(diff) <= TIE_TOL))}


LOAD = ("import time; t0, c0 = time.perf_counter(), time.process_time(); "
        "from core.retrieval.search import load_model; m = load_model(None); "
        "print(type(m).__name__, time.perf_counter() - t0, time.process_time() - c0)")


def load_times(repeats: int) -> list[dict]:
    """``load_model(None)`` in a fresh interpreter per encoder (imports included)."""
    rows = []
    for name, env in (("torch", "sentence-transformers"), ("numpy", "")):
        best = None
        for _ in range(repeats):
            out = subprocess.run([sys.executable, "-c", LOAD], cwd=ROOT, check=True, text=True,
                                 capture_output=True,
                                 env={**os.environ, "NOISEFLOOR_ENCODER": env}).stdout.split()
            got = {"name": name, "class": out[0], "wall": float(out[1]), "cpu": float(out[2])}
            best = got if best is None or got["wall"] < best["wall"] else best
        rows.append(best)
    return rows


def main(argv: list[str] | None = None) -> int:
    import numpy as np

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--docs", type=int, default=256, help="documents in the sample")
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--quality", metavar="NAME", help="full-corpus check of one backend")
    p.add_argument("--only", default="", help="comma-separated candidates (default: all)")
    p.add_argument("--load", action="store_true", help="time load_model per encoder")
    args = p.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if args.load:
        for r in load_times(args.repeats):
            print(f"  load_model(None), {r['name']:<6} ({r['class']}): {r['wall']:.2f} s wall, "
                  f"{r['cpu']:.2f} s CPU (fresh interpreter, imports included)")
        return 0
    if args.quality:
        print(args.quality, quality(args.quality))
        return 0
    data = _data()
    picks = np.sort(np.random.default_rng(0).choice(data.n_docs, min(args.docs, data.n_docs),
                                                    replace=False))
    texts = [data.texts[i] for i in picks]
    print(f"bench_encode: {len(texts)} scifact documents (seed 0), best of {args.repeats}")
    print(f"  load average now {os.getloadavg()[0]:.1f}")
    only = tuple(x.strip() for x in args.only.split(",") if x.strip())
    for r in measure(texts, args.repeats, only):
        if "error" in r:
            print(f"  {r['name']:<20} cannot run here: {r['error']}")
        else:
            print(f"  {r['name']:<20} {r['docs_per_s']:7.1f} documents/s -> "
                  f"{r['speedup']:.2f}x plain torch (CPU time {r['cpu_speedup']:.2f}x), "
                  f"min cosine vs plain torch {r['min_cosine']:.5f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
