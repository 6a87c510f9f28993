"""core.inputs.arrival: the order cases arrived in (file order, or a date/added column), and
the messages naming rows for unreadable, mixed or conflicting dates."""
import pytest

from core.errors import InputError
from core.inputs.arrival import Arrival, load_arriving, parse_arrival


def _load(text):
    return load_arriving(text.encode(), file="g.csv")


def test_file_order_without_a_column():
    cl, arrival = _load("case_id,A,B\nq2,1,0\nq1,0,1\nq3,1,1\n")
    assert arrival == Arrival() and arrival.order(["q2", "q1", "q3"]) == [0, 1, 2]
    assert cl.golden.methods == ["A", "B"]


def test_a_date_column_orders_the_cases_and_names_the_rows_out_of_order():
    cl, arrival = _load("case_id,date,A,B\nq1,2026-03-02,1,0\nq2,2026-03-01,0,1\n"
                        "q3,2026-03-03 10:00,1,1\nq4,2026/03/01,0,0\n")
    assert cl.golden.methods == ["A", "B"]   # the date column is not a method
    assert arrival.column == "date" and arrival.unsorted_rows == (3, 5)
    assert arrival.order(["q1", "q2", "q3", "q4"]) == [1, 3, 0, 2]   # ties keep file order
    assert arrival.to_dict() == {"by": "column", "column": "date", "unsorted_rows": [3, 5]}


def test_batch_numbers_and_long_files():
    cl, arrival = _load("case_id,method,score,added\nq1,A,1,2\nq1,B,0,2\nq2,A,0,1\nq2,B,1,1\n")
    assert arrival.column == "added" and arrival.order(["q1", "q2"]) == [1, 0]
    assert sorted(cl.golden.methods) == ["A", "B"]


@pytest.mark.parametrize("text,code,row", [
    ("case_id,date,A,B\nq1,2026-03-01,1,0\nq2,next week,0,1\nq3,soon,1,1\n", "sequential.err_bad_date", 3),
    ("case_id,date,A,B\nq1,2026-02-30,1,0\n", "sequential.err_bad_date", 2),
    ("case_id,date,A,B\nq1,2026-03-01,1,0\nq2,7,0,1\n", "sequential.err_mixed_dates", 3),
    ("case_id,method,score,date\nq1,A,1,2026-03-01\nq1,B,0,2026-03-02\n", "sequential.err_two_dates", 3),
])
def test_bad_dates_name_the_rows(text, code, row):
    with pytest.raises(InputError) as e:
        _load(text)
    assert e.value.code == code and e.value.row == row
    assert e.value.column == "date" and "row" in e.value.message("en")
    assert e.value.message("ko")


def test_parse_arrival():
    assert parse_arrival("2026-03-01")[0] == 0 and parse_arrival("12,5") == (1, 12.5)
    assert parse_arrival("nan") is None and parse_arrival("") is None
