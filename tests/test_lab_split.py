"""The browser's lab in pieces (sitebuild/labsplit.py): the core the page boots on answers the seed's
widgets by itself, the core and the seed audit's chunks answer the seed audit, and each widget
answers (and its family of the instruments suite passes) from the core and its own chunks alone,
with nothing else of the lab on the path."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from lab import instruments
from sitebuild import assets, labsplit

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def split():
    return assets.lab_split_zips(ROOT / "lab", instruments.SEED, instruments.widget_names())


def _unpack(where: Path, *zips: bytes) -> None:
    for data in zips:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            zf.extractall(where)


# Runs in a fresh interpreter whose only lab is the unpacked pieces; prints what it saw as JSON.
_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
kind = sys.argv[2]
import lab.views as V
out = {}
def ask(request):
    return json.loads(V.handle(json.dumps(request)))
if kind == "core":
    out["errors"] = [r["error"] for r in (ask({"kind": k, "input": ""}) for k in sys.argv[3:]) if "error" in r]
elif kind == "audit":
    audit = ask({"kind": "audit"})
    out["counter"] = audit.get("counter")
    out["signatures"] = audit.get("signatures")
    out["errors"] = [r["error"] for r in (ask({"kind": k, "input": ""}) for k in sys.argv[3:]) if "error" in r]
else:
    view = ask({"kind": kind, "input": ""})
    out["errors"] = [view["error"]] if "error" in view else []
    if len(sys.argv) > 3:
        suite = ask({"kind": "audit", "suite": "instruments", "family": kind, "sliced": True})
        while suite.get("pending"):
            suite = ask({"kind": "audit", "suite": "instruments", "family": kind, "op": "continue"})
        out["suite"] = {k: suite.get(k) for k in ("counter", "families", "signature", "error")}
out["modules"] = sorted(name for name in sys.modules if name == "lab" or name.startswith("lab."))
print(json.dumps(out))
"""


def _run(where: Path, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _CHILD, str(where), *args], capture_output=True, text=True,
                          cwd=where, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def _modules(data: bytes) -> set[str]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        paths = [name.split("/", 1)[1] for name in zf.namelist()]
    return set(labsplit.module_paths(paths, "lab"))


def test_every_browser_module_ships_exactly_once(split):
    core, chunks, parts = split
    every = list(assets.browser_lab_files(ROOT / "lab"))
    shipped = [*parts.core, *(path for members in parts.chunks.values() for path in members)]
    assert sorted(shipped) == sorted(every)
    assert set(chunks) == set(parts.chunks)
    # every chunk is needed by some widget, and a seed widget needs none
    assert {name for names in parts.widgets.values() for name in names} == set(parts.chunks)
    assert all(parts.widgets[kind] == () for kind in instruments.SEED)
    # the seed audit has chunks of its own, which every family needs too (its checks import it)
    assert parts.audit and all(set(parts.audit) <= set(parts.widgets[kind]) for kind in instruments.NAMES)


def test_the_seed_audit_is_no_part_of_the_first_load(split):
    """The page goes live on the core; the seed audit, the exact sampler and its Fractions come after
    (the first load stays at most 150 KB gzipped, as `make bench` measures it)."""
    core, chunks, parts = split
    assert {"lab.audit", "lab.sampler", "lab.exact", "lab.stats"} <= set().union(
        *(_modules(chunks[name]) for name in parts.audit))
    assert not {"lab.audit", "lab.sampler", "lab.exact"} & _modules(core)


def test_the_core_answers_the_ledger_by_itself(split, tmp_path):
    core, _, _ = split
    _unpack(tmp_path, core)
    out = _run(tmp_path, "core", "ledger")
    assert out["errors"] == []
    assert set(out["modules"]) <= _modules(core)


def test_the_core_and_the_audit_chunks_answer_the_seed(split, tmp_path):
    from lab.audit import AUDIT_EXPECTED, LEGACY_EXPECTED

    core, chunks, parts = split
    _unpack(tmp_path, core, *(chunks[name] for name in parts.audit))
    out = _run(tmp_path, "audit", *instruments.SEED)
    assert out["counter"] == "20/20 speculative decoding checks passed"
    assert out["signatures"]["audit"] == AUDIT_EXPECTED and out["signatures"]["legacy"] == LEGACY_EXPECTED
    assert out["errors"] == []
    assert set(out["modules"]) <= _modules(core).union(*(_modules(chunks[name]) for name in parts.audit))


@pytest.mark.parametrize("kind", instruments.NAMES)
def test_a_widget_answers_and_its_family_passes_from_its_chunks(split, tmp_path, kind):
    from lab.checks import expected_value

    core, chunks, parts = split
    _unpack(tmp_path, core, *(chunks[name] for name in parts.widgets[kind]))
    out = _run(tmp_path, kind, "family")
    assert out["errors"] == []
    suite = out["suite"]
    assert suite["error"] is None and suite["families"] == [kind]
    count = suite["signature"].split(":")[1]
    assert suite["counter"] == f"{count}/{count} instrument checks passed"
    assert suite["signature"].endswith(f":0:{expected_value(kind)}")
    # nothing beyond the core and the widget's chunks was needed (or could have been)
    allowed = _modules(core).union(*(_modules(chunks[name]) for name in parts.widgets[kind]))
    assert set(out["modules"]) <= allowed


def test_a_module_moved_into_a_package_needs_no_edit():
    """The split follows imports: a module that becomes a package (as lab/traces.py may) is found
    through its ``__init__`` and its submodules by the same rule."""
    files = {
        "__init__.py": b"", "views.py": b"from . import figures\n", "figures.py": b"", "audit.py": b"",
        "widgets/__init__.py": b"", "widgets/a.py": b"from .. import figures\n",
        "widgets/b.py": b"def view():\n    from ..traces import parse\n",
        "traces/__init__.py": b"from .vllm import parse\n", "traces/vllm.py": b"from ..figures import x\n",
        "checks/__init__.py": b"", "checks/b.py": b"from . import x\nfrom ..traces import vllm\n",
    }
    parts = labsplit.split(files, "lab", ("a",), ("a", "b"))
    assert set(parts.core) == {"__init__.py", "views.py", "figures.py", "widgets/__init__.py", "widgets/a.py"}
    assert parts.chunks == {"lab-audit": ("audit.py",),
                            "lab-b": ("checks/__init__.py", "checks/b.py", "traces/__init__.py", "traces/vllm.py",
                                      "widgets/b.py")}
    assert parts.widgets == {"a": (), "b": ("lab-b",)}
    assert parts.audit == ("lab-audit",)


def test_each_widget_form_is_told_its_modules_and_family():
    html = '<form data-lab="a" class="x"><form data-lab="b">'
    marked = labsplit.mark_widgets(html, {"a": [], "b": ["lab-b.1.zip", "lab-shared.2.zip"]}, ("b",))
    assert marked == ('<form data-lab="a" data-modules="" class="x">'
                      '<form data-lab="b" data-modules="lab-b.1.zip lab-shared.2.zip" data-family="b">')
    with pytest.raises(ValueError, match="no widget"):
        labsplit.mark_widgets('<form data-lab="nope">', {"a": []}, ())
