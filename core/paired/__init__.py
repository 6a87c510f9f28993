"""Two methods on the same cases, B − A: the checked pair, B − A and its interval made once
(``difference``; the bootstrap draws and their reading, ``resampling``), each method's and the
score intervals (``intervals``), significance tests, the checked bootstrap entries (``stats``),
the self-check (``calibration``), the decision (``compare``), the clusters and repeated runs of issue 32 (``clusters``,
``designs``), the margin rule, several systems (``multi``), the tied-for-best set (``best``), no
harm (``harm``: hurt share, TRisk), gold plus cheap labels (``ppi``, prediction-powered) and the
confidence sequence for a set looked at again and again (``sequential``).

The front door: other wings, pages and the CLI import the names below from ``core.paired``
(``core._front``); the modules are the wing's rooms."""
from core._front import front_door

PUBLIC = {
    "best": ("BEST_METHODS", "BestSet", "best_set"),
    "calibration": ("Calibration",),
    "cluster_check": ("ClusterSelfCheck", "with_self_check"),
    "clusters": ("ClusterComparison", "cluster_margin", "compare_clustered"),
    "designs": ("plan_clusters", "run_summary", "sign_flipping_cases"),
    "harm": ("ALPHAS", "Harm", "TRISK_MIN_N", "no_harm"),
    "difference": ("checked_pair", "paired_data", "tango_limits", "tango_statistic"),
    "compare": ("Decision", "PairedComparison", "TIE_TOL", "compare_checked", "compare_paired",
                "interval_provenance", "rate_estimate", "settle"),
    "intervals": ("DEFAULT_INTERVALS", "INTERVALS", "check_interval", "interval_warning",
                  "log_ratio_interval", "resampled", "score_intervals", "wilson_bounds",
                  "z_two_sided"),
    "margin": ("EXACT_MAX_N", "MarginResult", "margin_decision", "margin_rule", "noninferior_p"),
    "method_intervals": ("RateEstimate",),
    "ppi": ("MIN_GOLD", "PPIEstimate", "gold_cases_needed", "ppi_difference", "ppi_mean"),
    "multi": ("CORRECTIONS", "ManyComparison", "compare_many", "disagreements", "estimate_cost",
              "holm", "plan_mode", "score_table"),
    "sequential": ("sequential_compare", "sequential_plan", "sequential_block"),
    "significance": ("mcnemar_exact", "mcnemar_midp", "nct_sf", "paired_test"),
    "resampling": ("BootstrapResult", "kernels", "percentile_ci"),
    "stats": ("CONFIDENCE_LEVELS", "MAX_RESAMPLES", "MIN_RESAMPLES", "Verdict", "alpha_of",
              "is_binary", "paired_bootstrap", "resolution", "significance_level", "verdict"),
    "streams": ("resample_seeds", "stream_key"),
}
__getattr__, __dir__, __all__ = front_door(__name__, PUBLIC)
