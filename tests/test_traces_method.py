"""The drafter a pasted log names (lab.traces.method): the family of the curve past the measured k. Each
configuration line is in the engine's own printed form: vLLM V1's SpeculativeConfig repr
(f"SpeculativeConfig({method=}, {model=}, {num_spec_tokens=})", vllm-project/vllm vllm/config/speculative.py at
f19b16d9), SGLang's server arguments (speculative_algorithm='NGRAM'), TensorRT-LLM's decoding_type."""

import html
import json
import re

import pytest

from lab import acceptance, cli, realtext, traces, urlstate
from lab.traces import presets as presets_module
from lab.traces.method import MethodScan, family_of_method
from lab.widgets import realtext as realtext_widget, traces as traces_widget
from lab.widgets.traces import extended_curve

# vLLM V1 SpecDecoding metrics lines at k = 2 (the format of tests/test_traces.py's golden files), after the engine's
# startup line with its speculative config
METRICS = ("INFO 07-10 12:00:05 [metrics.py:87] SpecDecoding metrics: Mean acceptance length: 2.50, Accepted "
           "throughput: 100.00 tokens/s, Drafted throughput: 133.33 tokens/s, Accepted: 15000 tokens, Drafted: 20000 "
           "tokens, Per-position acceptance rate: 0.810, 0.690, Avg Draft acceptance rate: 75.0%\n")


def _startup(method, model="None"):
    return (f"INFO 07-10 12:00:00 [core.py:69] Initializing a V1 LLM engine (v0.9.2) with config: "
            f"model='meta-llama/Llama-3.1-8B-Instruct', speculative_config=SpeculativeConfig(method='{method}', "
            f"model={model}, num_spec_tokens=2), tokenizer='meta-llama/Llama-3.1-8B-Instruct'\n")


def test_engine_names_map_to_families():
    assert [family_of_method(n) for n in ("ngram", "[ngram]", "suffix", "eagle", "eagle3", "EAGLE3", "NGRAM",
                                          "deepseek_mtp", "qwen3_next_mtp", "MTP", "draft_model", "STANDALONE",
                                          "DraftTarget", "draft-simple", "dflash", "DSPARK",
                                          "draft-dflash", "draft-dspark")] == [
        "ngram", "ngram", "suffix", "eagle", "eagle", "eagle", "ngram", "mtp", "mtp", "mtp", "draft", "draft",
        "draft", "draft", "block", "block", "block", "block"]
    assert family_of_method("medusa") is None and family_of_method("POST") is None


def test_a_vllm_log_naming_ngram_continues_as_a_copying_curve():
    named = traces.analyse(traces.parse(_startup("ngram") + METRICS))
    unnamed = traces.analyse(traces.parse(METRICS))
    assert named["method"] == "ngram" and unnamed["method"] is None
    assert any("n-gram" in note and "'ngram'" in note for note in named["notes"])
    rates, since = extended_curve(named, 8)
    plain, _ = extended_curve(unnamed, 8)
    assert since == 2 and rates[:2] == plain[:2]
    assert rates == acceptance.from_conditional(traces.measured_curve(named), "ngram").rates(8)
    assert plain == acceptance.from_conditional(traces.measured_curve(unnamed)).rates(8)
    assert rates[5] > plain[5]   # the copying prior holds the rate up where the pooled one lets it fall


def test_sglang_and_trtllm_configuration_lines():
    scan = MethodScan()
    scan.lines(["[2026-03-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', "
                "speculative_algorithm='NGRAM', speculative_num_draft_tokens=8, ...)"])
    assert scan.family == "ngram"
    scan = MethodScan()
    scan.lines(["speculative_config:", "  decoding_type: MTP", "  num_nextn_predict_layers: 3"])
    assert scan.family == "mtp"


def test_two_drafters_named_give_no_family_and_say_so():
    analysis = traces.analyse(traces.parse(_startup("ngram") + _startup("eagle3", "'yuhuili/EAGLE3-LLaMA3.1'")
                                           + METRICS))
    assert analysis["method"] is None
    assert any("several drafters" in note for note in analysis["notes"])


def test_an_http_method_is_not_a_drafter():
    scan = MethodScan()
    scan.lines(['{"method": "POST", "path": "/v1/completions"}', "'method': 'GET'"])
    assert scan.seen == {} and scan.family is None and scan.note() is None


def test_the_acceptance_cli_reads_the_drafter_from_the_log(tmp_path, capsys):
    path = tmp_path / "log.txt"
    path.write_text(_startup("ngram") + METRICS)
    assert cli.main(["acceptance", "--trace", str(path), "--lookahead", "8", "--json"]) == 0
    named = json.loads(capsys.readouterr().out)
    assert cli.main(["acceptance", "--trace", str(path), "--lookahead", "8", "--method", "eagle", "--json"]) == 0
    told = json.loads(capsys.readouterr().out)   # --method wins over the log
    assert named["meanAcceptanceLength"] > told["meanAcceptanceLength"]


# --- the presets' drafter (their method) and the real-text lab's hand-off ------------------------------------------

# each preset's method as the page shows it, and the family the reader gives it
PRESET_FAMILIES = {"club3090-mtp": ("MTP", "mtp"), "vllm-26191-eagle3": ("EAGLE-3", "eagle"),
                   "llamacpp-24536-eagle3": ("EAGLE-3", "eagle")}


def _sent(send_html: str) -> list[tuple[str, dict]]:
    """(target, values) of each send button in a widget's markup."""
    return [(target, json.loads(html.unescape(values)))
            for target, values in re.findall(r'data-target="(\w+)" disabled data-values="([^"]*)"', send_html)]


def test_each_preset_carries_the_family_its_method_names():
    assert {name: (preset["method"], traces.preset_family(name)) for name, preset in traces.PRESETS.items()} == \
        PRESET_FAMILIES
    for name, (method, family) in PRESET_FAMILIES.items():
        assert family_of_method(method) == family   # the log reader's own table, no second mapping
        trace = traces.preset_trace(name)
        analysis = traces.analyse(trace)
        assert trace.method == analysis["method"] == family
        assert any(method in note and "named by the preset's source" in note for note in analysis["notes"])


@pytest.mark.parametrize("method", ["Medusa", "n-gram", "EAGLE-3 / MTP", ""])
def test_a_preset_whose_method_names_no_single_family_carries_none(monkeypatch, method):
    monkeypatch.setitem(traces.PRESETS, "club3090-mtp", dict(traces.PRESETS["club3090-mtp"], method=method))
    family = {"n-gram": "ngram"}.get(method)   # "n-gram" reads as "ngram" (hyphens dropped); the others name none
    assert traces.preset_family("club3090-mtp") == family
    assert traces.preset_trace("club3090-mtp").method == family
    tokens = {values.get("trcCurve") or values.get("srvCurve") for _, values in _sent(
        traces_widget.view({"trcPreset": "club3090-mtp"})["figures"]["send"])} - {None, ""}
    assert tokens == {"club3090-mtp" + ("" if family is None else "~" + family)}


def test_a_presets_sent_token_ends_with_its_family_and_every_receiver_reads_it():
    for name, (_, family) in PRESET_FAMILIES.items():
        sent = dict((target, values) for target, values in _sent(
            traces_widget.view({"trcPreset": name})["figures"]["send"]) if "trcCurve" not in values
            or values["trcCurve"])
        tokens = {sent["ledger"]["trcCurve"], sent["serving"]["srvCurve"], sent["policies"]["polCurve"]}
        assert tokens == {f"{name}~{family}"}
        token = tokens.pop()
        assert acceptance.token_method(token) == family
        notes = []
        found = urlstate.requested_curve({"srvCurve": token}, "srvCurve", notes)
        assert found[0] == token and found[1] == traces.ledger_curve(name) and found[1][2] is True and notes == []


def test_dropping_the_preset_mapping_changes_its_extension(monkeypatch):
    """The mutation this guards against: the preset's method no longer read (the family is lost on the way), so the
    counts-only EAGLE-3 preset's curve (one figure at k = 7, fitted to the prior's shape) takes the pooled prior's
    shape, and its token carries no family."""
    name = "vllm-26191-eagle3"
    kept, _ = extended_curve(traces.analyse(traces.preset_trace(name)), 16)
    summary = traces_widget.view({"trcPreset": name})["summary"]
    eagle = acceptance.from_single(traces.analyse(traces.preset_trace(name))["meanAcceptanceLength"], 7, "eagle")
    assert kept == eagle.rates(16)
    monkeypatch.setattr(presets_module, "family_of_method", lambda method: None)
    dropped, _ = extended_curve(traces.analyse(traces.preset_trace(name)), 16)
    pooled = acceptance.from_single(traces.analyse(traces.preset_trace(name))["meanAcceptanceLength"], 7, None)
    assert dropped != kept and dropped == pooled.rates(16)   # one figure at k: the whole shape is the prior's
    assert traces_widget.view({"trcPreset": name})["summary"] != summary
    assert f'{name}&quot;' in traces_widget.view({"trcPreset": name})["figures"]["send"]   # no ~eagle sent


@pytest.mark.parametrize("proposer", sorted(realtext.PROPOSER_FAMILIES))
def test_the_realtext_hand_off_gives_the_trace_reader_the_proposers_family(proposer):
    cycles, k = [0, 1, 2, 2, 1, 0, 2, 2], 2
    family = realtext.PROPOSER_FAMILIES[proposer]
    buttons = _sent(realtext_widget.send_html({"cycles": cycles}, k, proposer))
    handed = next(values for target, values in buttons if target == "traces")
    assert handed["trcText"].splitlines()[1:] == [str(c) for c in cycles] and handed["trcFormat"] == "cycles"
    trace = traces.parse(handed["trcText"], handed["trcFormat"], int(handed["trcLookahead"]))
    assert trace.method == family and trace.perPosition == traces.cycles_to_trace({0: 2, 1: 2, 2: 4}, k).perPosition
    # the trace reader then sends the curve the real-text lab's own buttons send
    own = next(values for target, values in buttons if target == "ledger" and values["trcCurve"])["trcCurve"]
    read = dict(_sent(traces_widget.view(handed)["figures"]["send"]))["serving"]["srvCurve"]
    assert read == own and own.endswith("~" + family)
    # without a proposer the hand-off is the bare cycles, as before
    bare = next(values for target, values in _sent(realtext_widget.send_html({"cycles": cycles}, k))
                if target == "traces")
    assert bare["trcText"] == "\n".join(map(str, cycles)) + "\n" and traces.parse(bare["trcText"], "cycles", k).method is None
