"""``python -m core sample-size``: how many golden cases for a narrow interval or a detectable
difference (the same ``core.planning.sample_size`` functions as the Sample size page)."""
from __future__ import annotations

from core.serialize import print_json
from core.i18n import t
from core.errors import InputError
from core.paired import gold_cases_needed, plan_clusters
from core.planning import (n_calibrated_ci, n_continuous_ci, n_continuous_power, n_mcnemar,
                           n_noninferiority_continuous, n_noninferiority_paired, n_normal,
                           n_paired_ci, n_wilson, normal_width_factor)
from core.views import plan_text

NAME = "sample-size"
HELP = "how many golden cases make an interval narrow enough or a difference detectable"
DEFAULT_RATE, DEFAULT_HALF_WIDTH = 0.8, 0.05


def register(p) -> None:
    p.add_argument("--rate", type=float,
                   help=f"expected rate of one method, in (0, 1) (default {DEFAULT_RATE} "
                        "when no other design is asked for)")
    p.add_argument("--half-width", type=float, default=DEFAULT_HALF_WIDTH,
                   help=f"target CI half-width as a share, 0.02 = +/-2 %%p "
                        f"(default {DEFAULT_HALF_WIDTH})")
    p.add_argument("--confidence", type=float, default=0.95,
                   help="confidence level of the intervals (default 0.95)")
    p.add_argument("--discordance", type=float,
                   help="paired binary: share of cases where A and B disagree")
    p.add_argument("--diff", type=float,
                   help="difference B - A to plan for (paired binary with --discordance, "
                        "continuous with --sigma)")
    p.add_argument("--power", type=float, default=0.8, help="test power 1-beta (default 0.8)")
    p.add_argument("--alpha", type=float, default=0.05, help="test level (default 0.05)")
    p.add_argument("--sigma", type=float,
                   help="continuous scores: SD of the per-case differences B - A")
    p.add_argument("--margin", type=float,
                   help="non-inferiority: the cases needed to show B is not worse than A by "
                        "more than this margin (a share for 0/1 outcomes, 0.02 = 2 %%p; score "
                        "units with --sigma), with --power, one-sided at alpha/2 (the lower "
                        "bound of the two-sided interval); --diff is then the true B - A "
                        "assumed (default 0)")
    p.add_argument("--sequential", action="store_true",
                   help="with --diff > 0 and --discordance or --sigma: also the cases a "
                        "sequential verdict (compare --sequential, valid at every look) "
                        "needs, by simulation: expected, median and the n reaching --power")
    p.add_argument("--cheap", type=int, metavar="N",
                   help="cheap-labelled cases without gold labels (crowd, heuristic, LLM "
                        "judge): each n also as the gold cases needed beside them (PPI++, "
                        "needs --correlation)")
    p.add_argument("--correlation", type=float, metavar="RHO",
                   help="with --cheap: the gold–cheap correlation of what is planned: a "
                        "method's per-case scores, or for B − A the per-case differences "
                        "(PPI++ tunes on them; with cheap-label errors independent between "
                        "the systems it is below each method's)")
    p.add_argument("--icc", type=float,
                   help="clusters: the intraclass correlation of cases from one document "
                        "(with --cluster-size; JSON 'clusters' of `compare` measures it)")
    p.add_argument("--cluster-size", type=int,
                   help="clusters: questions written per document")
    p.add_argument("--runs", type=int, default=1,
                   help="repeated runs per case (default 1; with --run-share)")
    p.add_argument("--run-share", type=float, default=0.0,
                   help="repeated runs: the run-to-run share of one run's variance "
                        "(JSON 'runs.within_share' of `compare`; default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def plan(args) -> dict:
    """The inputs echoed and every n that applies to them (keys as documented in HELP)."""
    rate, sigma, disc, diff = args.rate, args.sigma, args.discordance, args.diff
    if diff is not None and disc is None and sigma is None:
        raise InputError("sample_size.err_diff_alone")
    if rate is None and disc is None and sigma is None:
        rate = DEFAULT_RATE
    e, conf, alpha, power = args.half_width, args.confidence, args.alpha, args.power
    out: dict = {"inputs": {"rate": rate, "half_width": e, "confidence": conf,
                            "discordance": disc, "diff": diff, "power": power, "alpha": alpha,
                            "sigma": sigma, "margin": args.margin}}
    if args.margin is not None and disc is None and sigma is None:
        raise InputError("sample_size.err_margin_alone")
    if rate is not None:
        out["n_wilson"] = n_wilson(rate, e, conf)
        out["n_normal"] = n_normal(rate, e, conf)
    if disc is not None:
        d_diff = 0.0 if diff is None else diff
        out["n_paired_ci"] = n_paired_ci(disc, d_diff, e, conf)
        if d_diff != 0:
            out["n_paired_power"] = n_mcnemar(disc, d_diff, alpha=alpha, power=power)
        if args.margin is not None:
            out["n_paired_noninferiority"] = n_noninferiority_paired(
                disc, d_diff, args.margin, alpha=alpha, power=power)
    if sigma is not None:
        out["n_continuous_ci"] = n_continuous_ci(sigma, e, conf)
        out["n_continuous_calibrated_ci"] = n_calibrated_ci(sigma, e, normal_width_factor(conf))
        if diff is not None and diff != 0:
            out["n_continuous_power"] = n_continuous_power(diff, sigma, alpha=alpha,
                                                           power=power)
        if args.margin is not None:
            out["n_continuous_noninferiority"] = n_noninferiority_continuous(
                0.0 if diff is None else diff, sigma, args.margin, alpha=alpha, power=power)
    if getattr(args, "sequential", False):
        out["sequential"] = _sequential_plan(args, disc, sigma, diff, conf, power)
    if args.cheap is not None or args.correlation is not None:
        if args.cheap is None or args.correlation is None:
            raise ValueError("--cheap and --correlation go together: the number of "
                             "cheap-labelled cases and their correlation with gold")
        out["inputs"].update(cheap=args.cheap, correlation=args.correlation)
        out["cheap"] = {"n_cheap": args.cheap, "correlation": args.correlation,
                        "gold_needed": {k: gold_cases_needed(v, args.cheap, args.correlation)
                                        for k, v in out.items() if k.startswith("n_")}}
    return out


def _sequential_plan(args, disc, sigma, diff, conf, power) -> dict:
    """The sequential verdict's cases beside the fixed-n ones (``core.paired.sequential_plan``:
    simulated, 1,000 sets up to 3,000 cases)."""
    if diff is None or diff <= 0 or (disc is None and sigma is None):
        raise InputError("sequential.err_plan_needs")
    from core.paired import sequential_plan   # lazy: only with --sequential
    kw = {"discordance": disc} if disc is not None else {"sigma": sigma}
    return sequential_plan(diff, confidence=conf, power=power, **kw).to_dict()


def design(args, result: dict) -> dict | None:
    """Each n of ``result`` as clusters and runs (``core.paired.clusters.plan_clusters``) when
    --icc/--cluster-size or --runs/--run-share are given; else None (the output unchanged)."""
    clustered = args.icc is not None or args.cluster_size is not None
    if not clustered and args.runs == 1 and args.run_share == 0:
        return None
    if clustered and (args.icc is None or args.cluster_size is None):
        raise InputError("clusters.err_plan_both")
    icc, size = (args.icc, args.cluster_size) if clustered else (0.0, 1)
    plans = {k: plan_clusters(v, icc=icc, cluster_size=size, runs=args.runs,
                              run_share=args.run_share).to_dict()
             for k, v in result.items() if k.startswith("n_") and isinstance(v, int)}
    return {"icc": icc, "cluster_size": size, "runs": args.runs, "run_share": args.run_share,
            "plans": plans}


def run(args) -> int:
    result = plan(args)
    block = design(args, result)
    if block is not None:
        result["clusters"] = block
    if args.json:
        print_json(result)
        return 0
    print(plan_text(result))
    if "sequential" in result:
        from core.views import plan_line  # lazy: only with --sequential
        print(plan_line(result["sequential"]))
    if "cheap" in result:
        c = result["cheap"]
        for key, n in c["gold_needed"].items():
            print("  " + t("cheap.plan_line", "en", key=key, n_cheap=f"{c['n_cheap']:,}",
                           rho=f"{c['correlation']:g}", n=f"{n:,}", n0=f"{result[key]:,}"))
    if block is not None:
        from core.views import plan_lines  # lazy: only with a clustered design
        print("\n".join(plan_lines(block)))
    return 0
