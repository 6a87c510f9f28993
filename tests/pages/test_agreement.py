"""The label-agreement page under AppTest: demo (all four levels), settings, uploads, bad
uploads, Korean."""
import html
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "agreement.py")


def _page(lang=None):
    at = AppTest.from_file(PAGE, default_timeout=120)
    if lang:
        at.session_state["lang"] = lang
    return at.run()


def _metrics(at):
    return {m.label: m.value for m in at.metric}


def _texts(at):
    return "\n".join(html.unescape(e.value)  # the verdict card is escaped HTML
                     for kind in (at.success, at.warning, at.info, at.error, at.caption,
                                  at.markdown) for e in kind)


def test_demo_shows_all_four_levels():
    at = _page()
    assert not at.exception and not at.error
    m = _metrics(at)
    assert m["Cohen's κ (binary)"] == "0.638" and m["Pairwise accuracy"] == "84.4%"
    assert "RBO (φ = 0.9)" in m and "RBO (φ = 0.7)" in m and "Cohen's κ (0/1/2)" in m
    text = _texts(at)
    assert "'llm_basic' agrees with gold with binary κ = 0.638" in text
    assert "The top 3 systems are the same" in text
    assert "have no label and count as not relevant" in text
    sources = next(df.value for df in at.dataframe if "Source" in df.value.columns)
    assert sources["Source"].tolist()[0] == "llm_narrative" and len(sources) == 4
    bottom = next(df.value for df in at.dataframe if "Query (gold)" in df.value.columns)
    assert len(bottom) == 5


def test_settings_change_the_numbers():
    at = _page()
    at.selectbox(key="agreement_source").set_value("keyword_heuristic")
    at.selectbox(key="agreement_weights").set_value("quadratic")
    at.selectbox(key="agreement_metric").set_value("p@10")
    at.number_input(key="agreement_resamples").set_value(2000)
    at.run()
    assert not at.exception and not at.error
    m = _metrics(at)
    assert m["Cohen's κ (binary)"] == "0.495" and "Weighted κ (quadratic)" in m
    assert "keyword_heuristic" in _texts(at)


def test_upload_without_runs_and_korean():
    text = "질의id,문서id,정답,크라우드,llm\n" + "".join(
        f"q{i // 6},d{i},{i % 3},{(i + (i % 5 == 0)) % 3},{i % 2}\n" for i in range(60))
    at = _page()
    at.file_uploader(key="agreement_labels").set_value(
        ("labels.csv", text.encode("cp949"), "text/csv")).run()
    assert not at.exception and not at.error
    assert "Upload at least one run" in _texts(at)
    at.session_state["lang"] = "ko"
    at.run()
    assert not at.exception
    assert "코언의 κ (이진)" in _metrics(at)


def test_two_files_and_runs_upload():
    gold = "".join(f"q{i // 5} 0 d{i} {i % 3}\n" for i in range(40)) + "qx 0 dx 1\n"
    other = "query_id,doc_id,llm\n" + "".join(f"q{i // 5},d{i},{(i + 1) % 3}\n"
                                              for i in range(40))
    runs = [(f"s{k}.csv", ("query_id,doc_id,rank\n" + "".join(
        f"q{i // 5},d{i},{(i * (k + 1)) % 5 + 1}\n" for i in range(40))).encode(), "text/csv")
        for k in range(3)]
    at = _page()
    at.file_uploader(key="agreement_labels").set_value(("gold.qrels", gold.encode(),
                                                        "text/plain"))
    at.file_uploader(key="agreement_other").set_value(("other.csv", other.encode(), "text/csv"))
    at.file_uploader(key="agreement_runs").set_value(runs)
    at.run()
    assert not at.exception and not at.error
    text = _texts(at)
    assert "1 only in the gold file" in text
    assert "RBO (φ = 0.7)" in _metrics(at)


@pytest.mark.parametrize("payload,needle", [
    (b"query_id,doc_id,gold,llm\nq1,d1,1,0\nq1,d2,7,1\n", "row 3"),
    (b"", "labels.csv"),
    (b"query_id,doc_id,gold\nq1,d1,1\n", "no other label column"),
])
def test_bad_upload_shows_an_error(payload, needle):
    at = _page()
    at.file_uploader(key="agreement_labels").set_value(("labels.csv", payload, "text/csv"))
    at.run()
    assert not at.exception
    assert len(at.error) == 1 and needle in at.error[0].value


def test_card_first_then_how_to_read_then_uploads():
    from tests.pages.headline import assert_headline_first
    at = _page()
    assert not at.exception
    assert_headline_first(at)
    ko = _page("ko")
    guide = next(e for e in ko.expander).markdown[0].value
    assert "**카파 κ**는" in guide and "**κ(카파)**" not in guide  # closes as bold


def test_presentation_shows_the_card_and_the_sources_chart_only():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["view"] = "present"
    at.run()
    assert not at.exception
    assert len(at.get("vega_lite_chart")) == 1 and not at.expander and not at.dataframe
    assert any("verdict-card" in m.value for m in at.markdown) and not at.metric


def test_link_keeps_baseline_and_splits():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params.update({"splits": "300", "seed": "4", "confidence": "90"})
    at.run()
    assert not at.exception
    assert at.number_input(key="agreement_splits").value == 300
    assert at.query_params["splits"] == "300" and at.query_params["seed"] == "4"
    assert at.query_params["baseline"] == at.selectbox(key="agreement_baseline").value
