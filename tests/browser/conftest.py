"""The browser fixtures (``server``, ``browser``, ``page``) live in ``helpers.py``."""
from tests.browser.helpers import app_servers, browser, page, server  # noqa: F401
