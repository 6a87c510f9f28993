"""The one JSON serializer of the CLI and the pages: plain JSON types, NaN -> null, Korean kept
readable. Kept apart from the HTML report (``core.views.report``) so the CLI never imports a
chart library to print JSON."""
from __future__ import annotations

import json
import math

import numpy as np


def json_safe(value):
    """Plain JSON types: numpy scalars unwrapped, tuples as lists, NaN/inf -> null."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def to_json(obj) -> str:
    """Pretty UTF-8 JSON (Korean kept readable) of ``json_safe(obj)``; the CLI's and the
    pages' one serializer."""
    return json.dumps(json_safe(obj), ensure_ascii=False, indent=2, allow_nan=False)
