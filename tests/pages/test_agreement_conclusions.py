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


def test_label_files_feed_the_ppi_table_en_and_ko():
    """Gold labels on 15 of the demo's queries, the sources on all 40: the prediction-powered
    table's rows equal ``core.agreement.cheap_pairs`` on the same files (EN, then KO); the
    demo itself (gold on every query) says why there is none."""
    import io

    import pandas as pd

    from core.agreement.cheap_pairs import cheap_pairs
    from core.agreement.files import load_labels
    from core.inputs import read_run
    from core.views import cheap_pair_lines, cheap_pair_rows
    from pages._ui import esc
    at = AppTest.from_file(PAGE, default_timeout=300).run()
    next(c for c in at.checkbox if c.key == "agreement_conclusions").check().run()
    assert not at.exception and not at.error
    demo_note = [c.value for c in at.caption if "No prediction-powered" in c.value]
    assert demo_note and "and 0" in html.unescape(demo_note[0]).replace("\\", "")
    d = pd.read_csv(ROOT / "data" / "demo_labels.csv")
    d.loc[d["query_id"] > "q15", "gold"] = None
    data = d.to_csv(index=False).encode()
    runs = [(f"{n}.run", (ROOT / "data" / "demo_runs" / f"{n}.run").read_bytes())
            for n in ("bm25", "dense", "hybrid")]
    at.file_uploader(key="agreement_labels").set_value(("labels.csv", data, "text/csv"))
    at.file_uploader(key="agreement_runs").set_value([(n, b, "text/plain") for n, b in runs])
    at.run()
    boxes = [c for c in at.checkbox if c.key == "agreement_conclusions"]
    if not boxes[0].value:
        boxes[0].check().run()
    assert not at.exception and not at.error
    labels = load_labels(data, "labels.csv")
    cp = cheap_pairs(labels, [read_run(b, n) for n, b in runs], source=labels.names[0],
                     measure="ndcg@10", resamples=500)
    assert cp.applies
    for lang, col in (("en", "PPI verdict"), ("ko", "PPI 판정")):
        if lang == "ko":
            at.session_state["lang"] = "ko"
            at.run()
            assert not at.exception and not at.error
        table = next(df.value for df in at.dataframe if col in df.value.columns)
        assert table.to_dict("records") == cheap_pair_rows(cp, lang)
        assert esc(cheap_pair_lines(cp, lang)[0]) in [c.value for c in at.caption]
