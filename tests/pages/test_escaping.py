"""One way to put user text on screen (issue 21): every call in ``pages/`` (and app.py) that
renders Markdown or a table must get its text from the escaping helpers of ``pages/_ui.py``.

The rule, checked on the syntax tree of every page (no page is run):

- Rendering calls: ``markdown, write, caption, table, dataframe, data_editor, error,
  warning, info, success, toast, exception, metric, title, header, subheader, expander,
  tabs`` on any receiver (``st``, a column, a container, a tab), and
  their ``label=``, ``help=``, ``body=`` keywords.
- ``st.table`` / ``st.dataframe`` / ``st.data_editor`` are never called in a page: use
  ``pages._ui.show_table`` (escapes every cell and header) and ``pages._ui.show_frame`` (the
  grid shows cells as text; no link or image columns).
- Every other rendering argument must be *safe*: a string or number literal; ``esc(...)``,
  ``tr_md(...)``, ``verdict_md(...)``, ``esc_frame(...)``, ``glossary(...)``,
  ``second_opinions(...)``, ``shipped(...)`` (text shipped with the app, never an upload);
  ``tr(key, ...)`` (and the sentence builders in ``TR_LIKE``) whose keyword parameters are
  all safe; a number
  (``len``, ``int``, ``round``, the ``core.views.format`` formatters, an f-string field with a
  numeric format such as ``{x:.3f}`` or ``{n:,}``); an f-string, ``+``, ``%``, ``a if c else
  b`` or ``sep.join(xs)`` made of safe parts; or a name every assignment of which (including
  ``xs.append(...)``) in the module is safe.

Anything else (a variable holding a method name, ``str(x)``, an attribute, a subscript) is a
finding: wrap it in ``esc`` or pass it as a ``tr_md`` parameter.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import core.views as core_views

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]
HELPERS = ROOT / "pages" / "_ui.py"

RENDER = {"markdown", "write", "caption", "table", "dataframe", "data_editor", "error",
          "warning", "info", "success", "toast", "exception", "metric", "title", "header",
          "subheader", "expander", "tabs"}
RENDER_KEYWORDS = {"body", "label", "help", "value", "delta", "data"}
FRAMES = {"table", "dataframe", "data_editor"}
SAFE_CALLS = {"esc", "tr_md", "verdict_md", "esc_frame", "glossary", "second_opinions",
              "show_table", "show_frame", "uploader_css", "shipped", "page_setup",
              "current_lang"}
SAFE_NAMES = {"PRESENT_CSS"}  # trusted constants of pages._ui
# translated sentences whose user-text parameters are keywords (escaped by the caller)
TR_LIKE = {"tr", "alternative_sentence", "speed_sentence", "reason_sentence",
           "verdict_sentence", "degenerate_note"}
NUMERIC_CALLS = {"len", "int", "float", "round", "abs", "min", "max", "sum", "pct", "pp",
                 "fmt_p", "fmt_level", "level", "fmt_num", "fmt_ci", "value"}
NUMERIC_SPEC = set("fdegn%,xXob")
NUMERIC_OPS = (ast.Sub, ast.Div, ast.FloorDiv, ast.Pow)  # never defined for text
FORMAT_MODULE = "core.views.format"  # its functions format numbers
FORMAT_NAMES = set(core_views.PUBLIC["format"])   # the same, through the views' front door

def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


class Checker:
    """Safe-expression analysis of one module. A name is looked up in its function's scope
    (parameters are unknown text), then in the module's; each is resolved to a fixpoint."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.scope_of: dict[int, ast.AST] = {}
        self._scopes(tree, tree)
        self.assigned: dict[tuple[int, str], list[ast.expr | None]] = {}
        for node in ast.walk(tree):
            scope = self.scope_of.get(id(node), tree)
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._bind(scope, target, node.value)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                self._bind(scope, node.target, node.value)
            elif isinstance(node, ast.For):  # for x in xs: x is as safe as xs' items
                self._bind_items(scope, node.target, node.iter)
            elif isinstance(node, ast.comprehension):
                self._bind_items(scope, node.target, node.iter)
            elif isinstance(node, ast.With):
                for item in node.items:
                    if item.optional_vars is not None:
                        self._bind(scope, item.optional_vars, None)
            elif isinstance(node, (ast.FunctionDef, ast.Lambda)):
                a = node.args
                for arg in a.args + a.kwonlyargs + a.posonlyargs + \
                        [x for x in (a.vararg, a.kwarg) if x is not None]:
                    self.assigned.setdefault((id(node), arg.arg), []).append(None)
            elif isinstance(node, ast.NamedExpr):
                self._bind(scope, node.target, node.value)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                self.assigned.setdefault((id(scope), node.name), []).append(None)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in ("append", "extend", "insert") and \
                    isinstance(node.func.value, ast.Name):
                arg = node.args[-1] if node.args else None
                if node.func.attr == "extend" and arg is not None and \
                        not isinstance(arg, (ast.List, ast.Tuple, ast.ListComp)):
                    arg = None
                elif node.func.attr == "extend" and arg is not None:
                    arg = arg.elts[0] if isinstance(arg, (ast.List, ast.Tuple)) and arg.elts \
                        else getattr(arg, "elt", None)
                key = self._key(scope, node.func.value.id)
                self.assigned.setdefault(key, []).append(arg)
        self.numeric_calls = set(NUMERIC_CALLS)
        self.format_modules: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == FORMAT_MODULE:
                self.numeric_calls |= {a.asname or a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module == "core.views":
                self.format_modules |= {a.asname or a.name for a in node.names
                                        if a.name == "format"}
                # the front door's names of core.views.format format numbers too
                self.numeric_calls |= {a.asname or a.name for a in node.names
                                       if a.name in FORMAT_NAMES}
        self.safe_keys: set[tuple[int, str]] = set()
        self.safe_calls: set[str] = set(SAFE_CALLS)
        functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
        changed = True
        while changed:  # names and functions whose every value is safe, to a fixpoint
            changed = False
            for key, values in self.assigned.items():
                if key not in self.safe_keys and all(v is not None and self.safe(v)
                                                     for v in values):
                    self.safe_keys.add(key)
                    changed = True
            for fn in functions:
                returns = [r.value for r in ast.walk(fn) if isinstance(r, ast.Return)]
                if fn.name not in self.safe_calls and returns and \
                        all(r is not None and (self.safe(r) or self.numeric(r))
                            for r in returns):
                    self.safe_calls.add(fn.name)
                    changed = True

    def _scopes(self, node: ast.AST, scope: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            self.scope_of[id(child)] = scope
            inner = child if isinstance(child, (ast.FunctionDef, ast.Lambda)) else scope
            self._scopes(child, inner)

    def _key(self, scope: ast.AST, name: str) -> tuple[int, str]:
        """Where ``name`` used in ``scope`` is bound: that function, else the module."""
        if (id(scope), name) in self.assigned or scope is self.tree:
            return (id(scope), name)
        return (id(self.tree), name)

    def _items(self, scope: ast.AST, it: ast.expr) -> list[ast.expr] | None:
        """The expressions an iterable literally holds (a list/tuple literal, a name bound
        to such literals), else None (unknown)."""
        if isinstance(it, (ast.List, ast.Tuple)):
            return list(it.elts)
        if isinstance(it, ast.Name):
            values = self.assigned.get(self._key(scope, it.id), [])
            if values and all(isinstance(v, (ast.List, ast.Tuple)) for v in values):
                return [e for v in values for e in v.elts]
        return None

    def _bind_items(self, scope: ast.AST, target: ast.expr, it: ast.expr) -> None:
        if isinstance(it, ast.Call) and _name(it.func) == "zip" and \
                isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(it.args):
            for t, a in zip(target.elts, it.args):
                self._bind_items(scope, t, a)
            return
        if isinstance(target, ast.Name):
            self._bind(scope, target, it if isinstance(it, (ast.Name, ast.List, ast.Tuple))
                       else None)
            return
        items = self._items(scope, it)
        if isinstance(target, (ast.Tuple, ast.List)) and items is not None and \
                all(isinstance(e, (ast.Tuple, ast.List)) and len(e.elts) == len(target.elts)
                    for e in items):
            for i, t in enumerate(target.elts):
                column = [e.elts[i] for e in items]
                if isinstance(t, ast.Name):  # each item's part is one value of the name
                    for e in column:
                        self._bind(scope, t, e)
                else:
                    self._bind_items(scope, t, ast.List(elts=column))
            return
        if isinstance(target, ast.Name) or items is None:
            self._bind(scope, target, None)
            return
        self._bind(scope, target, None)

    def _bind(self, scope: ast.AST, target: ast.expr, value: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            self.assigned.setdefault((id(scope), target.id), []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:  # unpacking: each part is unknown
                self._bind(scope, elt, None)

    def name_safe(self, node: ast.Name) -> bool:
        if node.id in SAFE_NAMES:
            return True
        scope = self.scope_of.get(id(node), self.tree)
        while True:
            if (id(scope), node.id) in self.assigned:
                return (id(scope), node.id) in self.safe_keys
            if scope is self.tree:
                return False
            scope = self.scope_of.get(id(scope), self.tree)

    def numeric(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, (int, float)) and not isinstance(node.value, bool) \
                or node.value is None
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                    func.value.id in self.format_modules:
                return True  # fmt.diff(...), fmt.value(...): numbers formatted
            name = _name(func)
            if name in ("len", "int", "float", "round", "abs") or name in self.numeric_calls:
                return True
            if isinstance(func, ast.Name):  # fmt = _f / pct: a name bound to formatters
                scope = self.scope_of.get(id(func), self.tree)
                values = self.assigned.get(self._key(scope, func.id), [])
                return bool(values) and all(
                    isinstance(v, ast.Name) and (v.id in self.numeric_calls or
                                                 v.id in self.safe_calls) for v in values)
            return False
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, NUMERIC_OPS):
                return True
            return self.numeric(node.left) and self.numeric(node.right)
        if isinstance(node, ast.UnaryOp):
            return self.numeric(node.operand)
        return False

    def safe(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.JoinedStr):
            return all(self.safe(v) for v in node.values)
        if isinstance(node, ast.FormattedValue):
            spec = node.format_spec
            if spec is not None and isinstance(spec, ast.JoinedStr) and spec.values and \
                    isinstance(spec.values[-1], ast.Constant):
                text = str(spec.values[-1].value)
                if text and text[-1] in NUMERIC_SPEC:
                    return True  # only numbers format with f, d, %, ","...
            return self.safe(node.value) or self.numeric(node.value)
        if isinstance(node, ast.Name):
            return self.name_safe(node)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Mod):
                return self.safe(node.left) and (self.safe(node.right) or
                                                 self.numeric(node.right))
            return (self.safe(node.left) or self.numeric(node.left)) and \
                (self.safe(node.right) or self.numeric(node.right))
        if isinstance(node, ast.IfExp):
            return self.safe(node.body) and self.safe(node.orelse)
        if isinstance(node, (ast.List, ast.Tuple)):
            return all(self.safe(e) for e in node.elts)
        if isinstance(node, ast.Dict):
            return all(self.safe(v) for v in node.values)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and \
                node.slice.value == "lang" and _name(node.value) == "session_state":
            return True  # the language code, checked against LANGS by page_setup
        if isinstance(node, ast.Subscript):  # a constant table of trusted labels
            return isinstance(node.value, ast.Name) and node.value.id.isupper() and \
                self.name_safe(node.value)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            return self.safe(node.elt)
        if isinstance(node, ast.Call):
            name = _name(node.func)
            if name in self.safe_calls and isinstance(node.func, ast.Name):
                return True
            if name in SAFE_CALLS:
                return True
            if name in TR_LIKE:  # names travel as keywords; positionals are codes/results
                return all(self.safe(k.value) or self.numeric(k.value) for k in node.keywords)
            if name == "join" and isinstance(node.func, ast.Attribute):
                return self.safe(node.func.value) and all(self.safe(a) for a in node.args)
            if name in ("strip", "upper", "lower", "format") and \
                    isinstance(node.func, ast.Attribute):
                return self.safe(node.func.value) and \
                    all(self.safe(a) or self.numeric(a) for a in node.args) and \
                    all(self.safe(k.value) or self.numeric(k.value) for k in node.keywords)
            return self.numeric(node)
        return self.numeric(node)


def findings(path: Path) -> list[str]:
    """``file:line: call(arg)`` for every rendering call whose text may be raw user text."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    checker = Checker(tree)
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        attr = node.func.attr
        if attr not in RENDER or not (node.args or node.keywords):
            continue
        receiver = node.func.value
        if isinstance(receiver, ast.Call) or (isinstance(receiver, ast.Name) and
                                              receiver.id in ("pd", "np", "df", "self")):
            continue  # a frame's or library's own method (many.table(), df.info())
        where = f"{path.relative_to(ROOT)}:{node.lineno}: .{attr}"
        if attr in FRAMES:
            out.append(f"{where}: call show_table/show_frame from pages._ui instead")
            continue
        args = list(node.args) + [k.value for k in node.keywords if k.arg in RENDER_KEYWORDS]
        if attr == "tabs" and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)):
            args = list(node.args[0].elts) + args[1:]
        for arg in args:
            if not checker.safe(arg):
                out.append(f"{where}({ast.unparse(arg)[:60]})")
    return out


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_user_text_reaches_the_screen_only_through_the_escaping_helpers(path):
    if path == HELPERS:
        pytest.skip("the helpers themselves (checked by test_helpers_escape_by_construction)")
    found = findings(path)
    assert found == [], "\n".join(found)


def test_the_checker_catches_raw_user_text():
    """The rule can fail: each line below is a finding, each safe line is not."""
    bad = [
        "st.warning(tr('systems.empty', method=m))",
        "st.caption(name)",
        "col.markdown(f'**{a}** vs {b}')",
        "st.metric(method, 0.5)",
        "st.table(df)",
        "st.dataframe(df)",
        "st.error(str(exc))",
        "st.info('x' + row['title'])",
        "st.subheader(', '.join(sources))",
        "st.tabs([s for s in sources])",
        "st.expander(label=doc_id)",
        "st.write(x.title)",
    ]
    good = [
        "st.warning(tr_md('systems.empty', method=m))",
        "st.caption(esc(name))",
        "st.markdown(f'**{esc(a)}** vs {esc(b)}')",
        "st.metric(tr('golden.n'), f'{n:,}')",
        "show_table(df)",
        "show_frame(df)",
        "st.caption(tr('common.x', n=len(xs), alpha=f'{alpha:.2f}'))",
        "notes = []\nnotes.append(tr_md('a', m=m))\nst.caption(' '.join(notes))",
        "st.tabs([tr('a'), tr('b')])",
    ]
    for src in bad:
        tree = ast.parse("import streamlit as st\n" + src)
        path = ROOT / "pages" / "_probe.py"
        assert _findings_of(tree, path), src
    for src in good:
        tree = ast.parse("import streamlit as st\n" + src)
        assert not _findings_of(tree, ROOT / "pages" / "_probe.py"), src


def _findings_of(tree: ast.Module, path: Path) -> list[str]:
    src = ast.unparse(tree)
    tmp = ROOT / "pages" / "__pycache__"
    tmp.mkdir(exist_ok=True)
    probe = tmp / "_escaping_probe.py"
    probe.write_text(src, encoding="utf-8")
    try:
        return findings(probe)
    finally:
        probe.unlink()


def test_helpers_escape_by_construction():
    """show_table escapes every string cell, header and index label; show_frame passes a
    frame to the text grid without link or image columns; esc leaves no Markdown active."""
    import pandas as pd

    from pages._ui import esc, esc_frame

    evil = "![x](http://127.0.0.1:9/x.png) **b** <img src=x> :red[r] $x$ http://h.io"
    shown = esc(evil)
    for raw in ("![", "](", "**", ":red[", "$x$"):
        assert raw not in shown
    assert "\\<img" in shown
    df = esc_frame(pd.DataFrame({evil: [evil, 1.0]}, index=[evil, "b"]))
    assert "![" not in df.columns[0] and "![" not in df.iloc[0, 0] and "![" not in df.index[0]
    src = HELPERS.read_text(encoding="utf-8")
    assert "def show_table" in src and "def show_frame" in src
    assert "LinkColumn" not in src and "ImageColumn" not in src
