"""``python -m core scifact`` options: every metric spelling of the registry is accepted
(argparse ``choices`` used to refuse ``RR@10``), a wrong one is a one-line usage error."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.__main__ import build_parser
from core.inputs.metrics import REGISTRY, parse_measure
from core.retrieval.scifact import MEASURES

from tests.shared_data import TINY

ROOT = Path(__file__).resolve().parents[3]


def _spellings(measure: str) -> list[str]:
    m = parse_measure(measure)
    spec = REGISTRY[m.name]
    names = {spec.name, *spec.aliases, spec.display}
    return sorted({f"{n}@{m.k}" for n in names} | {f"{n.upper()}@{m.k}" for n in names})


@pytest.mark.parametrize("measure", MEASURES)
def test_metric_accepts_every_registry_alias(measure):
    parser = build_parser("scifact")
    spellings = _spellings(measure)
    assert len(spellings) >= 2
    for text in spellings:
        args = parser.parse_args(["scifact", "--metric", text])
        assert args.metric == measure, text


@pytest.mark.parametrize("text", ["nope", "ap@10", "ndcg@5", "context_recall"])
def test_metric_outside_the_compared_ones_is_a_usage_error(text, capsys):
    with pytest.raises(SystemExit) as ei:
        build_parser("scifact").parse_args(["scifact", "--metric", text])
    assert ei.value.code == 2
    err = capsys.readouterr().err
    assert "--metric" in err and "ndcg@10" in err and len(err.strip().splitlines()) == 1


def test_an_alias_runs_end_to_end(tmp_path):
    """``--metric RR@10`` compares MRR@10 on the tiny BEIR fixture (BM25 vs the bundled
    model), with the embedding cache in a temporary folder."""
    env = {**os.environ, "NOISEFLOOR_CACHE_DIR": str(tmp_path)}
    p = subprocess.run([sys.executable, "-m", "core", "scifact", "--data", str(TINY),
                        "--a", "bm25", "--b", "dense", "--metric", "RR@10",
                        "--resamples", "500", "--json"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["comparison"]["metric"] == "mrr@10"


def test_encode_all_re_encodes_every_document_and_says_so(capsys):
    """``--encode all`` ignores the cache (and shipped vectors) every time; the default reads
    what the last encode wrote. The JSON and stderr say where the vectors came from."""
    from core.__main__ import main

    base = ["scifact", "--data", str(TINY), "--json", "--resamples", "200"]
    for _ in range(2):
        assert main(base + ["--encode", "all"]) == 0
        out = capsys.readouterr()
        vec = json.loads(out.out)["vectors"][0]
        assert vec["source"] == "live" and vec["n"] == 25 and vec["spot_check"] is None
        assert "Document vectors: encoded live on this machine (25 documents" in out.err
    assert main(base) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["vectors"][0]["source"] == "cache"
    assert "encoded earlier on this machine" in out.err


def test_margin_block_and_text_on_the_tiny_fixture(tmp_path):
    """``--margin 0.05`` on nDCG@10 (a score): the JSON gains a ``margin`` block on the
    comparison's own interval, the text says the margin's answer; %p is refused for a score."""
    env = {**os.environ, "NOISEFLOOR_CACHE_DIR": str(tmp_path)}
    base = [sys.executable, "-m", "core", "scifact", "--data", str(TINY), "--a", "bm25",
            "--b", "dense", "--resamples", "500"]
    p = subprocess.run(base + ["--margin", "0.05", "--json"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    m = d["margin"]
    assert m["margin"] == 0.05 and m["kind"] == "score" and m["test"] == "signflip_tie_bootstrap"
    assert m["ci_low"] == d["comparison"]["difference"]["ci_low"]
    assert m["n"] == d["n_queries"]
    p = subprocess.run(base + ["--margin", "0.05"], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0 and "Margin 0.050:" in p.stdout
    p = subprocess.run(base + ["--margin", "5pp"], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 2 and "percentage points" in p.stderr


def test_judged_at_10_in_json_text_and_the_pool_csv(tmp_path, capsys):
    from core.__main__ import main

    pool = tmp_path / "pool.csv"
    assert main(["scifact", "--data", str(TINY), "--a", "bm25", "--b", "dense", "--json",
                 "--resamples", "500", "--unjudged-csv", str(pool)]) == 0
    out = json.loads(capsys.readouterr().out)
    j = out["judged"]
    assert set(j["methods"]) == {"bm25", "dense", "hybrid"} and j["k"] == 10
    assert set(j["verdict"]) == {"unjudged_nonrelevant", "unjudged_relevant"}
    assert j["verdict"]["unjudged_nonrelevant"] == out["comparison"]["verdict"]
    rows = pool.read_text(encoding="utf-8-sig").splitlines()
    assert rows[0] == "query_id,query,doc_id,best_rank,methods" and len(rows) - 1 == j["pool_size"]
    assert main(["scifact", "--data", str(TINY), "--resamples", "500"]) == 0
    assert "Judged@10" in capsys.readouterr().out


def test_best_set_of_all_three_in_json_and_text(capsys):
    from core.__main__ import main

    assert main(["scifact", "--data", str(TINY), "--a", "bm25", "--b", "dense", "--json",
                 "--resamples", "500", "--seed", "4"]) == 0
    out = json.loads(capsys.readouterr().out)
    bs = out["best_set"]
    assert bs["n"] == out["n_queries"] and bs["resamples"] == 500 and bs["seed"] == 4
    assert sorted(bs["best"] + bs["behind"]) == ["bm25", "dense", "hybrid"]
    ranks = {r["system"]: r for r in bs["ranks"]}
    for name, sc in out["scores"].items():   # the ranking's means are the shown scores
        assert ranks[name]["mean"] == pytest.approx(sc["ndcg@10"], abs=1e-12)
        assert 1 <= ranks[name]["rank_low"] <= ranks[name]["rank_high"] <= 3
        assert ranks[name]["tied_for_best"] == (name in bs["best"])
    assert main(["scifact", "--data", str(TINY), "--resamples", "500", "--seed", "4"]) == 0
    text = capsys.readouterr().out
    assert "Tied for best (95%, all 3 systems at once" in text
    assert all(f"{r['system']}: mean {r['mean']:.4f}" in text for r in bs["ranks"])


def test_best_method_names_how_the_set_of_all_three_is_read(capsys):
    """--best-method all-pairs: the set is every retriever whose rank interval starts at 1;
    the default (mcb) names itself, is a subset of it, and the rank intervals are the same
    (they come from all pairs whichever method reads the set)."""
    from core.__main__ import main

    base = ["scifact", "--data", str(TINY), "--json", "--resamples", "500", "--seed", "2"]
    assert main(base) == 0
    mcb = json.loads(capsys.readouterr().out)["best_set"]
    assert main([*base, "--best-method", "all-pairs"]) == 0
    allp = json.loads(capsys.readouterr().out)["best_set"]
    assert mcb["method"] == "mcb" and allp["method"] == "all-pairs"
    assert allp["best"] == [r["system"] for r in allp["ranks"] if r["rank_low"] == 1]
    assert set(mcb["best"]) <= set(allp["best"])
    key = lambda r: (r["system"], r["rank_low"], r["rank_high"])  # noqa: E731
    assert list(map(key, mcb["ranks"])) == list(map(key, allp["ranks"]))
    assert all("mcb_high" in r for r in mcb["ranks"]) and \
        not any("mcb_high" in r for r in allp["ranks"])
    assert main(["scifact", "--data", str(TINY), "--resamples", "500", "--best-method",
                 "all-pairs"]) == 0
    assert "simultaneous bootstrap rank intervals of all pairs" in capsys.readouterr().out


def test_a_margin_no_data_could_read_is_refused_before_the_run(tmp_path, capsys):
    """``--margin abc`` exits 2 at once (the retrievers never run: no folder is read)."""
    from core.__main__ import main
    missing = str(tmp_path / "nowhere")
    for text in ("abc", "100pp", "nan"):
        assert main(["scifact", "--data", missing, f"--margin={text}"]) == 2
        err = capsys.readouterr().err
        assert "margin" in err and "nowhere" not in err


def test_harm_block_and_lines_on_the_tiny_fixture(capsys):
    """--harm: the hurt/helped shares of dense - bm25 per query (counts over the compared
    queries, Wilson intervals as core.paired.stats.wilson_interval), TRisk at --alpha; off by
    default."""
    from core.__main__ import main
    from core.paired.stats import wilson_interval

    base = ["scifact", "--data", str(TINY), "--a", "bm25", "--b", "dense", "--resamples", "500"]
    assert main([*base, "--json"]) == 0
    assert "harm" not in json.loads(capsys.readouterr().out)
    assert main([*base, "--json", "--harm", "--alpha", "1", "--harm-delta", "0.1"]) == 0
    out = json.loads(capsys.readouterr().out)
    h = out["harm"]
    assert h["n"] == out["n_queries"] and h["alpha"] == 1 and h["delta"] == 0.1
    assert h["hurt_share"] == pytest.approx(h["hurt"] / h["n"])
    assert h["hurt_ci"] == pytest.approx(list(wilson_interval(h["hurt"], h["n"])))
    assert h["helped_ci"] == pytest.approx(list(wilson_interval(h["helped"], h["n"])))
    assert main([*base, "--harm"]) == 0
    text = capsys.readouterr().out
    assert "TRisk (α = 2" in text or "TRisk (α = 2)" in text
