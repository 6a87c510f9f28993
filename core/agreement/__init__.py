"""Cheaper labels against gold labels, four levels: label files (``files``), label
agreement (``labels``), system orderings (``orderings``, ``rank_similarity``), resampled
sources (``sources``), all together in ``levels``.

The front door: other wings, pages and the CLI import the names below from ``core.agreement``
(``core._front``); the modules are the wing's rooms."""
from core._front import front_door

PUBLIC = {
    "files": ("load_label_files", "load_labels", "load_runs"),
    "levels": ("DEFAULT_RESAMPLES", "DEFAULT_SPLITS", "METRICS", "QUERY_P", "SYSTEM_P", "WEIGHTS",
               "analyse", "disagreements", "kappa_band"),
}
__getattr__, __dir__, __all__ = front_door(__name__, PUBLIC)
