"""Make the synthetic label-agreement demo: data/demo_labels.csv and data/demo_runs/*.run.

Run: ``python data/make_demo_labels.py`` (seeded, same files every time). Nothing here is
real: 40 queries, 15 pooled documents per query with a latent relevance r; gold labels are r
cut at two thresholds (0/1/2); each other source sees r plus its own noise and bias (two
prompt variants of an LLM labeller, a crowd, a keyword heuristic that only says 0/1); a
few crowd cells are blank (not labelled). Five systems rank the pooled documents plus 25
unjudged ones per query by r * quality + noise, so some retrieved documents have no label.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
SEED = 20240714
N_QUERIES, N_POOL, N_UNJUDGED, DEPTH = 40, 15, 25, 20
SOURCES = {  # name: (noise sd, bias, binary only)
    "llm_basic": (0.45, 0.25, False),
    "llm_narrative": (0.38, 0.10, False),
    "crowd": (0.55, -0.10, False),
    "keyword_heuristic": (0.80, 0.00, True),
}
SYSTEMS = {"bm25": 0.9, "dense": 1.2, "hybrid": 1.5, "rerank": 1.9, "title_only": 0.5}


def grade(x: np.ndarray) -> np.ndarray:
    return np.digitize(x, [0.8, 1.6])


def main() -> None:
    rng = np.random.default_rng(SEED)
    rows, runs = [], {s: [] for s in SYSTEMS}
    for q in range(1, N_QUERIES + 1):
        qid = f"q{q:02d}"
        ease = rng.normal(0.0, 0.45)  # some queries have more relevant documents
        r = rng.gamma(1.4, 0.65, size=N_POOL) + ease
        gold = grade(r + rng.normal(0, 0.12, N_POOL))
        docs = [f"{qid}-d{k:02d}" for k in range(N_POOL)]
        row = {"query_id": [qid] * N_POOL, "doc_id": docs, "gold": gold}
        for name, (sd, bias, binary) in SOURCES.items():
            lab = grade(r + bias + rng.normal(0, sd, N_POOL))
            row[name] = np.minimum(lab, 1) if binary else lab
        rows.append(pd.DataFrame(row))
        unjudged = rng.gamma(1.0, 0.2, size=N_UNJUDGED)
        all_r = np.concatenate([r, unjudged])
        all_docs = docs + [f"{qid}-u{k:02d}" for k in range(N_UNJUDGED)]
        for sys, quality in SYSTEMS.items():
            score = quality * all_r + rng.normal(0, 0.7, all_r.size)
            order = np.argsort(-score, kind="stable")[:DEPTH]
            for rank, i in enumerate(order, start=1):
                runs[sys].append(f"{qid} Q0 {all_docs[i]} {rank} {score[i]:.4f} {sys}")
    labels = pd.concat(rows, ignore_index=True)
    labels["crowd"] = labels["crowd"].astype(object)
    blank = rng.choice(len(labels), size=6, replace=False)
    labels.loc[blank, "crowd"] = ""
    labels.to_csv(HERE / "demo_labels.csv", index=False)
    out = HERE / "demo_runs"
    out.mkdir(exist_ok=True)
    for sys, lines in runs.items():
        (out / f"{sys}.run").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
