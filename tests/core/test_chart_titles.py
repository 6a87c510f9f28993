"""Chart titles wrap by display width (core.views.charts.wrap_lines / wrap_title): a Korean
syllable is as wide as two Latin letters, so Korean titles wrap within their chart too."""
from core.i18n import LANGS, catalog
from core.views.charts import TITLE_CHARS, display_width, wrap_lines, wrap_title


def test_display_width_counts_wide_characters_twice():
    assert display_width("abc") == 3
    assert display_width("지연 시간") == 9  # 4 syllables × 2 + a space
    assert display_width("ＡＢ") == 4      # full-width Latin


def test_lines_stay_within_the_width_and_keep_every_word():
    text = "질의별 비율 hybrid/bm25 (정렬됨, 로그 축): 1 아래면 hybrid가 더 빠릅니다"
    lines = wrap_lines(text, 30)
    assert all(display_width(x) <= 30 for x in lines) and len(lines) > 1
    assert " ".join(lines) == text
    assert wrap_lines("a" * 60, 20) == ["a" * 60]  # one long word keeps its own line


def test_every_chart_title_template_fits_when_wrapped():
    """Every chart title in both languages, wrapped, has no line wider than TITLE_CHARS
    columns unless a single word is (so no title runs past a half-width chart)."""
    for lang in LANGS:
        for key, text in catalog(lang).items():
            if not (key.split(".")[1].startswith("chart") or "chart_title" in key
                    or key.endswith("_chart")):
                continue
            title = wrap_title(text)
            lines = title.text if isinstance(title.text, list) else [title.text]
            for line in lines:
                assert display_width(line) <= TITLE_CHARS or " " not in line, (lang, key, line)


def test_korean_titles_wrap_sooner_than_english():
    ko = "케이스가 늘면 차이를 찾아낼 확률 (A vs B, 맞음/틀림)"
    assert len(wrap_lines(ko)) == 2 and len(wrap_lines("x" * 40 + " y")) == 1
