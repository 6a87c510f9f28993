"""The margin δ a person typed (``--margin``, a URL, the pages' margin input), read on the
difference's scale once the data's kind (0/1 or scores) is known; ``core.paired.margin``
decides with the number."""
from __future__ import annotations

import math

from core.errors import InputError
from core.inputs.tables import parse_number

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
