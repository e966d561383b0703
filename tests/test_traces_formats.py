"""Every format the trace reader knows, on its golden file, with the counts worked by hand from the
file's own figures; the counting rule of each engine; several models; and bad input (BOM, UTF-16,
runaway integers, non-ASCII digits, label-set cap), which only ever gives one line."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from lab import traces
from lab.checks import traces as family
from lab.widgets import traces as widget

golden = traces.sample_text  # the golden files: lab/traces/samples, read by the suite too


def test_every_golden_file_has_a_hand_count():
    files = sorted(p.name for p in Path(traces.SAMPLES_DIR).iterdir())
    assert {entry[0] for entry in family.GOLDEN_EXPECTED} == set(files)


# --- vLLM ----------------------------------------------------------------------------------------------

def test_vllm_v0_log_uses_emitted_tokens():
    trace = traces.parse(golden("vllm_v0.log"))
    # k = 3 printed; calls = 13311 / 3 = 4437; each call emits its accepted prefix + 1: 10616 - 4437 = 6179.
    # V0's 'Number of accepted tokens' (8547) also counts drafts accepted after a rejection.
    assert (trace.format, trace.lookahead, trace.drafts, trace.accepted) == ("vllm-v0-log", 3, 4437, 6179)
    result = traces.analyse(trace)
    assert result["meanAcceptanceLength"] == pytest.approx(10616 / 4437)
    # the printed system efficiency 0.598 is emitted / (calls (k + 1)) = 10616 / 17748 = 0.59815
    assert round(10616 / 17748, 3) == 0.598 and not any("disagrees" in n or "but" in n for n in trace.notes[2:])


def test_vllm_v0_log_is_cumulative_last_line_counts_and_a_restart_adds():
    line = ("INFO 10-16 19:05:47 metrics.py:367] Speculative metrics: Draft acceptance rate: 0.500, System "
            "efficiency: 0.500, Number of speculative tokens: 2, Number of accepted tokens: {a}, Number of draft "
            "tokens: {d}, Number of emitted tokens: {e}.")
    text = "\n".join([line.format(a=10, d=20, e=15), line.format(a=20, d=40, e=30),   # run 1: last is 20 calls
                      line.format(a=4, d=10, e=8)])                                    # restart: 5 calls
    trace = traces.parse(text)
    assert (trace.drafts, trace.draftTokens, trace.accepted) == (25, 50, (30 - 20) + (8 - 5))


def test_vllm_v0_metrics_solves_k_from_the_efficiency_gauge():
    trace = traces.parse(golden("vllm_v0_metrics.prom"))
    # efficiency e = E / ((D / k)(k + 1))  =>  k = e D / (E - e D) = 0.59815 x 13311 / (10616 - 7962) = 3
    assert (trace.format, trace.lookahead, trace.drafts, trace.accepted) == ("vllm-v0-metrics", 3, 4437, 6179)
    with pytest.raises(traces.TraceError, match="not a multiple of k = 4"):
        traces.parse(golden("vllm_v0_metrics.prom"), lookahead=4)


def test_vllm_v08_metrics_need_the_lookahead_and_say_what_they_assume():
    with pytest.raises(traces.TraceError, match="--lookahead"):
        traces.parse(golden("prometheus_v08.prom"))
    trace = traces.parse(golden("prometheus_v08.prom"), lookahead=3)
    assert (trace.drafts, trace.draftTokens, trace.accepted) == (100, 300, 150)
    assert any("assumes full-length drafts" in note for note in trace.notes)
    # 301 drafted tokens cannot be whole drafts of 3: the calls are only bounded
    bounded = traces.parse(golden("prometheus_v08.prom").replace("300.0", "301.0"), lookahead=3)
    assert bounded.callsBound and traces.analyse(bounded)["bounds"][0] == "verifier calls: at least 100.3"


def test_prometheus_several_models_one_analysis_each():
    with pytest.raises(traces.ModelChoiceError) as error:
        traces.parse(golden("prometheus_two_models.prom"))
    assert error.value.models == ["a", "b"] and "--model" in str(error.value)
    a = traces.parse(golden("prometheus_two_models.prom"), model="a")
    # last scrape only: engine 0 (100, 200, 120, 70/50) + engine 1 (60, 120, 50, 30/20)
    assert (a.lookahead, a.drafts, a.draftTokens, a.accepted, a.perPosition) == (2, 160, 320, 170, (100, 70))
    assert a.model == "a" and any("summed 2 label sets of one model (engine)" in n for n in a.notes)
    b = traces.parse(golden("prometheus_two_models.prom"), model="b")
    assert (b.lookahead, b.drafts, b.accepted, b.perPosition) == (3, 80, 96, (48, 32, 16))
    with pytest.raises(traces.ModelChoiceError, match="no model named 'c'"):
        traces.parse(golden("prometheus_two_models.prom"), model="c")


def test_prometheus_drafted_tokens_per_position_are_the_denominators():
    text = ("vllm:spec_decode_num_drafts_total 100\nvllm:spec_decode_num_draft_tokens_total 250\n"
            "vllm:spec_decode_num_accepted_tokens_total 110\n"
            'vllm:spec_decode_num_accepted_tokens_per_pos_total{position="0"} 70\n'
            'vllm:spec_decode_num_accepted_tokens_per_pos_total{position="1"} 40\n'
            'vllm:spec_decode_num_draft_tokens_per_pos_total{position="0"} 100\n'
            'vllm:spec_decode_num_draft_tokens_per_pos_total{position="1"} 80\n')
    result = traces.analyse(traces.parse(text, lookahead=2))
    assert result["perPosition"] == [70 / 100, 40 / 80]
    # survivors of position 1 that had a second draft: 70 x 80 / 100 = 56
    assert result["conditional"] == [0.7, 40 / 56]


def test_vllm_log_short_drafts_take_the_calls_from_the_printed_mean():
    trace = traces.parse(golden("vllm_ngram_short.log"))
    # drafted / k = 2400 / 3 = 800 calls would give a mean of 1 + 1200/800 = 2.50, not the printed 2.20;
    # accepted / (mean - 1) = 1200 / 1.2 = 1000, and the rates 0.550, 0.400, 0.250 fit 1000 exactly.
    assert (trace.lookahead, trace.drafts, trace.draftTokens, trace.accepted) == (3, 1000, 2400, 1200)
    assert trace.perPosition == (550, 400, 250)
    assert trace.notes[0].startswith("short drafts:")
    result = traces.analyse(trace)
    assert result["acceptanceRate"] == 0.5 and result["meanAcceptanceLength"] == 2.2


def test_vllm_log_line_without_mean_or_rates_from_0_8():
    line = ("INFO 04-10 12:00:00 [loggers.py:111] SpecDecoding metrics: Draft acceptance rate: 0.500, "
            "Number of accepted tokens: 150, Number of draft tokens: 300, ")
    trace = traces.parse(line, lookahead=3)
    assert (trace.drafts, trace.accepted, trace.callsBound) == (100, 150, False)
    assert any("assumes full-length drafts" in note for note in trace.notes)


def test_vllm_log_names_a_printed_figure_that_disagrees():
    line = ("SpecDecoding metrics: Mean acceptance length: 2.87, Accepted throughput: 1.00 tokens/s, Drafted "
            "throughput: 1.00 tokens/s, Accepted: 489 tokens, Drafted: 1572 tokens, Per-position acceptance rate: "
            "0.740, 0.473, 0.309, 0.187, 0.099, 0.057, Avg Draft acceptance rate: 35.0%")
    trace = traces.parse(line)
    # 489 / 1572 = 31.1%, not 35.0%
    assert any("printed acceptance rate 35.0% but accepted / drafted = 31.11%" in note for note in trace.notes)


def test_spec_decode_summary_is_not_added_to_its_periodic_lines():
    trace = traces.parse(golden("vllm_periodic_and_summary.txt"))
    # the two periodic lines (300 + 200 accepted) are the same run as the summary's 500
    assert (trace.drafts, trace.draftTokens, trace.accepted) == (400, 800, 500)
    assert trace.perPosition == (280, 220)  # 0.70 x 400, 0.55 x 400
    assert "not added" in trace.notes[0]


def test_spec_decode_ngram_summary_counts_calls_exactly():
    trace = traces.parse(golden("vllm_ngram_summary.txt"))
    # 0.96 x 74097 = 71133.1, 0.94 x 74097 = 69651.2
    assert (trace.drafts, trace.draftTokens, trace.accepted, trace.perPosition) == (74097, 147899, 141162,
                                                                                    (71133, 69651))
    result = traces.analyse(trace)
    assert result["acceptanceRate"] == 141162 / 147899  # not 141162 / (2 x 74097): the drafts were short
    assert round(result["meanAcceptanceLength"], 2) == 2.91


def test_vllm_bench_serve_block():
    trace = traces.parse(golden("vllm_bench.txt"))
    # 83.42% x 6393 = 5333.0, 72.91% = 4661.1, 64.07% = 4096.0; sum 14090 = accepted
    assert (trace.format, trace.lookahead, trace.drafts, trace.draftTokens, trace.accepted) == (
        "vllm-bench", 3, 6393, 19179, 14090)
    assert trace.perPosition == (5333, 4661, 4096)
    two = golden("vllm_bench.txt") + golden("vllm_bench.txt")
    with pytest.raises(traces.ModelChoiceError, match="2 benchmark runs"):
        traces.parse(two)
    assert traces.parse(two, model="run 2").drafts == 6393


def test_vllm_request_json_histogram_and_v0_counts():
    trace = traces.parse(golden("vllm_request.jsonl"))
    # histograms [2,1,0,3] + [1,2,2,1] = [3,3,2,4]: 12 calls, 0x3 + 1x3 + 2x2 + 3x4 = 19 accepted
    assert (trace.format, trace.lookahead, trace.drafts, trace.accepted, trace.perPosition) == (
        "vllm-request-json", 3, 12, 19, (9, 6, 4))
    v0 = traces.parse(golden("vllm_request_v0.json"))
    # [10, 8, 5, 2] + [6, 3, 1, 0]: 16 calls, per position (11, 6, 2), accepted 19
    assert (v0.drafts, v0.accepted, v0.perPosition) == (16, 19, (11, 6, 2))


# --- SGLang --------------------------------------------------------------------------------------------

def test_sglang_accept_rate_says_which_definition_and_gives_k():
    trace = traces.parse(golden("sglang_accept_rate.log"))
    # 3.20 / (4 + 1) = 0.64 and 2.80 / 5 = 0.56: the older 'tokens / (k + 1)' definition at k = 4;
    # the newer one would print (3.20 - 1) / 4 = 0.55 and 0.45
    assert trace.lookahead == 4 and trace.meanAcceptanceLength == pytest.approx(3.0)
    assert any("'tokens / (k + 1)' definition" in note for note in trace.notes)
    newer = golden("sglang_accept_rate.log").replace("accept rate: 0.64", "accept rate: 0.55").replace(
        "accept rate: 0.56", "accept rate: 0.45")
    assert any("'drafts / k' definition" in note for note in traces.parse(newer).notes)
    assert traces.sglang_rate_definitions(3.2, 0.64, 4) == ["tokens / (k + 1)"]


# --- llama.cpp -----------------------------------------------------------------------------------------

def test_llamacpp_example_calls_from_n_predict_and_n_accept():
    text = "n_draft   = 16\nn_predict = 400\nn_drafted = 1320\nn_accept  = 250\naccept    = 18.939%\n"
    trace = traces.parse(text)
    # speculative.cpp: calls = 400 - 250 - 1 = 149 (not 1320 / 16 = 82.5)
    assert (trace.format, trace.lookahead, trace.drafts, trace.accepted) == ("llamacpp-log", 16, 149, 250)
    # speculative-simple feeds the prompt's last token to the first call (calls = n_predict - n_accept) and
    # prints its statistics lines after the summary; those count the calls that carried a draft exactly
    simple = traces.parse(text + "draft:\n\nstatistics draft: #calls(b,g,a) = 1 140 140, #gen drafts = 140, "
                                 "#acc drafts = 90, #gen tokens = 1320, #acc tokens = 250\n")
    assert (simple.format, simple.drafts, simple.accepted) == ("llamacpp-stats", 140, 250)


def test_llamacpp_2026_line_calls_from_the_printed_mean():
    trace = traces.parse(golden("llamacpp_2026.log"))
    # 167 / (2.92 - 1) = 86.98: 87 calls; 0.805 x 87 = 70.0, 0.632 x 87 = 55.0, 0.483 x 87 = 42.0
    assert (trace.lookahead, trace.drafts, trace.draftTokens, trace.accepted, trace.perPosition) == (
        3, 87, 259, 167, (70, 55, 42))
    result = traces.analyse(trace)
    assert round(result["meanAcceptanceLength"], 2) == 2.92  # agrees with the engine's own figure


def test_llamacpp_statistics_lines_win_and_name_the_implementation():
    trace = traces.parse(golden("llamacpp_2026_stats.log"))
    assert (trace.format, trace.drafts, trace.accepted, trace.perPosition) == ("llamacpp-stats", 87, 167, (70, 55, 42))
    assert "1 per-request line(s) of the same run not added" in trace.notes
    with pytest.raises(traces.ModelChoiceError) as error:
        traces.parse(golden("llamacpp_stats_two.log"), lookahead=16)
    assert error.value.models == ["ngram_simple", "draft"]
    draft = traces.parse(golden("llamacpp_stats_two.log"), lookahead=16, model="draft")
    assert (draft.drafts, draft.draftTokens, draft.accepted) == (10, 110, 98)


def test_llamacpp_statistics_are_cumulative():
    line = "statistics draft: #calls = {c}, #gen drafts = {c}, #acc drafts = {c}, #gen tokens = {t}, #acc tokens = {a}"
    text = "\n".join([line.format(c=10, t=40, a=20), line.format(c=30, t=120, a=50)])
    trace = traces.parse(text, lookahead=4)
    assert (trace.drafts, trace.draftTokens, trace.accepted) == (30, 120, 50)


def test_llamacpp_old_server_line_is_a_lower_bound():
    trace = traces.parse(golden("llamacpp_server.log"), lookahead=7)
    result = traces.analyse(trace)
    assert trace.callsBound and result["bounds"][:2] == ["verifier calls: at least 33",
                                                         f"mean acceptance length: at most {1 + 133 / 33:.2f}"]


def test_llamacpp_start_up_line_is_read_not_refused():
    text = ("common_speculative_init: - n_draft=16, cache_static=0\n"
            "slot print_timing: id  0 | task 0 | draft acceptance rate = 0.50000 (   64 accepted /   128 generated)\n")
    trace = traces.parse(text)
    assert trace.lookahead == 16 and trace.drafts == 8 and trace.callsBound


# --- TensorRT-LLM, single numbers -----------------------------------------------------------------------

def test_trtllm_null_statistics_are_skipped_and_counted():
    trace = traces.parse(golden("trtllm_null_stats.jsonl"))
    assert (trace.lookahead, trace.drafts, trace.accepted) == (3, 4, 5)
    assert any("1 with specDecodingStats null" in note for note in trace.notes)


@pytest.mark.parametrize("text, k, tau", [
    ("Mean acceptance length: 2.8", 4, 2.8),
    ("acceptance rate 45%", 4, 1 + 0.45 * 4),
    ("tau = 3.1", 5, 3.1),
    ("alpha = 0.5", 2, 1.75),
])
def test_single_number_with_k_is_converted(text, k, tau):
    trace = traces.parse(text, lookahead=k)
    assert trace.format == "single-number" and trace.meanAcceptanceLength == pytest.approx(tau)
    result = traces.analyse(trace)
    assert result["perPosition"] is None and "no per-position curve" in trace.notes[0]
    with pytest.raises(traces.TraceError, match="--lookahead"):
        traces.parse(text)


# --- bad input: one line, never a traceback -------------------------------------------------------------

def test_bom_and_utf16_are_decoded():
    text = golden("prometheus.prom")
    assert traces.parse("\ufeff" + text).drafts == 160
    first_sample = "vllm:spec_decode_num_drafts_total 5\nvllm:spec_decode_num_accepted_tokens_total 2\n"
    assert traces.parse("\ufeff" + first_sample, lookahead=1).drafts == 5  # the BOM does not hide the first sample
    utf16_read_as_utf8 = ("\ufeff" + first_sample).encode("utf-16-le").decode("utf-8", errors="replace")
    assert traces.parse(utf16_read_as_utf8, lookahead=1).drafts == 5


@pytest.mark.parametrize("text, message", [
    ("vllm:spec_decode_num_drafts_total " + "9" * 4301 + "\n", "has 4301 digits; at most 30 are read"),
    ('vllm:spec_decode_num_accepted_tokens_per_pos_total{position="\u00b2"} 3\n', "position '\u00b2' is not an integer"),
    ("SpecDecoding metrics: Accepted: \u0663\u0664 tokens, Drafted: 10 tokens", "not a number written in ASCII digits"),
    ("n_draft = 4\nn_predict = 10\nn_drafted = 8\nn_accept = 9" + "9" * 40 + "\n", "digits; at most 30"),
    ("9" * 40 + "\n", "digits; at most 30 are read"),
    ('{"specDecodingStats": {"numDraftTokens": ' + "9" * 40 + ', "numAcceptedTokens": 1, '
     '"numRequestsWithDraftTokens": 1}}', "digits; at most 30"),
])
def test_runaway_and_non_ascii_numbers_are_refused_in_one_line(text, message):
    with pytest.raises(traces.TraceError) as error:
        traces.parse(text, lookahead=4)
    assert message in str(error.value) and "\n" not in str(error.value)
    assert len(str(error.value)) < 300


def test_prometheus_label_sets_are_capped():
    lines = "".join(f'vllm:spec_decode_num_drafts_total{{engine="{i}"}} 1\n' for i in range(traces.MAX_LABEL_SETS + 1))
    with pytest.raises(traces.TraceError, match=f"more than {traces.MAX_LABEL_SETS} label sets"):
        traces.parse(lines)


def test_ansi_crlf_and_prefixes_are_tolerated():
    trace = traces.parse(golden("vllm_ngram_short.log"))
    assert "\r\n" in golden("vllm_ngram_short.log") and "\x1b[" in golden("vllm_ngram_short.log")
    assert trace.drafts == 1000


GOLDEN_NAMES = sorted({entry[0] for entry in family.GOLDEN_EXPECTED})


@pytest.mark.parametrize("name", GOLDEN_NAMES)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 255)), min_size=1, max_size=4),
       lookahead=st.sampled_from(["", "3", "7"]))
def test_view_never_raises_on_mutated_golden_files(name, edits, lookahead):
    data = bytearray(golden(name).encode("utf-8"))
    for position, byte in edits:
        data[position % len(data)] = byte
    text = data.decode("utf-8", errors="replace")
    result = widget.view({"trcText": text, "trcLookahead": lookahead})
    assert isinstance(result["summary"], str) and result["figures"]["curve"].startswith("<svg")
    try:
        traces.analyse(traces.parse(text, "auto", int(lookahead) if lookahead else None))
    except traces.TraceError as error:
        assert "\n" not in str(error)


def test_mean_length_read_back_is_finite_everywhere():
    for name, lookahead, model, _ in family.GOLDEN_EXPECTED:
        result = traces.analyse(traces.parse(golden(name), "auto", lookahead, model))
        assert math.isfinite(result["meanAcceptanceLength"]) and 0 <= result["alphaIid"] <= 1, name


def test_v0_era_spec_decode_summary_without_counts():
    # examples/offline_inference/spec_decode.py before num_drafts: acceptance_counts[0] is every call, so token 0
    # prints 1.00 and token i is position i; the mean is sum(counts) / counts[0] = 1 + 0.80 + 0.60
    text = ("-" * 50 + "\nmean acceptance length: 2.40\n" + "-" * 50 + "\nacceptance at token 0:1.00\n"
            "acceptance at token 1:0.80\nacceptance at token 2:0.60\n")
    trace = traces.parse(text)
    assert (trace.format, trace.lookahead, trace.meanAcceptanceLength, trace.drafts) == ("vllm-log", 2, 2.4, None)
    assert "0.80, 0.60" in trace.notes[1]


def test_vllm_0_8_line_with_the_rate_first():
    line = ("INFO 04-25 10:00:00 [metrics.py:82] SpecDecoding metrics: Draft acceptance rate: 31.1%, Mean acceptance "
            "length: 2.87, Accepted: 489 tokens, Drafted: 1572 tokens, Per-position acceptance rate: 0.740, 0.473, "
            "0.309, 0.187, 0.099, 0.057")
    trace = traces.parse(line)
    assert (trace.lookahead, trace.drafts, trace.accepted) == (6, 262, 489)
    assert not any("disagree" in note or " but " in note for note in trace.notes)


def test_a_single_figure_must_stand_alone():
    with pytest.raises(traces.TraceError, match="a single figure must stand alone"):
        traces.parse("acceptance rate 45%\nsomething else", lookahead=4)


def test_sglang_bench_serving_accept_length():
    text = ("============ Serving Benchmark Result ============\nBackend:                                 sglang    \n"
            "Accept length:                           3.21      \n")
    trace = traces.parse(text, lookahead=3)
    assert (trace.format, trace.meanAcceptanceLength) == ("sglang-log", 3.21)


def test_vllm_per_request_speculative_decoding_stats():
    trace = traces.parse(golden("vllm_request_stats.json"))
    # histogram {0: 3, 1: 3, 2: 1, 3: 1, 4: 2}: 10 steps, 0 + 3 + 2 + 3 + 8 = 16 accepted; at least 1: 7,
    # at least 2: 4, at least 3: 3, all 4: 2; num_draft_tokens 40 (not 10 x 4 by construction, read as printed)
    assert (trace.lookahead, trace.drafts, trace.draftTokens, trace.accepted, trace.perPosition) == (
        4, 10, 40, 16, (7, 4, 3, 2))
    assert "skipped 1 choice(s) whose speculative_decoding_stats is null" in trace.notes
    assert not any("disagrees" in note for note in trace.notes)
    detailed = ('{"speculative_decoding_stats": {"num_spec_tokens": 3, "num_draft_tokens": 8, '
                '"per_step_accepted": [0, 1, 3], "per_step_drafted": [3, 2, 3]}}')
    steps = traces.parse(detailed)
    # drafted per position: steps with at least 1, 2, 3 drafts = 3, 3, 2
    assert (steps.drafts, steps.draftTokens, steps.accepted, steps.draftsPerPosition) == (3, 8, 4, (3, 3, 2))


def test_code_fences_and_shell_prompts_around_a_paste():
    fenced = "```\n$ curl -s localhost:8000/metrics | grep spec_decode\n" + golden("prometheus.prom") + "```\n"
    assert traces.parse(fenced).drafts == 160
    assert traces.parse("```\n1\n2\n```\n", lookahead=2).drafts == 2
    with pytest.raises(traces.TraceError, match="not a Prometheus sample"):
        traces.parse('vllm:spec_decode_num_drafts_total{engine="0" 10\n')
