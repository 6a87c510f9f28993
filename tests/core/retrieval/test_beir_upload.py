"""core.retrieval.beir_upload: your own ``dataset, ndcg@10`` column matched to the grid and tallied."""
import pytest

from core.retrieval.beir_grid import parse_grid
from core.retrieval.beir_table import tally
from core.retrieval.beir_upload import UserColumn, parse_user_column, tally_user, user_column_name
from core.errors import InputError

GRID = parse_grid("""# kinds: BM25=lexical; DPR=dense
dataset,BM25,DPR
SciFact,0.665,0.318
FiQA-2018,0.236,0.112
Touche-2020,0.367,0.131
""")


def test_parse_user_column_matches_names_leniently_in_grid_order():
    col = parse_user_column(b"Dataset;nDCG@10\nwebis-touche2020;0,4\nscifact;0.7\n", GRID,
                            "mine.csv")
    assert isinstance(col, UserColumn) and col.n_datasets == 2
    assert col.values == {"SciFact": 0.7, "Touche-2020": 0.4}
    assert col.spelled == {"SciFact": "scifact", "Touche-2020": "webis-touche2020"}


@pytest.mark.parametrize("data,code,row", [
    (b"dataset,ndcg@10\nscifact,0.7\nmars,0.2\n", "beir_table.err_unknown_dataset", 3),
    (b"dataset,ndcg@10\nscifact,0.7\nSciFact,0.6\n", "beir_table.err_duplicate_dataset", 3),
    (b"dataset,ndcg@10\nscifact,\n", "beir_table.err_blank_value", 2),
    (b"dataset,ndcg@10\n,0.5\n", "beir_table.err_blank_dataset", 2),
    (b"a,b,c\nx,y,z\n", "beir_table.err_columns", None),
])
def test_parse_user_column_names_the_problem(data, code, row):
    with pytest.raises(InputError) as e:
        parse_user_column(data, GRID, "mine.csv")
    assert e.value.code == code and e.value.file == "mine.csv" and e.value.row == row


def test_tally_user_is_the_upload_as_baseline_on_its_datasets():
    col = parse_user_column(b"dataset,score\nscifact,0.7\nfiqa,0.2\n", GRID, "mine.csv")
    t = tally_user(GRID, col, "mine")
    assert t.baseline == "mine" and set(t.datasets) == {"SciFact", "FiQA-2018"}
    bm25 = t.row("BM25")
    assert (bm25.baseline_wins, bm25.model_wins, bm25.ties) == (1, 1, 0)
    ref = tally(GRID.subset(col.values).with_column("mine", col.values), "mine")
    assert ref.to_dict() == t.to_dict()


def test_user_column_name_avoids_clashing_with_a_model():
    assert user_column_name("runs/my_system.csv", GRID) == "my_system"
    assert user_column_name("bm25.csv", GRID) == "bm25 (yours)"
