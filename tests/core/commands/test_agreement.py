"""``python -m core agreement``: ``--metric`` takes every registry spelling (``RR@10``,
``Success@10``, ``map@100``...) and reports it under its canonical name."""
import json
from pathlib import Path

import pytest

from core.__main__ import build_parser, main
from core.inputs.metrics import RANK_MEASURES, REGISTRY

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "data" / "demo_labels.csv"
RUNS = sorted((ROOT / "data" / "demo_runs").glob("*.run"))


def _spellings(name: str) -> list[str]:
    spec = REGISTRY[name]
    names = {spec.name, *spec.aliases, spec.display}
    return sorted({f"{n}@10" for n in names} | {f"{n.upper()}@10" for n in names})


@pytest.mark.parametrize("name", RANK_MEASURES)
def test_metric_accepts_every_registry_alias(name):
    parser = build_parser("agreement")
    for text in _spellings(name):
        args = parser.parse_args(["agreement", "x.csv", "--metric", text])
        assert args.metric == f"{name}@10", text


def test_unknown_metric_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as ei:
        build_parser("agreement").parse_args(["agreement", "x.csv", "--metric", "bleu@4"])
    assert ei.value.code == 2
    err = capsys.readouterr().err
    assert "bleu@4" in err and "ndcg" in err


def test_an_alias_gives_the_same_report_as_the_name(capsys):
    outs = []
    for text in ("mrr@10", "RR@10"):
        assert main(["agreement", str(DEMO), "--runs", *map(str, RUNS[:3]), "--metric", text,
                     "--resamples", "200", "--splits", "50", "--json"]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0]["measure"] == outs[1]["measure"] == "mrr@10"
    assert outs[0] == outs[1]
