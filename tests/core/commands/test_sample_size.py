"""``python -m core sample-size``: the plan holds the same n as core.planning.sample_size for each
design asked for, and nothing for designs not asked for."""
import json

import pytest

from core.__main__ import build_parser, main
from core.commands.sample_size import DEFAULT_HALF_WIDTH, plan
from core.errors import InputError
from core.planning.sample_size import (n_continuous_ci, n_continuous_power, n_mcnemar, n_normal,
                              n_paired_ci, n_wilson)


def _args(*argv):
    return build_parser("sample_size").parse_args(["sample-size", *argv])


def test_rate_plan_equals_core_sample_size():
    out = plan(_args("--rate", "0.8", "--half-width", "0.05", "--confidence", "0.9"))
    assert out["n_wilson"] == n_wilson(0.8, 0.05, 0.9)
    assert out["n_normal"] == n_normal(0.8, 0.05, 0.9)
    assert "n_paired_ci" not in out and "n_continuous_ci" not in out
    assert out["inputs"]["rate"] == 0.8


def test_paired_and_continuous_plans():
    out = plan(_args("--discordance", "0.2", "--diff", "0.05", "--half-width", "0.03"))
    assert out["n_paired_ci"] == n_paired_ci(0.2, 0.05, 0.03, 0.95)
    assert out["n_paired_power"] == n_mcnemar(0.2, 0.05, alpha=0.05, power=0.8)
    assert "n_wilson" not in out
    out = plan(_args("--sigma", "0.3", "--diff", "0.05", "--power", "0.9"))
    assert out["n_continuous_ci"] == n_continuous_ci(0.3, DEFAULT_HALF_WIDTH, 0.95)
    assert out["n_continuous_power"] == n_continuous_power(0.05, 0.3, alpha=0.05, power=0.9)


def test_default_design_is_one_rate_and_diff_alone_is_refused():
    assert "n_wilson" in plan(_args())
    with pytest.raises(InputError) as e:
        plan(_args("--diff", "0.05"))
    assert e.value.code == "sample_size.err_diff_alone"


def test_cli_json_and_text(capsys):
    assert main(["sample-size", "--rate", "0.7", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n_wilson"] == n_wilson(0.7, out["inputs"]["half_width"], 0.95)
    assert main(["sample-size", "--rate", "0.7"]) == 0
    assert str(out["n_wilson"]) in capsys.readouterr().out.replace(",", "")
    assert main(["sample-size", "--rate", "1.5"]) == 2


def test_margin_gives_the_noninferiority_n_of_core(capsys):
    from core.planning.noninferiority import n_noninferiority_continuous, n_noninferiority_paired
    out = plan(_args("--discordance", "0.2", "--margin", "0.05", "--alpha", "0.1"))
    assert out["n_paired_noninferiority"] == n_noninferiority_paired(0.2, 0.0, 0.05, alpha=0.1)
    assert "n_paired_power" not in out
    out = plan(_args("--sigma", "0.3", "--margin", "0.05", "--diff", "0.01"))
    assert out["n_continuous_noninferiority"] == n_noninferiority_continuous(0.01, 0.3, 0.05)
    with pytest.raises(InputError) as e:
        plan(_args("--margin", "0.05"))
    assert e.value.code == "sample_size.err_margin_alone"
    assert main(["sample-size", "--discordance", "0.2", "--margin", "0.05"]) == 0
    assert "n_paired_noninferiority" in capsys.readouterr().out
    assert main(["sample-size", "--discordance", "0.2", "--diff", "-0.06",
                 "--margin", "0.05"]) == 2


def test_cheap_labels_give_the_gold_cases_needed_beside_each_n(capsys):
    """issue 34 item 5: with --cheap N --correlation RHO every n gets the gold cases PPI++ needs
    beside N cheap-labelled cases (core.paired.gold_cases_needed); without them, no trace."""
    import json as _json
    from core.__main__ import main as _main
    from core.paired import gold_cases_needed
    base = ["sample-size", "--sigma", "0.2", "--half-width", "0.05", "--json"]
    assert _main(base) == 0
    plain = _json.loads(capsys.readouterr().out)
    assert "cheap" not in plain
    assert _main(base + ["--cheap", "500", "--correlation", "0.8"]) == 0
    d = _json.loads(capsys.readouterr().out)
    need = d["cheap"]["gold_needed"]
    assert set(need) == {k for k in plain if k.startswith("n_")}
    for k, n in need.items():
        assert n == gold_cases_needed(plain[k], 500, 0.8) < plain[k]
    assert _main(base[:-1] + ["--cheap", "500", "--correlation", "0.8"]) == 0
    out = capsys.readouterr().out
    assert f"about {need['n_continuous_ci']} gold cases instead of {plain['n_continuous_ci']}" in out
    assert _main(base + ["--cheap", "500"]) == 2
