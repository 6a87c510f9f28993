"""A golden page rerun at 300 score cases with a margin set (issue 31: a rerun does no
statistics again).

``st.cache_data`` pickles the page's result and hands each rerun an unpickled copy, so
anything computed outside the cached call (or lazily on first access) is computed again on
every rerun. Two pages are timed, each first run and rerun:

- before (main 0a8a6d9): the cached call was ``compare_golden``; the margin's answer
  (``margin_answer``: for scores with δ > 0 the sign flip and the tie-kept bootstrap) and the
  card's next step (``card_next_step``) ran on every rerun, outside the cache;
- after: the one cached call ``compare_systems(..., margin=, next_step=True)`` holds the
  margin's answer and the next step; a rerun is the view and the JSON of an unpickled copy.

Printed: CPU seconds (best of 3, and the slowest of the 3 as the spread) and rerun / first run.
"""
from __future__ import annotations

import io
import pickle
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.timing import best  # noqa: E402

from core.inputs import compare_golden, compare_systems, golden_systems, load_golden  # noqa: E402
from core.inputs import margin_answer  # noqa: E402
from core.planning import card_next_step  # noqa: E402
from core.views import paired_view  # noqa: E402

N_CASES = 300
MARGIN = 0.02


def scores_csv(n: int = N_CASES, seed: int = 7) -> bytes:
    """``n`` cases of two score columns in [0, 1] (B a little better, noisy)."""
    rng = np.random.default_rng(seed)
    a = rng.beta(4, 3, n)
    b = np.clip(a + rng.normal(0.02, 0.12, n), 0, 1)
    out = io.StringIO()
    out.write("case_id,A,B\n")
    for i, (x, y) in enumerate(zip(a, b)):
        out.write(f"c{i},{x:.4f},{y:.4f}\n")
    return out.getvalue().encode()


def _times(fn, repeat: int = 3) -> tuple[float, float]:
    """(fastest, slowest) CPU seconds of ``repeat`` calls."""
    runs = [best(fn, 1, clock=time.process_time) for _ in range(repeat)]
    return min(runs), max(runs)


def _view(comparison, unit, margin, plan) -> None:
    view = paired_view(comparison, lang="en", unit=unit, margin=margin, plan=plan)
    view.cli_lines()


def main() -> None:
    gs = load_golden(scores_csv(), file="bench.csv")

    def before_show(res):   # margin and next step outside the cache, as the page did
        margin = margin_answer(res.comparison, MARGIN)
        _view(res.comparison, res.golden.unit, margin, card_next_step(res.comparison, margin))
        res.to_dict()

    def after_show(sc):
        _view(sc.result.comparison, sc.result.golden.unit, sc.margin, sc.plan)
        sc.to_dict()

    old = pickle.dumps(compare_golden(gs, "A", "B"))
    new = pickle.dumps(compare_systems(golden_systems(gs), "A", "B", margin=MARGIN,
                                       next_step=True))
    rows = [
        ("before", _times(lambda: before_show(compare_golden(gs, "A", "B"))),
         _times(lambda: before_show(pickle.loads(old)))),
        ("after", _times(lambda: after_show(compare_systems(golden_systems(gs), "A", "B",
                                                            margin=MARGIN, next_step=True))),
         _times(lambda: after_show(pickle.loads(new)))),
    ]
    print(f"golden page at {N_CASES} score cases, margin {MARGIN}: CPU s, best of 3 "
          f"(slowest of 3)")
    print("| page | first run | rerun | rerun / first |")
    print("|---|---|---|---|")
    for name, (f_lo, f_hi), (r_lo, r_hi) in rows:
        print(f"| {name} | {f_lo:.3f} ({f_hi:.3f}) | {r_lo:.3f} ({r_hi:.3f}) | "
              f"{r_lo / f_lo:.3f} |")


if __name__ == "__main__":
    main()
