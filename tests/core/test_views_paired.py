"""core.views.paired: the self-check sentence and the BCa warning under the card (issue 19),
in both languages, and the CLI lines that carry them."""
import numpy as np
import pytest

from core.i18n import t
from core.paired import compare_paired
from core.views.paired import calibration_sentence, interval_warning_line, paired_view


def _binary():
    a = np.array([1] * 26 + [0] * 5, float)
    b = np.array([1] * 21 + [0] * 5 + [1] * 3 + [0] * 2, float)
    return a, b


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_calibration_sentence_states_the_rate_from_the_comparison(lang):
    c = compare_paired(*_binary())
    cal = c.calibration
    text = calibration_sentence(c, lang)
    # the number printed is the comparison's exact null rejection, the promise 5%
    assert f"{100 * cal.null_rejection:.1f}%" in text and "5%" in text
    assert text.startswith(t("verdicts.calibration", lang,
                             rate=f"{100 * cal.null_rejection:.1f}%", promise="5%"))
    view = paired_view(c, lang=lang, plan=False)
    assert view.card.calibration == text
    assert text in view.cli_lines()


def test_scores_self_check_names_its_sets_and_error():
    rng = np.random.default_rng(1)
    a = rng.random(25)
    b = a + rng.normal(0.02, 0.1, 25)
    c = compare_paired(a, b, resamples=2_000)
    text = calibration_sentence(c, "en")
    assert "1,000 sign-flip null sets" in text and "Monte-Carlo SE" in text
    assert c.bootstrap.interval == "t" and "t-interval" in text


def test_bca_warning_below_50_cases_only():
    rng = np.random.default_rng(2)
    a = rng.random(60)
    b = a + rng.normal(0.0, 0.1, 60)
    small = compare_paired(a[:20], b[:20], interval="bca", resamples=2_000)
    assert interval_warning_line(small, "en") == t("verdicts.bca_small_n", "en", n="20")
    assert paired_view(small, plan=False).card.warning
    assert interval_warning_line(compare_paired(a, b, interval="bca", resamples=2_000)) == ""
    assert interval_warning_line(compare_paired(a[:20], b[:20], resamples=2_000)) == ""


def test_no_self_check_without_the_data():
    class Bare:   # a comparison that carries no checked data (e.g. built by hand)
        data = None
        calibration = None
    assert calibration_sentence(Bare(), "en") == ""
