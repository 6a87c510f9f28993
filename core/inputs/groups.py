"""Query groups: B − A within each group of cases (query type, language, length bucket),
corrected across groups, and a test of whether the effect differs between groups.

Where the labels come from (one name rule, ``GROUP_NAMES``):

- golden-case files and retrieval-list files: a column named ``group`` (also
  ``query_group``, ``그룹``, ``질의그룹``, ``질문그룹``; matched as headers are,
  ``core.inputs.tables.find_column``). That column is never read as a method or a text column.
- TREC runs: a side file ``qid,group`` (CSV/TSV/XLSX; ``read_group_file``).

A group label is any text up to ``MAX_GROUP_CHARS`` characters; a blank cell, a longer label,
more than ``MAX_GROUPS`` distinct labels, or one case given two labels is an ``InputError``
naming the file, row and column.

Per group g with n_g >= 2 paired cases (``compare_by_group``):

- B − A and its interval from ``core.paired.compare.compare_paired`` (the page's own machinery:
  Tango for 0/1, t for scores by default) at the Bonferroni level 1 − alpha/m, m = number
  of groups compared (Dunn 1961, "Multiple comparisons among means", JASA 56:52-64), so the
  m intervals hold together at 1 − alpha;
- its test's p (mid-p McNemar / sign flip) adjusted across the m groups by Holm (1979;
  ``core.paired.multi.holm``), which controls the family-wise error rate at alpha;
- the verdict is the one rule (``core.paired.stats.verdict``): the corrected interval and the
  Holm-adjusted p must agree;
- "cannot tell" when no difference is shown and the group has fewer cases than the planner
  (``core.planning.sample_size.cases_needed`` at the corrected level, 80 % power) says a true
  difference of the size seen needs (or no number of cases would do: B − A is 0).

Whether the effect differs between groups (``interaction_test``): with d_i = b_i − a_i per
case, the one-way statistic F = [sum_g n_g (mean_g d − mean d)^2 / (G − 1)] /
[sum_g sum_i (d_i − mean_g d)^2 / (N − G)] (``scipy.stats.f_oneway`` on the d's), with a
permutation p: group labels are shuffled across cases, which is exact for the
group x method interaction when cases are the blocks (Anderson & ter Braak 2003,
"Permutation tests for multi-factorial analysis of variance", J. Statist. Comput. Simul.
73:85-113); p = (1 + #{F* >= F}) / (1 + R) (Phipson & Smyth 2010). The between-group sum of
squares orders permutations as F does (the total is fixed), so it is what is compared.

Cost before work: R permutations cost R x (N + G) (one weighted bincount of the N cases into
the G groups per permutation). Up to ``PERM_WORK`` the R asked for all run (the p does not
depend on anything else). Above it the test is sized to what the answer needs, two rules on
the same seeded stream (so the p is exactly that of the first R' permutations of the full run):

- sequential stop (Besag & Clifford 1991, "Sequential Monte Carlo p-values", Biometrika
  78:301-304, stop a Monte-Carlo test once its side of alpha is settled): permutations run in
  blocks of ``PERM_BLOCK`` and stop after the first block whose exceedance rate's Wilson
  interval at ``PERM_SURE`` lies wholly above or below alpha (the same rule as the sign-flip
  test, ``core.paired.significance``);
- work limit: at most R_max = max(``PERM_MIN``, ``PERM_WORK`` / (N + G)) permutations, in
  whole batches of ``_BATCH``, whatever the p (``PERM_MIN`` = 256 keeps p = 1/257 < 0.01
  reachable on the largest inputs).

``InteractionTest.permutations`` is the R' used, ``requested`` the R asked for, ``stopped``
why it ended (``all`` | ``settled`` | ``work_limit``); its smallest possible p is 1 / (1 + R').
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from core import checks
from core.errors import InputError
from core.inputs.golden_cases import CASE_ID_NAMES, side_file_ids
from core.inputs.tables import RawTable, find_column, norm_header, read_cells
from core.paired import (alpha_of, check_interval, checked_pair, compare_checked, verdict,
                         wilson_bounds, z_two_sided)

GROUP_NAMES = ("group", "query_group", "그룹", "질의그룹", "질문그룹")
MAX_GROUPS = 20
MAX_GROUP_CHARS = 60
STATUSES = ("b_better", "a_better", "no_difference", "cannot_tell", "too_few")
DEFAULT_PERMUTATIONS = 10_000
_BATCH = 256  # permutations drawn per step (fixed: results never depend on it)
# cost before work (see the module docstring): R x (N + G) up to PERM_WORK runs as asked; above
# it, blocks of PERM_BLOCK (whole batches) stop once a PERM_SURE Wilson interval settles alpha
PERM_WORK = 20_000_000
PERM_BLOCK = 4 * _BATCH
PERM_MIN = _BATCH
PERM_SURE = 0.999
STOPS = ("all", "settled", "work_limit")


# ----------------------------------------------------------------------------- reading
def group_column(columns) -> str | None:
    """The column holding group labels (``GROUP_NAMES``, matched as headers are), or None."""
    return find_column(columns, GROUP_NAMES)


def is_group_column(name) -> bool:
    """True for a header that names the group column (never a method or text)."""
    return norm_header(name) in {norm_header(n) for n in GROUP_NAMES}


def group_labels(ids, cells, rows, file: str, col: str) -> dict[str, str]:
    """The group of each case id (first-seen order) from a group column's ``cells``, with
    the case ``ids`` and spreadsheet ``rows`` of the same rows; no pandas.

    ``InputError`` naming file, row and column for a blank label (``groups.err_blank``), a
    label longer than ``MAX_GROUP_CHARS`` (``groups.err_too_long``), one case id given two
    labels on different rows (``groups.err_conflict``) and more than ``MAX_GROUPS`` labels
    (``groups.err_too_many``)."""
    blank = [int(r) for r, c in zip(rows, cells) if c == ""]
    if blank:
        raise InputError("groups.err_blank", file=file, row=blank[0], column=col,
                         count=len(blank))
    long = [(int(r), c) for r, c in zip(rows, cells) if len(c) > MAX_GROUP_CHARS]
    if long:
        raise InputError("groups.err_too_long", file=file, row=long[0][0], column=col,
                         value=long[0][1][:MAX_GROUP_CHARS] + "…",
                         limit=MAX_GROUP_CHARS)
    seen: dict[str, tuple[str, int]] = {}
    for row, cid, g in zip(rows, ids, cells):
        if cid in seen and seen[cid][0] != g:
            raise InputError("groups.err_conflict", file=file, row=int(row), column=col,
                             case=cid, first=seen[cid][0], second=g, first_row=seen[cid][1])
        seen.setdefault(cid, (g, int(row)))
    labels = list(dict.fromkeys(g for g, _ in seen.values()))
    if len(labels) > MAX_GROUPS:
        raise InputError("groups.err_too_many", file=file, column=col, count=len(labels),
                         limit=MAX_GROUPS, examples=", ".join(labels[:5]))
    return {cid: g for cid, (g, _) in seen.items()}


def read_group_cells(frame, id_col: str, col: str, file: str):
    """The group of each case id from ``frame[col]`` (a ``core.inputs.tables.RawTable`` frame: index =
    spreadsheet row, string cells): a Series indexed by case id (first-seen order); the
    errors of ``group_labels``."""
    import pandas as pd

    labels = group_labels(frame[id_col].tolist(), frame[col].tolist(), frame.index.tolist(),
                          file, col)
    return pd.Series(labels, name="group", dtype=object)


def groups_from_table(raw: RawTable, id_col: str):
    """(labels by case id as a pandas Series, the column's name) when ``raw`` has a group
    column, else (None, None); see ``group_labels``."""
    col = group_column(raw.frame.columns)
    if col is None:
        return None, None
    return read_group_cells(raw.frame, id_col, col, raw.file), col


def read_group_labels(data: bytes, file: str = "groups.csv") -> dict[str, str]:
    """A side file of query groups for TREC runs: columns ``qid`` (any case-id name of
    ``core.inputs.golden_cases.CASE_ID_NAMES``) and ``group`` (``GROUP_NAMES``), CSV/TSV/XLSX. Returns the
    labels by query id (a dict, first-seen order; no pandas); ``InputError`` naming
    file/row/column (see ``group_labels``)."""
    table = read_cells(data, file, required=(CASE_ID_NAMES, GROUP_NAMES))
    id_col = find_column(table.names, CASE_ID_NAMES)
    if id_col is None:
        raise InputError("no_case_id", file=file, columns=", ".join(table.names[:10]))
    col = group_column(table.names)
    if col is None:
        raise InputError("groups.err_no_column", file=file,
                         columns=", ".join(table.names[:10]),
                         names=", ".join(GROUP_NAMES))
    ids = side_file_ids(table, id_col, file)
    return group_labels(ids, table.column(col), table.rows, file, col)


def read_group_file(data: bytes, file: str = "groups.csv"):
    """``read_group_labels`` as a pandas Series indexed by query id (name ``group``)."""
    import pandas as pd

    return pd.Series(read_group_labels(data, file), name="group", dtype=object)


# ----------------------------------------------------------------------------- the test
@dataclass(frozen=True)
class InteractionTest:
    """Does B − A differ between groups? ``f``: the one-way F of the per-case differences on
    the groups (None when undefined: no spread within groups); ``p``: its permutation p over
    the ``permutations`` drawn (of ``requested``; ``stopped`` in ``STOPS`` says why)."""

    f: float | None
    p: float
    groups: int
    n: int
    permutations: int
    seed: int
    method: str = "permutation F of the per-case B − A on the groups (Anderson & ter Braak 2003)"
    requested: int | None = None
    stopped: str = "all"

    def to_dict(self) -> dict:
        return {"f": self.f, "p": self.p, "groups": self.groups, "n": self.n,
                "permutations": self.permutations,
                "permutations_requested": (self.permutations if self.requested is None
                                           else self.requested),
                "stopped": self.stopped, "seed": self.seed, "method": self.method}


def _between_ss(d: np.ndarray, codes: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """sum_g n_g mean_g(d)^2 for each row of ``codes`` (rows = labelings); the between-group
    sum of squares minus a constant (N mean(d)^2), so it orders labelings as F does."""
    rows = codes.shape[0]
    g = counts.size
    flat = (codes + g * np.arange(rows)[:, None]).ravel()  # one bin per (labelling, group)
    sums = np.bincount(flat, weights=np.tile(d, rows), minlength=rows * g).reshape(rows, g)
    return (sums ** 2 / counts).sum(axis=1)


def permutation_budget(cases: int, groups: int, permutations: int) -> int:
    """The most permutations the test draws for ``cases`` in ``groups`` when
    ``permutations`` are asked: all of them while permutations x (cases + groups) <=
    ``PERM_WORK``, else ``PERM_WORK`` / (cases + groups) rounded down to whole batches, at
    least ``PERM_MIN`` (never more than asked)."""
    per = checks.whole("cases", cases, lo=0) + checks.whole("groups", groups, lo=0)
    return _budget(per, checks.resamples(permutations))


def _budget(per: int, permutations: int) -> int:
    """``permutation_budget`` of checked numbers (``per`` = cases + groups)."""
    if permutations * per <= PERM_WORK:
        return permutations
    cap = max(PERM_MIN, (PERM_WORK // max(per, 1)) // _BATCH * _BATCH)
    return min(permutations, cap)


def interaction_test(differences, labels, *, permutations: int = DEFAULT_PERMUTATIONS,
                     seed: int = 0, alpha: float | None = None) -> InteractionTest | None:
    """Permutation test that mean(B − A) is the same in every group (see the module
    docstring); None with fewer than two groups or no more cases than groups. Above
    ``PERM_WORK`` the permutations are bounded by ``permutation_budget`` and, when ``alpha``
    (the verdict's level) is given, stop once the p's side of alpha is settled."""
    d = checks.values("differences", differences)
    lab = np.asarray(labels, dtype=object)
    checks.same_length(differences=d, labels=lab)
    permutations = checks.resamples(permutations)
    seed = checks.seed(seed)
    if alpha is not None:
        alpha = checks.share("alpha", alpha)
    return _interaction(d, lab, permutations, seed, alpha)


def _interaction(d: np.ndarray, lab: np.ndarray, permutations: int, seed: int,
                 alpha: float | None) -> InteractionTest | None:
    """``interaction_test`` of checked arguments (``compare_by_group`` checked them)."""
    uniq, codes = np.unique(lab.astype(str), return_inverse=True)
    g, n = uniq.size, d.size
    if g < 2 or n <= g:
        return None
    counts = np.bincount(codes, minlength=g).astype(float)
    observed = _between_ss(d, codes[None, :], counts)[0]
    means = np.bincount(codes, weights=d, minlength=g) / counts
    within = float(np.sum((d - means[codes]) ** 2))
    between = float(np.sum(counts * (means - d.mean()) ** 2))
    f = (between / (g - 1)) / (within / (n - g)) if within > 0 else None
    budget = _budget(n + g, permutations)
    sequential = alpha is not None and permutations * (n + g) > PERM_WORK
    if sequential:
        z = z_two_sided(PERM_SURE)
    rng = np.random.default_rng(seed)
    tol = 1e-12 * max(abs(observed), 1.0)
    hits, done, stopped = 0, 0, "all" if budget == permutations else "work_limit"
    while done < budget:
        m = min(_BATCH, budget - done)
        perm = rng.permuted(np.tile(codes, (m, 1)), axis=1)
        hits += int(np.sum(_between_ss(d, perm, counts) >= observed - tol))
        done += m
        if sequential and done % PERM_BLOCK == 0 and done < budget:
            lo, hi, _ = wilson_bounds(hits, done, z)
            if lo > alpha or hi < alpha:
                stopped = "settled"
                break
    return InteractionTest(None if f is None else float(f), (1 + hits) / (1 + done),
                           int(g), int(n), done, seed, requested=permutations, stopped=stopped)


# ----------------------------------------------------------------------------- per group
@dataclass(frozen=True)
class GroupResult:
    """One group: B − A with its interval at the corrected level, the test's p raw and
    Holm-adjusted, the verdict, the planner's cases needed and the ``status`` shown
    (one of ``STATUSES``: a verdict, ``cannot_tell`` or ``too_few`` (< 2 cases)).
    ``skew_guard`` / ``reaches_zero``: as ``BootstrapResult``'s (scores; issue 36)."""

    group: str
    n: int
    mean_a: float | None
    mean_b: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    p: float | None
    p_holm: float | None
    verdict: str | None
    status: str
    n_needed: int | None
    interval: str | None
    n_clusters: int | None = None   # clusters as the unit (issue 32): this group's clusters
    skew_guard: bool = False
    reaches_zero: bool = False

    def to_dict(self) -> dict:
        out = {"group": self.group, "n": self.n, "mean_a": self.mean_a,
               "mean_b": self.mean_b, "b_minus_a": self.diff, "ci_low": self.ci_low,
               "ci_high": self.ci_high, "p": self.p, "p_holm": self.p_holm,
               "verdict": self.verdict, "status": self.status, "n_needed": self.n_needed,
               "interval": self.interval}
        if self.n_clusters is not None:
            out["n_clusters"] = self.n_clusters
        out.update({"interval_skew_guard": self.skew_guard} if self.interval == "calibrated_t" else {},
                   **({"interval_reaches_zero": True} if self.reaches_zero else {}))
        return out


@dataclass(frozen=True)
class GroupComparison:
    """B − A per group of one A vs B comparison, with the correction and the interaction
    test. ``ungrouped``: paired cases without a label (left out here)."""

    a: str
    b: str
    groups: tuple[GroupResult, ...]
    confidence: float
    corrected_confidence: float
    interaction: InteractionTest | None
    ungrouped: tuple[str, ...] = ()
    binary: bool = False
    column: str | None = None
    unmatched: tuple[str, ...] = ()   # labelled ids (a side file's) that are not compared cases
    # clusters as the unit (issue 32): None without clusters; else "nested" (the interaction
    # test permutes whole clusters) or "crossed" (a cluster spans groups: no interaction test)
    clusters: str | None = None

    @property
    def compared(self) -> int:
        """m: the groups with at least two cases (those corrected for)."""
        return sum(1 for g in self.groups if g.status != "too_few")

    def table(self):
        import pandas as pd

        return pd.DataFrame([g.to_dict() for g in self.groups])

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "column": self.column,
                "confidence": self.confidence,
                "corrected_confidence": self.corrected_confidence,
                "correction": {"tests": "holm", "intervals": "bonferroni",
                               "groups_compared": self.compared},
                "interaction": None if self.interaction is None else self.interaction.to_dict(),
                "ungrouped": list(self.ungrouped), "unmatched": list(self.unmatched),
                **({} if self.clusters is None else {"unit": "clusters",
                                                     "clusters": self.clusters}),
                "groups": [g.to_dict() for g in self.groups]}


def compare_by_group(case_ids, a_values, b_values, groups, *, name_a: str = "A",
                     name_b: str = "B", resamples: int = 20_000, confidence: float = 0.95,
                     seed: int = 0, interval: str = "auto",
                     permutations: int = DEFAULT_PERMUTATIONS,
                     column: str | None = None, clusters=None) -> GroupComparison:
    """B − A in each group of the paired cases ``case_ids`` (A's and B's values aligned with
    them), ``groups`` mapping a case id to its label (a dict or a Series); see the module
    docstring for the intervals, the correction, "cannot tell" and the interaction test.

    ``clusters`` (a dict case id -> cluster, issue 32): the cluster is the unit in every
    group. Each group's B − A, interval (at the corrected level) and test are those of
    ``core.paired.clusters.compare_clustered`` on the group's cases (calibrated CR2, the
    whole-cluster sign flip); a group with fewer than 2 clusters is ``too_few``; the cases
    needed are the planner's times the group's design effect (Kish 1965). The interaction
    test permutes the group labels of whole clusters when every cluster lies in one group
    (``interaction_test_clustered``); when a cluster spans groups there is none
    (``GroupComparison.clusters`` = "crossed": the card says so)."""
    # lazy: multi and the planner load pandas; reading a group column (core.inputs.golden)
    # stays on the CLI's pandas-free path
    from core.paired import holm
    from core.planning import cases_needed_of

    ids = [str(c) for c in case_ids]
    a = checks.values("a_values", a_values)
    b = checks.values("b_values", b_values)
    checks.same_length(case_ids=ids, a_values=a, b_values=b)
    resamples, confidence, seed = checks.bootstrap_iv(resamples, confidence, seed)
    interval = check_interval(interval)   # checked once: the groups' comparisons trust it
    permutations = checks.resamples(permutations)
    label_of = dict(groups.items()) if hasattr(groups, "items") else None
    if label_of is None:
        raise ValueError("groups must map case ids to labels (a dict or a pandas Series)")
    labels = [label_of.get(c) for c in ids]
    keep = np.array([g is not None and not (isinstance(g, float) and np.isnan(g))
                     for g in labels])
    ungrouped = tuple(c for c, k in zip(ids, keep) if not k)
    lab = np.array([str(g) for g, k in zip(labels, keep) if k], dtype=object)
    a, b = a[keep], b[keep]
    cl = None
    if clusters is not None:   # every grouped case needs its cluster (issue 32)
        kept = [c for c, k in zip(ids, keep) if k]
        missing = [c for c in kept if c not in clusters]
        if missing:
            raise ValueError(f"clusters has no cluster for {len(missing)} grouped cases "
                             f"(e.g. {missing[0]!r})")
        cl = np.array([str(clusters[c]) for c in kept], dtype=object)
    order = list(dict.fromkeys(lab.tolist()))
    binary = bool(np.all(np.isin(a, (0.0, 1.0))) and np.all(np.isin(b, (0.0, 1.0))))

    def enough(sel) -> bool:
        return (np.sum(sel) >= 2 if cl is None
                else np.sum(sel) >= 2 and len(set(cl[sel].tolist())) >= 2)

    m = sum(1 for g in order if enough(lab == g))
    alpha = alpha_of(confidence)
    corrected = round(1 - alpha / max(m, 1), 12)
    raw = []
    for g in order:
        sel = lab == g
        ag, bg = a[sel], b[sel]
        if not enough(sel):
            raw.append((g, ag, bg, None, None))
            continue
        need = cases_needed_of(ag, bg, confidence=corrected).n_needed
        if cl is None:
            comp = compare_checked(checked_pair(ag, bg), name_a=name_a, name_b=name_b,
                                   resamples=resamples, confidence=corrected, seed=seed,
                                   interval=interval, self_check=False)
        else:
            from core.paired import compare_clustered  # lazy: only with clusters
            comp = compare_clustered(ag, bg, cl[sel].tolist(), confidence=corrected,
                                     resamples=resamples, seed=seed)
            if need is not None:   # the planner's independent cases times the design effect
                need = int(np.ceil(need * comp.summary.design_effect - 1e-9))
        raw.append((g, ag, bg, comp, need))
    p_raw = [r[3].test.p for r in raw if r[3] is not None]
    p_adj = iter(holm(p_raw)) if p_raw else iter(())
    results = []
    for g, ag, bg, comp, n_needed in raw:
        n_cl = None if cl is None else len(set(cl[lab == g].tolist()))
        if comp is None:
            results.append(GroupResult(g, int(ag.size), float(ag.mean()), float(bg.mean()),
                                       float((bg - ag).mean()), None, None, None, None, None,
                                       "too_few", None, None, n_cl))
            continue
        ph = float(next(p_adj))
        bs = comp.bootstrap if cl is None else comp.difference
        v = verdict(bs.ci_low, bs.ci_high, ph, alpha=alpha)
        status = v if v != "no_difference" else (
            "cannot_tell" if n_needed is None or ag.size < n_needed else "no_difference")
        results.append(GroupResult(g, int(ag.size), float(ag.mean()), float(bg.mean()),
                                   float(bs.mean), float(bs.ci_low), float(bs.ci_high),
                                   float(comp.test.p), ph, v, status, n_needed, bs.interval,
                                   n_cl, cl is None and bs.skew_guard,
                                   cl is None and bs.reaches_zero))
    how = None
    if cl is None:
        test = _interaction(b - a, lab, permutations, seed, alpha) if len(lab) else None
    else:
        test = interaction_test_clustered(b - a, lab, cl, permutations=permutations,
                                          seed=seed)
        how = "crossed" if test is None and nested_groups(lab, cl) is None else "nested"
    return GroupComparison(name_a, name_b, tuple(results), confidence, corrected, test,
                           ungrouped, binary, column, clusters=how)


def nested_groups(labels, clusters) -> dict | None:
    """{cluster: its group} when every cluster lies within one group, else None."""
    of: dict = {}
    for g, c in zip(labels, clusters):
        if of.setdefault(c, g) != g:
            return None
    return of


def interaction_test_clustered(differences, labels, clusters, *,
                               permutations: int = DEFAULT_PERMUTATIONS,
                               seed: int = 0) -> InteractionTest | None:
    """The interaction test with whole clusters as the unit (issue 32): the same F of the
    per-case differences on the groups, with its permutation p from shuffling the group
    labels of whole clusters (clusters exchangeable under "no interaction", as cases are in
    ``interaction_test``; Anderson & ter Braak 2003 with the cluster as the block). Group
    sizes in cases then vary from one permutation to the next, so each permutation's
    between-group sum of squares sum_g S_g^2 / n_g is computed with its own n_g (the total is
    fixed, so it still orders permutations as F does). None when a cluster spans two groups
    (no exchangeable unit), with fewer than two groups, or no more clusters than groups."""
    d = checks.values("differences", differences)
    lab = np.asarray(labels, dtype=object).astype(str)
    cl = np.asarray(clusters, dtype=object).astype(str)
    checks.same_length(differences=d, labels=lab, clusters=cl)
    permutations = checks.resamples(permutations)
    seed = checks.seed(seed)
    of = nested_groups(lab.tolist(), cl.tolist())
    uniq, codes = np.unique(lab, return_inverse=True)
    g, n = uniq.size, d.size
    if of is None or g < 2:
        return None
    names, ccode = np.unique(cl, return_inverse=True)
    if names.size <= g:
        return None
    csum = np.bincount(ccode, weights=d, minlength=names.size)
    csize = np.bincount(ccode, minlength=names.size).astype(float)
    cgroup = np.searchsorted(uniq, np.array([of[x] for x in names], dtype=object).astype(str))

    def between(rows: np.ndarray) -> np.ndarray:
        r = rows.shape[0]
        flat = (rows + g * np.arange(r)[:, None]).ravel()
        sums = np.bincount(flat, weights=np.tile(csum, r), minlength=r * g).reshape(r, g)
        cnt = np.bincount(flat, weights=np.tile(csize, r), minlength=r * g).reshape(r, g)
        return (sums ** 2 / np.where(cnt > 0, cnt, 1.0)).sum(axis=1)

    observed = between(cgroup[None, :])[0]
    means = np.bincount(codes, weights=d, minlength=g) / np.bincount(codes, minlength=g)
    within = float(np.sum((d - means[codes]) ** 2))
    between_ss = float(np.sum(np.bincount(codes, minlength=g) * (means - d.mean()) ** 2))
    f = (between_ss / (g - 1)) / (within / (n - g)) if within > 0 and n > g else None
    rng = np.random.default_rng(seed)
    tol = 1e-12 * max(abs(observed), 1.0)
    hits = done = 0
    while done < permutations:
        m = min(_BATCH, permutations - done)
        perm = rng.permuted(np.tile(cgroup, (m, 1)), axis=1)
        hits += int(np.sum(between(perm) >= observed - tol))
        done += m
    return InteractionTest(None if f is None else float(f), (1 + hits) / (1 + done), int(g),
                           int(n), done, seed,
                           method="permutation F of the per-case B − A on the groups, whole "
                                  "clusters permuted (Anderson & ter Braak 2003)",
                           requested=permutations)


def by_group(result, groups=None, column: str | None = None, clusters=None,
             **stat) -> GroupComparison | None:
    """``compare_by_group`` on the paired cases of a ``core.inputs.systems.GoldenComparison``, with
    ``groups`` (default: its golden set's, e.g. a ``group`` column) and the statistics
    settings ``stat`` (resamples, confidence, seed, interval, permutations); None when there
    are no groups; ``clusters`` (a dict case id -> cluster, issue 32) makes the cluster the
    unit in every group (``compare_by_group``). A side file (``groups`` given, ``column`` its name) whose ids match none of
    the compared cases is refused (InputError ``groups_none_matched``); the ids it has beyond
    them are kept in ``unmatched`` and shown."""
    if groups is None:
        groups, column = result.golden.group_labels, result.golden.group_column
        side_file = result.golden.group_file
    else:
        side_file = True
    if groups is None:
        return None
    c = result.comparison
    ids = {str(i) for i in result.case_ids}
    # a side file's ids that are not compared cases are named (the file's own column only
    # labels its own rows; cases missing from a method are listed by the golden reader)
    unmatched = tuple(str(k) for k in groups.keys() if str(k) not in ids) if side_file else ()
    if side_file and len(unmatched) == len(groups):   # it names none of the compared queries
        raise InputError("groups_none_matched", file=column, count=len(groups),
                         ids=", ".join(unmatched[:5]),
                         cases=", ".join(sorted(ids)[:5]))
    gc = compare_by_group(result.case_ids, result.a_values, result.b_values, groups,
                          name_a=c.a, name_b=c.b, column=column, clusters=clusters, **stat)
    return replace(gc, unmatched=unmatched) if unmatched else gc
