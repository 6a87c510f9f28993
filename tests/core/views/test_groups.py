"""core.views.groups: the per-group and Judged@k tables in both languages, the interaction
sentence, the forest chart and the CLI lines read the numbers core computed."""
import pandas as pd

from core.inputs.groups import compare_by_group
from core.inputs.judged import judged_bounds
from core.inputs.metrics import per_query
from core.views.groups import (forest_chart, group_cli_lines, group_table,
                               interaction_sentence, judged_cli_lines, judged_table,
                               verdict_params)

from tests.core.inputs.test_groups import _data
from tests.core.inputs.test_judged import QRELS, RANKS


def _gc():
    ids, a, b, g = _data()
    return compare_by_group(ids, a, b, g, name_a="bm25", name_b="dense", resamples=500,
                            permutations=200)


def test_group_table_in_both_languages():
    gc = _gc()
    en, ko = group_table(gc, "en"), group_table(gc, "ko")
    assert list(en["group"]) == ["ko", "en", "mixed"] and list(ko["그룹"]) == list(en["group"])
    assert en["verdict"].iloc[0] == "dense better" and ko["판정"].iloc[0] == "dense가 더 좋음"
    assert en["dense − bm25"].iloc[0] == f"{gc.groups[0].diff:+.3f}"
    assert "95% CI (corrected)" in en.columns
    # cases needed only where no difference was shown
    assert en["cases needed"].iloc[0] == ""
    assert all(en["cases needed"].iloc[i] != "" for i in (1, 2))


def test_interaction_sentence_and_cli_lines():
    gc = _gc()
    s = interaction_sentence(gc, "en")
    assert f"{gc.interaction.f:.2f}" in s and "yes" in s
    assert "순열" in interaction_sentence(gc, "ko")
    lines = group_cli_lines(gc)
    assert "Bonferroni over 3 groups" in lines[0] and lines[1].startswith("  ko (n=30)")


def test_forest_chart_has_one_row_per_compared_group():
    spec = forest_chart(_gc(), title="t", x_title="dense − bm25").to_dict()
    rows = next(iter(spec["datasets"].values()))
    names = [r.get("group") for d in spec["datasets"].values() for r in d if "group" in r]
    assert names == ["ko (n=30)", "en (n=20)", "mixed (n=10)"] and rows


def test_judged_table_and_verdicts():
    def score(q):
        return pd.DataFrame({m: per_query(RANKS[m], q, ["p@2"])["p@2"] for m in RANKS})

    jb = judged_bounds(RANKS, QRELS, score, a="A", b="B", metric="p@2", k=2, resamples=200)
    en = judged_table(jb, "en")
    assert list(en.columns) == ["method", "Judged@2", "p@2, unjudged = non-relevant",
                                "p@2, unjudged = relevant"]
    assert en.iloc[1].tolist() == ["B", "25.0%", "0.250", "1.000"]
    assert "미판정" in judged_table(jb, "ko").columns[2]
    p = verdict_params(jb, "en")
    assert p["low"] == "no clear difference" and p["a"] == "A"
    assert any("Judged@2" in line for line in judged_cli_lines(jb))


def test_the_report_carries_the_group_section_with_names_escaped():
    from core.views.report import Section, build_report

    ids, a, b, g = _data()
    g = {c: ("<b>ko</b>" if v == "ko" else v) for c, v in g.items()}
    gc = compare_by_group(ids, a, b, g, name_a="bm25", name_b="dense", resamples=300,
                          permutations=100)
    page = build_report("t", [Section("By query group", interaction_sentence(gc),
                                      table=group_table(gc), chart=forest_chart(gc))],
                        inputs={}, params={}, lang="en")
    assert "&lt;b&gt;ko&lt;/b&gt;" in page and "<b>ko</b>" not in page
    assert "<svg" in page and "cannot tell (too few cases)" in page
