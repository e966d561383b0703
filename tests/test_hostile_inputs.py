"""Bad input a reader sends by mistake, tried by hand as an outsider (6 December 2026, docs/CHECKS.md "Hostile input
by hand"): each case here was a traceback, a wrong answer with no word, lost input or an unclear message before its
fix. Random fuzzing (tests/test_fuzz_*.py) rarely sends these: a mean acceptance length that falls by a hundredth, a
fraction where a flag takes percent, another engine's spelling of a flag, a compressed log, a log longer than a
buffer, "80%" typed into a field whose unit is a percentage."""

import gzip
import json
import zipfile
from pathlib import Path

import pytest

from lab import acceptance, cli, traces, views

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


# --- flags in another subcommand's or engine's spelling -----------------------------------------------------------
# Before: "unrecognized arguments: --k 5 (see --help)", which does not say what the flag is called here, and for
# serving "the following arguments are required: --batch" when --batch-size had been given.

@pytest.mark.parametrize("argv, meant", [
    (["ledger", "--k", "5"], "--lookahead"),
    (["ledger", "--gamma", "5"], "--lookahead"),
    (["exact", "--lookahead", "5"], "--gamma"),
    (["serving", "--batch-size", "8", "--context", "4096"], "--batch"),
    (["serving", "--tensor-parallel-size", "8"], "--gpus"),
    (["serving", "--max-model-len", "32768"], "--context"),
    (["trace", "--num_speculative_tokens", "4", str(SAMPLES / "vllm_log.txt")], "--lookahead"),
    (["generate", "--max-new-tokens", "8", "--preset", "python"], "--tokens"),
    (["ledger", "--acceptence", "70"], "--acceptance"),
    (["policy", "--alpha", "80", "--draft-cost", "10"], "--acceptance"),
])
def test_a_flag_spelled_as_elsewhere_names_the_flag_meant(capsys, argv, meant):
    status, out, err = _main(capsys, *argv)
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert f"{argv[1]} is not a flag of this command; did you mean {meant}?" in err


def test_an_abbreviation_argparse_reads_is_still_read(capsys):
    status, out, _ = _main(capsys, "ledger", "--look", "7", "--json")
    assert status == 0 and json.loads(out)["params"]["lookahead"] == 7


# --- a fraction where a flag takes percent, a number a curve replaces ---------------------------------------------
# Before: `--acceptance 0.8` ran at 0.8 % (the ledger's speedup 0.5x) and `--acceptance 70 --lengths 1:1.8` ran on the
# curve while the output's params said 70, both without a word. The answer is unchanged; a note on stderr says so.

@pytest.mark.parametrize("argv, note", [
    (["ledger", "--acceptance", "0.8"], "--acceptance takes a percentage, so 0.8 is 0.8%; for the fraction 0.8 give "
                                        "--acceptance 80"),
    ([*SERVING, "--acceptance-curve", "0.8,0.7"], "for the fractions 0.8,0.7 give --acceptance-curve 80,70"),
    (["translate", "--lookahead", "4", "--alpha", "0.74"], "give --alpha 74"),
    (["deployment", "--acceptance-rate", "0.3"], "give --acceptance-rate 30"),
    (["tree", "--rank-probs", "0.6,0.2"], "give --rank-probs 60,20"),
    (["policy", "--acceptance", "80", "--draft-cost", "10", "--threshold", "0.4"], "give --threshold 40"),
    ([*SERVING, "--acceptance", "70", "--lengths", "1:1.8"], "--acceptance 70 is set aside: the curve from --lengths "
                                                             "replaces it"),
    (["ledger", "--acceptance", "80", "--per-position", "0.9,0.8"], "--acceptance 80 is set aside"),
    (["policy", "--acceptance", "80", "--burst", "50", "--draft-cost", "10", "--lengths", "1:1.8"],
     "--burst 50 is set aside"),
    (["tree", "--rank-probs", "60,20", "--lengths", "1:1.8"], "--rank-probs 60,20 is set aside"),
])
def test_a_doubtful_input_runs_with_a_note(capsys, argv, note):
    status, out, err = _main(capsys, *argv, "--json")
    assert status == 0, err
    json.loads(out)  # the answer stays one JSON object on stdout; the note is on stderr
    assert err.startswith("python -m lab: note: ") and note in err, err


@pytest.mark.parametrize("argv", [["ledger", "--acceptance", "80"], ["ledger", "--acceptance", "0"],
                                  ["ledger", "--acceptance", "1"], ["ledger", "--lengths", "1:1.8"],
                                  ["translate", "--lookahead", "4", "--alpha", "74"]])
def test_a_plain_input_gets_no_note(capsys, argv):
    status, _, err = _main(capsys, *argv)
    assert status == 0 and err == "", err


# --- trace files ------------------------------------------------------------------------------------------------

def _vllm_log(copies: int) -> str:
    return (SAMPLES / "vllm_log.txt").read_text() * copies


def test_a_log_longer_than_a_buffer_is_read_whole(capsys, tmp_path):
    """`deployment --log` read the first 4,000,000 characters and said the last line "looks cut off"; `acceptance
    --trace` read at most 64 MB. Both read a file as `trace` does now: whole, in pieces."""
    path = tmp_path / "long.log"
    path.write_text(_vllm_log(3500))  # about 4.7 million characters
    assert path.stat().st_size > 4_000_000
    _, out, _ = _main(capsys, "trace", str(path), "--json")
    whole = json.loads(out)["drafts"]
    _, out, err = _main(capsys, "deployment", "--alpha", "80", "--log", str(path), "--json")
    log = json.loads(out)["log"]
    assert log["drafts"] == whole == 527 * 3500, (log["drafts"], whole)
    assert not any("cut off" in note for note in log["notes"]), log["notes"]


@pytest.mark.parametrize("flag", ["--log", "--trace"])
def test_a_utf16_log_is_read_by_every_flag_that_takes_one(capsys, tmp_path, flag):
    path = tmp_path / "powershell.log"
    path.write_bytes(_vllm_log(1).encode("utf-16"))
    argv = ["deployment", "--alpha", "80", "--log", str(path)] if flag == "--log" else \
        ["acceptance", "--trace", str(path), "--lookahead", "4"]
    status, out, err = _main(capsys, *argv, "--json")
    assert status == 0, err
    document = json.loads(out)
    if flag == "--log":
        assert document["log"]["drafts"] == 527, document["log"]
    else:  # the log's own per-position curve (0.734 first), not a figure read from garbled text
        assert document["perPosition"][0] == pytest.approx(0.7343, abs=1e-4), document


@pytest.mark.parametrize("name, write, words", [
    ("log.gz", lambda path: path.write_bytes(gzip.compress(_vllm_log(1).encode())), "gzip-compressed"),
    ("log.zip", lambda path: zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED).writestr("vllm.log", _vllm_log(1)),
     "zip-compressed"),
    ("log.bin", lambda path: path.write_bytes(bytes(range(256)) * 8), "binary data, not text"),
])
@pytest.mark.parametrize("argv", [["trace"], ["acceptance", "--lookahead", "4", "--trace"],
                                  ["deployment", "--alpha", "80", "--log"]], ids=lambda argv: argv[0])
def test_a_compressed_or_binary_file_is_named_as_such(capsys, tmp_path, name, write, words, argv):
    """Before: "unrecognised format ... first line not read: line 1: '\\x8b\\x08...'", the bytes echoed back."""
    path = tmp_path / name
    write(path)
    status, out, err = _main(capsys, *argv, str(path))
    assert status == 2 and out == "" and err.count("\n") == 1 and words in err, err


def test_the_page_names_a_compressed_file_too():
    answer = json.loads(views.handle(json.dumps({"kind": "traces", "op": "chunk", "name": "a.log.gz", "index": 0,
                                                 "count": 1, "text": "\x1f\ufffd\x08\x00\ufffd\ufffdabc"})))
    assert any("gzip-compressed" in note for note in answer["notes"]), answer["notes"]


@pytest.mark.parametrize("text", ["Mean acceptance length: 2.5\n", "# a comment\n\x1f\x8b", "hello\nworld\n"])
def test_text_is_never_called_compressed_or_binary(text):
    with pytest.raises(traces.TraceError) as error:
        traces.parse(text)
    assert "compressed" not in str(error.value) and "binary" not in str(error.value), error.value


# --- the deployment panel's acceptance figure -----------------------------------------------------------------

@pytest.mark.parametrize("typed, unit, value", [("80%", "alpha", 80), ("74 %", "rate", 74), (" 80 % ", "alpha", 80)])
def test_a_percent_sign_in_a_percent_unit_is_read(typed, unit, value):
    """Before: "'80%' is not a number; using 2.8", and 2.8 was then read as alpha 2.8 %."""
    answer = json.loads(views.handle(json.dumps({"kind": "deployment", "input": {"value": typed, "unit": unit}})))
    assert answer["params"]["value"] == value and answer["params"]["unit"] == unit
    assert not any(note.startswith("Your acceptance figure") for note in answer["notes"]), answer["notes"]


def test_a_percent_sign_after_a_length_is_still_refused():
    answer = json.loads(views.handle(json.dumps({"kind": "deployment", "input": {"value": "2.8%", "unit": "length"}})))
    assert any("'2.8%' is not a number" in note for note in answer["notes"]), answer["notes"]


def test_the_figure_s_note_gives_the_range_of_its_unit():
    """Before: "'2,79' is not a number; using 2.8 (valid: 0 to 100)", the field's range, not a length's."""
    answer = json.loads(views.handle(json.dumps({"kind": "deployment",
                                                 "input": {"value": "2,79", "unit": "length", "measuredK": "4"}})))
    note = next(note for note in answer["notes"] if note.startswith("Your acceptance figure"))
    assert note.endswith("(valid: 1 to k + 1 = 5)"), note


# --- the worker's entry point ---------------------------------------------------------------------------------

@pytest.mark.parametrize("message", ["not json", "", '{"kind": "ledger"', "{'kind': 'ledger'}"])
def test_a_request_that_is_not_json_is_said_so(message):
    """Before: "JSONDecodeError: Expecting value: ...", a Python exception's name on the page."""
    error = json.loads(views.handle(message))["error"]
    assert error.startswith("a request is a JSON object with a kind; this one is not JSON") and "Error:" not in error
