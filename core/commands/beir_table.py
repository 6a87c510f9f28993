"""``python -m core beir-table``: BEIR Table 2 counted against a baseline column."""
from __future__ import annotations

from core.commands._common import read_bytes
from core.serialize import print_json
from core.retrieval import (DEFAULT_BASELINE, load_grid, parse_user_column, tally, tally_user,
                            user_column_name)
from core.views import tally_text

NAME = "beir-table"
HELP = ("BEIR Table 2 (nDCG@10, arXiv:2104.08663v4): wins, losses, ties, mean relative "
        "difference and sign test of every column against a baseline")


def register(p) -> None:
    p.add_argument("--baseline", default=DEFAULT_BASELINE,
                   help=f"baseline column (default {DEFAULT_BASELINE}; case-insensitive)")
    p.add_argument("--add", metavar="FILE",
                   help="your own column: a CSV/TSV/XLSX with dataset, ndcg@10 for any subset "
                        "of the datasets; it is tallied against the baseline and against "
                        "every model on the datasets it covers")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args) -> int:
    grid = load_grid()
    added = None
    if args.add:
        column = parse_user_column(read_bytes(args.add), grid, file=args.add)
        name = user_column_name(args.add, grid)
        added = (name, column, tally_user(grid, column, name))
        # the added column gets a row; "who is first" stays on the paper's complete columns
        result = tally(grid.with_column(name, column.values), args.baseline,
                       rank_columns=grid.models)
    else:
        result = tally(grid, args.baseline)
    if args.json:
        out = result.to_dict()
        out["source"] = {"citation": grid.citation, "url": grid.url, "metric": grid.metric}
        if added:
            name, column, own = added
            out["added"] = {"name": name, "file": column.file,
                            "n_datasets": column.n_datasets, "of": len(grid.datasets),
                            "datasets": list(column.values), **own.to_dict()}
        print_json(out)
        return 0
    print(tally_text(result, grid))
    if added:
        name, column, own = added
        print()
        print(f"{name}: {column.n_datasets} of {len(grid.datasets)} datasets "
              f"({', '.join(column.values)})")
        print(tally_text(own, grid))
    return 0
