"""``python -m core compare FILE``: two methods on a golden set, paired by case id."""
from __future__ import annotations

from core.commands._common import add_stat_args, print_json, read_bytes
from core.golden import compare_golden, load_golden
from core.verdicts import comparison_text

NAME = "compare"
HELP = "compare two methods on a golden-case file (CSV/TSV/XLSX)"


def register(p) -> None:
    p.add_argument("file", help="golden-case results: wide (case_id, A, B, ...) or long "
                                "(case_id, method, score)")
    p.add_argument("--a", help="method A (default: first method in the file)")
    p.add_argument("--b", help="method B (default: second method in the file)")
    add_stat_args(p)


def run(args) -> int:
    gs = load_golden(read_bytes(args.file), file=args.file)
    result = compare_golden(gs, args.a, args.b, resamples=args.resamples,
                            confidence=args.confidence, seed=args.seed)
    if args.json:
        print_json(result.to_dict())
    else:
        print(comparison_text(result))
    return 0
