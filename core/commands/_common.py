"""Helpers shared by CLI commands: reading input files, the shared options (JSON goes out
through ``core.serialize.print_json``)."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable

from core.errors import InputError
from core.retrieval import FileTooLarge, NotRegularFile, read_regular


# The largest file a command reads: the app's upload limit (.streamlit/config.toml
# maxUploadSize), so the CLI accepts what the pages accept (README, "Limits").
MAX_INPUT_BYTES = 50 * 1024 * 1024


def read_bytes(path: str) -> bytes:
    """A file's bytes, or ``InputError`` naming the file when it cannot be read: the one way
    every command reads a file. Regular files only (a FIFO, device or socket is refused
    without blocking: ``core.retrieval.safe_files.read_regular`` opens non-blocking and checks
    ``fstat`` first), at most ``MAX_INPUT_BYTES``."""
    p = Path(path)
    if not p.exists():
        raise InputError("file_not_found", file=path)
    if p.is_dir():
        raise InputError("is_directory", file=path)
    try:
        return read_regular(p, MAX_INPUT_BYTES)
    except FileTooLarge as exc:
        raise InputError("too_large", file=path, size_mb=f"{exc.size / 2**20:,.0f}",
                         limit_mb=f"{MAX_INPUT_BYTES / 2**20:.0f}") from None
    except NotRegularFile:
        raise InputError("not_regular_file", file=path) from None


def metric_option(parse: Callable[[str], str]) -> Callable[[str], str]:
    """An argparse ``type`` for an option naming a metric: ``parse`` (a function of the
    metric registry, ``core.inputs.metrics.parse_measure`` underneath) turns any registry spelling
    or alias (``RR@10``, ``MRR@10``, ``Success@10``, ``R@100``) into the canonical name; a
    name it refuses becomes argparse's one-line usage error (exit 2) listing the valid
    spellings. Never ``choices=``: a list of strings cannot know the aliases."""
    def metric(text: str) -> str:
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return metric


def add_stat_args(p, *, resamples: int = 20_000, interval: bool = False) -> None:
    """--resamples, --seed, --confidence, --json: the same spelling on every command;
    ``interval=True`` adds --interval (``core.paired.intervals.INTERVALS``; commands with a paired
    verdict)."""
    p.add_argument("--resamples", type=int, default=resamples,
                   help=f"bootstrap resamples (default {resamples:,})")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--confidence", type=float, default=0.95,
                   help="confidence level, e.g. 0.90, 0.95, 0.99 (default 0.95)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    if interval:
        from core.paired import INTERVALS  # lazy: commands without a CI of B − A never load the statistics
        p.add_argument("--interval", choices=INTERVALS, default="auto",
                       help="CI of B - A. auto (default): the calibrated one for the data "
                            "(Tango's score interval for 0/1 outcomes, the calibrated "
                            "t-interval - t widened to the bootstrap-t's ends - for scores; "
                            "docs/calibration.md). 0/1 only: tango, newcombe, bonett_price, "
                            "wald. Scores only: calibrated_t, t, johnson_t, hall_t, "
                            "expanded_percentile, bootstrap_t. Both: percentile, bca "
                            "(under-covers below 50 "
                            "cases). A name that does not fit the data falls back to auto; "
                            "the output names the interval used.")


def add_margin_arg(p) -> None:
    """--margin: off by default; read by ``core.inputs.margin_text.parse_margin`` once the data's kind is
    known (rates: 0.02 or 2pp = 2 %p; scores: their own scale)."""
    p.add_argument("--margin", default=None, metavar="DELTA",
                   help="answer 'can we switch to B without losing more than DELTA?': "
                        "non-inferior / equivalent / inferior / inconclusive (off by "
                        "default). For 0/1 outcomes a share below 0.2 (0.02 = 2 %%p) or "
                        "percentage points with a suffix (2pp, 2%%p); a plain 2 or 0.5 is "
                        "refused as ambiguous. For scores a number on the score's own scale "
                        "(0.02 nDCG).")


def check_margin_text(text) -> None:
    """Refuse a ``--margin`` no data could read (``abc``, ``-1``, ``100pp``) before a long
    run: it must read as a rate's or as a score's margin (which one is known only once the
    data are in, when ``core.inputs.margin_answer`` reads it for their kind)."""
    if text is None:
        return
    from core.inputs import parse_margin  # lazy: every command module is imported at start-up
    try:
        parse_margin(text, binary=False)
    except InputError:
        parse_margin(text, binary=True)


def add_harm_args(p, *, max_harm: bool = False, flag: bool = True) -> None:
    """No harm (issue 35, ``core.paired.harm``): ``--harm`` (off by default, so outputs
    without it are unchanged) adds the hurt share, the helped share and TRisk; ``--harm-delta``
    and ``--alpha`` set them; with ``max_harm`` also ``--max-harm SHARE`` (``decide``'s third
    condition)."""
    if flag:
        p.add_argument("--harm", action="store_true",
                       help="no harm: the share of cases where B is worse than A by more "
                            "than --harm-delta (Wilson interval), the share helped, and TRisk "
                            "(JSON: a 'harm' block)")
    if max_harm:
        p.add_argument("--max-harm", type=float, default=None, metavar="SHARE",
                       help="a third condition: B hurts at most SHARE (e.g. 0.1) of the "
                            "cases by more than --harm-delta, shown by the upper end of the "
                            "hurt share's interval (off by default)")
    p.add_argument("--harm-delta", type=float, default=None, metavar="DELTA",
                   help="what counts as hurt: B - A below -DELTA (default: any loss for 0/1 "
                        "outcomes, 0.05 for scores)")
    p.add_argument("--alpha", type=int, choices=(1, 2, 5), default=2,
                   help="TRisk's alpha: a loss weighs 1 + alpha times a gain (default 2)")
