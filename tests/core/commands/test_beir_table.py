"""``python -m core beir-table``: the tally of the stored grid, with and without your column."""
import json

from core.__main__ import main
from core.retrieval.beir_grid import load_grid
from core.retrieval.beir_table import tally


def test_json_is_the_tally_of_the_stored_grid_with_its_source(capsys):
    assert main(["beir-table", "--baseline", "BM25", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    grid = load_grid()
    want = tally(grid, "BM25").to_dict()
    assert {k: out[k] for k in want} == want
    assert out["source"] == {"citation": grid.citation, "url": grid.url, "metric": grid.metric}


def test_added_column_is_tallied_against_the_baseline_and_as_its_own_baseline(tmp_path, capsys):
    f = tmp_path / "mine.csv"
    f.write_text("dataset;ndcg@10\nscifact;0,7\nnfcorpus;0,3\n")
    assert main(["beir-table", "--add", str(f), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["added"]["name"] == "mine" and out["added"]["n_datasets"] == 2
    assert out["added"]["baseline"] == "mine" and len(out["added"]["datasets"]) == 2
    assert any(r["model"] == "mine" for r in out["rows"])
    assert main(["beir-table", "--add", str(f)]) == 0
    text = capsys.readouterr().out
    assert "mine: 2 of 18 datasets" in text


def test_bad_baseline_or_file_exits_2(tmp_path, capsys):
    assert main(["beir-table", "--baseline", "nope"]) == 2
    assert "baseline" in capsys.readouterr().err
    f = tmp_path / "x.csv"
    f.write_text("dataset,ndcg@10\nmars,0.5\n")
    assert main(["beir-table", "--add", str(f)]) == 2
