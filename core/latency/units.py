"""Are both methods' timings in the same unit? The scale check and the stated units.

A log whose B column is in seconds while A's is in milliseconds makes B look 1,000x faster;
seconds pasted into a millisecond column make two clumps 1,000x apart. Neither is a speed
difference, so the comparison refuses a verdict until the user states the units:

* **medians**: the pooled medians of A and B differ by more than ``MEDIAN_RATIO_LIMIT``
  (50x) either way;
* **two scales**: a method's sorted log10 timings have a gap of at least
  ``TWO_SCALE_GAP`` (a factor of 10 between neighbouring values) whose two sides' geometric
  means are between ``TWO_SCALE_RANGE`` apart (10^2.3 to 10^3.7: about 1,000x, the step
  between ns, us, ms and s), each side holding at least ``TWO_SCALE_MIN`` timings (a lone
  timeout is an outlier, not a unit).

``parse_units`` reads the CLI's ``--units`` (``a=ms,b=s``, ``bm25=ms,dense=s`` or one unit
for every method); ``UNIT_TO_MS`` converts. A method whose unit is stated is taken as the user
says: its timings are converted to ms and its scale problems no longer block the verdict.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.errors import InputError

UNIT_TO_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "μs": 1e-3, "ms": 1.0, "s": 1e3}
UNIT_CHOICES = ("ns", "µs", "ms", "s")   # as a page offers them
MEDIAN_RATIO_LIMIT = 50.0
TWO_SCALE_GAP = 1.0                       # log10: neighbours 10x apart
TWO_SCALE_RANGE = (2.3, 3.7)              # log10 of the two clumps' geometric-mean ratio
TWO_SCALE_MIN = 2                         # timings in the smaller clump (one is an outlier)


def unit_factor(unit: str) -> float:
    """ms per ``unit`` (``UNIT_TO_MS``); an unknown unit raises ``InputError`` listing them."""
    key = str(unit).strip()
    key = key if key in UNIT_TO_MS else key.lower()
    if key not in UNIT_TO_MS:
        raise InputError("latency.err_bad_unit", value=str(unit)[:20],
                         units=", ".join(UNIT_CHOICES))
    return UNIT_TO_MS[key]


def parse_units(text: str, methods, *, a: str, b: str) -> dict[str, str]:
    """``--units`` as {method: unit}. ``METHOD=UNIT`` pairs separated by commas, where METHOD
    is a method of the log or ``a`` / ``b`` (the methods compared, when no method has that
    name); a lone ``UNIT`` applies to every method."""
    methods = tuple(methods)
    out: dict[str, str] = {}
    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    if not parts:
        raise InputError("latency.err_bad_units", value=str(text)[:40])
    if len(parts) == 1 and "=" not in parts[0]:
        unit_factor(parts[0])
        return {m: parts[0] for m in methods}
    for part in parts:
        name, sep, unit = part.rpartition("=")
        name, unit = name.strip(), unit.strip()
        if not sep or not name:
            raise InputError("latency.err_bad_units", value=part[:40])
        if name not in methods:
            roles = {"a": a, "b": b}
            if name.lower() not in roles:
                raise InputError("unknown_method", method=name, methods=", ".join(methods))
            name = roles[name.lower()]
        unit_factor(unit)
        out[name] = unit
    return out


@dataclass(frozen=True)
class ScaleProblem:
    """One unit suspicion: ``kind`` ``medians`` (A's and B's medians ``ratio`` apart) or
    ``two_scales`` (one column's timings in two clumps ``ratio`` apart: ``n_low`` timings near
    ``low`` ms and ``n_high`` near ``high`` ms). ``methods`` are the methods whose stated unit
    settles it; ``column`` names the column(s)."""

    kind: str
    methods: tuple[str, ...]
    column: str
    ratio: float
    low: float
    high: float
    n_low: int
    n_high: int

    def to_dict(self) -> dict:
        return {"kind": self.kind, "methods": list(self.methods), "column": self.column,
                "ratio": self.ratio, "low": self.low, "high": self.high, "n_low": self.n_low,
                "n_high": self.n_high}


def two_scales(values) -> tuple[float, float, float, int, int] | None:
    """The widest gap of the sorted log10 values, if it splits them into two clumps about
    1,000x apart (see the module docstring): (ratio of geometric means, low geometric mean,
    high geometric mean, n low, n high), else None."""
    x = np.sort(np.log10(np.asarray(values, dtype=float)))
    if x.size < 2:
        return None
    gaps = np.diff(x)
    i = int(np.argmax(gaps))
    if gaps[i] < TWO_SCALE_GAP or min(i + 1, x.size - i - 1) < TWO_SCALE_MIN:
        return None
    lo, hi = x[:i + 1].mean(), x[i + 1:].mean()
    if not TWO_SCALE_RANGE[0] <= hi - lo <= TWO_SCALE_RANGE[1]:
        return None
    return 10 ** (hi - lo), 10 ** lo, 10 ** hi, i + 1, x.size - i - 1


def scale_problems(values: dict, columns: dict, a: str, b: str) -> tuple[ScaleProblem, ...]:
    """The scale check on each method's timings in ms (``values[m]``), ``columns[m]`` naming
    the column they came from."""
    out = []
    med = {m: float(np.median(values[m])) for m in (a, b)}
    ratio = max(med[a], med[b]) / min(med[a], med[b])
    if ratio > MEDIAN_RATIO_LIMIT:
        low, high = (a, b) if med[a] < med[b] else (b, a)
        out.append(ScaleProblem("medians", (a, b), f"{columns[a]}, {columns[b]}", ratio,
                                med[low], med[high], len(values[low]), len(values[high])))
    for m in (a, b):
        found = two_scales(values[m])
        if found is not None:
            r, lo, hi, n_lo, n_hi = found
            out.append(ScaleProblem("two_scales", (m,), columns[m], r, lo, hi, n_lo, n_hi))
    return tuple(out)


def blocking(problems, stated) -> tuple[ScaleProblem, ...]:
    """The problems the stated units (a set of methods) do not settle."""
    stated = set(stated)
    return tuple(p for p in problems if not set(p.methods) <= stated)
