"""Two methods on the same cases, B − A: the checked pair and B − A made once
(``difference``), intervals of the difference, significance tests, the checked bootstrap
entries (``stats``), the self-check (``calibration``),
the decision (``compare``), the clusters and repeated runs of issue 32 (``clusters``,
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
    "difference": ("checked_pair",),
    "compare": ("Decision", "PairedComparison", "TIE_TOL", "compare_checked", "compare_paired",
                "interval_provenance", "rate_estimate", "settle"),
    "intervals": ("DEFAULT_INTERVALS", "log_ratio_interval", "planned_half_width", "resampled",
                  "score_intervals", "tango_limits", "tango_statistic", "wilson_bounds",
                  "z_two_sided"),
    "margin": ("EXACT_MAX_N", "MarginResult", "margin_decision", "margin_rule", "noninferior_p"),
    "method_intervals": ("RateEstimate",),
    "ppi": ("MIN_GOLD", "PPIEstimate", "gold_cases_needed", "ppi_difference", "ppi_mean"),
    "multi": ("CORRECTIONS", "ManyComparison", "compare_many", "disagreements", "estimate_cost",
              "holm", "plan_mode", "score_table"),
    "sequential": ("sequential_compare", "sequential_plan", "sequential_block"),
    "significance": ("mcnemar_exact", "mcnemar_midp", "nct_sf", "paired_test"),
    "stats": ("BootstrapResult", "CONFIDENCE_LEVELS", "INTERVALS", "MAX_RESAMPLES",
              "alpha_of", "check_interval",
              "MIN_RESAMPLES", "Verdict", "interval_warning", "is_binary",
              "kernels", "paired_bootstrap", "paired_data", "percentile_ci", "resample_seeds",
              "resolution", "significance_level", "stream_key", "verdict"),
}
__getattr__, __dir__, __all__ = front_door(__name__, PUBLIC)
