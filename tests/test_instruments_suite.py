"""The instruments suite as registered (docs/CONTRACT.md section 5): every check passes, the signature is the
frozen one, each family documents its signature value, and the CLI prints the counter last."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lab import checks, instruments
from lab.widgets import exact as exact_widget, ledger as ledger_widget

ROOT = Path(__file__).resolve().parent.parent


def _ask(request: dict) -> dict:
    from lab import views

    return json.loads(views.handle(json.dumps(request)))


@pytest.fixture(scope="module")
def whole():
    """One unsliced run of the suite through the page's router (checks.run_suite, then suite_view),
    shared by the tests below: a run costs about 12 s of CPU."""
    return _ask({"kind": "audit", "suite": "instruments"})


def test_suite_passes_with_the_frozen_signature(whole):
    assert whole["summary"]["failures"] == [], [c for c in whole["checks"] if not c["passed"]]
    assert whole["summary"]["checked"] >= 6 * len(instruments.NAMES) > 0
    assert whole["signature"] == checks.EXPECTED_SIGNATURE
    assert whole["counter"] == checks.counter_text(whole["summary"]) and whole["allPassed"] is True


def test_every_family_explains_its_signature_value():
    assert set(checks.SIGNATURE_NOTES) == set(instruments.NAMES)
    for name, note in checks.SIGNATURE_NOTES.items():
        assert len(note.split()) >= 12, f"the note for {name} says too little"


def test_check_names_are_unique_across_both_suites():
    from lab import audit

    names = [name for name, _ in audit.CHECKS]
    for family in instruments.NAMES:
        names += [name for name, _ in instruments.part("checks", family).CHECKS]
    assert len(names) == len(set(names))


def test_cli_instrument_suite():
    run = subprocess.run([sys.executable, "-m", "lab", "audit", "--suite", "instruments", "--json"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    document = json.loads(run.stdout)
    assert set(document) == {"checked", "passed", "failures", "checks", "signature"}
    assert document["signature"] == checks.EXPECTED_SIGNATURE and all(document["checks"].values())
    run = subprocess.run([sys.executable, "-m", "lab", "audit", "--suite", "all"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    lines = run.stdout.splitlines()
    assert run.returncode == 0 and lines[-1] == "20/20 speculative decoding checks passed"
    checked = document["checked"]
    assert f"{checked}/{checked} instrument checks passed" in lines


def test_url_keys_do_not_collide_across_widgets():
    from lab.urlstate import EXACT_SLIDERS, LEDGER_SLIDERS

    keys = [s.key for s in (*LEDGER_SLIDERS, *EXACT_SLIDERS)]
    for name in instruments.NAMES:
        keys += [s.key for s in instruments.part("widgets", name).SLIDERS]
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)


def test_a_link_to_every_widget_fits_the_query_limit():
    """The page's own canonical address (every widget's settings, each at its widest value) must
    stay under the length past which parse_query ignores a query whole."""
    from lab.urlstate import EXACT_SLIDERS, LEDGER_SLIDERS, MAX_QUERY_LENGTH

    def widest(sliders):
        return {s.name: str(-s.maximum if s.minimum < 0 else s.maximum) + ("" if s.integer else ".125") for s in sliders}

    parts = [ledger_widget.view(widest(LEDGER_SLIDERS))["query"], exact_widget.view(widest(EXACT_SLIDERS))["query"]]
    for name in instruments.NAMES:
        widget = instruments.part("widgets", name)
        parts.append(widget.view(None)["query"])
        parts.append(widget.view(widest(widget.SLIDERS))["query"])
    longest = sum(max(len(parts[i]), len(parts[i + 1])) for i in range(2, len(parts), 2)) + len(parts[0]) + len(parts[1])
    assert longest + len(parts) < MAX_QUERY_LENGTH, longest


def test_sliced_suite_run_equals_the_whole_run(monkeypatch, whole):
    """The page runs the suite in slices (one request each) so a slider move is answered between
    two checks: the slices must add up to exactly the unsliced view, and each slice must stop."""
    from lab import views

    ask = _ask
    monkeypatch.setattr(views, "SUITE_SLICE_SECONDS", 0.0)  # one step per slice: the most slices
    answers = [ask({"kind": "audit", "suite": "instruments", "sliced": True})]
    while answers[-1].get("pending"):
        answers.append(ask({"kind": "audit", "suite": "instruments", "op": "continue"}))
        assert len(answers) < 5000
    steps = sum(len(instruments.part("checks", f).CHECKS) + 1 for f in instruments.NAMES)
    # one pending answer per step: "done" counts the checks and signature values finished, one at a
    # time, and stands still while a long check pauses between its cases (more answers than checks)
    done = [a["done"] for a in answers[:-1]]
    assert sorted(set(done)) == list(range(done[0], steps + 1)) and done[0] in (0, 1)
    assert all(b - a in (0, 1) for a, b in zip(done, done[1:])) and len(done) > steps
    assert answers[-1] == whole
    # a continue with no run under way is one clear error, and a new start begins from the first check
    assert "no instruments suite run is in progress" in ask({"kind": "audit", "suite": "instruments",
                                                             "op": "continue"})["error"]
    # an endless slice: the whole run in one answer however slow the machine (60 s was once too short)
    monkeypatch.setattr(views, "SUITE_SLICE_SECONDS", float("inf"))
    assert ask({"kind": "audit", "suite": "instruments", "sliced": True}) == whole


def test_long_checks_pause_between_their_cases_and_give_the_same_outcome():
    """A check written as a generator pauses between its cases (lab.audit.run_check_steps): run with
    its pauses or straight through, it reaches the same outcome, visits the same cases and pauses
    more than once; a check that pauses and then raises still fails, naming the exception."""
    import inspect

    from lab.audit import Outcome, run_check, run_check_steps

    paused = [(name, check) for family in instruments.NAMES
              for name, check in instruments.part("checks", family).CHECKS if inspect.isgeneratorfunction(check)]
    assert len(paused) >= 10
    for name, check in paused[:4]:
        steps, pauses = run_check_steps(check), 0
        while True:
            try:
                next(steps)
                pauses += 1
            except StopIteration as finished:
                stepped = finished.value
                break
        straight = run_check(check)
        assert pauses > 1, name
        assert (stepped.failure, stepped.visited) == (straight.failure, straight.visited), name

    def breaks_midway(out):
        out.visited += 1
        yield
        raise ValueError("case two")

    assert run_check(breaks_midway).failure == "raised ValueError: case two"
    assert isinstance(run_check(lambda out: None), Outcome)


def test_the_seed_audit_runs_in_slices_to_the_same_view(monkeypatch):
    """The page runs the seed audit in slices too (its two long checks pause between their cases):
    the slices end in exactly the unsliced view, its 20 checks and three signatures unchanged."""
    from lab import views

    def ask(request):
        return json.loads(views.handle(json.dumps(request)))

    whole = ask({"kind": "audit"})
    monkeypatch.setattr(views, "SUITE_SLICE_SECONDS", 0.0)
    answers = [ask({"kind": "audit", "sliced": True})]
    while answers[-1].get("pending"):
        answers.append(ask({"kind": "audit", "op": "continue"}))
        assert len(answers) < 5000
    done = [a["done"] for a in answers[:-1]]
    assert done[-1] == 20 and len(done) > 20 and all(b - a in (0, 1) for a, b in zip(done, done[1:]))
    assert answers[-1] == whole and whole["counter"] == "20/20 speculative decoding checks passed"
    assert "no seed suite run is in progress" in ask({"kind": "audit", "op": "continue"})["error"]
