"""core.views.sample_size: the half-width chart marks target, planned and current n; the CLI
text lists every n of the plan."""
from core.planning.sample_size import half_width_curve, n_wilson
from core.views.sample_size import LABELS, half_width_chart, plan_text


def test_half_width_chart_marks_target_planned_and_current():
    n = n_wilson(0.8, 0.05)
    curve = half_width_curve(0.8, n_max=2 * n)
    chart = half_width_chart(curve, target=0.05, current_n=40, planned_n=n, title="t",
                             planned_label="planned", current_label="now")
    data = list(chart.to_dict()["datasets"].values())
    line = next(d for d in data if d and "hw" in d[0])
    assert len(line) == len(curve)
    assert line[0]["hw"] == 100 * curve["half_width"].iloc[0]
    assert any(d == [{"y": 5.0, "label": "target"}] for d in data)
    marks = next(d for d in data if d and "color" in d[0])
    assert [(m["n"], m["label"]) for m in marks] == [(n, "planned"), (40, "now")]
    none = half_width_chart(curve, target=0.05, current_n=None, planned_n=n)
    marks = next(d for d in none.to_dict()["datasets"].values() if d and "color" in d[0])
    assert [m["label"] for m in marks] == ["planned"]


def test_plan_text_lists_inputs_and_each_n():
    result = {"inputs": {"rate": 0.8, "half_width": 0.05, "sigma": None},
              "n_wilson": 1234, "n_normal": 246}
    text = plan_text(result)
    lines = text.splitlines()
    assert lines[0] == "inputs: rate=0.8, half_width=0.05"
    assert "1,234" in lines[1] and LABELS["n_wilson"] in lines[1]
    assert "n_normal" in lines[2] and len(lines) == 3


def test_power_chart_draws_the_curve_in_percent_with_target_and_marks():
    from core.planning.sample_size import power_curve
    from core.views.sample_size import power_chart

    curve = power_curve(diff=0.1, discordance=0.3, n_max=500)
    chart = power_chart(curve, target=0.8, current_n=40, planned_n=200, current_label="now")
    data = list(chart.to_dict()["datasets"].values())
    line = next(d for d in data if d and "pct" in d[0])
    assert [r["pct"] for r in line] == [100 * p for p in curve["power"]]
    assert any(d == [{"y": 80.0, "label": "target power"}] for d in data)
    marks = next(d for d in data if d and "color" in d[0])
    assert [(m["n"], m["label"]) for m in marks] == [(200, "planned"), (40, "now")]
