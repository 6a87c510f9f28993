"""What people upload, read into per-case values: tables (CSV/TSV/XLSX cells, numbers as
people type them), golden-case files, retrieval lists, TREC runs and qrels, the metric
registry, query groups, clusters and repeated runs, the order cases arrived in, judged pools, the margin as typed.

The front door: other wings, pages and the CLI import the names below from ``core.inputs``
(``core._front``); the modules are the wing's rooms."""
from core._front import front_door

PUBLIC = {
    "arrival": ("load_arriving", "sequential_golden"),
    "cheap": ("CheapComparison", "compare_cheap"),
    "clusters": ("Clustered", "cluster_hint", "clusters_of", "has_cluster_column",
                 "read_cluster_labels", "runs_block"),
    "golden": ("GoldenSet", "load_golden"),
    "groups": ("GroupComparison", "read_group_labels"),
    "judged": ("JudgedBounds", "beir_bounds"),
    "lists": ("LIST_METRICS", "lists_side_by_side", "load_lists", "metric_key", "parse_metric",
              "score_lists"),
    "margin_text": ("margin_answer", "parse_margin"),
    "metrics": ("Measure", "parse_measure", "per_query"),
    "systems": ("GoldenComparison", "compare_golden", "compare_summary", "compare_systems", "golden_systems", "load_clustered",
                "read_lists_systems",
                "read_trec_systems", "trec_systems"),
    "tables": ("AmbiguousNumber", "decode_text", "find_column", "norm_header", "parse_number",
               "parse_numbers", "read_cells", "read_table"),
    "text": ("nfc", "visible_controls"),
    "trec": ("COMMON_MEASURES", "Run", "gunzip", "read_qrels", "read_run", "run_name",
             "score_runs", "trec_side_by_side", "unique_names"),
}
__getattr__, __dir__, __all__ = front_door(__name__, PUBLIC)
