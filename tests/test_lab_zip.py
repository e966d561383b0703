"""The lab the browser gets (sitebuild.pystrip via assets.lab_zip_bytes) is the repository's lab
minus the CLI, comments and docstrings, and answers every request exactly as the repository's does.

The equivalence run imports the published zip in a fresh CPython (zipimport, first on sys.path)
and compares, as JSON, both audit suites' full reports and every widget's answers to the same
requests. The one difference allowed is the checks' descriptions (their docstrings): empty in the
browser, where the page keeps the ones the build wrote. Under Pyodide the same zip is exercised by
tests/test_stdlib_trim.py and tests/test_pyodide_node.py.
"""

import ast
import io
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from sitebuild import pystrip
from sitebuild.assets import lab_zip_bytes

ROOT = Path(__file__).resolve().parent.parent

# Requests for every widget: defaults, a bad query, a few settings; then both audits.
WORKLOAD = textwrap.dedent(r"""
    import json, random, sys
    import lab, lab.views as views
    from lab import instruments, urlstate
    answers = {"origin": lab.__file__}
    rng = random.Random(5)
    for kind in instruments.widget_names():
        for request in ({"kind": kind, "input": ""}, {"kind": kind, "input": "x=1&%zz=&seed=-1"},
                        {"kind": kind, "input": {"bogus": "1"}}):
            answers[f"{kind} {json.dumps(request)}"] = json.loads(views.handle(json.dumps(request)))
    for kind, sliders in (("ledger", urlstate.LEDGER_SLIDERS), ("exact", urlstate.EXACT_SLIDERS)):
        for _ in range(3):
            values = {s.name: f"{s.minimum + rng.randrange(int(round((s.maximum - s.minimum) / s.step)) + 1) * s.step:g}"
                      for s in sliders}
            answers[f"{kind} {values}"] = json.loads(views.handle(json.dumps({"kind": kind, "input": values})))
    answers["audit"] = json.loads(views.handle(json.dumps({"kind": "audit"})))
    answers["suite"] = json.loads(views.handle(json.dumps({"kind": "audit", "suite": "instruments"})))
    print(json.dumps(answers, sort_keys=True))
""")


def _answers(path_entry: str | None) -> dict:
    prelude = f"import sys; sys.path.insert(0, {path_entry!r})\n" if path_entry else ""
    # The zipped lab has no checkout beside it to find the real-text model in (.cache/), as the page's
    # has none: both runs read the model the build left, from the path lab.realtext.model_paths names first.
    from lab import realtext

    env = {**os.environ, "PROOFROOM_REALTEXT_MODEL": realtext._checkout_path(realtext.CHECKOUT_MODEL)}
    done = subprocess.run([sys.executable, "-c", prelude + WORKLOAD], capture_output=True, text=True,
                          cwd=ROOT, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def zip_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("labzip") / "lab.zip"
    path.write_bytes(lab_zip_bytes(ROOT / "lab"))
    return path


def test_the_browser_lab_answers_exactly_as_the_repository_lab(zip_path):
    shipped, repository = _answers(str(zip_path)), _answers(None)
    assert shipped.pop("origin").startswith(str(zip_path)), "the zip's lab was not the one imported"
    repository.pop("origin")
    from lab.figures import audit_checks_html

    for suite in ("audit", "suite"):
        checks = repository[suite]["checks"]
        assert checks and all(c["description"] for c in checks)
        assert all(c["description"] == "" for c in shipped[suite]["checks"])
        blank = [{**c, "description": ""} for c in checks]
        repository[suite] = {**repository[suite], "checks": blank, "checksHtml": audit_checks_html(blank)}
    assert shipped.keys() == repository.keys()
    different = [key for key in shipped if shipped[key] != repository[key]]
    assert not different, f"the shipped lab answers differently to: {different[:5]}"


def test_the_zip_leaves_out_the_cli_and_keeps_line_numbers():
    with zipfile.ZipFile(io.BytesIO(lab_zip_bytes(ROOT / "lab"))) as zf:
        shipped = {name: zf.read(name).decode() for name in zf.namelist()}
    sources = {f"lab/{p.relative_to(ROOT / 'lab').as_posix()}": p.read_text()
               for p in (ROOT / "lab").rglob("*.py") if "__pycache__" not in p.parts}
    assert "lab/cli.py" not in shipped and "lab/__main__.py" not in shipped
    assert not [name for name in shipped if name.startswith("lab/commands/")]
    samples = {name for name in shipped if not name.endswith(".py")}
    assert samples and all(name.startswith("lab/traces/samples/") for name in samples)  # the golden files, as they are
    for name in samples:
        assert shipped[name].encode() == (ROOT / name).read_bytes(), name
    shipped = {name: text for name, text in shipped.items() if name not in samples}
    assert set(shipped) == {name for name in sources if pystrip.browser_module(name[len("lab/"):])}
    for name, text in shipped.items():
        assert len(text.splitlines()) == len(sources[name].splitlines()), name
        assert "#" not in "".join(t.string for t in _tokens(text) if t.type == __import__("tokenize").COMMENT)
    # Smaller by the documentation, which is most of it.
    assert sum(map(len, shipped.values())) < 0.8 * sum(len(sources[n]) for n in shipped)


def _tokens(text):
    import tokenize
    return list(tokenize.generate_tokens(io.StringIO(text).readline))


def test_strip_source_keeps_strings_and_statements():
    source = textwrap.dedent('''\
        """Module doc."""
        import math  # why


        class Audit:
            """Class doc."""

            def passes(self, out):
                """Dropped too: the page keeps the build's copy."""
                out.visit()

            def helper(self):
                """Helper doc."""
                return "keep # this  \\n"


        def only_doc():
            """Nothing else."""


        TEXT = """a string with trailing spaces   
        and a # that is not a comment"""
        ''')
    stripped = pystrip.strip_source(source)
    assert len(stripped.splitlines()) == len(source.splitlines())
    assert not [word for word in ("Module doc", "Class doc", "Dropped", "Helper doc", "Nothing else", "# why")
                if word in stripped]
    assert '"keep # this  \\n"' in stripped and "trailing spaces   \n" in stripped
    namespace = {}
    exec(compile(stripped, "stripped.py", "exec"), namespace)
    assert namespace["Audit"].passes.__doc__ is None
    assert namespace["Audit"]().helper() == "keep # this  \n" and namespace["only_doc"]() is None
    # Every statement where it was: a traceback names the repository's line.
    original = [(type(n).__name__, n.lineno) for n in ast.walk(ast.parse(source)) if isinstance(n, ast.stmt)]
    kept = [(type(n).__name__, n.lineno) for n in ast.walk(ast.parse(stripped)) if isinstance(n, ast.stmt)]
    assert set(kept) <= set(original) and len(original) - len(kept) == 4  # five docstrings gone, one "..." left


def test_reindent_changes_indentation_only():
    source = textwrap.dedent('''\
        def f(x, y=None):
            if x:
                total = [1,
                         2]
                note = """keep
                    these    spaces
        and this"""
                label = f"""{x}
                  {'kept' if y else
                   'also kept'}"""
                return sum(total) + \\
                       len(note) + len(label)
            return 0
        ''')
    out = pystrip.reindent(source)
    assert len(out.splitlines()) == len(source.splitlines())
    assert out.splitlines()[:4] == ["def f(x, y=None):", " if x:", "  total = [1,", "  2]"]
    # a multi-line string's lines are the string's: untouched
    assert '\n            these    spaces\nand this"""' in out
    assert "\n          {'kept' if y else\n           'also kept'}\"\"\"" in out
    run = lambda text: (exec(compile(text, "m.py", "exec"), ns := {}), ns["f"](1, True), ns["f"](1), ns["f"](0))[1:]
    assert run(out) == run(source)
    # every statement on its line, as before
    lines = lambda text: [(type(n).__name__, n.lineno, n.end_lineno) for n in ast.walk(ast.parse(text))
                          if hasattr(n, "lineno")]
    assert lines(out) == lines(source)


def test_the_shipped_lab_is_indented_one_space_a_block():
    with zipfile.ZipFile(io.BytesIO(lab_zip_bytes(ROOT / "lab"))) as zf:
        text = zf.read("lab/views.py").decode()
    source = (ROOT / "lab" / "views.py").read_text()
    assert "\n def handle(" not in source and "\ndef handle(" in text
    # the body of a function one level deep starts with one space, not four
    first_body = text.split("\ndef handle(", 1)[1].split("\n")
    body = next(line for line in first_body[1:] if line.strip())
    assert body.startswith(" ") and not body.startswith("  "), body
