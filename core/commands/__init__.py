"""CLI commands, one module each (see ``core/__main__.py``); shared helpers in ``_common``."""
