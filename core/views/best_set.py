"""The tied-for-best set (``core.paired.best``) as people read it: one sentence ("Best: hybrid
or dense — cannot tell which; BM25 is behind both"), the headline card of the systems page
and the report, the rank-interval chart, and the CLI's lines. altair is imported only by
``rank_chart`` (the CLI's text needs none)."""
from __future__ import annotations

import dataclasses

from core.i18n import t
from core.paired import BestSet
from core.views.cards import VerdictCard
from core.views.format import level as fmt_level
from core.views.palette import DARK, HIGHLIGHT, MUTED


JOIN_KEYS = {"or": "systems.best_join_or", "and": "systems.best_join_and"}
# (systems in the set, one or several behind) -> the sentence's key
SENTENCE_KEYS = {(1, False): "systems.best_one_behind1", (1, True): "systems.best_one_behind2",
                 (2, False): "systems.best_two_behind1", (2, True): "systems.best_two_behind2",
                 (3, False): "systems.best_many_behind1",
                 (3, True): "systems.best_many_behind2"}
# how the set was read (core.paired.best.BEST_METHODS) -> the card's reason
REASON_KEYS = {"mcb": "systems.best_reason_mcb", "all-pairs": "systems.best_reason"}
# ... the systems page's choice between them
BEST_METHOD_LABELS = {"mcb": "systems.best_method_mcb",
                      "all-pairs": "systems.best_method_all_pairs"}
# ... the note under its heading
BEST_NOTE_KEYS = {"mcb": "systems.best_note", "all-pairs": "systems.best_note_all_pairs"}
# ... with clusters as the unit (issue 32: CR2 standard errors, Bonferroni t, no resampling)
CLUSTER_REASON_KEYS = {"mcb": "clusters.best_reason_mcb", "all-pairs": "clusters.best_reason"}
# ... and the CLI's words for it
METHOD_WORDS = {"mcb": "one-sided multiple comparisons with the best (Hsu), studentized "
                       "bootstrap",
                "all-pairs": "simultaneous bootstrap rank intervals of all pairs"}


def renamed(bs: BestSet, names: dict | None) -> BestSet:
    """``bs`` with its systems shown under display ``names`` (``{name: display}``; names
    not in it stay as they are): the same numbers, for the sentences, charts and tables."""
    if not names:
        return bs
    n = lambda x: str(names.get(x, x))  # noqa: E731 - one lookup, used four times
    ranks = tuple(dataclasses.replace(r, name=n(r.name), behind_of=tuple(map(n, r.behind_of)))
                  for r in bs.ranks)
    pairs = tuple(dataclasses.replace(q, a=n(q.a), b=n(q.b)) for q in bs.pairs)
    return dataclasses.replace(bs, systems=tuple(map(n, bs.systems)), ranks=ranks, pairs=pairs)


def join_names(names, lang: str, word: str) -> str:
    """``a``, ``a or b``, ``a, b or c`` (``word`` = "or" / "and", translated)."""
    names = list(names)
    if len(names) < 2:
        return "".join(names)
    last = t(JOIN_KEYS[word], lang)
    return ", ".join(names[:-1]) + last + names[-1]


def rank_text(low: int, high: int) -> str:
    """A rank interval as written: ``3`` or ``1–2``."""
    return str(low) if low == high else f"{low}–{high}"


def best_sentence(bs: BestSet, lang: str = "en") -> str:
    """The set in one plain sentence: who is best (or that we cannot tell which of them) and
    who is behind: "behind it / both / all of them" when every system outside the set is shown
    behind every one in it, else whom each trails ("bm25 is behind hybrid")."""
    best, behind = bs.best, bs.behind
    b = join_names(best, lang, "or")
    if not behind:
        return t("systems.best_all", lang, best=join_names(best, lang, "and"))
    if all(set(best) <= set(r.behind_of) for r in bs.ranks if not r.in_best):
        w = join_names(behind, lang, "and")
        key = SENTENCE_KEYS[(min(len(best), 3), len(behind) > 1)]  # "is" / "are" behind
        return t(key, lang, best=b, behind=w)
    # some system outside the set is not shown behind every one in it: say whom it trails
    details = "; ".join(t("systems.best_behind_who", lang, name=r.name,
                          who=join_names(r.behind_of, lang, "and"))
                        for r in bs.ranks if not r.in_best)
    key = "systems.best_one_detail" if len(best) == 1 else "systems.best_tie_detail"
    return t(key, lang, best=b, details=details)


def _ranks_line(bs: BestSet, lang: str = "en") -> str:
    """``Rank intervals: hybrid 1–2 · dense 1–2 · bm25 3`` (highest mean first)."""
    parts = " · ".join(f"{r.name} {rank_text(r.rank_low, r.rank_high)}" for r in bs.ranks)
    return t("systems.best_ranks", lang, ranks=parts)


def best_card(bs: BestSet, lang: str = "en") -> VerdictCard:
    """The headline card: the set as the big value, the rank intervals under it, the
    sentence, and how the set was found. Green when one system is ahead of all others,
    amber when the best cannot be told apart."""
    level = fmt_level(bs.confidence)
    tone = "better" if len(bs.best) == 1 and bs.behind else "neutral"
    return VerdictCard(
        tone=tone, label=t("systems.best_label", lang, level=level, k=len(bs.systems)),
        value=join_names(bs.best, lang, "or"), interval=_ranks_line(bs, lang),
        sentence=best_sentence(bs, lang),
        reason=(t(REASON_KEYS[bs.method], lang, level=level, n=f"{bs.n:,}",
                  resamples=f"{bs.resamples:,}") if bs.n_clusters is None else
                t(CLUSTER_REASON_KEYS[bs.method], lang, level=level, n=f"{bs.n:,}",
                  clusters=bs.n_clusters)))


def ranks_display(bs: BestSet, lang: str = "en"):
    """The rank table as shown: system, mean, observed rank, rank interval, tied for best."""
    import pandas as pd

    yes, no = t("systems.best_yes", lang), t("systems.best_no", lang)
    return pd.DataFrame({
        t("systems.best_col_system", lang): [r.name for r in bs.ranks],
        t("systems.best_col_mean", lang): [f"{r.mean:.3f}" for r in bs.ranks],
        t("systems.best_col_rank", lang): [r.rank for r in bs.ranks],
        t("systems.best_col_interval", lang, level=fmt_level(bs.confidence)):
            [rank_text(r.rank_low, r.rank_high) for r in bs.ranks],
        t("systems.best_col_in", lang): [yes if r.in_best else no for r in bs.ranks]})


def rank_chart(bs: BestSet, *, title: str = "", axis: str = "rank", best: str = "tied for best",
               behind: str = "behind"):
    """One row per system (highest mean on top): its rank interval as a bar from rank_low to
    rank_high, its observed rank as a dot; tied-for-best systems in the highlight colour."""
    import altair as alt
    import pandas as pd

    from core.views.charts import wrap_title  # lazy: charts loads pandas (the CLI's compare path)

    k = len(bs.systems)
    df = pd.DataFrame([{"system": r.name, "low": r.rank_low - 0.35, "high": r.rank_high + 0.35,
                        "rank": r.rank, "interval": rank_text(r.rank_low, r.rank_high),
                        "group": best if r.in_best else behind} for r in bs.ranks])
    order = [r.name for r in bs.ranks]
    y = alt.Y("system:N", sort=order, title=None)
    scale = alt.Scale(domain=[0.5, k + 0.5], nice=False)
    colour = alt.Color("group:N", title=None,
                       scale=alt.Scale(domain=[best, behind], range=[HIGHLIGHT, MUTED]),
                       legend=alt.Legend(orient="bottom"))
    bars = alt.Chart(df).mark_bar(height=18, cornerRadius=3).encode(
        x=alt.X("low:Q", scale=scale, title=axis,
                axis=alt.Axis(values=list(range(1, k + 1)), format="d")),
        x2="high:Q", y=y, color=colour,
        tooltip=["system:N", "interval:N", "rank:Q"])
    dots = alt.Chart(df).mark_point(filled=True, size=90, color=DARK).encode(
        x=alt.X("rank:Q", scale=scale), y=y)
    return alt.layer(bars, dots).properties(title=wrap_title(title), height=alt.Step(40))


def best_lines(bs: BestSet) -> list[str]:
    """The CLI's lines (English): the sentence, then one line per system."""
    level = fmt_level(bs.confidence)
    lines = [f"Tied for best ({level}, all {len(bs.systems)} systems at once; "
             f"{METHOD_WORDS[bs.method]}, {bs.n} cases, {bs.resamples:,} resamples; rank "
             f"intervals from all pairs):" if bs.n_clusters is None else
             t(CLUSTER_REASON_KEYS[bs.method], "en", level=level, n=f"{bs.n:,}",
               clusters=bs.n_clusters),
             f"  {best_sentence(bs, 'en')}"]
    if bs.excluded:
        lines.append(f"  left out (some system has no value there): {len(bs.excluded)} of "
                     f"{len(bs.excluded) + bs.n} cases")
    for r in bs.ranks:
        mark = "*" if r.in_best else " "
        lines.append(f" {mark} {r.name}: mean {r.mean:.4f}  rank {r.rank}  "
                     f"rank interval {rank_text(r.rank_low, r.rank_high)}")
    return lines
