"""core.__main__: the CLI shell discovers commands, exits 0 / 2 and prints one line on error."""
import pytest

from core.__main__ import EXIT_BAD_INPUT, EXIT_OK, build_parser, main

COMMANDS = {"agreement", "beir-table", "compare", "decide", "latency", "sample-size", "scifact"}


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
