"""A golden page rerun at 300 score cases (issue 31, stage B: compute inside the cache).

``st.cache_data`` pickles the page's result and hands each rerun an unpickled copy, so
anything a result computes on first access (a lazy property) is computed again on every rerun.
Here: the first run is ``compare_golden`` plus the view the page builds (``paired_view``: card,
self-check sentence, tests table) and the JSON (``to_dict``); a rerun is the same view and JSON
from an unpickled copy of the result, as the cache gives it. Printed: each one's CPU time and
the ratio rerun / first run (target: a rerun does no statistics again, so the ratio is small).
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

from core.inputs import compare_golden, load_golden  # noqa: E402
from core.planning import card_next_step  # noqa: E402
from core.views.paired import paired_view  # noqa: E402

N_CASES = 300


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


def _show(res) -> None:
    view = paired_view(res.comparison, lang="en", unit=res.golden.unit,
                       plan=card_next_step(res.comparison))
    view.cli_lines()
    res.to_dict()


def main() -> None:
    gs = load_golden(scores_csv(), file="bench.csv")
    cached = pickle.dumps(compare_golden(gs, "A", "B"))

    def first():
        _show(compare_golden(gs, "A", "B"))

    def rerun():
        _show(pickle.loads(cached))

    t_first = best(first, 3, clock=time.process_time)
    t_rerun = best(rerun, 3, clock=time.process_time)
    print(f"golden page at {N_CASES} score cases: first run {t_first:.3f} s CPU, "
          f"rerun from the cache {t_rerun:.3f} s CPU; rerun / first = {t_rerun / t_first:.3f}")


if __name__ == "__main__":
    main()
