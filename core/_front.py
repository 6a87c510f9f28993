"""A wing's front door: its ``__init__`` names the public surface (``PUBLIC``: module -> the
names other wings, pages and the CLI may import) and each name is loaded from its room on first
use (PEP 562 ``__getattr__``).

Lazy on purpose and measured: ``python -m core compare`` enters only the rooms it uses, so a
front door that imported every room would load pandas, scipy.stats and numba for commands that
never touch them (``bench/bench_cli.py``;
``tests/core/test_layout.py::test_the_compare_path_imports_no_heavy_library``)."""
from __future__ import annotations

import importlib
import sys


def front_door(package: str, public: dict[str, tuple[str, ...]]):
    """``__getattr__``, ``__dir__`` and ``__all__`` for the package ``package`` whose public
    names are ``public`` (module -> names). Each access reads the name from its module (imported
    on first use), so the door never holds a stale copy: a test that replaces a module's name
    (``monkeypatch.setattr``) is seen through the door too. An unknown name raises
    ``AttributeError`` (which also lets ``from package import submodule`` find a submodule)."""
    where = {}
    for module, names in public.items():
        for name in names:
            if name in where:
                raise ValueError(f"{package}: {name!r} named by both {where[name]} and {module}")
            where[name] = module

    def __getattr__(name: str):
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    def __dir__():
        return sorted(set(where) | set(vars(sys.modules[package])))

    return __getattr__, __dir__, sorted(where)
