"""core.errors.InputError: a translatable code with where it happened (file, row, column)."""
import pytest

from core.errors import InputError
from core.i18n import t


def test_message_names_file_row_and_column_in_each_language():
    e = InputError("bad_encoding", file="data.csv", row=7, column="score")
    assert isinstance(e, ValueError)
    assert (e.code, e.file, e.row, e.column, e.params) == ("bad_encoding", "data.csv", 7,
                                                             "score", {})
    en = str(e)
    assert en == e.message("en")
    assert en.startswith("data.csv, row 7, column 'score': ")
    assert en.endswith(t("errors.bad_encoding", "en"))
    ko = e.message("ko")
    assert "data.csv" in ko and "7" in ko and ko.endswith(t("errors.bad_encoding", "ko"))
    assert ko != en


def test_a_dotted_code_is_read_from_its_namespace_and_params_fill_it():
    e = InputError("latency.err_bad_run", file="t.csv", row=3, column="run", value="x")
    assert str(e) == "t.csv, row 3, column 'run': " + t("latency.err_bad_run", "en", value="x")


def test_without_a_location_the_message_is_the_text_alone():
    e = InputError("systems.err_need_qrels")
    assert e.where() == "" and str(e) == t("systems.err_need_qrels", "en")


def test_a_template_may_name_its_own_location():
    """``column`` is passed to the template too ("column number {column}")."""
    e = InputError("blank_header", file="x.csv", column="3")
    assert "3" in t("errors.blank_header", "en", column="3") and "x.csv" in str(e)


def test_an_unknown_code_fails_loudly_in_tests():
    with pytest.raises(KeyError):
        InputError("no_such_code_anywhere")
