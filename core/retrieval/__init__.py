"""Live retrieval on a BEIR folder: the data (``beir``), BM25 / dense / hybrid
(``search``; ``bert_numpy``: the bundled model's encoder without torch), document vectors
(``vectors``, ``encode_store``, ``encode_job``; ``spot_record``: spot checks passed, kept), files on disk (``safe_files``), the scifact
comparison (``scifact``) and the BEIR Table 2 tally (``beir_grid``, ``beir_table``,
``beir_upload``).

The front door: other wings, pages and the CLI import the names below from ``core.retrieval``
(``core._front``); the modules are the wing's rooms.
Modules used whole from outside: ``encode_job``, ``live`` (the scifact page's dense side, one
call per action)."""
from core._front import front_door

MODULES = ('encode_job', 'live')
PUBLIC = {
    "beir": ("ANY_PATH_ENV", "BEIR_ROOT", "CORPUS", "DEFAULT_DIR", "ENV_VAR", "QRELS_DIR",
             "QUERIES", "REPO_ROOT", "SPLITS", "beir_folders",
             "download_beir", "find_or_download", "is_beir_dir", "load_beir", "resolve_dir",
             "unpack_bundle"),
    "beir_grid": ("DATA", "Grid", "load_grid", "norm_name"),
    "beir_table": ("ALPHA", "DEFAULT_BASELINE", "STANDINGS", "TableTally", "TallyRow",
                   "scifact_ranking", "strongest_rival", "tally"),
    "beir_upload": ("parse_user_column", "tally_user", "user_column_name"),
    "scifact": ("DEFAULT_RESAMPLES", "MEASURES", "PAPER_BM25_NDCG10", "RETRIEVERS",
                "ScifactResult", "check_metric", "check_retriever",
                "ci_by_n", "compare_retrievers", "disagreements", "evaluate",
                "means", "needed", "query_frame", "rank_retrievers", "retriever_estimate", "run_retrievers",
                "run_scifact",
                "run_settings", "side_by_side", "subsample", "with_hybrid"),
    "safe_files": ("FileTooLarge", "NotRegularFile", "read_regular"),
    "search": ("BM25Params", "CACHE_DIR", "TOKENIZERS", "load_model", "resolve_model"),
    "vectors": ("provenance", "vector_summary", "warm_shipped_checks"),
}
__getattr__, __dir__, __all__ = front_door(__name__, PUBLIC)
