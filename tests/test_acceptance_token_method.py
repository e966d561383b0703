"""The measured-curve token names its drafter family (``custom:r1,...,rn[@m]~family``): a receiver that
needs positions past the rates it carries continues them by that family's prior (a copying drafter's curve rises to
its ceiling, a model drafter's falls), as ``python -m lab acceptance --per-position ... --method F`` does; a token
without the suffix reads exactly as before."""

import json

import pytest

from lab import acceptance, policies, urlstate
from lab.cli import main
from lab.errors import LabValueError
from lab.widgets import ledger as ledger_widget, policies as policies_widget, trees as trees_widget
from lab.widgets import realtext as realtext_widget, traces as traces_widget

VALID = "draft, block, eagle, mtp, ngram, suffix"
# an n-gram trace at k = 2, as the trace reader sends it: every rate measured, the family after it
NGRAM_TRACE = "custom:0.6000,0.8000~ngram"


def _cli_json(capsys, *argv):
    status = main(list(argv) + ["--json"])
    out = capsys.readouterr().out
    assert status == 0
    return json.loads(out)


@pytest.mark.parametrize("family", acceptance.FAMILIES)
def test_each_family_round_trips_through_the_token(family):
    curve = acceptance.from_conditional([0.7, 0.6, 0.55], family)
    token = acceptance.curve_token(curve)
    assert token.endswith(f"@3~{family}")
    assert acceptance.token_method(token) == family and acceptance.token_measured_at(token) == 3
    assert acceptance.token_rates(token) == [round(r, 4) for r in curve.rates(acceptance.TOKEN_POSITIONS)]
    notes = []
    assert urlstate.requested_curve({"trcCurve": token}, "trcCurve", notes)[0] == token
    assert notes == [urlstate.UNLINKABLE_CURVE_NOTE]   # nothing about the family: it was read
    # the address carries it unescaped ("~" is unreserved), and a percent-encoded one reads the same
    for query in (f"?trcCurve={token}", "?trcCurve=" + token.replace("~", "%7E").replace("@", "%40")):
        assert urlstate.requested_curve(query, "trcCurve", [])[0] == token


@pytest.mark.parametrize("family", acceptance.FAMILIES)
def test_a_receiver_continues_as_the_acceptance_command_does(capsys, family):
    """A trace's token (every rate measured) extended to 40 positions is what `lab acceptance --per-position
    R --method F --lookahead 40` prints for the same rates; on rising rates a copying family's continuation is
    not the pooled one (a model drafter's, fitted on three measured rates, is)."""
    rates = [0.6, 0.7, 0.75]
    token = acceptance.rates_token(rates, family)
    extended = acceptance.extended_rates(acceptance.token_rates(token), 40, acceptance.token_measured_at(token),
                                         acceptance.token_method(token))
    document = _cli_json(capsys, "acceptance", "--per-position", "0.6,0.7,0.75", "--method", family, "--lookahead", "40")
    assert extended == pytest.approx(document["perPosition"], rel=1e-12) and document["method"] == family
    assert (extended != acceptance.extended_rates(rates, 40)) == (family in acceptance.COPYING)


# What main (commit feee854, before the family travelled) gave for tokens without one, recomputed on the 58-curve
# library of the eighth search (5 December 2026: the pooled prior's point from two figures is now the whole library's
# nearest curves' median, as leave-one-out prefers, so it follows the reader's r_1 where it was one point (0.9337,
# 0.9829) for every reader): extended_rates to 24 positions (positions 15 to 24, rounded to 6 decimals), and the
# policies widget at lookahead 20 (it extends to 64). A change of the curve library moves the pooled prior and these
# with it (as the doctests'); the expression main used, below, does not. The 65-curve library (branch curves9, 6
# December 2026: four DFlash curves of speculators #613, three with a first rate of 0.82 to 0.90) moved the first
# token's continuation (0.348495 ... 0.271432 on 58 to 61 curves): its nearest curves by r_1 now include them. The
# 73-curve library (branch curves10, 6 December 2026: five classic draft-model curves whose conditional rates rise and
# three EAGLE-3 curves, first rates 0.62 to 0.80) moved the second token's (0.55577 ... 0.47356 on 58 to 65 curves):
# the nearest curves of r_1 = 0.8 now include the draft models, which fall less.
OLD_EXTENDED = {
    "custom:0.9,0.5": [0.374434, 0.366196, 0.35814, 0.350261, 0.342555, 0.335019, 0.327649, 0.32044, 0.313391,
                       0.306496],
    "custom:0.8000,0.7000,0.6880@2": [0.585889, 0.578097, 0.570409, 0.562823, 0.555338, 0.547953, 0.540666, 0.533475,
                                      0.526381, 0.51938],
    "custom:0.81,0.91,0.95,0.97": [0.97] * 10,
}


def test_old_tokens_read_exactly_as_before():
    for token, tail in OLD_EXTENDED.items():
        assert acceptance.token_method(token) is None
        rates = acceptance.token_rates(token)
        extended = acceptance.extended_rates(rates, 24, acceptance.token_measured_at(token))
        assert [round(r, 6) for r in extended[14:24]] == tail
        assert extended == acceptance.extended_rates(rates, 24, acceptance.token_measured_at(token), None)
        m = acceptance.token_measured_at(token) or len(rates)   # main's expression for the continuation
        continued = acceptance.from_conditional(rates[:m])._replace(measured=tuple(rates)).rates(24)
        assert extended == rates + [min(r, acceptance.MAX_SENT_RATE) for r in continued[len(rates):]]
    assert acceptance.token_curve([0.9, 0.5]).rates(4) == [0.9, 0.5, 0.5, 0.5]   # no family: the repeat, as before
    notes = []
    assert urlstate.requested_curve({"srvCurve": "custom:0.9,0.5"}, "srvCurve", notes) == (
        "custom:0.9,0.5", ([0.9, 0.5], "your own trace", False))
    assert notes == [urlstate.UNLINKABLE_CURVE_NOTE]
    view = policies_widget.view({"polCurve": "custom:0.8000,0.7000,0.6880@2", "lookahead": "20"})
    assert view["readouts"]["bestStatic"] == "k = 4, 2.03x (past the measured k = 2)"
    assert view["policies"]["static"]["speedup"] == pytest.approx(1.029917035138716, rel=1e-12)
    assert view["policies"]["static"]["tokensPerCall"] == pytest.approx(3.501717919471634, rel=1e-12)
    # a curve with no family writes a token without one, its third rate the pooled prior's continuation (0.6880 on the
    # 46- and 57-curve libraries, 0.6877 on the 56- to 65-curve ones, 0.6907 on the 73 of branch curves10)
    assert acceptance.curve_token(acceptance.from_conditional([0.8, 0.7]), 3) == "custom:0.8000,0.7000,0.6907@2"


def test_an_ngram_token_rises_to_its_ceiling_where_the_pooled_continuation_falls():
    rates = acceptance.token_rates(NGRAM_TRACE)
    copying = acceptance.extended_rates(rates, 40, None, acceptance.token_method(NGRAM_TRACE))
    pooled = acceptance.extended_rates(rates, 40)
    ceiling = acceptance.copy_ceiling(list(acceptance.CURVES), "ngram")
    assert all(later >= earlier for earlier, later in zip(copying[1:], copying[2:]))   # never falls past position 2
    assert copying[15:] == [ceiling] * 25 and copying[39] > rates[1]   # past the 16 a token carries: the ceiling
    assert all(later < earlier for earlier, later in zip(pooled[1:], pooled[2:]))      # the pooled prior falls
    assert pooled[39] < 0.75   # 0.546 on the 65-curve library, 0.741 on the 73 of branch curves10: the nearest curves
    # of r_1 = 0.6 now include classic draft models and EAGLE-3 heads near it, and the pooled fall is slower
    # the lookahead policies extend to 64 depths: the same continuation reaches them
    assert list(policies.received_curve(rates, None, "ngram").depth_rates[:40]) == copying
    # a panel token (16 positions, filled in by the n-gram model) continues past them at the ceiling, not falling
    panel = acceptance.curve_token(acceptance.from_conditional([0.6, 0.8], "ngram"))
    assert panel.endswith("@2~ngram")
    past = acceptance.extended_rates(acceptance.token_rates(panel), 40, 2, "ngram")[16:]
    assert past == [ceiling] * 24
    assert max(acceptance.extended_rates(acceptance.token_rates(panel), 40, 2)[16:]) < 0.9654   # the family lost


def test_the_trees_widget_continues_a_received_ngram_curve_by_rising():
    levels = [row["top1"] for row in trees_widget.view({"treCurve": NGRAM_TRACE})["depthProfile"]["rows"]]
    plain = [row["top1"] for row in trees_widget.view({"treCurve": "custom:0.6000,0.8000"})["depthProfile"]["rows"]]
    assert levels[:2] == plain[:2] == [0.6, 0.8] and len(levels) > 2
    assert all(b > a for a, b in zip(levels[1:], levels[2:])) and all(b < a for a, b in zip(plain[1:], plain[2:]))


@pytest.mark.parametrize("suffix, found", [
    ("~ngarm", "must be one of {valid}, got 'ngarm'"),
    ("~NGRAM", "must be one of {valid}, got 'NGRAM'"),
    ("~", "must be one of {valid}, got ''"),
    ("~ngram~ngram", "is given once, at the end: one of {valid}; got 'ngram~ngram'"),
    ("~ngram~eagle", "is given once, at the end: one of {valid}; got 'ngram~eagle'"),
])
def test_a_bad_family_is_one_note_and_the_rates_stay(suffix, found):
    message = "a curve's drafter family (after ~) " + found.format(valid=VALID)
    token = "custom:0.6000,0.8000,0.9000@2" + suffix
    with pytest.raises(LabValueError) as error:
        acceptance.token_method(token)
    assert str(error.value) == message
    notes = []
    kept = urlstate.requested_curve({"trcCurve": token}, "trcCurve", notes)
    assert kept == ("custom:0.6000,0.8000,0.9000@2", ([0.6, 0.8, 0.9], "your own trace", False))
    assert notes == [f"trcCurve: {message}; its rates are used, continued by the pooled prior",
                     urlstate.UNLINKABLE_CURVE_NOTE]
    # a widget given it runs on the curve (measured mark kept), says so once, and raises nothing
    view = ledger_widget.view({"trcCurve": token, "lookahead": "5"})
    assert [note for note in view["notes"] if "drafter family" in note] == [notes[0]]
    assert view == ledger_widget.view({"trcCurve": "custom:0.6000,0.8000,0.9000@2", "lookahead": "5"}) | {
        "notes": view["notes"]}
    assert "past the measured k = 2" in view["summary"]


def test_a_family_before_the_measured_mark_is_refused_by_name():
    notes = []
    found = urlstate.requested_curve("?polCurve=custom:0.6,0.8~ngram@1", "polCurve", notes)
    assert found[0] == "custom:0.6,0.8" and notes[0] == (
        f"polCurve: a curve's drafter family (after ~) is given once, at the end: one of {VALID}; got 'ngram@1'; "
        "its rates are used, continued by the pooled prior")
    # bad rates and a bad family: one note, the rates' (the slider stays in charge, as for any bad curve)
    notes = []
    assert urlstate.requested_curve({"srvCurve": "custom:2~ngarm"}, "srvCurve", notes) is None
    assert notes == ["srvCurve: curve: rate 2 is not a fraction from 0 to 1; using the acceptance slider"]
    # a preset name carries its own family only (tests/test_traces_method.py): another is refused by name
    notes = []
    assert urlstate.requested_curve({"srvCurve": "club3090-mtp~ngram"}, "srvCurve", notes) is None
    assert notes == ["srvCurve: preset club3090-mtp's drafter family is mtp (its method MTP): ~mtp or none, got "
                     "~ngram; using the acceptance slider"]


def test_the_producers_that_know_the_family_send_it(capsys):
    # the trace reader, on a vLLM log whose configuration line names the n-gram drafter
    startup = ("INFO 07-10 12:00:00 [core.py:69] Initializing a V1 LLM engine (v0.9.2) with config: "
               "model='meta-llama/Llama-3.1-8B-Instruct', speculative_config=SpeculativeConfig(method='ngram', "
               "model=None, num_spec_tokens=2), tokenizer='meta-llama/Llama-3.1-8B-Instruct'\n")
    metrics = ("INFO 07-10 12:00:05 [metrics.py:87] SpecDecoding metrics: Mean acceptance length: 2.50, Accepted "
               "throughput: 100.00 tokens/s, Drafted throughput: 133.33 tokens/s, Accepted: 15000 tokens, Drafted: "
               "20000 tokens, Per-position acceptance rate: 0.810, 0.690, Avg Draft acceptance rate: 75.0%\n")
    sent = traces_widget.view({"trcText": startup + metrics})["figures"]["send"]
    assert sent.count("custom:0.8100,0.8519~ngram&quot;") == 3   # the ledger, serving and the policies
    assert "~" not in traces_widget.view({"trcText": metrics})["figures"]["send"]   # no drafter named: none sent
    # `lab trace` prints the same token (and the family it read)
    import io
    import sys

    for text, method, token in ((startup + metrics, "ngram", "custom:0.8100,0.8519~ngram"),
                                (metrics, None, "custom:0.8100,0.8519")):
        stdin, sys.stdin = sys.stdin, io.StringIO(text)
        try:
            document = _cli_json(capsys, "trace", "-")
        finally:
            sys.stdin = stdin
        assert (document["method"], document["curve"]) == (method, token)
    assert traces_widget.policies_curve_token("custom:0.8000,1.0000~ngram", [0.8, 1.0])[0] == "custom:0.8000,0.9900~ngram"
    # the real-text lab, by its proposer
    assert "custom:0.7500,0.6667~ngram&quot;" in realtext_widget.send_html({"cycles": [0, 1, 2, 2]}, 2, "ngram")
    assert "custom:0.7500,0.6667~draft&quot;" in realtext_widget.send_html({"cycles": [0, 1, 2, 2]}, 2, "draft-greedy")
    # the CLI's curve flags with --method, and the deployment panel by the draft the reader chose
    ledger_doc = _cli_json(capsys, "ledger", "--per-position", "0.6,0.8,0.9", "--method", "ngram")
    assert ledger_doc["curve"].endswith("@3~ngram")
    assert "~" not in _cli_json(capsys, "ledger", "--per-position", "0.6,0.8,0.9")["curve"]
    panel = _cli_json(capsys, "deployment", "--per-position", "0.6,0.8,0.9", "--draft", "ngram")
    assert {panel["instruments"][w][key] for w, key in (("ledger", "trcCurve"), ("serving", "srvCurve"),
                                                         ("policies", "polCurve"), ("trees", "treCurve"))} == {
        panel["curve"]["token"]}
    assert panel["curve"]["token"].endswith("@3~ngram")


def test_dropping_the_family_on_the_way_changes_the_extension(monkeypatch):
    """The mutation this feature guards against: a receiver that reads the token but not its family continues an
    n-gram curve as a falling model drafter's. With token_method gutted the widgets' numbers change (so these tests
    can fail), and they become the family-less token's."""
    rising = [row["top1"] for row in trees_widget.view({"treCurve": NGRAM_TRACE})["depthProfile"]["rows"]]
    process = policies_widget.view({"polCurve": NGRAM_TRACE, "lookahead": "20"})["policies"]["static"]
    monkeypatch.setattr(acceptance, "token_method", lambda token: None)
    dropped = [row["top1"] for row in trees_widget.view({"treCurve": NGRAM_TRACE})["depthProfile"]["rows"]]
    lost = policies_widget.view({"polCurve": NGRAM_TRACE, "lookahead": "20"})["policies"]["static"]
    assert dropped != rising and dropped[-1] < rising[-1]
    assert lost["tokensPerCall"] < process["tokensPerCall"]
    assert dropped == [row["top1"] for row in trees_widget.view({"treCurve": "custom:0.6000,0.8000"})[
        "depthProfile"]["rows"]]


def test_the_send_check_catches_a_token_without_its_family(monkeypatch):
    """The instruments check that the panel's curve reaches every instrument reads the family back too: a
    curve_token that drops it fails the check (the mutation the feature guards against, at the producer)."""
    from lab.checks import deployment as family_checks
    from mutation import failure_of

    original = acceptance.curve_token
    monkeypatch.setattr(acceptance, "curve_token", lambda curve, positions=16: original(
        curve._replace(family=None), positions))
    failure = failure_of(family_checks.ACCEPTANCE_CHECKS, "acceptance-curve-reaches-every-instrument", "(None)", "(mtp)")
    assert failure.startswith("ledger read ")


def test_the_acceptance_command_prints_the_token_and_a_receiver_continues_it_as_the_command_does(capsys):
    document = _cli_json(capsys, "acceptance", "--per-position", "0.6,0.8", "--method", "ngram", "--lookahead", "40")
    token = document["curve"]
    assert token.endswith("@2~ngram") and acceptance.token_rates(token) == [round(r, 4) for r in document["perPosition"][:16]]
    received = acceptance.extended_rates(acceptance.token_rates(token), 40, acceptance.token_measured_at(token),
                                         acceptance.token_method(token))
    assert received == pytest.approx(document["perPosition"], abs=1e-4)   # the 16 carried rates are rounded
    assert "~" not in _cli_json(capsys, "acceptance", "--per-position", "0.6,0.8", "--lookahead", "4")["curve"]
