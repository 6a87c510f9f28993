"""NoiseFloor command line: ``python -m core <command> ...``.

Each command lives in ``core/commands/<name>.py`` and exposes ``NAME``, ``HELP``,
``register(parser)`` and ``run(args) -> int``; this shell discovers them, so adding a command
never edits this file. Exit codes: 0 success, 2 bad input (one line on stderr, no traceback), 141 when the reader of
stdout went away (``compare ... | head -1``): what a shell reports for a writer ended by
SIGPIPE, said quietly, never "bad input".
"""
from __future__ import annotations

import argparse
import gc
import importlib
import os
import pkgutil
import re
import sys
from contextlib import contextmanager

from core import __version__, commands
from core.errors import InputError

EXIT_OK, EXIT_BAD_INPUT = 0, 2
EXIT_PIPE = 128 + 13  # 141: the shell's status for a writer killed by SIGPIPE (`yes | head -1`)

# Characters a terminal acts on instead of showing: C0 controls but tab and newline (ESC starts
# ANSI/OSC sequences: window title, clipboard, clear screen), DEL, the C1 controls (U+009B is a
# one-character CSI) and the bidi controls that reorder a line. Shown as \\uXXXX, which is
# also a valid escape inside JSON strings, so JSON output stays parseable.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_ERR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e"
                         "\u2066-\u2069]")  # stderr keeps CR (progress lines)


def terminal_safe(text: str, *, keep_cr: bool = False) -> str:
    """``text`` with every control character a terminal would act on written as ``\\uXXXX``."""
    pattern = _UNSAFE_ERR if keep_cr else _UNSAFE
    return pattern.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class _SafeStream:
    """A text stream that writes everything through ``terminal_safe``: names from a file
    (methods, ids, sheets) can never move the cursor, retitle the window or set the
    clipboard, whichever command prints them."""

    def __init__(self, stream, *, keep_cr: bool = False) -> None:
        self._stream, self._keep_cr = stream, keep_cr

    def write(self, text: str) -> int:
        return self._stream.write(terminal_safe(text, keep_cr=self._keep_cr))

    def __getattr__(self, name):
        return getattr(self._stream, name)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        sys.stderr.write(f"error: {message}\n")
        raise SystemExit(EXIT_BAD_INPUT)


def _command_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(commands.__path__)
                  if not m.name.startswith("_"))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser with every command, or with just ``only`` (a module name), so that running
    one command does not import the others' libraries."""
    parser = _Parser(prog="python -m core",
                     description="NoiseFloor: is the difference real, or the noise of n cases?")
    parser.add_argument("--version", action="version", version=f"NoiseFloor {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in _command_modules():
        if only is not None and name != only:
            continue
        mod = importlib.import_module(f"core.commands.{name}")
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.register(p)
        p.set_defaults(_run=mod.run)
    return parser


@contextmanager
def cycles_collected_after(*, freeze: bool = False):
    """Python's cyclic garbage collector paused for the block (reference counting frees
    everything else as usual), then restored. Reading a 100,000-row file and loading numba's
    kernels allocate millions of objects, and every 700 allocations start a collection walking
    the young ones, every so often all of them: 0.14 s of a 2 s latency run, about 0.3 s of a
    3.5 s ``compare`` of 100,000 cases (issue 25, docs/speed.md).

    With ``freeze`` the objects still alive after the block (numba's registries, the modules
    imported, the results) move to the collector's permanent generation (``gc.freeze``)
    before it is turned back on, so the collections at interpreter exit do not walk them
    again: another 0.15-0.2 s, for a process about to end. Cycles among them are then never
    collected, so only ``python -m core``'s own process freezes (below); a caller running
    ``main`` in-process (tests) keeps its collector as it was."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if was:
            gc.enable()


def main(argv: list[str] | None = None, *, freeze: bool = False) -> int:
    """Run one command with the cyclic collector paused (``cycles_collected_after``);
    ``freeze`` only from ``python -m core``'s own process."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _SafeStream(out), _SafeStream(err, keep_cr=True)
    try:
        with cycles_collected_after(freeze=freeze):
            try:
                code = _main(argv)
            except ModuleNotFoundError as exc:
                if not exc.name or exc.name.partition(".")[0] == "core":
                    raise  # a module of NoiseFloor itself: a bug, keep the traceback
                sys.stderr.write(missing_package_line(exc.name))
                return EXIT_BAD_INPUT
            out.flush()  # a closed pipe shows here, not in the interpreter's exit
            return code
    except BrokenPipeError:
        _discard(out)
        return EXIT_PIPE
    finally:
        sys.stdout, sys.stderr = out, err


def _discard(stream) -> None:
    """Point ``stream``'s file descriptor at /dev/null: the reader has gone, and the
    interpreter's final flush must not raise again (Python's documented way, ``signal``
    module, "Note on SIGPIPE")."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # an in-memory stream (tests)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def missing_package_line(name: str) -> str:
    """The one line for a Python that lacks a package the command imports (the system's
    ``python`` instead of the one ``make run``/``make test`` installed into ``.venv``)."""
    return (f"error: this Python ({sys.executable}) has no package '{name.partition('.')[0]}';"
            " run NoiseFloor's own: .venv/bin/python -m core ... (created by `make run` or "
            "`make test`), or make cli ARGS=\"...\"\n")


def _main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    first = argv[0].replace("-", "_") if argv and not argv[0].startswith("-") else None
    only = first if first in _command_modules() else None
    args = build_parser(only).parse_args(argv)
    try:
        return int(args._run(args) or EXIT_OK)
    except InputError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_BAD_INPUT
    except ValueError as exc:  # argument checks in core raise ValueError naming the argument
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        raise  # the reader of stdout left: main() ends quietly
    except OSError as exc:
        sys.stderr.write(f"error: {getattr(exc, 'filename', '') or ''}: {exc.strerror or exc}\n")
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main(freeze=True))  # the CLI's own process: frozen for its exit
