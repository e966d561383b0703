"""Bad input a reader sends by mistake, tried by hand as an outsider (6 December 2026, docs/CHECKS.md "Hostile input
by hand"): each case here was a traceback, a wrong answer with no word, lost input or an unclear message before its
fix. Random fuzzing (tests/test_fuzz_*.py) rarely sends these: a mean acceptance length that falls by a hundredth, a
fraction where a flag takes percent, another engine's spelling of a flag, a compressed log, a log longer than a
buffer, "80%" typed into a field whose unit is a percentage."""

import json
from pathlib import Path

import pytest

from lab import acceptance, cli, views

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "lab" / "traces" / "samples"
SERVING = ["serving", "--target", "llama-3-8b", "--draft", "llama-3.2-1b", "--gpu", "h200", "--batch", "8",
           "--context", "4096", "--lookahead", "4"]


def _main(capsys, *argv):
    """(status, stdout, stderr) of ``python -m lab ARGV``, in this process."""
    capsys.readouterr()
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


# --- a mean acceptance length that falls -------------------------------------------------------------------------
# Two lengths measured in separate runs can fall on a plateau (1.80 at k = 1, 1.79 at k = 2); before, the second
# draft's rate came out negative, every instrument that took the curve stopped with "internal error" (exit 1), the
# deployment panel showed "LabValueError" in place of its answer, and `acceptance` printed a rate of -0.013 and a
# length at k = 4 below the one measured at k = 1.

FALLING = ({1: 1.8, 2: 1.79}, {1: 1.8, 2: 1.6}, {1: 1.8, 2: 1.0}, {1: 1.01, 2: 1.0}, {2: 2.4, 3: 2.2},
           {1: 1.8, 2: 1.6, 3: 1.5}, {1: 1.8, 3: 1.6})


@pytest.mark.parametrize("lengths", FALLING, ids=str)
def test_a_falling_length_gives_rates_that_are_chances(lengths):
    curve = acceptance.from_lengths(lengths)
    rates = curve.rates(16)
    assert all(0 <= rate <= 1 for rate in rates), rates
    assert all(curve.length(k) <= curve.length(k + 1) for k in range(1, 16))  # a longer lookahead never loses tokens
    acceptance.curve_token(curve)  # the token every instrument receives is made (it refused a negative rate)


def test_a_second_length_below_the_first_is_no_gain_at_k_2():
    """r_2 = 0 (the second draft adds nothing), as a measured plateau's falls are read; k = 1 keeps its rate."""
    curve = acceptance.from_lengths({1: 1.8, 2: 1.79})
    assert curve.rates(2) == [0.8, 0.0] and curve.length(4) == pytest.approx(1.8)


@pytest.mark.parametrize("argv", [
    ["ledger", "--lengths", "1:1.8,2:1.79"],
    ["ledger", "--lengths", "1:1.8,2:1.6"],
    ["policy", "--draft-cost", "10", "--lengths", "1:1.8,2:1.79"],
    ["tree", "--lengths", "1:1.8,2:1.79"],
    ["deployment", "--lengths", "1:1.8,2:1.79"],
    [*SERVING, "--lengths", "1:1.8,2:1.6"],
], ids=lambda argv: argv[0])
def test_every_instrument_answers_a_falling_length(capsys, argv):
    status, out, err = _main(capsys, *argv, "--json")
    assert status == 0 and "internal error" not in err, err
    json.loads(out)


def test_the_acceptance_report_on_a_falling_length(capsys):
    status, out, _ = _main(capsys, "acceptance", "--lengths", "1:1.8,2:1.79", "--lookahead", "4", "--json")
    document = json.loads(out)
    assert status == 0 and min(document["perPosition"]) >= 0, document["perPosition"]
    assert document["meanAcceptanceLength"] >= 1.8


@pytest.mark.parametrize("curve", ["1:1.8,2:1.79", "1:1.8,2:1.6"])
def test_the_deployment_panel_answers_a_falling_length(curve):
    for raw in ({"curve": curve}, f"?depCurve={curve}"):
        answer = json.loads(views.handle(json.dumps({"kind": "deployment", "input": raw})))
        assert "error" not in answer, answer.get("error")
