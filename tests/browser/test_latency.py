"""The latency page in headless Chromium: the demo renders in English and Korean without
error boxes, the verdict and fairness warnings show, and the warm-up button re-runs the
comparison with the first runs left out."""
from core.i18n import t
from tests.browser.helpers import _page_problems, _settle, _shot, _through_app_py, _url


def test_latency_demo_warmup_button_and_korean(server, page):
    page.goto(_url(server, "latency"))
    _settle(page)
    _through_app_py(page)
    problems = _page_problems(page, "latency", "en")
    assert not problems, "\n".join(problems)
    main = page.locator('[data-testid="stMain"]')
    assert "faster than" in main.inner_text()
    assert main.get_by_text("Warm-up in bm25", exact=False).count() >= 1
    _shot(page, "latency_demo_en.png")
    page.get_by_role("button", name=t("latency.apply_warmup", "en", count=2)).click()
    _settle(page)
    assert main.get_by_text("Keeping every run instead", exact=False).count() == 1
    page.goto(_url(server, "latency", "?lang=ko"))
    _settle(page)
    problems = _page_problems(page, "latency", "ko")
    assert not problems, "\n".join(problems)
    text = page.locator('[data-testid="stMain"]').inner_text()
    # the card reads B against A: "hybrid은(는) bm25 시간의 1.46배가 걸립니다: hybrid이(가) 더 느립니다."
    assert "bm25 시간의" in text and "배가 걸립니다" in text and "더 느립니다" in text
