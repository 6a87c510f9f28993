"""``python bench/peak_launcher.py -m module args...`` or ``... -c code``: run that in this
process, then write this process's own peak RSS (``VmHWM``, MiB) as JSON to the file named by
``NOISEFLOOR_BENCH_PEAK`` (see ``bench/memory.py``: ``ru_maxrss`` would report a large parent's
peak). Imports only the standard library, so the launcher adds nothing to the figure."""
import atexit
import json
import os
import re
import runpy
import sys


def _write_peak() -> None:
    with open("/proc/self/status") as fh:
        kb = int(re.search(r"VmHWM:\s+(\d+)", fh.read()).group(1))
    with open(os.environ["NOISEFLOOR_BENCH_PEAK"], "w") as fh:
        json.dump({"peak_mb": kb / 1024}, fh)


def main() -> None:
    atexit.register(_write_peak)
    mode, target, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    if mode == "-m":
        sys.argv = [target, *rest]
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    elif mode == "-c":
        sys.argv = ["-c", *rest]
        exec(compile(target, "<string>", "exec"), {"__name__": "__main__"})
    else:
        raise SystemExit(f"usage: {sys.argv[0]} -m module args... | -c code")


if __name__ == "__main__":
    main()
