"""core.views.agreement: the CLI text carries the report's numbers; the scatter plots one
point per query against the diagonal."""
from pathlib import Path

from core.agreement.levels import analyse
from core.agreement.files import load_labels, load_runs
from core.views.agreement import query_scatter, text

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "data" / "demo_labels.csv"
RUNS = sorted((ROOT / "data" / "demo_runs").glob("*.run"))


def _report(runs=3):
    labels = load_labels(DEMO.read_bytes(), DEMO.name)
    return analyse(labels, runs=load_runs([(p.read_bytes(), p.name) for p in RUNS[:runs]]),
                   resamples=200, splits=50)


def test_text_lists_every_level_with_the_reports_numbers():
    rep = _report()
    d = rep.to_dict()
    out = text(rep)
    lines = out.splitlines()
    assert lines[0].startswith(f"{d['file']}: '{d['source']}' vs '{d['gold']}' on "
                               f"{d['n_pairs']} pairs")
    assert f"kappa (binary) {d['kappa_binary']:.3f}" in out
    assert f"MAE {d['mae']:.3f}" in out
    assert any(line.strip().startswith(n) for n in ("3.", "4.") for line in lines)
    q = rep.query()
    assert f"Kendall tau {q.tau:.3f}" in out
    for c in d["runs"]:
        assert f"run {c['run']}: {c['unlabelled']} of {c['retrieved']}" in out


def test_text_without_runs_stops_at_level_2():
    labels = load_labels(DEMO.read_bytes(), DEMO.name)
    out = text(analyse(labels, resamples=200, splits=50))
    assert "  2. pairwise accuracy" in out and "  3." not in out and "  4." not in out


def test_query_scatter_one_point_per_query_and_the_diagonal():
    rep = _report(1)
    q = rep.query()
    data = list(query_scatter(q.scores, x_title="gold", y_title="other").to_dict()
                ["datasets"].values())
    points = next(d for d in data if d and "query_id" in d[0])
    assert len(points) == len(q.scores)
    assert points[0]["gold"] == q.scores["gold"].iloc[0]
    assert any(d == [{"x": 0, "y": 0}, {"x": 1, "y": 1}] for d in data)
