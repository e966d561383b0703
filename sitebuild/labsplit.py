"""The browser's lab in pieces: a core the page boots on, and what each widget adds when it nears.

The page goes live on ``import lab.views``, re-runs the seed audit and draws the seed's widgets
(:data:`lab.instruments.SEED`); nothing else is needed before a reader scrolls. So the lab ships as

* the **core**: ``lab.views`` and what it imports when imported (its functions route to parts the
  worker loads by kind; ``page_context`` is the build's), plus what importing the seed's widgets
  imports (an import inside a function that only some settings reach stays in its chunk; the
  worker loads it when the import misses);
* the **seed audit's** modules (what importing ``lab.audit`` imports, minus the core: the exact
  sampler, its Fractions and the statistics): the page goes live before the audit runs, so they are
  no part of the first load; the page loads them right after (:data:`Split.audit`), before the seed
  audit and the exact sampler's first render, which imports them too;
* one **chunk** per set of widgets that share modules the core lacks: a widget's modules are the
  closure of ``lab.widgets.NAME`` and, for an instrument, its family ``lab.checks.NAME`` (the
  in-browser instruments suite re-runs a family once its widget is loaded), minus the core.
  Modules two widgets need travel once, in the chunk of that pair (the seed audit counts as one
  more such reader, :data:`AUDIT`: every family's checks import it).

Nothing here names a module: the split follows the imports the code writes (``import``, ``from .. import``,
at module level or inside a function), so moving a module (a package in place of a file, a module
split in two) needs no edit here. An import the scan cannot see (``importlib`` with a computed
name) is the widget table's own convention (:func:`lab.instruments.part`), whose targets are the roots.
``tests/test_lab_split.py`` imports each widget and runs its family from the core and its chunks alone.
"""

from __future__ import annotations

import ast
import re
from typing import NamedTuple

from .stdlib import _add_import, _resolver, module_level_imports

# The router: its functions import what a request names (a widget, an audit) and what the build
# alone calls (page_context); the worker loads those by kind, so only its import-time imports
# belong to the core.
ROUTER = "views"
# The seed audit: requested by kind "audit" (lab.views imports it on first use), read by no widget's
# first load; its modules are one more reader of chunks, named after it.
AUDIT = "audit"


class Split(NamedTuple):
    core: tuple[str, ...]                  # relative paths (POSIX, inside the package)
    chunks: dict[str, tuple[str, ...]]     # chunk name -> relative paths
    widgets: dict[str, tuple[str, ...]]    # widget kind -> the chunk names it needs, in order
    audit: tuple[str, ...] = ()            # the chunk names the seed audit needs (loaded right after live)


def module_names(files) -> dict[str, str]:
    """{dotted name inside the package: relative path}; a package is named by its ``__init__.py``.

    >>> module_names(["__init__.py", "views.py", "traces/__init__.py", "traces/vllm.py"])
    {'': '__init__.py', 'views': 'views.py', 'traces': 'traces/__init__.py', 'traces.vllm': 'traces/vllm.py'}
    """
    out = {}
    for relative in files:
        parts = relative[:-3].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = relative
    return out


def _package_of(name: str, relative: str) -> str:
    """The package a module's relative imports resolve in (the module itself for an ``__init__``)."""
    return name if relative.endswith("__init__.py") else name.rpartition(".")[0]


def all_imports(source: bytes, package: str) -> set[str]:
    """Every module name an import statement of ``source`` may load, at module level or inside a
    function (``from X import y`` gives X and X.y: y may be a submodule).

    >>> sorted(all_imports(b"from . import a\\ndef f():\\n    from .b import c\\n", "lab"))
    ['lab', 'lab.a', 'lab.b', 'lab.b.c']
    """
    resolve, out = _resolver(package), set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            _add_import(out, node, resolve)
    return {name for name in out if name}


def import_graph(files: dict[str, bytes], package: str, everywhere: bool = True) -> dict[str, set[str]]:
    """{module: the package's modules it imports} over ``files`` ({relative path: source}), every
    module also depending on the packages above it (importing ``a.b`` runs ``a/__init__.py``).
    ``everywhere``: imports inside functions count too (not for the router, :data:`ROUTER`);
    otherwise only what importing the module runs."""
    names = module_names(files)
    graph = {}
    for name, relative in names.items():
        scan = all_imports if everywhere and name != ROUTER else module_level_imports
        found = scan(files[relative], f"{package}.{_package_of(name, relative)}".rstrip("."))
        deps = set()
        for target in found:
            if target == package or target.startswith(f"{package}."):
                inner = target[len(package) + 1:]
                if inner in names:
                    deps.add(inner)
        parts = name.split(".") if name else []
        deps.update(".".join(parts[:i]) for i in range(len(parts)))  # '' is the package itself
        deps.discard(name)
        graph[name] = deps
    return graph


def closure(roots, graph: dict[str, set[str]]) -> set[str]:
    """The modules ``roots`` load, following ``graph``; a root missing from it is left out.

    >>> sorted(closure(["a"], {"a": {"b"}, "b": {"c"}, "c": set(), "d": set()}))
    ['a', 'b', 'c']
    """
    seen, stack = set(), [root for root in roots if root in graph]
    while stack:
        name = stack.pop()
        if name not in seen:
            seen.add(name)
            stack.extend(graph[name] - seen)
    return seen


def widget_roots(kind: str, names) -> list[str]:
    """A widget's own modules: its view module and, if it has one, its family of checks."""
    return [root for root in (f"widgets.{kind}", f"checks.{kind}") if root in names]


def split(files: dict[str, bytes], package: str, seed, widgets) -> Split:
    """The core and the chunks of ``files`` (the browser's package, {relative path: source}).

    ``seed``: the widgets the page draws first (their modules join the core; the seed audit's do
    not: the page is live before it runs); ``widgets``: every widget, in page order. A chunk is
    named after its readers (the widgets that need it, in page order, then :data:`AUDIT`):
    ``lab-<kind>`` for one, ``lab-<kind>-<kind>...`` for several, ``shared`` standing for every
    widget outside the seed."""
    graph = import_graph(files, package)
    names = module_names(files)
    core_roots = [ROUTER, *(root for kind in seed for root in widget_roots(kind, names))]
    # What the boot and the seed's default views import. An import inside one of their functions
    # that only some settings reach (a ledger asked for a measured curve imports the traces model)
    # is left to the chunk that holds it: the worker loads a chunk when an import misses
    # (site/worker.js). The exact sampler's view imports the audit's modules on its first render,
    # which the page asks for once they are loaded (Split.audit).
    module_level = import_graph(files, package, everywhere=False)
    core = closure(core_roots, module_level)
    needed_by: dict[str, list[str]] = {}
    for kind in widgets:
        if kind in seed:
            continue
        for name in sorted(closure(widget_roots(kind, names), graph) - core):
            needed_by.setdefault(name, []).append(kind)
    for name in sorted(closure([AUDIT], module_level) - core):
        needed_by.setdefault(name, []).append(AUDIT)
    members: dict[tuple[str, ...], list[str]] = {}
    for name, kinds in needed_by.items():
        members.setdefault(tuple(kinds), []).append(names[name])
    shared = tuple(kind for kind in widgets if kind not in seed)
    chunk_name = {kinds: f"{package}-{_readers_name(kinds, shared)}" for kinds in members}
    return Split(core=tuple(sorted(names[name] for name in core)),
                 chunks={chunk_name[kinds]: tuple(sorted(paths)) for kinds, paths in sorted(members.items())},
                 widgets={kind: tuple(chunk_name[kinds] for kinds in sorted(members) if kind in kinds)
                          for kind in widgets},
                 audit=tuple(chunk_name[kinds] for kinds in sorted(members) if AUDIT in kinds))


def _readers_name(kinds: tuple[str, ...], shared: tuple[str, ...]) -> str:
    """A chunk's name from its readers: their kinds joined, every widget outside the seed (when
    more than one) said as ``shared``.

    >>> _readers_name(("b", "c", "audit"), ("b", "c")), _readers_name(("b",), ("b", "c"))
    ('shared-audit', 'b')
    """
    if len(shared) > 1 and kinds[:len(shared)] == shared:
        kinds = ("shared", *kinds[len(shared):])
    return "-".join(kinds)


def module_paths(paths, package: str) -> list[str]:
    """Dotted module names of relative paths.

    >>> module_paths(["traces/__init__.py", "widgets/traces.py"], "lab")
    ['lab.traces', 'lab.widgets.traces']
    """
    return [f"{package}.{name}" if name else package for name in module_names(paths)]


_FORM = re.compile(r'<form\b[^>]*\bdata-lab="([^"]+)"')


def mark_widgets(html: str, modules: dict[str, list[str]], families) -> str:
    """Each widget's form told what to load: ``data-modules`` (the chunk URLs its view and checks need
    beyond the core, space-separated; empty for the seed's) and, for an instrument, ``data-family``
    (its family of the instruments suite, which the page re-runs once they are loaded). The
    page's script reads only these (it names no widget); a form of an unknown kind stops the build.

    >>> mark_widgets('<form class="x" data-lab="a">', {"a": ["lab-a.1.zip"]}, ["a"])
    '<form class="x" data-lab="a" data-modules="lab-a.1.zip" data-family="a">'
    """
    def mark(match):
        kind = match.group(1)
        if kind not in modules:
            raise ValueError(f"form[data-lab={kind!r}] is no widget of lab.instruments; valid: {', '.join(modules)}")
        family = f' data-family="{kind}"' if kind in families else ""
        urls = " ".join(modules[kind])
        return f'{match.group(0)} data-modules="{urls}"{family}'
    return _FORM.sub(mark, html)
