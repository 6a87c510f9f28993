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
    names are ``public`` (module -> names). A name is imported from its module on first access
    and then kept in the package, so the next access is a plain lookup; an unknown name raises
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
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__():
        return sorted(set(where) | set(vars(sys.modules[package])))

    return __getattr__, __dir__, sorted(where)
