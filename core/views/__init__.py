"""Presentation helpers shared by pages, the HTML report and the CLI text: colours, number
formats, chart builders and display tables. Computation lives in ``core``; nothing here
computes a statistic.

The front door: pages, app.py and the commands import the names below from ``core.views``
(``core._front``: each room loads on first use, so the CLI's text never loads altair); the
modules are the wing's rooms, imported by name only inside it (and by their tests).
Modules used whole from outside: ``format`` (``fmt``), ``report`` (its chart lock)."""
from core._front import front_door

MODULES = ("format", "report")
PUBLIC = {
    "agreement": ("query_scatter", "text"),
    "beir_table": ("heatmap_chart", "scifact_chart", "story", "tally_card", "tally_chart",
                   "tally_text"),
    "best_set": ("BEST_METHOD_LABELS", "BEST_NOTE_KEYS", "best_card", "best_sentence",
                 "rank_chart", "ranks_display", "renamed"),
    "cards": ("VerdictCard", "agreement_card", "card_html"),
    "charts": ("enlarge", "interval_chart", "pad", "present_rows"),
    "cheap": ("cheap_card", "cheap_lines", "cheap_pair_lines", "cheap_pair_rows",
              "conclusion_lines", "conclusion_rows"),
    "clusters": ("cluster_card", "cluster_lines", "harm_unit_line", "hint_line", "margin_line",
                 "plan_lines", "runs_lines"),
    "format": ("fmt_p", "level", "p_text", "pct", "ratio", "ratio_digits"),
    "golden": ("compare_text", "report_tables"),
    "groups": ("cluster_note", "forest_chart", "group_cli_lines", "group_table",
               "interaction_parts", "interaction_sentence", "intro_params", "judged_cli_lines",
               "judged_table", "verdict_params"),
    "harm": ("gap_cell", "harm_lines"),
    "latency": ("alternative_sentence", "cannot_tell_reason", "caveat_line", "comparison_text",
                "distribution_chart", "p95_ci_text", "p95_withheld_sentence", "ratio_chart",
                "ratios_line", "runs_chart", "speed_headline", "units_sentence",
                "verdict_sentence"),   # the latency card's (core.views.verdicts has its own)
    "multi": ("matrix_chart",),
    "paired": ("paired_view",),
    "palette": ("tone_of",),
    "report": ("Section", "build_report", "to_latex", "to_markdown"),
    "sample_size": ("half_width_chart", "plan_text", "power_chart"),
    "scifact": ("NAMES", "best_line", "ci_by_n_chart", "duration", "folder_label", "result_text",
                "scatter_chart", "split_name", "step_text", "waiting_card"),
    "sequential": ("plan_line", "quality_line", "sequence_chart", "sequential_lines",
                   "sequential_section"),
    "switch": ("decision_card", "decision_sentence", "decision_text", "limit_cell",
               "margin_text", "quality_chart", "ratio_text", "speed_chart"),
    "two_by_two": ("outcome_table",),
    "verdicts": ("degenerate_note", "reason_sentence"),
}
__getattr__, __dir__, __all__ = front_door(__name__, PUBLIC)
