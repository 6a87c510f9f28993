"""core.serialize: the one JSON serializer and the one CSV export."""
import io
import json

import numpy as np
import pandas as pd
import pytest

from core.serialize import (CSV_FORMULA_START, csv_cell, csv_safe, json_safe, print_json,
                            to_csv_bytes, to_json)


def test_json_safe_gives_plain_types_and_null_for_nan():
    obj = {"a": np.int64(3), "b": np.float32(0.5), "c": (1, np.nan), 4: [np.inf, -np.inf],
           "d": {"e": np.bool_(True)}, "s": "한국어"}
    out = json_safe(obj)
    assert out == {"a": 3, "b": 0.5, "c": [1, None], "4": [None, None], "d": {"e": True},
                   "s": "한국어"}
    assert type(out["a"]) is int and type(out["d"]["e"]) is bool


def test_to_json_is_valid_strict_json_and_keeps_korean_readable():
    text = to_json({"name": "검색", "x": np.float64("nan"), "n": np.int32(2)})
    assert "검색" in text and "\\u" not in text
    assert json.loads(text) == {"name": "검색", "x": None, "n": 2}
    assert text == to_json({"name": "검색", "x": float("nan"), "n": 2})  # same input, same text


@pytest.mark.parametrize("start", CSV_FORMULA_START)
def test_csv_cell_neutralises_every_formula_start(start):
    assert csv_cell(start + "1+1") == "'" + start + "1+1"


def test_csv_cell_keeps_numbers_and_plain_text():
    assert csv_cell(-2.5) == -2.5 and csv_cell(np.int64(-3)) == -3 and csv_cell("q-1") == "q-1"


def test_csv_safe_copies_and_covers_headers_index_and_cells():
    df = pd.DataFrame({"=id": ["=cmd()", "ok"], "score": [-1.0, 2.0]},
                      index=pd.Index(["@x", "y"], name="+case"))
    out = csv_safe(df)
    assert list(out.columns) == ["'=id", "score"]
    assert out["'=id"].tolist() == ["'=cmd()", "ok"] and out["score"].tolist() == [-1.0, 2.0]
    assert out.index.tolist() == ["'@x", "y"] and out.index.name == "'+case"
    assert df.columns[0] == "=id" and df.iloc[0, 0] == "=cmd()"  # input untouched
    with pytest.raises(ValueError, match="df"):
        csv_safe([1, 2])


def test_to_csv_bytes_is_utf8_bom_crlf_and_reads_back():
    df = pd.DataFrame({"질의": ["가\n나", "-x"], "v": [0.5, 1.0]})
    data = to_csv_bytes(df)
    assert data.startswith("\ufeff".encode()) and b"\r\n" in data
    back = pd.read_csv(io.BytesIO(data), encoding="utf-8-sig")
    assert back["질의"].tolist() == ["가\n나", "'-x"] and back["v"].tolist() == [0.5, 1.0]
    assert to_csv_bytes(df, index=True).decode("utf-8-sig").splitlines()[0].startswith(",")


def test_print_json_writes_one_json_object(capsys):
    print_json({"a": float("nan"), "b": "한"})
    out = capsys.readouterr().out
    assert out.endswith("\n") and json.loads(out) == {"a": None, "b": "한"}
