"""``python -m lab`` as a user runs it: a subprocess from the repository root."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lab import audit, exact
from lab.jsformat import to_fixed

ROOT = Path(__file__).resolve().parent.parent
LEGACY = audit.LEGACY_EXPECTED.split(":")
LEDGER_FIELDS = ["accepted", "outputTokens", "draftMs", "verifyMs", "cycleMs", "msPerToken", "speedup", "wastedDrafts"]


def run(*args, timeout=120):
    proc = subprocess.run([sys.executable, "-m", "lab", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert "Traceback" not in proc.stdout and "Traceback" not in proc.stderr, (
        f"python -m lab {' '.join(args)} crashed:\n{proc.stderr[-600:]}")
    return proc


# --- audit ------------------------------------------------------------------------------------

def test_audit_text():
    proc = run("audit")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    lines = proc.stdout.rstrip("\n").split("\n")
    assert lines[-1] == "20/20 speculative decoding checks passed"
    checks = lines[:-1]
    assert len(checks) == 20
    assert all(line.startswith("pass  ") for line in checks)
    names = [line.split()[1] for line in checks]
    assert len(set(names)) == 20
    assert names == [c["name"] for c in audit.run_audit()["checks"]]


def test_audit_json():
    proc = run("audit", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert set(doc) == {"checked", "passed", "failures", "settings", "maxExactTv", "maxAlphaGap", "signatures"}
    assert (doc["checked"], doc["passed"], doc["failures"], doc["settings"]) == (20, 20, [], 1296)
    assert doc["maxExactTv"] == 0 and doc["maxAlphaGap"] == 0
    assert doc["signatures"] == {
        "audit": "20:20:0:1296:0.000000000000:0.000000000000",
        "exact": audit.exact_signature(),
        "legacy": audit.LEGACY_EXPECTED,
    }


# --- ledger -----------------------------------------------------------------------------------

def test_ledger_defaults_json_are_the_legacy_values():
    proc = run("ledger", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert set(doc) == {"params", *LEDGER_FIELDS, "bestLookahead", "bestSpeedup"}
    assert doc["params"] == {"acceptance": 74, "draftCost": 12, "lookahead": 5, "overheadMs": 6, "targetMs": 80,
                             "verifyTax": 3}
    assert [to_fixed(doc[k], 6) for k in LEDGER_FIELDS] == LEGACY[6:14]
    assert str(doc["bestLookahead"]) == LEGACY[14]
    assert to_fixed(doc["bestSpeedup"], 6) == LEGACY[15]


def test_ledger_text():
    proc = run("ledger")
    assert proc.returncode == 0, proc.stderr
    rows = dict(line.split() for line in proc.stdout.strip().split("\n"))
    assert rows["accepted"] == "2.214590" and rows["speedup"] == "1.790858" and rows["bestLookahead"] == "4"


def test_ledger_camel_case_flags_and_decimals():
    proc = run("ledger", "--acceptance", "80.5", "--draft-cost", "7.25", "--lookahead", "3", "--overhead-ms", "0.5",
               "--target-ms", "42.5", "--verify-tax", "1.5", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["params"] == {"acceptance": 80.5, "draftCost": 7.25, "lookahead": 3, "overheadMs": 0.5, "targetMs": 42.5,
                             "verifyTax": 1.5}
    from lab.ledger import LedgerSettings, best_lookahead, ledger
    s = LedgerSettings(80.5, 7.25, 3, 0.5, 42.5, 1.5)
    assert [doc[k] for k in LEDGER_FIELDS] == list(ledger(s))
    assert (doc["bestLookahead"], doc["bestSpeedup"]) == best_lookahead(s)


def test_ledger_equals_form_and_integral_float_for_integer():
    proc = run("ledger", "--lookahead=4.0", "--acceptance=1e1", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["params"]["lookahead"] == 4 and doc["params"]["acceptance"] == 10


def test_ledger_max_lookahead_64_with_deep_lookahead():
    proc = run("ledger", "--max-lookahead", "64", "--lookahead", "40", "--acceptance", "99", "--draft-cost", "0",
               "--verify-tax", "0", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["params"]["lookahead"] == 40
    a = 0.99
    assert doc["accepted"] == pytest.approx(sum(a**i for i in range(1, 41)), rel=1e-12)
    assert 1 <= doc["bestLookahead"] <= 64
    assert doc["bestLookahead"] > 12  # free drafts at 99%: the best is deep


def test_lookahead_beyond_max_lookahead_is_refused():
    proc = run("ledger", "--max-lookahead", "20", "--lookahead", "21")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "--lookahead must be an integer from 1 to 20, got '21'"


# --- exact ------------------------------------------------------------------------------------

def test_exact_json_equals_evaluate():
    proc = run("exact", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == json.loads(json.dumps(exact.evaluate()))


def test_exact_json_with_flags():
    proc = run("exact", "--certainty", "30", "--match", "90", "--gamma", "3", "--length", "40", "--seed", "7",
               "--draft-cost", "20", "--json")
    assert proc.returncode == 0, proc.stderr
    expected = exact.evaluate(certainty=30, draftCost=20, gamma=3, length=40, match=90, seed=7)
    assert json.loads(proc.stdout) == json.loads(json.dumps(expected))


def test_exact_text_ends_with_the_signature():
    proc = run("exact")
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.strip().split("\n")[-1]
    assert last == "signature     " + audit.exact_signature()


# --- bad input --------------------------------------------------------------------------------

BAD_VALUES = [
    ("ledger", "--acceptance", "abc", "a number from 0 to 100"),
    ("ledger", "--acceptance", "NaN", "a number from 0 to 100"),
    ("ledger", "--acceptance", "nan", "a number from 0 to 100"),
    ("ledger", "--acceptance", "inf", "a number from 0 to 100"),
    ("ledger", "--acceptance", "Infinity", "a number from 0 to 100"),
    ("ledger", "--acceptance=-inf", None, "a number from 0 to 100"),
    ("ledger", "--acceptance", "100.5", "a number from 0 to 100"),
    ("ledger", "--acceptance=-1", None, "a number from 0 to 100"),
    ("ledger", "--acceptance", "1e400", "a number from 0 to 100"),
    ("ledger", "--acceptance", "", "a number from 0 to 100"),
    ("ledger", "--draft-cost", "101", "a number from 0 to 100"),
    ("ledger", "--target-ms", "0", "a number from 1 to 500"),
    ("ledger", "--overhead-ms", "201", "a number from 0 to 200"),
    ("ledger", "--verify-tax", "50.01", "a number from 0 to 50"),
    ("ledger", "--lookahead", "2.5", "an integer from 1 to 12"),
    ("ledger", "--lookahead", "0", "an integer from 1 to 12"),
    ("ledger", "--lookahead", "13", "an integer from 1 to 12"),
    ("ledger", "--max-lookahead", "65", "an integer from 1 to 64"),
    ("ledger", "--max-lookahead", "0", "an integer from 1 to 64"),
    ("ledger", "--max-lookahead", "1.5", "an integer from 1 to 64"),
    ("exact", "--gamma", "2.5", "an integer from 1 to 12"),
    ("exact", "--certainty", "150", "an integer from 0 to 100"),
    ("exact", "--certainty", "abc", "an integer from 0 to 100"),
    ("exact", "--length", "257", "an integer from 1 to 256"),
    ("exact", "--length", "0", "an integer from 1 to 256"),
    ("exact", "--seed", "10000", "an integer from 0 to 9999"),
    ("exact", "--seed", "1.5", "an integer from 0 to 9999"),
    ("exact", "--draft-cost", "NaN", "an integer from 0 to 100"),
]


def _one_line(stderr: str) -> str:
    lines = stderr.rstrip("\n").split("\n")
    assert len(lines) == 1 and lines[0].strip(), f"expected exactly one line on stderr, got {stderr!r}"
    return lines[0]


@pytest.mark.parametrize("command, flag, value, range_text", BAD_VALUES)
def test_bad_value_names_flag_and_range(command, flag, value, range_text):
    args = [command, flag] + ([] if value is None else [value])
    proc = run(*args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    line = _one_line(proc.stderr)
    flag_name = flag.split("=")[0]
    assert line.startswith(f"{flag_name} must be {range_text}"), line


@pytest.mark.parametrize("args, needle", [
    (["bogus"], "bogus"),
    ([], "command"),
    (["ledger", "--bogus", "1"], "--bogus"),
    (["audit", "--acceptance", "3"], "--acceptance"),
    (["ledger", "--acceptance"], "--acceptance"),
    (["exact", "--seed"], "--seed"),
])
def test_usage_errors_are_one_line(args, needle):
    proc = run(*args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert needle in _one_line(proc.stderr)


@pytest.mark.parametrize("args, flag, range_text", [
    (["ledger", "--acceptance"], "--acceptance", "a number from 0 to 100"),
    (["exact", "--seed"], "--seed", "an integer from 0 to 9999"),
    (["ledger", "--acceptance", "-inf"], "--acceptance", "a number from 0 to 100"),
    (["ledger", "--acceptance", "-1e5"], "--acceptance", "a number from 0 to 100"),
    (["exact", "--match", "-inf"], "--match", "an integer from 0 to 100"),
    # each subcommand's own range: generate's --lookahead and --seed are not the ledger's or the exact lab's
    (["generate", "--lookahead"], "--lookahead", "an integer from 1 to 8"),
    (["generate", "--preset", "python", "--seed"], "--seed", "an integer from 0 to 2147483647"),
    (["generate", "--preset", "python", "--temperature", "-1"], "--temperature", "a number from 0 to 2"),
    (["generate", "--prompt"], "--prompt", "1 to 2000 characters"),
    (["trace", "--lookahead"], "--lookahead", "an integer from 1 to 64"),
    (["tree", "--budget"], "--budget", "an integer from 1 to 256"),
    (["tree", "--lengths", "1:1.5", "--top1", "-3"], "--top1", "an integer from 0 to 99"),
    (["tree", "--lengths"], "--lengths", "mean acceptance lengths K:L"),
    (["policy", "--burst"], "--burst", "a number from 0 to 95"),
    (["serving", "--gpu"], "--gpu", "one of a100-80g"),
])
def test_missing_or_dash_value_names_flag_and_range(args, flag, range_text):
    """A missing value, or one argparse takes for an option ('-inf', '-1e5'), is still a bad
    value of that flag: the one line should name the flag and its valid range."""
    proc = run(*args)
    assert proc.returncode == 2
    line = _one_line(proc.stderr)
    assert flag in line
    assert range_text in line, f"the error for {' '.join(args)!r} does not give the valid range: {line!r}"


@pytest.mark.parametrize("args, needle", [
    (["--help"], "audit"),
    (["audit", "--help"], "--json"),
    (["ledger", "--help"], "--acceptance"),
    (["exact", "--help"], "--certainty"),
])
def test_help_exits_zero(args, needle):
    # (help strings must escape '%' for argparse: the units '%' and '% of target' contain it)
    proc = run(*args)
    assert proc.returncode == 0, proc.stderr
    assert needle in proc.stdout


def test_broken_pipe_is_quiet():
    proc = subprocess.run(f"'{sys.executable}' -m lab exact | head -c 10", shell=True, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr and "Error" not in proc.stderr


@pytest.mark.parametrize("p", ["1e-400,1", "1e400,1"])
def test_tree_verify_takes_weights_beyond_a_float(p):
    """Normalised, these weights hold a probability a float cannot (it underflows to 0); the
    entropy takes its log from the fraction's integers, so the tables print, exactly."""
    proc = run("tree", "--verify", "--p", p, "--q", "1,1", "--drafts", "2")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert "multi-draft" in proc.stdout and "TV 0.000000" in proc.stdout


def test_tree_verify_refuses_an_entry_too_long_to_print():
    proc = run("tree", "--verify", "--p", "1,1", "--q", "1e999999,1", "--drafts", "2")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == "--q: '1e999999' needs more than 450 digits exactly; give a number between 1e-400 and 1e400"


def test_every_value_flag_is_declared_by_its_commands_module():
    """VALUE_FLAGS is what lets a flag's value start with '-' and names a flag left without a value:
    every option of every subcommand that takes one value is in its commands module's VALUE_FLAGS,
    and nothing else is."""
    from lab import cli, instruments

    parser = cli._build_parser()
    subparsers = next(action for action in parser._actions if action.dest == "command")
    declared, taken = {}, {}
    for command, subparser in subparsers.choices.items():
        if command == "audit":
            continue
        widget = parser.widget_of[command]
        declared.setdefault(widget, set()).update(instruments.part("commands", widget).VALUE_FLAGS)
        taken.setdefault(widget, set()).update(option for action in subparser._actions if action.nargs is None
                                               for option in action.option_strings)
    assert declared == taken


def test_a_prompt_may_start_with_a_dash():
    """'- item' would be an option to argparse; VALUE_FLAGS hands it to --prompt."""
    proc = run("generate", "--prompt", "- item\n- ", "--tokens", "4", "--temperature", "0", "--json", timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["prompt"] == "- item\n- "


# --- no traceback on any input --------------------------------------------------------------------

def _one_line_refusal(*args) -> str:
    proc = run(*args)
    assert proc.returncode == 2 and proc.stdout == "", (args, proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    return _one_line(proc.stderr)


@pytest.mark.parametrize("args, needle", [
    (["tree", "--rank-probs", "60,20,10", "--budget", ""], "--budget must be an integer from 1 to 256, got an empty value"),
    (["tree", "--rank-probs", "60,20,10", "--budget="], "--budget must be an integer from 1 to 256, got an empty value"),
    (["ledger", "--acceptance", "   "], "--acceptance must be a number from 0 to 100, got an empty value"),
    (["ledger", "--acceptance", "\u0663"], "--acceptance: '\u0663' is not a number written in ASCII digits"),
    (["tree", "--rank-probs", "\uff15"], "--rank-probs: '\uff15' is not a number written in ASCII digits"),
    (["tree", "--rank-probs", "1e400", "--budget", "4"], "got more than 1e300"),
    (["generate", "--preset", "python", "--temperature", "0.003"], "--temperature must be 0 (greedy) or from 0.05"),
    (["serving", "--target", "llama-3-70b", "--draft", "llama-3.2-1b", "--gpu", "h100-sxm", "--batch", "8",
      "--context", "4096", "--lookahead", "4", "--acceptance", "70", "--tree-tokens", "1"],
     "--tree-tokens must be 0 (a chain) or at least k + 1 = 5"),
])
def test_hostile_values_are_one_line_refusals(args, needle):
    assert needle in _one_line_refusal(*args)


@pytest.mark.parametrize("args", [["ledger", "--acceptance", "x" * 5000], ["audit", "--suite", "y" * 5000],
                                  ["tree", "--rank-probs", "z" * 5000], ["tree", "--lengths", "z" * 5000]])
def test_a_long_value_is_quoted_cut(args):
    line = _one_line_refusal(*args)
    assert len(line) < 300 and args[-1][:49] not in line and args[-1][:20] in line, line


@pytest.mark.parametrize("shell", ["{python} -m lab ledger --acceptance 74 > /dev/full",
                                   "{python} -m lab ledger --acceptance 74 --json | head -c0",
                                   "{python} -m lab ledger --acceptance 74 >&-"])
def test_closed_or_full_stdout_is_one_line(shell):
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", shell.format(python=sys.executable)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert _one_line(proc.stderr).startswith("python -m lab: "), proc.stderr


def test_an_internal_error_is_one_line(monkeypatch, capsys):
    from lab import cli
    from lab.commands import ledger as command

    monkeypatch.setattr(command, "run", lambda args: 1 / 0)
    assert cli.main(["ledger"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and _one_line(err).startswith("python -m lab: internal error, please report it: ZeroDivisionError")
