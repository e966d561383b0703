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
