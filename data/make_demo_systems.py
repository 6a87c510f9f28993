"""Make the synthetic demo inputs of the "Ranked lists & many systems" page (seeded).

    python data/make_demo_systems.py

writes ``data/demo_lists.csv`` (40 cases, methods bm25 / dense / hybrid, top-10 id lists)
and ``data/demo_trec/`` (qrels + three runs over 50 queries, 100 documents each). The
numbers are invented: each method places each relevant document with its own chance and
depth, so hybrid is a little better and bm25 and dense are close. To show the reports,
the dense run leaves out one judged query and the hybrid run has one query that is not
judged.

``demo_lists.csv`` has a ``group`` column, the query type of each case's topic
(``QUERY_TYPES``: account, billing, product; 12, 14 and 14 cases), so the page shows B − A per
query group (``core.inputs.groups``). It is read from a fixed table and draws nothing from the
seeded generator: the lists, and so every overall number, are the same as without it.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

SEED = 20261130
HERE = Path(__file__).resolve().parent
TOPICS = ["reset password", "refund policy", "billing email", "export invoices", "API limits",
          "delete account", "two-factor login", "change plan", "team invites", "SSO setup",
          "data retention", "webhook retries", "CSV import", "mobile sync", "dark mode",
          "audit log", "storage quota", "custom domain", "tax receipt", "usage alerts"]
ASPECTS = ["how to", "error", "pricing", "limits"]
# the query type of each topic: demo_lists.csv's ``group`` column (no random draw)
QUERY_TYPES = {
    "account": ("reset password", "delete account", "two-factor login", "team invites",
                "SSO setup", "custom domain"),
    "billing": ("refund policy", "billing email", "export invoices", "change plan",
                "tax receipt", "storage quota", "usage alerts"),
    "product": ("API limits", "data retention", "webhook retries", "CSV import", "mobile sync",
                "dark mode", "audit log")}
TYPE_OF = {topic: kind for kind, topics in QUERY_TYPES.items() for topic in topics}
# method -> (chance a relevant doc is retrieved, mean rank of a retrieved relevant doc)
LIST_METHODS = {"bm25": (0.62, 4.0), "dense": (0.66, 4.2), "hybrid": (0.78, 3.0)}
RUN_METHODS = {"bm25": (0.60, 12.0), "dense": (0.64, 11.0), "hybrid": (0.74, 7.0)}


def _ranked(rng, relevant, pool, chance, depth, length):
    """A ranked list of ``length`` ids: each relevant id placed with ``chance`` near rank
    ``depth`` (exponential), the rest filled with non-relevant ids from ``pool``."""
    slots = [None] * length
    for doc in relevant:
        if rng.random() < chance:
            pos = min(int(rng.exponential(depth)), length - 1)
            while slots[pos] is not None:
                pos = (pos + 1) % length
            slots[pos] = doc
    rel = set(relevant)
    fill = [d for d in rng.permutation(pool) if d not in rel]
    it = iter(fill)
    return [s if s is not None else next(it) for s in slots]


def make_lists(rng, n_cases=40, n_docs=300, k=10):
    docs = [f"doc{i:03d}" for i in range(n_docs)]
    lines = ["case_id,query,group,gold_ids," + ",".join(LIST_METHODS)]
    for c in range(n_cases):
        topic = TOPICS[c % len(TOPICS)]
        query = f"{topic} {ASPECTS[(c // len(TOPICS)) % len(ASPECTS)]}"
        gold = list(rng.choice(docs, size=int(rng.integers(1, 4)), replace=False))
        row = [f"c{c + 1:02d}", query, TYPE_OF[topic], "|".join(gold)]
        for chance, depth in LIST_METHODS.values():
            row.append("|".join(_ranked(rng, gold, docs, chance, depth, k)))
        lines.append(",".join(row))
    (HERE / "demo_lists.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def make_trec(rng, n_queries=50, n_docs=2000, depth=100):
    out = HERE / "demo_trec"
    out.mkdir(exist_ok=True)
    docs = [f"D{i:04d}" for i in range(n_docs)]
    qids = [f"q{q + 1:02d}" for q in range(n_queries)]
    qrels, judged = [], {}
    for q in qids:
        rel = list(rng.choice(docs, size=int(rng.integers(2, 9)), replace=False))
        grades = rng.integers(1, 3, size=len(rel))
        nonrel = [d for d in rng.choice(docs, size=6, replace=False) if d not in rel]
        judged[q] = rel
        qrels += [f"{q} 0 {d} {g}" for d, g in zip(rel, grades)]
        qrels += [f"{q} 0 {d} 0" for d in nonrel]
    (out / "qrels.txt").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    for name, (chance, mean_rank) in RUN_METHODS.items():
        lines = []
        run_qids = list(qids)
        if name == "dense":
            run_qids.remove(qids[-1])  # a judged query this run does not answer
        if name == "hybrid":
            run_qids.append("q99")  # a query without judgements
        for q in run_qids:
            ranked = _ranked(rng, judged.get(q, []), docs, chance, mean_rank, depth)
            for r, d in enumerate(ranked, start=1):
                lines.append(f"{q} Q0 {d} {r} {round(30 - 0.25 * r, 2)} {name}")
        (out / f"{name}.run").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    rng = np.random.default_rng(SEED)
    make_lists(rng)
    make_trec(rng)


if __name__ == "__main__":
    main()
