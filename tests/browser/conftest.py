"""The browser fixtures (``server``, ``browser``, ``page``) live in ``helpers.py``."""
from tests.browser.helpers import browser, page, server  # noqa: F401
