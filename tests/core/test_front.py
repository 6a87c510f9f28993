"""core._front: a wing's front door loads each public name from its room on first use, keeps
it, lists it, and refuses names it does not know (so ``from wing import room`` still works)."""
import subprocess
import sys
from pathlib import Path

import pytest

from core._front import front_door

ROOT = Path(__file__).resolve().parents[2]


def test_a_name_is_loaded_from_its_room_on_first_use():
    code = ("import sys, core.paired as p; assert 'core.paired.margin' not in sys.modules; "
            "f = p.margin_decision; import core.paired.margin as m; "
            "assert f is m.margin_decision and 'core.paired.margin' in sys.modules; "
            "assert 'margin_decision' in dir(p) and 'margin_decision' in p.__all__; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_an_unknown_name_is_an_attribute_error_and_rooms_still_import():
    import core.paired as p
    with pytest.raises(AttributeError, match="no_such_name"):
        p.no_such_name  # noqa: B018
    from core.paired import stats
    assert stats.__name__ == "core.paired.stats"


def test_a_replaced_name_is_seen_through_the_door(monkeypatch):
    import core.paired as p
    import core.paired.margin as m
    before = p.margin_decision
    monkeypatch.setattr(m, "margin_decision", "replaced")
    assert p.margin_decision == "replaced"
    monkeypatch.undo()
    assert p.margin_decision is before


def test_a_name_listed_twice_is_refused():
    with pytest.raises(ValueError, match="'x'"):
        front_door("core.paired", {"stats": ("x",), "data": ("x",)})
