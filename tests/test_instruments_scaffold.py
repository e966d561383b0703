"""The plumbing every instrument plugs into: the registry, the second audit suite, the worker's
dispatch and the CLI. Fake instrument families stand in for real ones, so these tests pin the
mechanism itself (a check that visits nothing fails, one that raises fails by name, the
signature's shape) whatever instruments are registered."""

import json
import re
import sys
import types
from pathlib import Path

import pytest

from lab import checks, cli, instruments, views

ROOT = Path(__file__).resolve().parent.parent


def _fake_family(monkeypatch, name, check_list, value="1.000000", widget=None):
    """Register instrument `name` with the given checks (and optionally a widget module)."""
    module = types.ModuleType(f"lab.checks.{name}")
    module.CHECKS = tuple(check_list)
    module.signature_value = lambda: value
    monkeypatch.setitem(sys.modules, f"lab.checks.{name}", module)
    if widget is not None:
        monkeypatch.setitem(sys.modules, f"lab.widgets.{name}", widget)
    command = types.ModuleType(f"lab.commands.{name}")
    command.add_parser = lambda commands: commands.add_parser(name).add_argument("--json", action="store_true")
    command.run = lambda args: ({"ran": name}, f"ran {name}", 0)
    monkeypatch.setitem(sys.modules, f"lab.commands.{name}", command)
    monkeypatch.setattr(instruments, "NAMES", (name,))  # the fake alone: real families would change the counts


def _passes(out):
    """A check that visits two cases and holds."""
    out.visited += 2


def _fails(out):
    out.visited += 1
    out.fail("counterexample at 3")


def _visits_nothing(out):
    pass


def _raises(out):
    out.visited += 1
    raise ZeroDivisionError("boom")


def test_suite_counts_passes_failures_and_vacuous_checks(monkeypatch):
    _fake_family(monkeypatch, "fake", [("holds", _passes), ("breaks", _fails), ("vacuous", _visits_nothing),
                                      ("crashes", _raises)], value="0.500000")
    result = checks.run_suite(["fake"])
    by_name = {c["name"]: c for c in result["checks"]}
    assert (result["checked"], result["passed"]) == (4, 1)
    assert result["failures"] == ["breaks", "vacuous", "crashes"]
    assert by_name["holds"]["visited"] == 2 and by_name["holds"]["description"] == "A check that visits two cases and holds."
    assert by_name["vacuous"]["detail"] == "visited no case"
    assert by_name["crashes"]["detail"] == "raised ZeroDivisionError: boom"
    assert checks.signature(result) == "instruments:4:1:3:0.500000"
    assert checks.counter_text(result) == "1/4 instrument checks passed"


def test_signature_value_that_raises_is_named_and_fails_the_suite(monkeypatch):
    """The suite does not crash on it, names it, and counts it as a failed check (so it exits non-zero)."""
    _fake_family(monkeypatch, "fake", [("holds", _passes)])
    sys.modules["lab.checks.fake"].signature_value = lambda: 1 / 0
    result = checks.run_suite(["fake"])
    assert checks.signature(result) == "instruments:2:1:1:error(ZeroDivisionError)"
    assert result["failures"] == ["fake-signature-value"]


def test_an_empty_suite_does_not_pass():
    assert checks.suite_view.__doc__  # the page's view of the suite exists
    result = checks.run_suite([])
    assert result["checked"] == 0


def test_registry_rejects_unknown_names_and_roles():
    with pytest.raises(KeyError, match="unknown widget"):
        instruments.part("widgets", "../../etc")
    with pytest.raises(KeyError, match="unknown instrument 'ledger'"):
        instruments.part("checks", "ledger")  # a seed widget has no family: lab.audit checks it
    with pytest.raises(KeyError, match="unknown role"):
        instruments.part("templates", "x")
    assert not instruments.is_instrument(["list"])


def _model_exists(name: str) -> bool:
    """A widget's model is the module lab/NAME.py or the package lab/NAME/ (the trace reader's)."""
    return (ROOT / "lab" / f"{name}.py").is_file() or (ROOT / "lab" / name / "__init__.py").is_file()


def test_every_widget_has_the_same_parts():
    """Every widget, the seed's two included, has its model, widget module, command and partial,
    found by its name alone; only an instrument also has a family in the instruments suite."""
    assert instruments.widget_names()[:2] == instruments.SEED == ("ledger", "exact")
    for name in instruments.widget_names():
        assert _model_exists(name), name
        partial = (ROOT / "templates" / "partials" / f"{name}.html.j2").read_text()
        assert f'data-lab="{name}"' in partial, name
        # the browser tests find a widget by this id and its figures by these names (tests/sitepage.py)
        assert '<figure class="lab-widget' in partial and f'id="{name}-lab"' in partial, name
        widget = instruments.part("widgets", name)
        assert callable(widget.view) and callable(widget.page_context)
        figures = set(re.findall(r'data-figure="([^"]+)"', partial))
        assert figures == set(widget.view(None)["figures"]), name
        command = instruments.part("commands", name)
        assert callable(command.add_parser) and callable(command.run)
        assert (ROOT / "lab" / "checks" / f"{name}.py").is_file() == instruments.is_instrument(name), name


def test_registered_instruments_have_every_part():
    """Each name in the table has its model, widget, checks, command and partial."""
    for name in instruments.NAMES:
        assert _model_exists(name), name
        assert (ROOT / "templates" / "partials" / f"{name}.html.j2").is_file(), name
        widget = instruments.part("widgets", name)
        assert callable(widget.view) and callable(widget.page_context)
        family = instruments.part("checks", name)
        assert len(family.CHECKS) >= 6 and isinstance(family.signature_value(), str)
        command = instruments.part("commands", name)
        assert callable(command.add_parser) and callable(command.run)


def test_handle_dispatches_views_warmups_and_operations(monkeypatch):
    widget = types.ModuleType("lab.widgets.fake")
    widget.view = lambda raw: {"summary": f"got {raw!r}", "figures": {}, "notes": []}
    widget.OPERATIONS = {"chunk": lambda request: {"progress": request["index"]}}
    _fake_family(monkeypatch, "fake", [("holds", _passes)], widget=widget)
    monkeypatch.setattr(instruments, "NAMES", ("fake",))  # the mechanism alone, whatever instruments are registered
    ask = lambda request: json.loads(views.handle(json.dumps(request)))
    assert ask({"kind": "fake", "input": "a=1"}) == {"kind": "fake", "summary": "got 'a=1'", "figures": {}, "notes": []}
    assert ask({"kind": "fake", "op": "warm"}) == {"kind": "fake", "warm": True}
    assert ask({"kind": "fake", "op": "chunk", "index": 3}) == {"kind": "fake", "progress": 3}
    assert ask({"kind": "fake", "op": "delete"}) == {"error": "unknown operation 'delete' for fake; valid: view, warm, chunk"}
    assert "valid: audit, ledger, exact" in ask({"kind": "nope"})["error"]
    total = sum(len(instruments.part("checks", name).CHECKS) for name in instruments.NAMES)  # fake's and any registered
    assert ask({"kind": "audit", "suite": "instruments"})["counter"] == f"{total}/{total} instrument checks passed"
    assert ask({"kind": "audit", "suite": "x"}) == {"error": "unknown audit suite 'x'; valid: seed, instruments"}


def test_cli_audit_suites(monkeypatch, capsys):
    _fake_family(monkeypatch, "fake", [("holds", _passes), ("breaks", _fails)], value="2.000000")
    monkeypatch.setattr(instruments, "NAMES", ("fake",))  # the fake family alone, whatever else is registered
    assert cli.main(["audit", "--suite", "instruments", "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document == {"checked": 2, "passed": 1, "failures": ["breaks"], "checks": {"holds": True, "breaks": False},
                        "signature": "instruments:2:1:1:2.000000"}
    assert cli.main(["audit", "--suite", "all"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "20/20 speculative decoding checks passed"  # the seed counter stays last
    assert "1/2 instrument checks passed" in lines


def test_cli_dispatches_instrument_commands(monkeypatch, capsys):
    _fake_family(monkeypatch, "fake", [("holds", _passes)])
    assert cli.main(["fake", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"ran": "fake"}


def test_cli_seed_audit_is_unchanged(capsys):
    assert cli.main(["audit"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 21 and lines[-1] == "20/20 speculative decoding checks passed"


def test_parse_number_names_flag_and_range():
    assert cli.parse_number("--k", "3", 1, 8, integer=True) == 3
    for bad in ("nan", "inf", "9", "abc", "2.5"):
        with pytest.raises(cli.UsageError, match=r"--k must be an integer from 1 to 8, got"):
            cli.parse_number("--k", bad, 1, 8, integer=True)


@pytest.mark.parametrize("script", sorted(path.name for path in (ROOT / "site").glob("*.js")))
def test_front_end_names_no_widget(script):
    """The JavaScript stays generic: widgets are discovered from the markup, never listed."""
    text = (ROOT / "site" / script).read_text()
    for kind in instruments.widget_names():
        assert f'"{kind}"' not in text and f"'{kind}'" not in text, f"{script} names the {kind} widget"


def test_a_view_that_raises_is_one_error_reply_and_the_others_answer(monkeypatch):
    """handle() turns one widget's exception into {"error": ...} for that request alone."""
    widget = types.ModuleType("lab.widgets.fake")
    widget.view = lambda raw: 1 / 0
    _fake_family(monkeypatch, "fake", [("holds", _passes)], widget=widget)
    ask = lambda request: json.loads(views.handle(json.dumps(request)))
    assert ask({"kind": "fake", "input": ""}) == {"error": "ZeroDivisionError: division by zero"}
    assert ask({"kind": "ledger", "input": ""})["summary"].startswith("At 74% acceptance")


def _markup_strings(value):
    """Every string in a view (figures, readouts, tables), recursively."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _markup_strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _markup_strings(item)


def test_the_checks_unescape_as_html_does_without_importing_it():
    """The checks read the lab's markup through checks.unescape, not html.unescape, so the browser's standard
    library ships without html.entities: every named reference the lab's sources write is in its table, with
    html5's character; on every widget's default view it gives what html.unescape gives; no browser-side
    module imports html."""
    import html
    import re

    from sitebuild import stdlib

    written = {name for path in (ROOT / "lab").rglob("*.py") if "__pycache__" not in path.parts
               for name in re.findall(r"&([A-Za-z][A-Za-z0-9]*);", path.read_text(encoding="utf-8"))}
    assert written and written <= set(checks.NAMED_REFERENCES), written - set(checks.NAMED_REFERENCES)
    assert all(html.entities.html5[f"{name};"] == char for name, char in checks.NAMED_REFERENCES.items())
    strings = [s for kind in instruments.widget_names() for s in _markup_strings(json.loads(views.handle(json.dumps({"kind": kind})))) if "&" in s]
    assert len(strings) > 20 and any("&#x27;" in s or "&amp;" in s for s in strings)
    assert [checks.unescape(s) for s in strings] == [html.unescape(s) for s in strings]
    assert checks.unescape("&bogus; &#x3bb;&#955; &amp;lt;") == "&bogus; \u03bb\u03bb &lt;"
    assert not {name for name in stdlib.lab_imports(ROOT / "lab") if name.split(".")[0] == "html"}


def test_the_figures_escape_as_html_does_without_importing_it():
    """lab.figures.escape is html.escape(str(text), quote=True), written as its chain of replacements: on strings of
    the five characters it replaces among others (an entity already written, a lone ampersand, quotes of both
    kinds, non-ASCII), and on a number."""
    import html
    import random

    from lab.figures import escape

    rng = random.Random(20261205)
    texts = ["", "&amp;", "&&<<>>", "it's \"quoted\"", "\u03b1 = 0.7 & k < 5"] + [
        "".join(rng.choice("ab&<>\"'; #x1\u00e9") for _ in range(rng.randrange(1, 40))) for _ in range(2000)]
    assert [escape(t) for t in texts] == [html.escape(t, quote=True) for t in texts]
    assert escape(2.5) == "2.5" and escape(None) == "None"
