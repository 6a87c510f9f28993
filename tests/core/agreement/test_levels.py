"""core.agreement.levels and core.agreement.files: kappa vs scikit-learn, tau vs scipy, RBO vs hand
computations and brute force, pairwise accuracy vs enumerating pairs, the query bootstrap vs
scikit-learn with sample weights, readers and their errors, the CLI."""
import io
import itertools
import json
import math
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from core.__main__ import main
from core.agreement.levels import (analyse, binarize, binary_kappa, cohen_kappa, confusion,
                            kappa_band, kappa_from_confusion, mae_from_confusion,
                            pairwise_accuracy, preference_counts, query_weights, rbo,
                            source_agreement, split_half, tie_groups)
from core.agreement.files import (MISSING, LabelSet, load_label_files, load_labels, load_run,
                               load_runs)
from core.errors import InputError

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "data" / "demo_labels.csv"
RUNS = sorted((ROOT / "data" / "demo_runs").glob("*.run"))


def _labels(seed, n=300, noise=0.35, n_queries=25, binary=False):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2 if binary else 3, size=n)
    o = np.where(rng.random(n) < noise, rng.integers(0, 2 if binary else 3, size=n), g)
    q = rng.integers(0, n_queries, size=n)
    return q, g, o


def _labelset(q, g, **sources):
    pairs = pd.DataFrame({"query_id": [f"q{x}" for x in q],
                          "doc_id": [f"d{i}" for i in range(len(q))]})
    return LabelSet(pairs, np.asarray(g, np.int8),
                    {k: np.asarray(v, np.int8) for k, v in sources.items()}, "test")


# ----------------------------------------------------------------------------- kappa
@pytest.mark.parametrize("seed", range(6))
def test_kappa_equals_sklearn(seed):
    _, g, o = _labels(seed, noise=0.2 + 0.1 * seed)
    gb, ob = (g > 0).astype(int), (o > 0).astype(int)
    assert binary_kappa(g, o) == pytest.approx(cohen_kappa_score(gb, ob), abs=1e-12)
    assert cohen_kappa(g, o) == pytest.approx(cohen_kappa_score(g, o), abs=1e-12)
    for w in ("linear", "quadratic"):
        ref = cohen_kappa_score(g, o, weights=w, labels=[0, 1, 2])
        assert cohen_kappa(g, o, weights=w) == pytest.approx(ref, abs=1e-12)


def test_weighted_kappa_uses_label_values_when_a_middle_level_is_unused():
    g = np.array([0, 0, 2, 2, 2, 0, 2])
    o = np.array([0, 2, 2, 0, 2, 0, 2])
    ref = cohen_kappa_score(g, o, weights="linear", labels=[0, 1, 2])
    assert cohen_kappa(g, o, weights="linear") == pytest.approx(ref, abs=1e-12)


def test_kappa_stack_and_undefined():
    c = np.stack([confusion(*_labels(s)[1:]) for s in range(4)])
    stacked = kappa_from_confusion(c, "quadratic")
    assert np.allclose(stacked, [kappa_from_confusion(x, "quadratic") for x in c])
    one_class = confusion([1, 1, 1], [1, 1, 1])
    assert math.isnan(kappa_from_confusion(one_class))
    assert binarize(confusion([0, 1, 2, 2], [2, 0, 1, 0])).tolist() == [[0, 1], [2, 1]]


def test_mae_scaled_to_unit_interval():
    g, o = np.array([0, 1, 2, 2]), np.array([2, 1, 1, 2])
    assert mae_from_confusion(confusion(g, o), 2.0) == pytest.approx(np.mean(np.abs(g - o)) / 2)


def test_bad_label_vectors_raise_value_error():
    with pytest.raises(ValueError, match="gold"):
        confusion([0, 3], [0, 1])
    with pytest.raises(ValueError, match="same length"):
        confusion([0, 1], [0])


def test_kappa_band_landis_koch():
    assert [kappa_band(x) for x in (-0.1, 0.1, 0.3, 0.5, 0.7, 0.9, float("nan"))] == \
        ["poor", "slight", "fair", "moderate", "substantial", "almost_perfect", None]


# ----------------------------------------------------------------------------- pairwise
def _pairwise_brute(q, g, o):
    credit = total = 0.0
    for qq in np.unique(q):
        idx = np.flatnonzero(q == qq)
        for a, b in itertools.combinations(idx, 2):
            if g[a] == g[b]:
                continue
            hi, lo = (a, b) if g[a] > g[b] else (b, a)
            total += 1
            credit += 1.0 if o[hi] > o[lo] else 0.5 if o[hi] == o[lo] else 0.0
    return credit / total


@pytest.mark.parametrize("seed", range(4))
def test_pairwise_accuracy_equals_enumerating_pairs(seed):
    q, g, o = _labels(seed, n=200, n_queries=12)
    assert pairwise_accuracy(q, g, o) == pytest.approx(_pairwise_brute(q, g, o), abs=1e-12)


def test_pairwise_hand_example():
    # one query: gold 2 > 1 > 0; other ties the top two -> pairs (2,1) 0.5, (2,0) 1, (1,0) 1
    assert pairwise_accuracy(["q"] * 3, [2, 1, 0], [1, 1, 0]) == pytest.approx(2.5 / 3)
    credit, pairs = preference_counts(confusion([2, 1, 0], [0, 1, 2]))
    assert (credit, pairs) == (0.0, 3.0)  # fully reversed
    assert math.isnan(pairwise_accuracy(["q", "r"], [1, 0], [1, 0]))  # no same-query pair


# ----------------------------------------------------------------------------- bootstrap
def test_query_bootstrap_equals_sklearn_with_weights():
    q, g, o = _labels(7, n=240, n_queries=20)
    ls = _labelset(q, g, other=o)
    res = source_agreement(ls, "other", resamples=40, seed=3)
    qi, _ = pd.factorize(ls.pairs["query_id"].to_numpy())
    weights = next(query_weights(len(np.unique(qi)), 40, 3))
    for r in range(40):
        w = weights[r][qi]
        kb = cohen_kappa_score(g > 0, o > 0, sample_weight=w)
        kw = cohen_kappa_score(g, o, weights="linear", labels=[0, 1, 2], sample_weight=w)
        assert res.distributions["kappa_binary"][r] == pytest.approx(kb, abs=1e-9)
        kg = cohen_kappa_score(g, o, labels=[0, 1, 2], sample_weight=w)
        assert res.distributions["kappa"][r] == pytest.approx(kg, abs=1e-9)
        assert res.distributions["weighted_kappa"][r] == pytest.approx(kw, abs=1e-9)
        mae = np.sum(w * np.abs(g - o)) / (2 * w.sum())
        assert res.distributions["mae"][r] == pytest.approx(mae, abs=1e-12)
        # pairwise accuracy of the resample: each drawn copy of a query is its own cluster
        ref = _pairwise_brute(*_regroup(qi, g, o, weights[r]))
        assert res.distributions["pairwise_accuracy"][r] == pytest.approx(ref, abs=1e-12)


def _regroup(qi, g, o, wq):
    """Materialise a query resample: query j drawn wq[j] times -> that many clusters."""
    qs, gs, os_ = [], [], []
    cluster = 0
    for j, times in enumerate(wq):
        idx = np.flatnonzero(qi == j)
        for _ in range(int(times)):
            qs.append(np.full(idx.size, cluster)); gs.append(g[idx]); os_.append(o[idx])
            cluster += 1
    return np.concatenate(qs), np.concatenate(gs), np.concatenate(os_)


def test_bootstrap_seeded_batch_invariant_and_covers_the_estimate():
    q, g, o = _labels(11)
    ls = _labelset(q, g, other=o)
    a = source_agreement(ls, "other", resamples=3000, seed=5, batch=3000)
    b = source_agreement(ls, "other", resamples=3000, seed=5, batch=257)
    c = source_agreement(ls, "other", resamples=3000, seed=6)
    for k in a.distributions:
        assert np.array_equal(a.distributions[k], b.distributions[k], equal_nan=True)
        assert not np.array_equal(a.distributions[k], c.distributions[k])
    for e in (a.kappa, a.kappa_binary, a.weighted_kappa, a.mae, a.pairwise_accuracy):
        assert e.ci_low <= e.value <= e.ci_high
    assert a.kappa_binary.value == pytest.approx(binary_kappa(g, o))
    assert a.kappa.value == pytest.approx(cohen_kappa_score(g, o), abs=1e-12)
    assert a.pairwise_accuracy.value == pytest.approx(_pairwise_brute(q, g, o))


def test_blank_labels_are_left_out_and_counted():
    q, g, o = _labels(2, n=100)
    o = o.astype(np.int8)
    o[:7] = MISSING
    ls = _labelset(q, g, other=o)
    res = source_agreement(ls, "other", resamples=100)
    assert res.n_excluded == 7 and res.n_pairs == 93
    assert res.kappa_binary.value == pytest.approx(binary_kappa(g[7:], o[7:]))
    assert res.kappa.value == pytest.approx(cohen_kappa_score(g[7:], o[7:]), abs=1e-12)


def test_argument_checks():
    q, g, o = _labels(0)
    ls = _labelset(q, g, other=o)
    with pytest.raises(ValueError, match="weights"):
        source_agreement(ls, "other", weights="cubic")
    with pytest.raises(ValueError, match="confidence"):
        source_agreement(ls, "other", confidence=1.5)
    with pytest.raises(InputError, match="no label source 'nope'"):
        source_agreement(ls, "nope")


# ----------------------------------------------------------------------------- split-half
def test_split_half_finds_a_clearly_better_source():
    q, g, _ = _labels(3, n=400)
    rng = np.random.default_rng(0)
    noisy = np.where(rng.random(400) < 0.5, rng.integers(0, 3, 400), g)
    ls = _labelset(q, g, noisy=noisy, perfect=g.copy())
    res = split_half(ls, "noisy", splits=300, seed=1)
    assert res.wins == 300 and res.baseline_best == 0 and res.picked["perfect"] == 300
    again = split_half(ls, "noisy", splits=300, seed=1, batch=7)
    assert again == res


def test_split_half_matches_a_direct_loop():
    q, g, _ = _labels(4, n=120)
    rng = np.random.default_rng(9)
    s = {f"s{k}": np.where(rng.random(120) < 0.3 + 0.05 * k, rng.integers(0, 3, 120), g)
         for k in range(3)}
    ls = _labelset(q, g, **s)
    res = split_half(ls, "s1", splits=50, seed=2, batch=1)
    rng = np.random.default_rng(2)
    base = np.zeros(120, np.float32)
    base[:60] = 1
    wins = 0
    for _ in range(50):
        m = rng.permuted(np.tile(base, (1, 1)), axis=1)[0].astype(bool)
        ka = {k: cohen_kappa_score(g[m] > 0, v[m] > 0) for k, v in s.items()}
        best = max(ka, key=ka.get)
        kb = {k: cohen_kappa_score(g[~m] > 0, v[~m] > 0) for k, v in s.items()}
        wins += best != "s1" and kb[best] > kb["s1"]
    assert res.wins == wins


def test_split_half_needs_two_sources():
    q, g, o = _labels(0)
    with pytest.raises(InputError):
        split_half(_labelset(q, g, only=o))


# ----------------------------------------------------------------------------- RBO
def _naive_rbo(s, t, p):
    k = max(len(s), len(t))
    return (1 - p) * sum(p ** (d - 1) * len(set(s[:d]) & set(t[:d])) / d
                         for d in range(1, k + 1))


def test_rbo_hand_computed():
    r = rbo(list("abc"), list("abc"), 0.9)
    assert r.rbo == pytest.approx(0.271) and r.normalized == pytest.approx(1.0)
    r = rbo(list("abc"), list("cba"), 0.9)
    assert r.rbo == pytest.approx(0.126) and r.rbo_min == pytest.approx(0.126)
    assert r.normalized == pytest.approx(0.0)
    r = rbo(list("abc"), list("bac"), 0.9)  # A_d = 0, 1, 1
    assert r.rbo == pytest.approx(0.171)
    assert r.normalized == pytest.approx(0.045 / 0.145)


def test_rbo_ties_hand_computed():
    # {a, b} tied at ranks 1-2: at depth 1 each is half in the prefix; X_1 = min(.5, 1) = .5
    r = rbo([{"a", "b"}, "c"], list("abc"), 0.9)
    assert r.rbo == pytest.approx(0.1 * (0.5 + 0.9 + 0.81))
    assert r.normalized == pytest.approx((0.221 - 0.126) / 0.145)
    # identical rankings with ties reach the maximum
    tied = [["a", "b"], "c", ["d", "e", "f"]]
    assert rbo(tied, tied, 0.9).normalized == pytest.approx(1.0)
    # all tied on one side: every item one third in at depth 1 -> X_1 = 1/3
    r = rbo([["a", "b", "c"]], list("abc"), 0.5)
    assert r.rbo == pytest.approx(0.5 * (1 / 3 + 0.5 * (2 / 3) / 1 + 0.25 * 1))
    # tie_groups: ascending scores, equal scores grouped
    assert tie_groups(["x", "y", "z", "w"], [0.5, 0.1, 0.5, 0.0], descending=False) == \
        [["w"], ["y"], ["x", "z"]]


def test_rbo_unequal_lengths_hand_computed():
    r = rbo(list("abcd"), ["a", "x"], 0.5)  # A_d = 1, 1/2, 1/3, 1/4
    assert r.rbo == pytest.approx(0.5 * (1 + 0.25 + 0.25 / 3 + 0.125 / 4))
    assert r.rbo_min == pytest.approx(0.5 * 0.125 / 4)
    assert r.normalized == pytest.approx(1.0)  # the one shared item is on top of both
    r = rbo(list("abcd"), ["x", "a"], 0.5)
    assert r.rbo == pytest.approx(0.5 * (0.25 + 0.25 / 3 + 0.125 / 4))
    assert r.normalized == pytest.approx(0.25)
    assert math.isnan(rbo(["a"], ["b"], 0.9).normalized)  # nothing shared: no range


@pytest.mark.parametrize("s_len,t_len,shared", [(4, 4, 4), (5, 3, 2), (3, 5, 3), (4, 4, 2)])
def test_rbo_bounds_are_the_true_min_and_max(s_len, t_len, shared):
    common = [f"c{i}" for i in range(shared)]
    s_items = common + [f"s{i}" for i in range(s_len - shared)]
    t_items = common + [f"t{i}" for i in range(t_len - shared)]
    values = [_naive_rbo(list(a), list(b), 0.8) for a in itertools.permutations(s_items)
              for b in itertools.permutations(t_items)]
    r = rbo(s_items, t_items, 0.8)
    assert r.rbo_min == pytest.approx(min(values), abs=1e-12)
    assert r.rbo_max == pytest.approx(max(values), abs=1e-12)


def test_rbo_without_ties_equals_the_definition_and_stays_in_range():
    rng = np.random.default_rng(0)
    for _ in range(30):
        s = list(rng.permutation(12)[: rng.integers(3, 12)])
        t = list(rng.permutation(12)[: rng.integers(3, 12)])
        r = rbo(s, t, 0.9)
        assert r.rbo == pytest.approx(_naive_rbo(s, t, 0.9), abs=1e-12)
        assert 0.0 <= r.normalized <= 1.0 or math.isnan(r.normalized)
    with pytest.raises(ValueError, match="p"):
        rbo(["a"], ["a"], 1.0)
    with pytest.raises(ValueError, match="twice"):
        rbo(["a", "a"], ["a"], 0.5)


# ----------------------------------------------------------------------------- readers
def test_demo_labels_load():
    ls = load_labels(DEMO.read_bytes(), DEMO.name)
    assert ls.names == ["llm_basic", "llm_narrative", "crowd", "keyword_heuristic"]
    assert ls.n_pairs == 600 and ls.graded
    assert ls.missing_counts()["crowd"] == 6


def test_korean_headers_cp949_and_xlsx():
    text = "질의id,문서id,정답,크라우드,메모\nq1,d1,2,1,좋음\nq1,d2,0,0,\nq2,d3,1,,애매\n"
    ls = load_labels(text.encode("cp949"), "라벨.csv")
    assert ls.gold_name == "정답" and ls.names == ["크라우드"]
    assert ls.ignored_columns == ("메모",) and ls.missing_counts()["크라우드"] == 1
    buf = io.BytesIO()
    pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "gold": [1, 0],
                  "llm": [1, 1]}).to_excel(buf, index=False)
    ls = load_labels(buf.getvalue(), "labels.xlsx")
    assert ls.gold.tolist() == [1, 0] and ls.sources["llm"].tolist() == [1, 1]


@pytest.mark.parametrize("text,match,row,column", [
    ("query_id,doc_id,gold,llm\nq1,d1,1,0\nq1,d2,3,1\n", "'3' is not a label", 3, "gold"),
    ("query_id,doc_id,gold,llm\nq1,d1,1,yes\n", "'yes' is not a label", 2, "llm"),
    ("query_id,doc_id,gold,llm\nq1,d1,1,0\nq1,d1,0,0\n", "more than once", 3, None),
    ("query_id,doc_id,ref,llm\nq1,d1,1,0\n", "no gold label column", None, None),
    ("qid,gold,llm\nq1,1,0\n", "no query and document id", None, None),
    ("query_id,doc_id,gold\nq1,d1,1\n", "no other label column", None, None),
    ("query_id,doc_id,gold,llm\nq1,d1,1,\nq1,d2,0,\n", "blank in every row", None, "llm"),
])
def test_bad_label_files_name_row_and_column(text, match, row, column):
    with pytest.raises(InputError, match=match) as exc:
        load_labels(text.encode(), "labels.csv")
    assert exc.value.file == "labels.csv"
    assert exc.value.row == row and exc.value.column == column
    assert exc.value.message("ko") != exc.value.message("en")


def test_two_files_joined_with_unmatched_reported():
    gold = b"q1 0 d1 2\nq1 0 d2 0\nq2 0 d3 1\nq3 0 d9 1\n"
    other = b"query_id,doc_id,crowd,llm\nq1,d1,2,1\nq1,d2,1,0\nq2,d3,1,1\nq2,d4,0,0\n"
    ls = load_label_files(gold, "gold.qrels", other, "other.csv")
    assert ls.n_pairs == 3 and ls.names == ["crowd", "llm"]
    assert ls.unmatched == {"gold_only": [("q3", "d9")], "other_only": [("q2", "d4")]}
    s = ls.summary()
    assert s["unmatched"] == {"gold_only": 1, "other_only": 1}
    with pytest.raises(InputError, match="no .*pair appears both"):
        load_label_files(gold, "gold.qrels", b"query_id,doc_id,x\nz,z,1\n", "o.csv")


def test_run_readers():
    table = b"query_id,doc_id,rank\nq1,b,2\nq1,a,1\nq2,c,1\n"
    run = load_run(table, "sys.csv")
    assert run.ranking == {"q1": ["a", "b"], "q2": ["c"]} and run.name == "sys"
    trec = b"q1 Q0 a 1 1.5 t\nq1 Q0 b 2 2.5 t\nq1 Q0 c 3 2.5 t\n"
    assert load_run(trec, "x.run").ranking == {"q1": ["c", "b", "a"]}  # trec_eval order
    with pytest.raises(InputError, match="share rank 1") as exc:
        load_run(b"query_id,doc_id,rank\nq1,a,1\nq1,b,1\n", "t.csv")
    assert exc.value.row == 3
    with pytest.raises(InputError, match="not a rank"):
        load_run(b"query_id,doc_id,rank\nq1,a,first\n", "t.csv")
    names = [r.name for r in load_runs([(trec, "a/x.run"), (trec, "b/x.run")])]
    assert names == ["x", "x (2)"]


# ----------------------------------------------------------------------------- levels 3-4
def test_levels_3_and_4_on_the_demo_match_ir_measures_and_scipy():
    ls = load_labels(DEMO.read_bytes(), DEMO.name)
    runs = load_runs([(p.read_bytes(), p.name) for p in RUNS])
    rep = analyse(ls, source="crowd", runs=runs, measure="ndcg@10", resamples=200)
    both = (ls.gold != MISSING) & (ls.sources["crowd"] != MISSING)
    qrels = [ir_measures.Qrel(q, d, int(v)) for q, d, v in
             zip(ls.pairs["query_id"][both], ls.pairs["doc_id"][both], ls.gold[both])]
    for qo, path in zip(rep.queries, RUNS):
        ref = {m.query_id: m.value for m in ir_measures.iter_calc(
            [ir_measures.nDCG @ 10], qrels, ir_measures.read_trec_run(str(path)))}
        assert np.allclose(qo.scores["gold"].to_numpy(),
                           [ref.get(q, 0.0) for q in qo.scores.index], atol=1e-9)
        tau = stats.kendalltau(qo.scores["gold"], qo.scores["other"]).statistic
        assert qo.tau == pytest.approx(tau, abs=1e-12)
        worst = qo.scores["gold"].sort_values(kind="stable").index[:5].tolist()
        assert [x["query_id"] for x in qo.bottom_gold] == worst
    s = rep.systems
    assert s.tau == pytest.approx(stats.kendalltau(s.means["gold"], s.means["other"]).statistic)
    assert s.top_gold == s.means["gold"].sort_values(ascending=False).index[:3].tolist()
    assert 0 <= s.rbo.normalized <= 1
    cov = {c.run: c for c in rep.coverage}
    top = runs[0].ranking
    labelled = set(zip(ls.pairs["query_id"][both], ls.pairs["doc_id"][both]))
    expect = sum(1 for q in set(ls.pairs["query_id"]) for d in top.get(q, [])[:10]
                 if (q, d) not in labelled)
    assert cov[runs[0].name].unlabelled == expect > 0


def test_fewer_than_three_runs_gives_no_system_ordering():
    ls = load_labels(DEMO.read_bytes(), DEMO.name)
    runs = load_runs([(p.read_bytes(), p.name) for p in RUNS[:2]])
    rep = analyse(ls, runs=runs, measure="p@10", resamples=100, splits=50)
    d = rep.to_dict()
    assert d["system_rbo"] is None and d["query_rbo"] is not None and len(rep.queries) == 2


# ----------------------------------------------------------------------------- CLI
def test_cli_json_on_the_demo(capsys):
    code = main(["agreement", str(DEMO), "--runs", *map(str, RUNS), "--json",
                 "--resamples", "1000", "--splits", "200"])
    assert code == 0
    d = json.loads(capsys.readouterr().out)
    for key in ("n_pairs", "n_queries", "confusion", "kappa", "kappa_ci", "kappa_binary",
                "kappa_binary_ci", "weighted_kappa", "mae", "pairwise_accuracy", "query_rbo",
                "query_rbo_prefix", "query_tau", "system_rbo", "system_rbo_prefix",
                "system_tau", "sources", "split_half"):
        assert d[key] is not None, key
    # kappa is Cohen's kappa on the graded labels, kappa_binary on labels made binary
    labels = load_labels(DEMO.read_bytes(), file=str(DEMO))
    src = labels.sources[d["source"]]
    ok = (labels.gold != MISSING) & (src != MISSING)
    g, o = labels.gold[ok].astype(int), src[ok].astype(int)
    assert d["kappa"] == pytest.approx(cohen_kappa_score(g, o), abs=1e-12)
    assert d["kappa_binary"] == pytest.approx(cohen_kappa_score(g > 0, o > 0), abs=1e-12)
    assert d["system_ordering"]["rbo"] == d["system_rbo"]
    assert d["system_ordering"]["rbo_prefix"] == d["system_rbo_prefix"]
    assert d["n_pairs"] == 600 and d["n_queries"] == 40
    assert np.array(d["confusion"]).sum() == 600


def test_cli_text_and_bad_input(capsys, tmp_path):
    assert main(["agreement", str(DEMO), "--resamples", "1000", "--splits", "100"]) == 0
    assert "pairwise accuracy" in capsys.readouterr().out
    bad = tmp_path / "bad.csv"
    bad.write_text("query_id,doc_id,gold,llm\nq1,d1,1,5\n")
    assert main(["agreement", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.csv" in err and "row 2" in err and "llm" in err
