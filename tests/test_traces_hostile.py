"""Hostile input to the trace reader: one clear line, never a traceback, on the CLI and
on the page; counts that no engine prints are refused naming the line and the field; messages quote
at most lab.traces.MAX_QUOTE characters of a bad value; non-ASCII digits are refused everywhere
(the reader and the CLI's flags agree); big counts print in full digits."""

import io
import math
import json
import subprocess
import sys

import pytest

from lab import traces
from lab.commands import traces as command
from lab.widgets import traces as widget

DEEP_TRT = '{"specDecodingStats": ' + "[" * 100_000 + "]" * 100_000 + "}"
DEEP_TRT_INTERLEAVED = '{"specDecodingStats": ' + "[1," * 60_000 + "}"
DEEP_REQUEST = '{"num_drafts": 1, "x": ' + "[" * 100_000 + "]" * 100_000 + "}"


def _request(**fields):
    base = {"num_drafts": 10, "num_draft_tokens": 30, "num_accepted_tokens": 12, "num_accepted_tokens_per_pos": [7, 4, 1]}
    base.update(fields)
    return json.dumps(base).replace('"NAN"', "NaN").replace('"BIG"', "1e308")


HOSTILE_COUNTS = {
    "NaN count": (_request(num_drafts="NAN"), ("line 1", "num_drafts", "nan")),
    "NaN per position": (_request(num_accepted_tokens_per_pos=["NAN", 4, 1]), ("line 1", "num_accepted_tokens_per_pos")),
    "1e308 count": (_request(num_drafts="BIG", num_draft_tokens="BIG"), ("line 1", "num_drafts", "1e+308")),
    "float count": (_request(num_drafts=10.5), ("line 1", "num_drafts", "10.5")),
    "20-digit count": (_request(num_drafts=12345678901234567890, num_draft_tokens=37037036703703703670),
                       ("line 1", "num_drafts")),
    "20-digit counts that fit each other": (
        _request(num_drafts=12345678901234567891, num_draft_tokens=12345678901234567891 * 3,
                 num_accepted_tokens=12345678901234567890, num_accepted_tokens_per_pos=[12345678901234567890, 0, 0]),
        ("line 1", "num_drafts")),
    "NaN in a histogram": ('{"acceptance_histogram": [1, NaN, 3]}', ("acceptance_histogram", "nan")),
    "non-ASCII histogram key": ('{"acceptance_histogram": {"\u0663": 2, "0": 1}}', ("acceptance_histogram", "ASCII")),
    "TensorRT-LLM NaN": ('{"specDecodingStats": {"numDraftTokens": NaN, "numAcceptedTokens": 1, '
                         '"numRequestsWithDraftTokens": 1}}', ("line 1", "numDraftTokens")),
    "TensorRT-LLM 20 digits": ('{"specDecodingStats": {"numDraftTokens": 40000000000000000000, "numAcceptedTokens": 1, '
                               '"numRequestsWithDraftTokens": 1}}', ("line 1", "numDraftTokens")),
    "Prometheus 1e20": ("vllm:spec_decode_num_drafts_total 1e20\nvllm:spec_decode_num_draft_tokens_total 3e20\n"
                        "vllm:spec_decode_num_accepted_tokens_total 5\n", ("line 1", "num_drafts")),
    "Prometheus 5000 digits": ("vllm:spec_decode_num_drafts_total " + "9" * 5000, ("line 1", "5000 digits")),
    "JSON nested 100,000 deep (TensorRT-LLM)": (DEEP_TRT, ("line 1", "nested")),
    "JSON nested 100,000 deep, interleaved": (DEEP_TRT_INTERLEAVED, ("line 1", "nested")),
    "JSON nested 100,000 deep (per request)": (DEEP_REQUEST, ("nested",)),
}


@pytest.mark.parametrize("name", HOSTILE_COUNTS)
def test_hostile_counts_are_refused_naming_the_line_and_the_field(name):
    text, fragments = HOSTILE_COUNTS[name]
    with pytest.raises(traces.TraceError) as caught:
        traces.analyse(traces.parse(text, lookahead=3 if "Prometheus" in name else None))
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message, message
    assert "\n" not in message and len(message) < 300, message


@pytest.mark.parametrize("name", HOSTILE_COUNTS)
def test_hostile_counts_fed_in_slices_are_refused_too(name):
    """The page reads files in slices through TraceParser.feed: the same refusals, no exception."""
    text, _ = HOSTILE_COUNTS[name]
    parser = traces.TraceParser(lookahead=3 if "Prometheus" in name else None)
    with pytest.raises(traces.TraceError):
        for start in range(0, len(text), 7000):
            parser.feed(text[start:start + 7000])
        parser.finish()


@pytest.mark.parametrize("name", HOSTILE_COUNTS)
def test_the_page_shows_a_refusal_not_an_internal_error(name):
    text, _ = HOSTILE_COUNTS[name]
    view = widget.view({"trcText": text, "trcLookahead": "3" if "Prometheus" in name else ""})
    assert view["analysis"] is None
    assert not any("Internal error" in note for note in view["notes"]), view["notes"]
    assert any("could not be read" in note for note in view["notes"]), view["notes"]


def test_the_largest_count_an_engine_could_print_still_reads_exactly():
    """A count just under MAX_COUNT is read and the statistics stay finite (no math domain error:
    1 - s/n rounds to 0 for counts past 2^53, so the test works with (n - s) / n)."""
    n = (traces.MAX_COUNT - 1) // 3
    trace = traces.parse(_request(num_drafts=n, num_draft_tokens=3 * n, num_accepted_tokens=(n - 1) + 1,
                                  num_accepted_tokens_per_pos=[n - 1, 1, 0]))
    result = traces.analyse(trace)
    assert result["drafts"] == n and 0 <= result["independence"]["pValue"] <= 1


def test_independence_test_survives_counts_whose_ratio_rounds_to_one():
    n = 2 ** 60
    test = traces.independence_test(n, (n - 1, n - 2))
    assert 0 <= test["pValue"] <= 1 and test["statistic"] >= 0


@pytest.mark.parametrize("value", ["x" * 5000, "9" * 100_000, "\u0663" * 2000])
def test_messages_quote_at_most_48_characters_of_a_bad_value(value):
    texts = [f"SpecDecoding metrics: Accepted: {value} tokens, Drafted: 3 tokens",
             f"vllm:spec_decode_num_drafts_total{{model_name=\"{value}\"}} 3",
             value + "\n1\n2", f"Mean acceptance length: {value}"]
    for text in texts:
        with pytest.raises(traces.TraceError) as caught:
            traces.parse(text, lookahead=3)
        quoted = [part for part in str(caught.value).split("'")[1::2]]
        assert all(len(part) <= traces.MAX_QUOTE + 1 for part in quoted), str(caught.value)
        assert len(str(caught.value)) < 300, str(caught.value)
    with pytest.raises(traces.ModelChoiceError) as caught:
        traces.parse(traces.render_exposition(10, 30, 12, (7, 4, 1)), model=value)
    assert len(str(caught.value)) < 300


@pytest.mark.parametrize("digits", ["\u0663", "\uff15", "\u0969"])
def test_non_ascii_digits_are_refused_by_the_reader_and_the_cli_alike(digits):
    """One rule (README, 'trace'): numbers are ASCII digits 0-9 everywhere. The reader refuses a
    count written in other digits; the CLI's flags refuse them the same way (lab.cli)."""
    with pytest.raises(traces.TraceError, match=r"ASCII digits \(0-9\)"):
        traces.parse(f"vllm:spec_decode_num_drafts_total {digits}")
    with pytest.raises(traces.TraceError, match=r"ASCII digits \(0-9\)"):
        traces.parse(f"SpecDecoding metrics: Accepted: {digits} tokens, Drafted: 6 tokens, Per-position acceptance "
                     f"rate: 0.5, 0.2")
    result = subprocess.run([sys.executable, "-m", "lab", "trace", "--lookahead", digits],
                            input="1\n", capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr


def test_trace_with_standard_input_closed_is_one_line():
    result = subprocess.run([sys.executable, "-m", "lab", "trace", "-"], stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=120)
    assert "Traceback" not in result.stderr
    closed = subprocess.run(f"{sys.executable} -m lab trace - 0<&-", shell=True, capture_output=True, text=True,
                            timeout=120)
    assert closed.returncode == 2 and "Traceback" not in closed.stderr, closed.stderr
    assert "standard input is closed" in closed.stderr


def test_reading_a_stream_closed_under_us_is_a_usage_error(monkeypatch):
    from lab.cli import UsageError

    stream = io.StringIO("1\n")
    stream.close()
    monkeypatch.setattr(sys, "stdin", stream)
    with pytest.raises(UsageError, match="standard input is closed"):
        command._read("-", traces.TraceParser(lookahead=3))


def test_big_counts_print_as_integers_never_in_exponent_form():
    text = ("vllm:spec_decode_num_drafts_total 4.11267e+07\nvllm:spec_decode_num_draft_tokens_total 1.233801e+08\n"
            "vllm:spec_decode_num_accepted_tokens_total 5.0e+07\n")
    result = subprocess.run([sys.executable, "-m", "lab", "trace", "--lookahead", "3"], input=text,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "41126700" in result.stdout and "e+0" not in result.stdout, result.stdout
    bounded = traces.parse(text.replace("1.233801e+08", "123380101").split("\n", 1)[1], lookahead=3)
    assert traces.analyse(bounded)["bounds"][0] == "verifier calls: at least 41126700.3"
    view = widget.view({"trcText": text, "trcLookahead": "3"})
    # the prose prints counts with thousands separators (reader audit N4-21), the readout the bare integer
    assert "41,126,700" in view["summary"] and "e+0" not in view["summary"] + view["readouts"]["drafts"]


# --- the hand-off to the lookahead policies: never a curve they cannot take ---------------------

SEND_INPUTS = {
    "vLLM line with a per-position rate of 1.000": (
        "SpecDecoding metrics: Mean acceptance length: 3.00, Accepted: 200 tokens, Drafted: 300 tokens, "
        "Per-position acceptance rate: 1.000, 0.500, 0.500, Avg Draft acceptance rate: 66.7%", None),
    "every draft accepted": ("\n".join(["3"] * 20), "3"),
    "first position always, then mixed": ("\n".join(["3", "1", "2", "1"] * 5), "3"),
    "one figure: alpha 100%": ("alpha 1", "4"),
    "a position nobody reached": ("\n".join(["0"] * 10), "3"),
}


def _sends(view):
    import html
    import re

    markup = view["figures"]["send"]
    return [(target, json.loads(html.unescape(values))) for target, values in
            re.findall(r'data-target="([^"]+)"[^>]*data-values="([^"]+)"', markup)]


@pytest.mark.parametrize("name", SEND_INPUTS)
def test_the_policies_button_sends_a_curve_the_policies_take(name):
    from lab import policies
    from lab.widgets import policies as policies_widget

    text, lookahead = SEND_INPUTS[name]
    view = widget.view({"trcText": text, "trcLookahead": lookahead or ""})
    assert view["analysis"] is not None, view["notes"]
    sent = [values for target, values in _sends(view) if target == "policies"]
    assert len(sent) == 1
    token = sent[0]["polCurve"]
    curve, _, _ = traces.ledger_curve(token)
    assert all(0 <= rate <= widget.POLICIES_MAX_RATE for rate in curve), token
    # lab.policies' accepted input: the process builds and every policy evaluates
    results = policies.evaluate_policies(policies.depth_curve(curve), policies.setting_costs(
        policies_widget._params(None)[0]), 5, 0.5)
    assert all(math.isfinite(r["speedup"]) for r in results.values() if isinstance(r, dict) and "speedup" in r)
    shown = policies_widget.view(sent[0])
    assert not any("Internal" in note or "could not" in note for note in shown["notes"]), shown["notes"]
    assert "measured curve" in shown["lead"], shown["lead"]
    if any(rate > widget.POLICIES_MAX_RATE for rate in traces.measured_curve(traces.analyse(
            traces.parse(text, lookahead=int(lookahead) if lookahead else None)))):
        assert "as 0.990" in view["figures"]["send"] and "never refused" in view["figures"]["send"]


def test_a_curve_below_the_limit_is_sent_unchanged_to_every_widget():
    view = widget.view(None)
    tokens = {target: values.get("trcCurve") or values.get("srvCurve") or values.get("polCurve")
              for target, values in _sends(view) if target in ("serving", "policies")}
    token = traces.DEFAULT_PRESET + "~" + traces.preset_family(traces.DEFAULT_PRESET)   # the preset and its drafter
    assert tokens == {"serving": token, "policies": token}


@pytest.mark.parametrize("k", (3, 12, 15, 40))
def test_the_ledger_buttons_send_a_lookahead_the_ledger_slider_holds(k):
    """The trace reader's lookahead runs to traces.MAX_LOOKAHEAD, the ledger's slider ends sooner: a
    send carries the trace's k clamped to the ledger slider's own range (read from the slider, not typed)."""
    import html
    import re

    from lab.urlstate import LEDGER_SLIDERS
    from lab.widgets import traces as traces_widget

    top = next(s for s in LEDGER_SLIDERS if s.name == "lookahead").maximum
    analysis = traces.analyse(traces.cycles_to_trace({0: 2, 1: 3, k: 5}, k))
    markup = traces_widget.send_html(analysis, None)
    sent = [json.loads(html.unescape(values)) for target, values in
            re.findall(r'data-target="([^"]+)"[^>]*data-values="([^"]+)"', markup) if target == "ledger"]
    assert len(sent) == 2 and all(values["lookahead"] == str(min(k, top)) for values in sent)


def test_a_refused_count_past_2_to_the_53_is_quoted_in_full():
    """A 23-digit count in a llama.cpp per-call line is refused quoting the digits read, not a float's."""
    with pytest.raises(traces.TraceError, match="accepted is 99999999999999999999999, more than"):
        traces.parse("slot update_slots: id  3 | task 0 | accepted 99999999999999999999999/16 draft tokens\n")


def test_bracketed_rates_that_are_not_numbers_are_refused():
    with pytest.raises(traces.TraceError, match="without numbers after it"):
        traces.parse("Per-position acceptance rate: [0.9, abc]\n")
