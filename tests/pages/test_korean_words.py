"""Korean pages say it in Korean (issue 36 item 4): the Korean renders of the golden, systems
and scifact pages show none of the English words that used to leak there — ``test`` (the
BEIR split), ``recall``, ``pool``, ``(paired)`` / ``paired`` — outside statistic eponyms,
file names (``qrels/test.tsv``) and metric names the data carry (``recall@100``)."""
import html
import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests" / "fixtures" / "beir_tiny"

# an English word standing alone in Korean prose; a file name (test.tsv, /test), a metric name
# (recall@100, "t-test"), an identifier (golden_test) or a link's query (design=paired) is not prose
LEAKS = re.compile(r"(?<![\w/.@=-])(test|recall|pool|paired)(?![\w.@/=&-])", re.IGNORECASE)


def shown_texts(at) -> list[str]:
    """Every string the page put on screen: each element's text fields (body, label, help,
    options, captions) and each table's or data frame's labels and cells."""
    out = []

    def strings(value):
        if isinstance(value, str):
            out.append(value)
        elif hasattr(value, "ListFields"):          # a message: its set fields
            for _, v in value.ListFields():
                strings(v)
        elif not isinstance(value, (bytes, int, float)) and hasattr(value, "__iter__"):
            for v in value:                          # a repeated field
                strings(v)

    def chart_titles(spec):
        if isinstance(spec, dict):
            for k, v in spec.items():
                if k in ("title", "text") and isinstance(v, (str, list)):
                    strings(v)
                else:
                    chart_titles(v)
        elif isinstance(spec, list):
            for v in spec:
                chart_titles(v)

    for node in at._tree:
        proto = getattr(node, "proto", None)
        if "chart" in str(getattr(node, "type", "")):   # a chart: its titles, not its spec
            chart_titles(json.loads(proto.spec))
            continue
        if proto is not None and hasattr(proto, "ListFields"):
            strings(proto)
        if type(node).__name__ in ("Dataframe", "Table"):
            frame = node.value
            out.extend(str(x) for x in (*frame.columns, *frame.index,
                                         *frame.astype(str).to_numpy().ravel()))
    return [html.unescape(s) for s in out]


def leaks(at) -> list[str]:
    found = []
    for text in shown_texts(at):
        for m in LEAKS.finditer(text):
            found.append(text[max(0, m.start() - 40):m.end() + 40])
    return found


def test_the_pattern_finds_prose_and_spares_names():
    assert LEAKS.search("BEIR test 분할") and LEAKS.search("대응(paired) 비교")
    assert LEAKS.search("recall 값") and LEAKS.search("풀(pool)")
    for fine in ("qrels/test.tsv", "recall@100", "t-test", "golden_test_case",
                 "sample_size?design=paired&n=31"):
        assert not LEAKS.search(fine), fine


def _korean(page, **state):
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=240)
    at.session_state["lang"] = "ko"
    for k, v in state.items():
        at.session_state[k] = v
    return at.run()


def test_golden_page_in_korean_has_no_english_words():
    at = _korean("golden.py")
    assert not at.exception, at.exception
    assert any("케이스" in s for s in shown_texts(at))   # it did render, in Korean
    assert leaks(at) == []


def test_systems_page_in_korean_has_no_english_words():
    at = _korean("systems.py", systems_resamples=1000)
    assert not at.exception, at.exception
    assert any("질의" in s for s in shown_texts(at))
    assert leaks(at) == []


@pytest.fixture
def beir_folder(tmp_path, monkeypatch):
    import shutil
    dest = tmp_path / "scifact"
    shutil.copytree(TINY, dest)
    monkeypatch.setenv("NOISEFLOOR_BEIR_DIR", str(dest))
    return dest


def test_scifact_page_in_korean_has_no_english_words(beir_folder):
    from core.retrieval import encode_job
    at = AppTest.from_file(str(ROOT / "pages" / "scifact.py"), default_timeout=240).run()
    for key in encode_job.running():   # the encode job the first run started
        encode_job.wait(key, timeout=240)
    # the language last: AppTest keeps widget values formatted in the first run's language
    at.session_state["lang"] = "ko"
    at.run()
    assert not at.exception, at.exception
    assert any("질의" in s for s in shown_texts(at))
    assert leaks(at) == []


def test_no_korean_string_carries_those_words():
    """Every Korean string of core/i18n (placeholders aside), whether a page shows it today or
    not (the sequential mode's range error said "recall")."""
    import json
    found = []
    for path in sorted((ROOT / "core" / "i18n" / "ko").glob("*.json")):
        for key, value in json.loads(path.read_text(encoding="utf-8")).items():
            if isinstance(value, str):
                prose = re.sub(r"\{[a-z_0-9]*\}", " ", value)
                found += [f"{path.stem}.{key}: {m.group(0)}" for m in LEAKS.finditer(prose)]
    assert found == []
