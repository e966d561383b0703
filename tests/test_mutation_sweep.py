"""tools/mutation_sweep.py stays alive: its list still matches the code (every snippet found once), a snippet the
code no longer holds is refused by name, and a small subset of its mutations (the targets of checks added after
the sweep of 5 December 2026, and two strengthened after each of the second and fourth outsiders' of 6 December) are killed by the
instruments suite, each by the check written or strengthened for it. The full run (264 mutations, ~20 minutes)
belongs in docs/CHECKS.md ("The mutation sweep"), not here."""

from __future__ import annotations

import pytest

from tools import mutation_sweep as sweep

# each mutation and the check added for it (lab/checks/deployment_rules.py, lab/checks/serving_engines.py,
# lab/checks/serving_notes.py)
SUBSET = {
    "steady-tolerance-sign": "production-schedule-keeps-k-within-tolerance",
    "two-lengths-unconditional": "acceptance-curve-continues-by-its-rule",
    "sglang-k-steps-with-fc": "serving-sglang-eagle3-cycle-adds-up",
    # two of an outsider's planted mistakes (lab/checks/serving_notes.py, lab/checks/deployment_rules.py)
    "suffix-loops-swapped": "serving-suffix-as-read",
    "diagnosis-survival-k-plus-one": "deployment-diagnosis-by-its-rules",
    # two of the second outsider's, on where a figure draws a number (lab/checks/deployment_seed.py,
    # lab/checks/serving_readouts.py)
    "ledger-outline-row-below": "ledger-readouts-match-model",
    "serving-hatch-rows-flipped": "serving-readouts-match-model",
    # two of the fourth outsider's, in the URL state and the acceptance model's shape (lab/checks/deployment_seed.py,
    # lab/checks/deployment_rules.py)
    "format-query-by-name": "seed-hostile-inputs-answered",
    "lengths-of-from-k-zero": "acceptance-curve-continues-by-its-rule",
}


def test_every_snippet_occurs_once():
    sweep.validate(sweep.MUTATIONS, sweep.ROOT / "lab")
    assert 150 <= len(sweep.MUTATIONS) <= 300
    assert set(SUBSET) <= {m.name for m in sweep.MUTATIONS}


def test_a_rotted_snippet_is_refused_by_name(tmp_path):
    (tmp_path / "production.py").write_text("x = 1\nx = 1\n", encoding="utf-8")
    gone = sweep.Mutation("gone", "production.py", "y = 2", "y = 3", "not in the file")
    twice = sweep.Mutation("twice", "production.py", "x = 1", "x = 2", "in the file twice")
    missing = sweep.Mutation("missing", "nowhere.py", "x", "y", "no such file")
    with pytest.raises(sweep.Refused) as refused:
        sweep.validate([gone, twice, missing], tmp_path)
    message = str(refused.value)
    assert "gone: its snippet occurs 0 times" in message
    assert "twice: its snippet occurs 2 times" in message
    assert "missing: lab/nowhere.py does not exist" in message


def test_bad_names_are_refused(capsys):
    assert sweep.main(["--only", "no-such-mutation"]) == 2
    assert "unknown mutation no-such-mutation; valid:" in capsys.readouterr().err


def test_the_new_checks_kill_their_mutants():
    chosen = [m for m in sweep.MUTATIONS if m.name in SUBSET]
    results = sweep.sweep(chosen, log=lambda line: None)
    assert [r["name"] for r in results] == [m.name for m in chosen]
    for result in results:
        assert result["killed"], f"{result['name']} survived: {result['counter']}"
        assert SUBSET[result["name"]] in result["failures"], (result["name"], result["failures"])
