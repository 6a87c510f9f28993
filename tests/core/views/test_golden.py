"""core.views.golden: the compare command's text names B − A and quotes the comparison's
own numbers; lists and TREC add what they read; three or more systems add every pair."""
from core.inputs.golden import load_golden
from core.inputs.systems import compare_golden
from core.paired.multi import compare_many
from core.views.format import diff, pct
from core.views.golden import compare_text, comparison_text

DATA = "case_id,old,new,other\n" + "".join(
    f"q{i},{int(i % 3 == 0)},{int(i % 3 != 1)},{int(i % 2 == 0)}\n" for i in range(45))


def _result():
    return compare_golden(load_golden(DATA.encode(), "g.csv"), "old", "new", resamples=2000)


def test_comparison_text_rates_difference_tests_and_verdict():
    res = _result()
    c, bs = res.comparison, res.comparison.bootstrap
    out = comparison_text(res)
    lines = out.splitlines()
    assert lines[0] == "g.csv: 45 paired cases (one case = 2.2 %p)"
    assert lines[1].startswith(f"  old: {pct(c.rate_a.mean)} ({c.rate_a.successes}/45)")
    assert f"  new − old: {diff(bs.mean, 'rate')}" in out
    assert bs.mean > 0 and c.verdict == "b_better"
    assert "McNemar mid-p p" in out   # the verdict's test on 0/1 outcomes ("p = x" or "p < 0.001")
    # the verdict sentence, then (last) the self-check of the interval on these data
    assert any(ln.startswith("new") for ln in lines[-3:])
    assert lines[-1].startswith("On data like yours")


def test_compare_text_adds_every_pair_for_three_systems():
    res = _result()
    scores = load_golden(DATA.encode(), "g.csv").scores
    many = compare_many(scores, resamples=1000)
    out = compare_text(res, {}, many, "golden")
    assert comparison_text(res) in out
    pair_lines = [ln for ln in out.splitlines() if " p_holm " in ln]   # "= x" or "< 0.001"
    assert len(pair_lines) == len(many.pairs) == 3
    for p, line in zip(many.pairs, pair_lines):
        assert line.startswith(" *" if p.significant else "  ") and p.verdict in line


def test_compare_text_lists_and_trec_extras():
    res = _result()
    lists = compare_text(res, {"metrics": {"ndcg@10": {"old": 0.5, "new": 0.75}},
                               "measure": "ndcg@10", "k": 10}, None, "lists")
    assert lists.splitlines()[0] == "ndcg@10 is compared; means of every metric (k=10):"
    assert "old=0.500  new=0.750" in lists
    q = {"judged": 12, "missing_from_run": {"old": ["q1", "q2"]}, "without_qrels": {}}
    trec = compare_text(res, {"queries": q, "measure": "nDCG@10"}, None, "trec")
    assert trec.splitlines()[0] == "12 judged queries; nDCG@10 per query from ir_measures"
    assert "old: 2 judged queries missing from the run, scored 0: q1, q2" in trec
    q = {"judged": 12, "missing_from_run": {"old": ["q1"]}, "without_qrels": {"new": ["x"]}}
    trec = compare_text(res, {"queries": q, "measure": "nDCG@10"}, None, "trec")
    assert "old: 1 judged query missing from the run, scored 0: q1" in trec  # issue 37
    assert "new: 1 run query without qrels, ignored: x" in trec and "(ies)" not in trec


def test_report_tables_quote_the_comparison_in_both_languages():
    """Issue 31: the golden page's report tables are built once, in core; each figure is the
    comparison's own (rates beside their counts and intervals, B − A and its CI, the per-case
    file's b_minus_a = B − A), and the headers follow the language."""
    import numpy as np

    from core.views.format import interval, level, value
    from core.i18n import t
    from core.views.golden import report_tables
    from core.views.paired import paired_view
    from core.views.verdicts import interval_name

    res = _result()
    c, bs = res.comparison, res.comparison.bootstrap
    heads = {}
    for lang in ("en", "ko"):
        view = paired_view(c, lang=lang)
        tab = report_tables(res, view, lang)
        rows = tab.rates.to_numpy().tolist()
        for row, (name, r) in zip(rows, ((c.a, c.rate_a), (c.b, c.rate_b))):
            assert row == [name, value(r.mean, "rate"), f"{r.successes}/{r.n}",
                           interval(r.ci_low, r.ci_high, "rate")]
            assert r.successes == int(round(r.mean * r.n))   # the count is the rate's
        diff_rows = dict(tab.difference.itertuples(index=False, name=None))
        assert diff_rows[view.difference.label] == view.difference.value
        assert interval(bs.ci_low, bs.ci_high, "rate", signed=True) in diff_rows.values()
        assert len(tab.difference) == 3 + len(view.tests)
        # the interval's name, as the card names it (issue 36: labels say what ran)
        assert diff_rows[t("verdicts.interval_label", lang)] == interval_name(bs, lang)
        np.testing.assert_array_equal(tab.per_case["b_minus_a"], res.b_values - res.a_values)
        assert list(tab.per_case.columns) == ["case_id", "old", "new", "b_minus_a"]
        assert len(tab.discordant) == int((res.a_values != res.b_values).sum())
        heads[lang] = list(tab.rates.columns) + list(tab.difference.columns)
        assert level(bs.confidence) in tab.rates.columns[-1]
    assert all(e != k for e, k in zip(heads["en"], heads["ko"]))


def test_the_report_names_an_interval_widened_to_reach_zero_en_and_ko():
    """Issue 36: 4 equal gains among 30 scores: the report's difference table carries the
    interval that reaches 0, its ends and its name, as the card and the CLI do."""
    from core.i18n import t
    from core.views.format import interval
    from core.views.golden import report_tables
    from core.views.paired import paired_view
    text = "case_id,old,new\n" + "".join(f"c{i},0.5,{0.595 if i < 4 else 0.5}\n"
                                         for i in range(30))
    res = compare_golden(load_golden(text.encode(), "few.csv"), "old", "new", resamples=2000)
    bs = res.comparison.bootstrap
    assert bs.reaches_zero and bs.ci_low == 0.0
    assert "reaches 0 (too few cases differ)" in comparison_text(res)
    for lang, word in (("en", "widened to reach 0"), ("ko", "0까지 넓힘")):
        view = paired_view(res.comparison, lang=lang)
        rows = dict(report_tables(res, view, lang).difference.itertuples(index=False,
                                                                           name=None))
        assert word in rows[t("verdicts.interval_label", lang)]
        assert interval(bs.ci_low, bs.ci_high, "score", signed=True) in rows.values()
