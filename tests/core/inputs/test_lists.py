"""core.inputs.lists: ID metrics by hand, ranking metrics vs ir_measures, the text variant vs
hand-computed Levenshtein similarities at and around Ragas' 0.5 thresholds."""
import ir_measures
import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein

from core.errors import InputError
from core.inputs.systems import compare_golden
from core.inputs.lists import (case_values, load_lists, parse_metric, score_lists, lists_side_by_side,
                        similarity_matrix, split_cell)


def _lev(s, t):
    """Plain dynamic-programming edit distance (independent of rapidfuzz)."""
    prev = list(range(len(t) + 1))
    for i, a in enumerate(s, 1):
        cur = [i]
        for j, b in enumerate(t, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a != b)))
        prev = cur
    return prev[-1]


def _sim(s, t):
    return 1 - _lev(s, t) / max(len(s), len(t))


# Ragas' non-LLM formulas as its source writes them (ragas/metrics/_context_precision.py,
# _context_recall.py), for the reference values; 1e-10 as in Ragas.
def _ragas_precision(retrieved, reference, threshold=0.5):
    scores = [max(_sim(r, ref) for ref in reference) for r in retrieved]
    v = [1 if s >= threshold else 0 for s in scores]
    num = sum((sum(v[: i + 1]) / (i + 1)) * v[i] for i in range(len(v)))
    return num / (sum(v) + 1e-10)


def _ragas_recall(retrieved, reference, threshold=0.5):
    scores = [max(_sim(rc, ref) for rc in retrieved) for ref in reference]
    return sum(1 if s > threshold else 0 for s in scores) / len(scores)


def test_id_metrics_by_hand():
    v = case_values(["d3", "d1", "d9", "d2", "d1"], ["d1", "d2", "d7"], k=4)
    # top 4 = d3 d1 d9 d2; relevant at ranks 2 and 4
    assert v["hit"] == 1.0
    assert v["p"] == pytest.approx(2 / 4)
    assert v["recall"] == pytest.approx(2 / 3)
    assert v["mrr"] == pytest.approx(1 / 2)
    dcg = 1 / np.log2(3) + 1 / np.log2(5)
    idcg = 1 + 1 / np.log2(3) + 1 / np.log2(4)
    assert v["ndcg"] == pytest.approx(dcg / idcg)
    assert v["context_precision"] == pytest.approx(2 / 4)
    assert v["context_recall"] == pytest.approx(2 / 3)
    assert v["context_precision_ranked"] == pytest.approx((1 / 2 + 2 / 4) / 2)
    # k=5 repeats d1: the set-based precision counts it once, the rank-aware one per slot
    v5 = case_values(["d3", "d1", "d9", "d2", "d1"], ["d1", "d2", "d7"], k=5)
    assert v5["context_precision"] == pytest.approx(2 / 4)
    assert v5["context_precision_ranked"] == pytest.approx((1 / 2 + 2 / 4 + 3 / 5) / 3)


def test_edge_cases():
    nothing = case_values([], ["a"], k=10)
    assert np.isnan(nothing["context_precision"])  # Ragas: undefined when nothing retrieved
    assert nothing["context_recall"] == 0 and nothing["context_precision_ranked"] == 0
    assert nothing["hit"] == 0 and nothing["ndcg"] == 0
    no_ref = case_values(["a"], [], k=10)
    assert all(np.isnan(x) for x in no_ref.values())
    miss = case_values(["x", "y"], ["a"], k=10)
    assert miss["context_precision_ranked"] == 0 and miss["context_precision"] == 0


def test_ranking_metrics_equal_ir_measures():
    rng = np.random.default_rng(5)
    docs = [f"d{i}" for i in range(80)]
    rows, qrels, run = ["case_id,query,gold_ids,m"], [], []
    for q in range(40):
        gold = list(rng.choice(docs, size=int(rng.integers(1, 6)), replace=False))
        got = list(rng.choice(docs, size=int(rng.integers(1, 25)), replace=False))
        rows.append(f"c{q},q,{'|'.join(gold)},{'|'.join(got)}")
        qrels += [ir_measures.Qrel(f"c{q}", d, 1) for d in gold]
        run += [ir_measures.ScoredDoc(f"c{q}", d, 100.0 - i) for i, d in enumerate(got)]
    ls = load_lists("\n".join(rows).encode(), "gen.csv", kind="ids")
    sc = score_lists(ls, 10)
    for ours, ref in [("hit@10", "Success@10"), ("p@10", "P@10"), ("recall@10", "R@10"),
                      ("mrr@10", "RR@10"), ("ndcg@10", "nDCG@10")]:
        expect = {r.query_id: r.value for r in
                  ir_measures.iter_calc([ir_measures.parse_measure(ref)], qrels, run)}
        for case, v in sc.values[ours]["m"].items():
            assert v == pytest.approx(expect.get(case, 0.0), abs=1e-9), (ours, case)
    # ID-based context recall equals Recall@k (both |ref ∩ top k| / |ref|)
    assert np.allclose(sc.values["context_recall@10"]["m"], sc.values["recall@10"]["m"])


def test_similarities_match_a_plain_edit_distance():
    words = ["abcdefghij", "abcdefghxy", "abcdexyzvw", "abcdwxyzvu", "", "kitten", "sitting"]
    sim = similarity_matrix(words[:4], words[4:] + words[:2])
    for i, s in enumerate(words[:4]):
        for j, t in enumerate(words[4:] + words[:2]):
            expect = 1.0 if not s and not t else _sim(s, t) if (s or t) else 1.0
            assert sim[i, j] == pytest.approx(expect, abs=1e-12)
    assert 1 - Levenshtein.normalized_distance("kitten", "sitting") == pytest.approx(4 / 7)


REF = "abcdefghij"
AT = "abcdevwxyz"      # 5 edits of 10 -> similarity exactly 0.5
ABOVE = "abcdefwxyz"   # 4 edits -> 0.6
BELOW = "abcduvwxyz"   # 6 edits -> 0.4


def test_text_thresholds_at_and_around_one_half():
    assert _sim(AT, REF) == 0.5 and _sim(ABOVE, REF) == 0.6 and _sim(BELOW, REF) == 0.4
    # precision uses >= 0.5: a passage at exactly 0.5 is relevant
    v = case_values([AT], [REF], k=10, kind="text")
    assert v["context_precision"] == 1 and v["context_precision_ranked"] == 1
    # recall uses > 0.5: the reference is not recalled by a 0.5 match
    assert v["context_recall"] == 0
    v = case_values([BELOW, ABOVE], [REF], k=10, kind="text")
    assert v["context_precision"] == 0.5 and v["context_recall"] == 1
    assert v["context_precision_ranked"] == pytest.approx(1 / 2)
    assert v["mrr"] == 0.5 and v["hit"] == 1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_text_variant_equals_ragas_formulas(seed):
    rng = np.random.default_rng(seed)
    base = ["the refund policy covers annual plans", "reset your password from settings",
            "invoices can be exported as pdf files", "two factor login uses an app"]
    def mutate(s, n):
        chars = list(s)
        for _ in range(n):
            chars[int(rng.integers(len(chars)))] = "xyzq"[int(rng.integers(4))]
        return "".join(chars)
    for _ in range(20):
        refs = list(rng.choice(base, size=int(rng.integers(1, 3)), replace=False))
        got = [mutate(str(rng.choice(base)), int(rng.integers(0, 30)))
               for _ in range(int(rng.integers(1, 6)))]
        v = case_values(got, refs, k=10, kind="text")
        assert v["context_precision_ranked"] == pytest.approx(_ragas_precision(got, refs),
                                                              abs=1e-9)
        assert v["context_recall"] == pytest.approx(_ragas_recall(got, refs), abs=1e-12)


def test_text_file_detected_and_marked():
    import json
    rows = ["case_id,query,reference_contexts,A,B"]
    for i in range(3):
        refs = json.dumps([f"passage number {i} about refunds and plans"])
        a = json.dumps([f"passage number {i} about refunds and plans", "unrelated words here"])
        b = json.dumps(["something else entirely, not close", "more noise text in here"])
        rows.append(f"c{i},q,\"{refs.replace(chr(34), chr(34) * 2)}\","
                    f"\"{a.replace(chr(34), chr(34) * 2)}\",\"{b.replace(chr(34), chr(34) * 2)}\"")
    ls = load_lists("\n".join(rows).encode(), "ragas.csv")
    assert ls.kind == "text" and ls.gold_column == "reference_contexts"
    sc = score_lists(ls, 5)
    assert sc.values["context_recall@5"]["A"].tolist() == [1.0, 1.0, 1.0]
    assert sc.values["context_precision@5"]["B"].tolist() == [0.0, 0.0, 0.0]
    side = lists_side_by_side(ls, "c0", "A", "B", 5)
    assert side["A rel"].tolist() == ["✓", ""] and side["B rel"].tolist() == ["", ""]


def test_cells_pipes_and_json_agree():
    assert split_cell("a| b |c") == split_cell('["a", "b", "c"]') == ["a", "b", "c"]
    assert split_cell("") == [] and split_cell("[1, 2]") == ["1", "2"]
    for bad in ['["a", ', '[{"a": 1}]', "[true]"]:
        with pytest.raises(ValueError):
            split_cell(bad)


def test_reports_and_golden_bridge():
    csv = (b"case_id,query,gold_ids,A,B\n"
           b"q1,x,d1|d2,d1|d3,d3\n"
           b"q2,y,d5,d5,\n"
           b"q3,z,,d1,d2\n"
           b"q4,w,d4,d9|d4,d4\n"
           b"q4,w,d4,d4,d4\n"
           b"q5,v,d8,d8,d7|d8\n")
    ls = load_lists(csv, "t.csv")
    assert ls.no_reference == ("q3",) and ls.duplicates == ("q4",)
    assert ls.empty_cells == {"B": ("q2",)}
    sc = score_lists(ls, 1)
    assert sc.undefined()["context_precision@1"] == {"A": 1, "B": 2}
    hit = compare_golden(sc.golden("hit@1"), resamples=1000)
    assert hit.comparison.rate_a.interval == "wilson"
    assert hit.excluded.blank == ("q3",) and hit.excluded.duplicates == ("q4",)
    assert hit.n_cases == 3 and hit.comparison.rate_a.successes == 3
    ndcg = compare_golden(sc.golden("context_precision_ranked@1"), resamples=1000)
    assert ndcg.n_cases == 3


@pytest.mark.parametrize("csv,code,row,column", [
    (b'case_id,gold_ids,A,B\nq1,d1,"[""d1"",",d2\nq2,d2,d2,d3\n', "systems.err_bad_list", 2,
     "A"),
    (b"case_id,query,A,B\nq1,x,d1,d2\nq2,y,d2,d3\n", "systems.err_no_gold", None, None),
    (b"id,gold_ids,query\nq1,d1,x\nq2,d2,y\n", "systems.err_no_method_lists", None, None),
    (b"query,gold_ids,A\nx,d1,d1\ny,d2,d2\n", "no_case_id", None, None),
])
def test_bad_files_name_the_place(csv, code, row, column):
    with pytest.raises(InputError) as e:
        load_lists(csv, "bad.csv")
    assert e.value.code == code and e.value.row == row and e.value.column == column
    assert "bad.csv" in str(e.value)


def test_metric_names():
    assert parse_metric("nDCG@5") == ("ndcg", 5)
    assert parse_metric("context_recall", 20) == ("context_recall", 20)
    assert parse_metric("RR") == ("mrr", 10)
    with pytest.raises(InputError):
        parse_metric("bleu@4")
    with pytest.raises(ValueError):
        parse_metric("ndcg@0")


def test_cli_lists_json(capsys):
    import json
    from pathlib import Path

    from core.__main__ import main

    demo = Path(__file__).resolve().parents[3] / "data" / "demo_lists.csv"
    assert main(["compare", str(demo), "--format", "lists", "--measure", "hit", "--k", "5",
                 "--resamples", "1000", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["measure"] == "hit@5" and d["binary"] is True
    assert d["methods"]["bm25"]["interval"] == "wilson"
    ref = score_lists(load_lists(demo.read_bytes(), "demo_lists.csv"), 5).means()
    for metric, by_method in d["metrics"].items():
        for method, v in by_method.items():
            assert v == pytest.approx(ref.at[method, metric], abs=1e-12)
    assert len(d["pairs"]) == 3 and {"p_holm", "verdict"} <= set(d["pairs"][0])
    assert main(["compare", str(demo), str(demo), "--format", "lists"]) == 2
    assert "exactly one file" in capsys.readouterr().err


def test_metric_key_and_check_k():
    from core.inputs.lists import check_k, metric_key

    assert metric_key("ndcg", 10) == "ndcg@10" and metric_key("context_recall", 5) == \
        "context_recall@5"
    assert check_k(3) == 3
    for bad in (0, 2.5, 10_001):
        with pytest.raises(ValueError, match="k"):
            check_k(bad)


def test_a_group_column_in_a_list_file_is_groups_not_a_method():
    from core.inputs.lists import load_lists, score_lists
    data = (b"case_id,query,group,gold_ids,bm25,dense\n"
            b"c1,a b,short,d1,d1|d2,d2|d1\nc2,c d,long,d3,d3,d4|d3\n")
    ls = load_lists(data, "l.csv")
    assert ls.methods == ["bm25", "dense"] and ls.group_column == "group"
    assert ls.groups.to_dict() == {"c1": "short", "c2": "long"}
    gs = score_lists(ls, 10).golden("ndcg@10")
    assert gs.groups.to_dict() == ls.groups.to_dict() and gs.group_column == "group"
