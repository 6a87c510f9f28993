"""The agreement page's conclusion agreement (issue 34 item 3): off by default (the page and its
report unchanged), and when ticked with the demo's runs, a table whose rows are
``core.agreement.conclusions``' pairs and whose counts line adds up, in EN and KO."""
import html
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "agreement.py")


def test_conclusions_table_when_asked_en_and_ko():
    at = AppTest.from_file(PAGE, default_timeout=300).run()
    assert not at.exception
    assert not any("same verdict" in html.unescape(m.value) for m in at.markdown)
    boxes = [c for c in at.checkbox if c.key == "agreement_conclusions"]
    assert boxes, "the demo's runs (two or more) offer the comparison"
    boxes[0].check().run()
    assert not at.exception and not at.error
    frames = [df.value for df in at.dataframe]
    table = next(f for f in frames if "Agreement" in f.columns)
    n = len(table)
    heads = [html.unescape(m.value) for m in at.markdown if "same verdict" in m.value]
    assert heads and f"of {n} pairs of systems" in heads[0].replace("\\", "")
    agree = int(heads[0].replace("\\", "").split("same verdict for ")[1].split(" of")[0])
    assert agree == int((table["Agreement"] == "agree").sum())
    at.session_state["lang"] = "ko"
    at.run()
    frames = [df.value for df in at.dataframe]
    assert any("일치 여부" in f.columns for f in frames)
