"""The trimmed standard library (sitebuild/stdlib.py) holds every stdlib module the worker imports,
and the lab gives CPython's answers on it, under Node + the npm Pyodide the site self-hosts.

Two runs of the same workload (Pyodide's start-up, the lab-zip unpack, error reporting, then
every request the page can send for every widget, both audit suites and page_context):
- with the distribution's full stdlib, tracing sys.modules: a stdlib module imported from the zip
  but missing from the trimmed one fails the first test, by name;
- with the trimmed zip as stdLibURL (what the page's worker loads): the signatures and both
  audits must come out exactly as in CPython.
"""

import gzip
import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from sitebuild import stdlib
from sitebuild.assets import lab_zip_bytes

ROOT = Path(__file__).resolve().parent.parent
FULL = ROOT / "node_modules" / "pyodide" / "python_stdlib.zip"
FIX = ".venv/bin/python -m sitebuild.stdlib --trace  (then commit sitebuild/stdlib_runtime.txt)"


@pytest.fixture(scope="module")
def zips(tmp_path_factory):
    if shutil.which("node") is None or not FULL.is_file():
        pytest.fail("node and node_modules/pyodide are needed (`make node_modules`)")
    tmp = tmp_path_factory.mktemp("stdlib")
    lab_zip, trimmed = tmp / "lab.zip", tmp / "python_stdlib.zip"
    lab_zip.write_bytes(lab_zip_bytes(ROOT / "lab"))
    trimmed.write_bytes(stdlib.trimmed_zip_bytes(FULL.read_bytes(), ROOT / "lab"))
    return lab_zip, trimmed


def _lab_result(stdout: str) -> dict:
    lines = [line for line in stdout.splitlines() if line.startswith("LAB-RESULT ")]
    assert lines, stdout[-2000:]
    return json.loads(lines[-1][len("LAB-RESULT "):])


WORKLOAD = stdlib.ERROR_REPORTING + stdlib.WORKLOAD + stdlib.TRACE_REPORT


def test_every_stdlib_module_the_worker_imports_is_in_the_trimmed_zip(zips):
    lab_zip, trimmed = zips
    traced, frozen = stdlib.parse_trace(stdlib.run_node(lab_zip, WORKLOAD))
    with zipfile.ZipFile(trimmed) as zf:
        held = set(zf.namelist())
    missing = sorted(f"{module} ({entry})" for module, entry in traced.items() if entry not in held)
    assert not missing, (f"stdlib modules the worker imports but the trimmed zip lacks: {', '.join(missing)}. "
                         f"Fix: {FIX}")
    # A Pyodide upgrade may change what is built in; the zip leaves out the files of these.
    assert sorted(frozen) == sorted(stdlib.read_list(section="frozen")), f"the frozen modules changed. Fix: {FIX}"


def test_the_lab_runs_on_the_trimmed_stdlib(zips):
    import lab.audit
    from lab import checks

    lab_zip, trimmed = zips
    stdout = stdlib.run_node(lab_zip, WORKLOAD, stdlib=trimmed)
    result = _lab_result(stdout)
    traced, _ = stdlib.parse_trace(stdout)
    assert traced, "the trimmed stdlib was not the one loaded"
    assert result["errors"] == []
    assert result["signatures"] == lab.audit.signatures()
    assert result["seedPassed"] is True and result["seedCounter"] == "20/20 speculative decoding checks passed"
    suite = checks.suite_view()
    assert (result["suiteCounter"], result["suiteSignature"]) == (suite["counter"], suite["signature"])


def test_trimmed_zip_is_small_stored_and_reproducible(zips):
    _, trimmed = zips
    data = trimmed.read_bytes()
    assert data == stdlib.trimmed_zip_bytes(FULL.read_bytes(), ROOT / "lab")
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        infos = zf.infolist()
    names = [i.filename for i in infos]
    assert names == sorted(names) and {i.compress_type for i in infos} == {zipfile.ZIP_STORED}
    assert {i.date_time for i in infos} == {stdlib.ZIP_EPOCH}
    assert "fractions.py" in names and "json/__init__.py" in names and "traceback.py" in names
    # built into the binary (frozen) or never imported by the page
    assert not {"os.py", "site.py", "zipimport.py", "unittest/case.py", "doctest.py", "pydoc.py"} & set(names)
    # what travels: well under half of the full zip
    assert len(gzip.compress(data, 6)) < 0.4 * FULL.stat().st_size


def test_a_new_instrument_import_needs_no_list_entry(tmp_path):
    """The build scans the lab: an import in a new module (at any depth) lands in the zip with its
    own module-level imports; the command line's imports stay out."""
    lab = tmp_path / "lab"
    shutil.copytree(ROOT / "lab", lab, ignore=shutil.ignore_patterns("__pycache__"))
    (lab / "widgets" / "newthing.py").write_text("import statistics\n\ndef f():\n    import csv\n    return csv\n")
    (lab / "commands" / "newthing.py").write_text("import sqlite3\n")
    modules = stdlib.trimmed_modules(FULL.read_bytes(), lab)
    assert {"statistics", "csv", "fractions"} <= set(modules)
    assert "sqlite3" not in modules and "argparse" not in modules  # lab/cli.py imports argparse
    assert "statistics" not in stdlib.trimmed_modules(FULL.read_bytes(), ROOT / "lab")


@pytest.mark.parametrize("source, expected", [
    ("import a, b.c as d\nfrom e import f\n", {"a", "b.c", "e", "e.f"}),
    ("def g():\n    import hidden\nclass K:\n    import shown\n", {"shown"}),
    ("try:\n    from _fast import x\nexcept ImportError:\n    from _slow import x\n", {"_fast", "_fast.x"}),
    ("if TYPE_CHECKING:\n    import typed\nelse:\n    import untyped\n", {"untyped"}),
    ("import sys\nif sys.platform == 'win32':\n    import winreg\nelse:\n    import posixthing\n",
     {"sys", "posixthing"}),
    ("if __name__ == '__main__':\n    import doctest\n", set()),
    ("from . import sibling\nfrom ..up import z\n", {"pkg.sub", "pkg.sub.sibling", "pkg.up", "pkg.up.z"}),
])
def test_module_level_imports(source, expected):
    assert stdlib.module_level_imports(source.encode(), "pkg.sub") == expected


def test_the_fallback_scanner_for_newer_syntax_follows_the_same_rules():
    # `except A, B:` (3.14) does not parse on older hosts: the line scanner takes over.
    source = ('import first\n"""\nimport in_docstring\n"""\ntry:\n    pass\nexcept ValueError, TypeError:\n'
              '    import handler\ndef f():\n    import nested\nif sys.platform == "win32":\n    import win\n'
              'from pkg import (\n    one,\n    two)\ntry:\n    import _c\nexcept ImportError:\n    import _py\n')
    found = stdlib._scan_lines(source, stdlib._resolver(""))
    assert found == {"first", "handler", "pkg", "pkg.one", "pkg.two", "_c"}


def test_the_article_loads_the_trimmed_stdlib_and_the_bare_page_the_full_one(page):
    from sitepage import wait_live

    pg = page()
    pg.goto(pg.base_url)
    wait_live(pg)
    stdlib_requests = [u for u in pg.requests if "python_stdlib" in u]
    assert len(stdlib_requests) == 1 and "/pyodide-" not in stdlib_requests[0], stdlib_requests
    bare = page()
    bare.goto(bare.base_url + "bench/bare.html")
    bare.wait_for_function("() => document.body.dataset.ready || document.body.dataset.error", timeout=120_000)
    assert [u.rsplit("/", 2)[-2][:8] for u in bare.requests if "python_stdlib" in u] == ["pyodide-"]
