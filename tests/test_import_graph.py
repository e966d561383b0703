"""What importing the lab costs the reader: the worker boots on `import lab.views`, which must not
pull in any widget (each is imported when it nears the viewport: op "warm"), and the
audit must not depend on a view (no lab.audit -> lab.views edge, so no import cycle)."""

import json
import subprocess
import sys
from pathlib import Path

from lab import instruments, views

ROOT = Path(__file__).resolve().parent.parent

# What the worker's boot (`import lab.views`) may import: the shared modules and the registry. Every
# widget's modules (the ledger's, the exact sampler's with fractions) and the audit load with its first
# render or audit run, which the page sends right after it goes live, or when it nears the viewport.
# lab.errors is the one error type every model raises for bad arguments: a few lines, shared by all.
SEED_MODULES = {"lab", "lab.views", "lab.figures", "lab.instruments", "lab.jsformat", "lab.urlstate", "lab.errors"}


def _modules_after(statement: str) -> set[str]:
    code = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout))


def _lab_modules_after(statement: str) -> set[str]:
    return {m for m in _modules_after(statement) if m.split(".")[0] == "lab"}


def test_the_audit_does_not_import_a_view():
    imported = _lab_modules_after("import lab.audit")
    assert "lab.views" not in imported and not any(m.startswith("lab.widgets") for m in imported), imported


def test_importing_the_views_imports_no_widget():
    imported = _lab_modules_after("import lab.views")
    instrument_modules = {f"lab.{name}" for name in instruments.widget_names()} | {
        f"lab.{role}.{name}" for role in instruments.ROLES for name in instruments.widget_names()}
    assert not imported & instrument_modules, sorted(imported & instrument_modules)
    assert imported <= SEED_MODULES, f"import lab.views now also imports {sorted(imported - SEED_MODULES)}"
    assert "fractions" not in _modules_after("import lab.views")


def test_warm_imports_the_widget_module_and_view_works(tmp_path, monkeypatch):
    """op "warm" is what imports an instrument's widget module (here a throwaway one)."""
    import lab.widgets

    (tmp_path / "warmprobe.py").write_text(
        "def view(raw):\n    return {'figures': {}, 'summary': 'ok'}\n\ndef page_context():\n    return {}\n")
    monkeypatch.setattr(lab.widgets, "__path__", [*lab.widgets.__path__, str(tmp_path)])
    monkeypatch.setattr(instruments, "NAMES", instruments.NAMES + ("warmprobe",))
    monkeypatch.delitem(sys.modules, "lab.widgets.warmprobe", raising=False)
    assert "lab.widgets.warmprobe" not in sys.modules
    assert json.loads(views.handle('{"kind": "warmprobe", "op": "warm"}')) == {"kind": "warmprobe", "warm": True}
    assert "lab.widgets.warmprobe" in sys.modules
    assert json.loads(views.handle('{"kind": "warmprobe", "input": ""}'))["summary"] == "ok"
    monkeypatch.delitem(sys.modules, "lab.widgets.warmprobe")


# --- the static graph: every import statement of every lab module, function-level ones included ----

def _module_name(relative: Path) -> str:
    parts = list(relative.with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph(root: Path, package: str = "lab") -> dict[str, set[str]]:
    """``{module: modules it names in any import statement}`` for every module of ``root/package``
    (``ast``: an import inside a function counts as one at the top). ``from P import name`` is an
    edge to ``P.name`` when that is a module of the tree, else to ``P``."""
    import ast

    paths = {_module_name(p.relative_to(root)): p for p in sorted((root / package).rglob("*.py"))}
    graph = {}
    for name, path in paths.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = here
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                target = (f"{base}.{node.module}" if node.module else base) if node.level else node.module
                edges |= {f"{target}.{a.name}" if f"{target}.{a.name}" in paths else target for a in node.names}
        graph[name] = edges - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), over edges inside the graph."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node] & graph.keys()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_lab_module_imports_the_build():
    """The lab runs in the browser; the build (sitebuild) runs the trainer and leaves files the lab reads."""
    graph = _import_graph(ROOT)
    assert len(graph) > 40 and "lab.realtext" in graph and "lab.realtext" in graph["lab.widgets.realtext"]
    offending = {name: sorted(m for m in edges if m.split(".")[0] == "sitebuild") for name, edges in graph.items()}
    assert not any(offending.values()), {name: edges for name, edges in offending.items() if edges}


def test_no_import_cycle_among_lab_modules():
    assert _cycles(_import_graph(ROOT)) == []


# A module a newcomer can read in one sitting; past this, split it by idea (docs/RECIPES.md).
MAX_MODULE_LINES = 1000


def test_no_lab_module_is_over_a_thousand_lines():
    sizes = {path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for path in sorted((ROOT / "lab").rglob("*.py"))}
    assert len(sizes) > 40
    assert {name: lines for name, lines in sizes.items() if lines > MAX_MODULE_LINES} == {}


def test_the_graph_sees_function_level_imports_and_cycles(tmp_path):
    """The two tests above would catch what they claim: an import inside a function is an edge, a
    relative import resolves to its module, and a cycle through them is found."""
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "sub" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("from .sub import b\n")
    (tmp_path / "pkg" / "sub" / "b.py").write_text("def f():\n    from ..a import g\n    import sitebuild.x\n")
    graph = _import_graph(tmp_path, "pkg")
    assert graph["pkg.a"] == {"pkg.sub.b"} and graph["pkg.sub.b"] == {"pkg.a", "sitebuild.x"}
    assert _cycles(graph) == [["pkg.a", "pkg.sub.b"]]


def test_no_widget_imports_the_router():
    """The router (lab.views) imports a widget by name when the page asks; a widget importing it back
    (for a slider formatter, say) would make the loop the static graph cannot see."""
    graph = _import_graph(ROOT)
    widgets = {name for name in graph if name.startswith("lab.widgets.")}
    assert len(widgets) >= len(instruments.widget_names())
    assert {name for name in widgets if "lab.views" in graph[name]} == set()
