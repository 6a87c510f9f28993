"""core.commands._common: what every command shares (reading files, JSON, statistics and
metric options)."""
import argparse

import pytest

from core.commands._common import add_stat_args, metric_option, read_bytes
from core.errors import InputError
from core.inputs.metrics import parse_measure


def test_read_bytes_reads_or_names_the_file(tmp_path):
    f = tmp_path / "a.csv"
    f.write_bytes(b"x,y\n")
    assert read_bytes(str(f)) == b"x,y\n"
    with pytest.raises(InputError) as e:
        read_bytes(str(tmp_path / "missing.csv"))
    assert e.value.code == "file_not_found" and e.value.file.endswith("missing.csv")
    with pytest.raises(InputError) as e:
        read_bytes(str(tmp_path))
    assert e.value.code == "is_directory"


def test_add_stat_args_same_spelling_and_defaults():
    p = argparse.ArgumentParser()
    add_stat_args(p, resamples=500, interval=True)
    args = p.parse_args([])
    assert (args.resamples, args.seed, args.confidence, args.json, args.interval) == \
        (500, 0, 0.95, False, "auto")   # the calibrated default (docs/calibration.md)
    args = p.parse_args(["--resamples", "10", "--seed", "3", "--confidence", "0.9", "--json",
                         "--interval", "bca"])
    assert (args.resamples, args.seed, args.confidence, args.json, args.interval) == \
        (10, 3, 0.9, True, "bca")
    from core.paired.intervals import INTERVALS
    for name in INTERVALS:   # --interval lists every interval by name
        assert p.parse_args(["--interval", name]).interval == name
    with pytest.raises(SystemExit):
        p.parse_args(["--interval", "bootstrap"])
    plain = argparse.ArgumentParser()
    add_stat_args(plain)
    assert not hasattr(plain.parse_args([]), "interval")


def test_metric_option_turns_aliases_into_the_name_and_refusals_into_usage_errors():
    convert = metric_option(lambda s: str(parse_measure(s)))
    assert convert("RR@10") == "mrr@10" and convert("Success@5") == "hit@5"
    with pytest.raises(argparse.ArgumentTypeError, match="bleu"):
        convert("bleu")
    p = argparse.ArgumentParser()
    p.add_argument("--metric", type=convert)
    assert p.parse_args(["--metric", "R@100"]).metric == "recall@100"


def test_check_margin_text_accepts_either_kind_and_refuses_neither():
    from core.commands._common import check_margin_text
    for ok in (None, "0.02", "2pp", "2", "0,5"):   # "2": a score margin; "2pp": a rate's
        check_margin_text(ok)
    for bad in ("abc", "-1", "100pp", "inf"):
        with pytest.raises(InputError):
            check_margin_text(bad)
