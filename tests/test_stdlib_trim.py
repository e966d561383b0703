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

from sitebuild import stdlib, stdlib_compile
from sitebuild.assets import lab_zip_bytes

ROOT = Path(__file__).resolve().parent.parent
FULL = ROOT / "node_modules" / "pyodide" / "python_stdlib.zip"
FIX = ".venv/bin/python -m sitebuild.stdlib --trace  (then commit sitebuild/stdlib_runtime.txt)"


@pytest.fixture(scope="module")
def zips(tmp_path_factory):
    if shutil.which("node") is None or not FULL.is_file():
        pytest.fail("node and node_modules/pyodide are needed (`make node_modules`)")
    tmp = tmp_path_factory.mktemp("stdlib")
    lab_zip, trimmed, compiled = tmp / "lab.zip", tmp / "python_stdlib.zip", tmp / "python_stdlib.pyc.zip"
    lab_zip.write_bytes(lab_zip_bytes(ROOT / "lab"))
    trimmed.write_bytes(stdlib.trimmed_zip_bytes(FULL.read_bytes(), ROOT / "lab"))
    # what the page's worker loads; compiled afresh (not from the build's cache), so the test
    # also sees that compiling is deterministic
    compiled.write_bytes(stdlib_compile.compiled_zip_bytes(trimmed.read_bytes(), ROOT, tmp / "cache"))
    return lab_zip, trimmed, compiled


def _lab_result(stdout: str) -> dict:
    lines = [line for line in stdout.splitlines() if line.startswith("LAB-RESULT ")]
    assert lines, stdout[-2000:]
    return json.loads(lines[-1][len("LAB-RESULT "):])


WORKLOAD = stdlib.ERROR_REPORTING + stdlib.WORKLOAD + stdlib.TRACE_REPORT


def test_every_stdlib_module_the_worker_imports_is_in_the_trimmed_zip(zips):
    lab_zip, trimmed, _ = zips
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

    lab_zip, _, compiled = zips
    stdout = stdlib.run_node(lab_zip, WORKLOAD, stdlib=compiled)
    result = _lab_result(stdout)
    traced, _ = stdlib.parse_trace(stdout)
    assert traced, "the trimmed stdlib was not the one loaded"
    assert result["errors"] == []
    assert result["signatures"] == lab.audit.signatures()
    assert result["seedPassed"] is True and result["seedCounter"] == "20/20 speculative decoding checks passed"
    suite = checks.suite_view()
    assert (result["suiteCounter"], result["suiteSignature"]) == (suite["counter"], suite["signature"])


# A failure inside the stdlib, reported as the worker reports one: the frames (file, line, function)
# and the message, printed as JSON.
STDLIB_FAILURE = r"""
import json, traceback
try:
    json.loads('{"reader": }')
except ValueError as error:
    frames = [[frame.filename, frame.lineno, frame.name] for frame in traceback.extract_tb(error.__traceback__)]
    print("FAILURE " + json.dumps({"frames": frames, "message": traceback.format_exception_only(error)}))
"""


def _failure(stdout: str) -> dict:
    return json.loads(next(line for line in stdout.splitlines() if line.startswith("FAILURE "))[len("FAILURE "):])


def test_a_traceback_through_the_compiled_stdlib_names_the_source_files_and_lines(zips):
    lab_zip, _, compiled = zips
    from_source = _failure(stdlib.run_node(lab_zip, STDLIB_FAILURE))
    from_bytecode = _failure(stdlib.run_node(lab_zip, STDLIB_FAILURE, stdlib=compiled))
    assert any(file.endswith("json/decoder.py") for file, _, _ in from_source["frames"]), from_source
    assert from_bytecode == from_source


def test_the_compiled_zip_holds_each_trimmed_module_as_bytecode(zips):
    _, trimmed, compiled = zips
    data = compiled.read_bytes()
    stdlib_compile.check_compiled(trimmed.read_bytes(), data)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = zf.namelist()
        # bytecode only, and what the build publishes (its cache holds the same bytes)
        assert names and all(name.endswith(".pyc") for name in names)
        assert "json/decoder.pyc" in names and "asyncio/__init__.pyc" in names
        assert not zf.read("fractions.pyc").count(b"infinite-precision, rational numbers")  # no docstrings
    assert data == stdlib_compile.compiled_zip_bytes(trimmed.read_bytes(), ROOT)
    # what travels: well under half of the full zip
    assert len(gzip.compress(data, 6)) < 0.4 * FULL.stat().st_size


@pytest.mark.parametrize("mutate, complaint", [
    (lambda name, data: (name, data[:4] + (3).to_bytes(4, "little") + data[8:]), "unchecked hash-based"),
    (lambda name, data: (name.replace(".pyc", ".py"), data), "entries differ"),
    (lambda name, data: (name, (data[:2] + b"\x00\x00" + data[4:]) if name == "json/decoder.pyc" else data), "header"),
    (lambda name, data: (name, (b"\x00\x00" + data[2:]) if name == "json/decoder.pyc" else data), "magic numbers"),
])
def test_check_compiled_rejects_a_wrong_zip(zips, mutate, complaint):
    _, trimmed, compiled = zips
    buffer = io.BytesIO()
    with zipfile.ZipFile(compiled) as source, zipfile.ZipFile(buffer, "w") as out:
        for info in source.infolist():
            name, data = mutate(info.filename, source.read(info))
            entry = zipfile.ZipInfo(name, date_time=info.date_time)
            out.writestr(entry, data)
    with pytest.raises(stdlib_compile.CompileError, match=complaint):
        stdlib_compile.check_compiled(trimmed.read_bytes(), buffer.getvalue())


def test_trimmed_zip_is_small_stored_and_reproducible(zips):
    _, trimmed, _ = zips
    data = trimmed.read_bytes()
    assert data == stdlib.trimmed_zip_bytes(FULL.read_bytes(), ROOT / "lab")
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        infos = zf.infolist()
    names = [i.filename for i in infos]
    assert names == sorted(names) and {i.compress_type for i in infos} == {zipfile.ZIP_STORED}
    assert {i.date_time for i in infos} == {stdlib.ZIP_EPOCH}
    assert "fractions.py" in names and "json/__init__.py" in names and "traceback.py" in names
    # built into the binary (frozen) or never imported by the page; importlib._bootstrap(_external) are the
    # frozen _frozen_importlib(_external), which importlib registers under those names
    assert not {"os.py", "site.py", "zipimport.py", "unittest/case.py", "doctest.py", "pydoc.py",
                "importlib/_bootstrap.py", "importlib/_bootstrap_external.py"} & set(names)
    assert "importlib/__init__.py" in names and "importlib/abc.py" in names
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
