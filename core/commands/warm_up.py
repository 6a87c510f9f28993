"""``python -m core warm-up``: compile every statistics kernel once, before anyone waits on it
(``core.kernel_cache.warm_up``). ``make run``, ``make test`` and ``.ci/run`` run it.

Silent, exit 0, when the compiled cache is already there and its manifest checks out (a
no-op: no numba import). Otherwise one line on stderr while it compiles (about a minute on
two cores) and one when done. ``--force`` rebuilds; ``--json`` prints what it found and did
(``folders``, ``before`` (each folder's status: ok / absent / unverified / stale / damaged),
``compiled``, ``signatures``, ``seconds``).
"""
from __future__ import annotations

import sys

from core.commands._common import print_json
from core.kernel_cache import warm_up

NAME = "warm-up"
HELP = "compile the statistics kernels once (quiet when they are ready)"


def register(p) -> None:
    p.add_argument("--force", action="store_true",
                   help="remove the compiled kernels and compile them again")
    p.add_argument("--json", action="store_true", help="print what was found and done as JSON")


def run(args) -> int:
    def say(root) -> None:   # before the work, so nobody wonders what the pause is
        if not args.json:
            sys.stderr.write(f"compiling the statistics kernels once into {root} "
                             "(about a minute)...\n")
            sys.stderr.flush()

    done = warm_up(force=args.force, on_compile=say)
    if args.json:
        print_json(done.to_dict())
    elif done.compiled:
        sys.stderr.write(f"compiled {done.signatures} kernel signatures in "
                         f"{done.seconds:.0f} s\n")
    return 0
