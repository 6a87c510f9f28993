"""core.__main__: the CLI shell discovers commands, exits 0 / 2 and prints one line on error."""
import pytest

from core.__main__ import EXIT_BAD_INPUT, EXIT_OK, build_parser, main

COMMANDS = {"agreement", "beir-table", "compare", "decide", "latency", "sample-size", "scifact",
            "warm-up"}


def _commands(parser):
    sub = next(a for a in parser._actions if a.dest == "command")
    return set(sub.choices)


def test_every_command_module_is_discovered():
    assert _commands(build_parser()) == COMMANDS


def test_only_builds_just_one_command():
    assert _commands(build_parser("compare")) == {"compare"}
    assert _commands(build_parser("beir_table")) == {"beir-table"}


def test_exit_codes_and_one_line_errors(capsys, tmp_path):
    assert main(["sample-size", "--rate", "0.8", "--half-width", "0.05"]) == EXIT_OK
    assert capsys.readouterr().out
    assert main(["compare", str(tmp_path / "none.csv")]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1
    assert main(["compare", str(tmp_path / "none.csv"), "--resamples", "0"]) == EXIT_BAD_INPUT


def test_usage_errors_exit_2_with_one_line(capsys):
    with pytest.raises(SystemExit) as e:
        main(["frobnicate"])
    assert e.value.code == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "invalid choice" in err and len(err.strip().splitlines()) == 1


def test_terminal_safe_shows_control_characters_as_escapes():
    from core.__main__ import terminal_safe

    text = "bm25\x1b]0;pwned\x07\u202e name\r\n한"
    out = terminal_safe(text)
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "\\u001b" in out and "\\u202e" in out and out.endswith("name\\u000d\n한")
    assert terminal_safe("50%\rdone", keep_cr=True) == "50%\rdone"


def test_only_the_cli_process_freezes_what_is_left_for_its_exit(capsys):
    """Issue 25: every command runs with the cyclic collector paused; only ``python -m core``
    (``main(freeze=True)``) moves what is alive after it to the permanent generation, so the
    collections at exit do not walk numba's and pandas' objects again. In-process callers
    keep their collector as it was, nothing frozen."""
    import gc

    from core.__main__ import cycles_collected_after

    before = gc.get_freeze_count()
    assert main(["sample-size", "--rate", "0.8", "--half-width", "0.05"]) == EXIT_OK
    assert gc.isenabled() and gc.get_freeze_count() == before
    with cycles_collected_after():
        assert not gc.isenabled()
    assert gc.isenabled() and gc.get_freeze_count() == before
    try:
        assert main(["sample-size", "--rate", "0.8", "--half-width", "0.05"],
                    freeze=True) == EXIT_OK
        assert gc.isenabled() and gc.get_freeze_count() > before
    finally:
        gc.unfreeze()
    capsys.readouterr()


def test_the_cli_process_runs_with_the_collector_back_on_after_the_command(tmp_path):
    """``python -m core`` end to end: the command's output is unchanged by the pause, and a
    bad file still exits 2 with one line (the collector is restored on the error path)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    ok = subprocess.run([sys.executable, "-m", "core", "compare",
                         str(root / "data" / "demo_golden.csv"), "--json"],
                        cwd=root, capture_output=True, text=True, timeout=300)
    assert ok.returncode == EXIT_OK and '"verdict"' in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "core", "compare", str(tmp_path / "no.csv")],
                         cwd=root, capture_output=True, text=True, timeout=300)
    assert bad.returncode == EXIT_BAD_INPUT and len(bad.stderr.strip().splitlines()) == 1
