"""core.views.sequential: the CLI lines in EN and KO carry the sequence's own numbers."""
import numpy as np

from core.inputs.arrival import Arrival
from core.paired.sequential import sequential_compare
from core.views.sequential import order_text, peeking_line, sequential_lines, unsorted_note


def _seq():
    rng = np.random.default_rng(0)
    a = (rng.random(60) < 0.5).astype(float)
    b = np.where(rng.random(60) < 0.3, 1.0, a)
    return sequential_compare(a, b, sets=300)


def test_lines_in_both_languages_carry_the_numbers():
    seq = _seq()
    arrival = Arrival("date", {}, (4, 9))
    for lang in ("en", "ko"):
        lines = sequential_lines(seq, "A", "B", arrival, lang)
        text = "\n".join(lines)
        assert f"{100 * seq.a.mean:.1f}%" in text and f"{100 * seq.b.mean:.1f}%" in text
        assert f"{100 * seq.last.ci_low:+.1f} %p" in text
        assert f"{100 * seq.peeking.rate:.1f}%" in text and "4, 9" in text
        assert str(seq.peeking.looks) in text
    assert "신뢰 수열" in "\n".join(sequential_lines(seq, "A", "B", arrival, "ko"))


def test_order_and_notes():
    assert order_text(None) == "in file order"
    assert order_text(Arrival("added", {}, ())) == "in the order of column 'added'"
    assert unsorted_note(Arrival("added", {}, ())) is None
    assert "row 3" in unsorted_note(Arrival("added", {}, (3,)))
    seq = _seq()
    assert "every case from 10 to 60" in peeking_line(seq)


def test_the_charts_data_are_the_sequences_numbers():
    from core.views.sequential import sequence_chart, sequence_frame
    seq = _seq()
    df = sequence_frame(seq)
    assert list(df["n"]) == [look.n for look in seq.history]
    assert np.allclose(df["seq_low"], [100 * look.ci_low for look in seq.history])
    assert np.allclose(df["fixed_high"], [100 * hi for _, hi in seq.fixed])
    assert np.allclose(df["b_minus_a"], [100 * look.b_minus_a for look in seq.history])
    for lang in ("en", "ko"):
        assert sequence_chart(seq, lang).to_dict()["layer"]
