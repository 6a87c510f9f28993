"""The margin δ a person typed (``--margin``, a URL, the pages' margin input), read on the
difference's scale once the data's kind (0/1 or scores) is known; ``core.paired.margin``
decides with the number; ``margin_answer`` is the one call the pages and the CLI make for the
margin's answer."""
from __future__ import annotations

import math

from core.errors import InputError
from core.inputs.tables import parse_number
from core.paired import MarginResult, PairedComparison, margin_decision

PLAIN_RATE_MAX = 0.2   # a plain --margin for a rate must be a share below this (see parse_margin)
PP_SUFFIXES = ("%p", "pp", "%")


def parse_margin(text, *, binary: bool) -> float:
    """The margin a person typed (``--margin``, a URL), on the difference's scale.

    Rates (0/1 outcomes): ``2pp``, ``2%p`` or ``2%`` are percentage points (0.02); a plain
    number is a share and must be below ``PLAIN_RATE_MAX`` (0.2): ``0.02`` is 2 %p. A plain
    ``2`` or ``0.5`` could mean 2 %p / 0.5 %p or a share and is refused
    (``InputError("margin.err_ambiguous")``) rather than guessed. Scores: a plain number on
    the score's own scale (``0.02`` nDCG); a %p suffix is refused (``margin.err_pp_score``).
    Decimal commas are read as everywhere (``core.inputs.tables.parse_number``). Only the
    digits 0-9 are read: Python's ``float`` would also take ``1_0`` (10), full-width
    ``０.０２`` and Arabic-Indic digits, silently; they are refused (``margin.err_digits``)."""
    raw = str(text).strip()
    low = raw.lower().replace(" ", "")
    suffix = next((s for s in PP_SUFFIXES if low.endswith(s)), None)
    body = low[: -len(suffix)] if suffix else low
    if not body.isascii() or "_" in body:
        raise InputError("margin.err_digits", value=raw[:40])
    try:
        value = parse_number(body)
    except ValueError:
        raise InputError("margin.err_not_number", value=raw[:40]) from None
    if not math.isfinite(value) or value < 0:
        raise InputError("margin.err_not_number", value=raw[:40])
    if suffix and not binary:
        raise InputError("margin.err_pp_score", value=raw[:40])
    if suffix:
        if value >= 100:
            raise InputError("margin.err_too_large", value=raw[:40])
        return value / 100
    if binary and value >= PLAIN_RATE_MAX:
        raise InputError("margin.err_ambiguous", value=raw[:40],
                         limit=f"{PLAIN_RATE_MAX:g}")
    return value


def margin_answer(comparison: PairedComparison, margin) -> MarginResult | None:
    """The margin's answer for ``comparison`` (the one paired result: golden, lists, TREC,
    scifact): ``core.paired.margin.margin_decision`` with ``margin`` read for the data's kind.
    ``margin`` is None (no margin asked: None), the text a person typed (``--margin``, a URL:
    read by ``parse_margin`` once the outcomes are known to be 0/1 or scores) or a number
    already on the difference's scale (a page's margin input, 0.02 = 2 %p). The pages and the
    CLI commands call this one function (issue 31: the page and ``commands`` used to decide
    it each)."""
    if margin is None:
        return None
    if isinstance(margin, str):
        margin = parse_margin(margin, binary=comparison.data.binary)
    return margin_decision(comparison, margin)
