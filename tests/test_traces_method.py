"""The drafter a pasted log names (lab.traces.method): the family of the curve past the measured k. Each
configuration line is in the engine's own printed form: vLLM V1's SpeculativeConfig repr
(f"SpeculativeConfig({method=}, {model=}, {num_spec_tokens=})", vllm-project/vllm vllm/config/speculative.py at
f19b16d9), SGLang's server arguments (speculative_algorithm='NGRAM'), TensorRT-LLM's decoding_type."""

import json

from lab import acceptance, cli, traces
from lab.traces.method import MethodScan, family_of_method
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
                                          "DraftTarget", "dflash")] == [
        "ngram", "ngram", "suffix", "eagle", "eagle", "eagle", "ngram", "mtp", "mtp", "mtp", "draft", "draft",
        "draft", "draft"]
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
