"""The trace reader against what the engines really printed across their versions (the December 2026
audit): each sample is either copied from a public paste (the thread named beside it) or written
exactly from the engine's format string at the commit named, and the expected counts are worked by
hand from the sample's own figures in the comment beside it. Also the noise real logs carry (an idle
window, a restart with another k, a last line cut off, a line that holds no acceptance). Sources are
listed in docs/READING.md (Trace formats, "Engines' formats across versions")."""

import pytest

from lab import traces


def _counts(trace):
    return trace.lookahead, trace.drafts, trace.draftTokens, trace.accepted, trace.perPosition


# --- vLLM V0 (vllm/engine/metrics.py, until 0.9) ------------------------------------------------------

# Written from `_format_spec_decode_metrics_str` in vllm-project/vllm `vllm/engine/metrics.py` at commit
# 00c33e81b526a179a6afb86512d1e8198965ee2f (vLLM 0.4): 'Number of draft tokens tokens: {}, Number of emitted
# tokens tokens: {}.' (the doubled word is the engine's), with the counts of vllm-project/vllm#9539
V0_TOKENS_TOKENS = ("INFO 10-16 19:05:47 metrics.py:367] Speculative metrics: Draft acceptance rate: 0.642, System "
                    "efficiency: 0.598, Number of speculative tokens: 3, Number of accepted tokens: 8547, Number of "
                    "draft tokens tokens: 13311, Number of emitted tokens tokens: 10616.\n")

# vllm-project/vllm-ascend issue #47 (michelemarzollo, description, 2025-02-11), "taken from running the same
# script on GPUs": the V0 line (n-gram, k = 8) and the stage-times line beside it
ASCEND_47 = """INFO 02-11 14:50:38 metrics.py:477] Speculative metrics: Draft acceptance rate: 0.550, System efficiency: 0.133, Number of speculative tokens: 8, Number of accepted tokens: 44, Number of draft tokens: 80, Number of emitted tokens: 12.
INFO 02-11 14:50:38 spec_decode_worker.py:1071] SpecDecodeWorker stage times: average_time_per_proposal_tok_ms=0.02 scoring_time_ms=19.13 verification_time_ms=0.17
"""

# vllm-project/vllm issue #8370 (zhurou603, description, 2024-09-11): the stage-times line alone
STAGE_8370 = ("INFO 09-11 12:41:50 spec_decode_worker.py:790] SpecDecodeWorker stage times: "
              "average_time_per_proposal_tok_ms=4.96 scoring_time_ms=54.92 verification_time_ms=1.20\n")


def test_vllm_0_4_line_with_its_doubled_tokens():
    # 13311 / 3 = 4437 calls; 10616 emitted - 4437 = 6179 accepted prefix; 10616 / (4437 x 4) = 0.598 as printed
    trace = traces.parse(V0_TOKENS_TOKENS)
    assert trace.format == "vllm-v0-log"
    assert _counts(trace) == (3, 4437, 13311, 6179, None)
    assert not any("efficiency" in note for note in trace.notes)


def test_vllm_v0_line_beside_its_stage_times():
    # k = 8: 80 / 8 = 10 calls; 12 emitted - 10 = 2 accepted prefix; 12 / (10 x 9) = 0.133 as printed
    trace = traces.parse(ASCEND_47)
    assert _counts(trace) == (8, 10, 80, 2, None)


def test_vllm_v0_line_quoted_without_its_prefix():
    # the same line as pasted in notes without 'INFO ... Speculative metrics: ' (unrecognised before)
    quoted = ASCEND_47.splitlines()[0].split("Speculative metrics: ")[1] + "\n"
    assert _counts(traces.parse(quoted)) == (8, 10, 80, 2, None)


def test_the_stage_times_line_alone_says_what_it_is():
    # it holds step times, not acceptance: the refusal says so and what to paste (it said 'unrecognised format')
    with pytest.raises(traces.TraceError, match=r"line 1: vLLM V0's 'SpecDecodeWorker stage times' line holds step "
                                                r"times .*paste the 'Speculative metrics:' lines"):
        traces.parse(STAGE_8370)


def test_vllm_v0_restart_with_another_k_is_two_runs():
    # #47's line (k = 8) then #9539's counts at k = 3, written from the same format: drafted rose (80 -> 13311) and
    # so did emitted, so only the change of k marks the restart; before, the k = 8 run was dropped silently
    text = ASCEND_47 + V0_TOKENS_TOKENS
    with pytest.raises(traces.ModelChoiceError, match=r"\(3 and 8 speculative tokens, line 3\).*--lookahead K") as error:
        traces.parse(text)
    assert error.value.models == ["k=8", "k=3"]
    eight = traces.parse(text, lookahead=8)
    assert _counts(eight) == (8, 10, 80, 2, None)
    assert "read the k = 8 lines, 1 line(s) at another k not read" in eight.notes[0]
    assert _counts(traces.parse(text, model="k=3")) == (3, 4437, 13311, 6179, None)


# --- vLLM V1 (vllm/v1/spec_decode/metrics.py) ---------------------------------------------------------

# vllm-project/vllm pull request #24127 (qandrew, description, 2025-09-02): 0.10.x, the rate first, k = 5
VLLM_24127 = ("(APIServer pid=2236552) INFO 09-09 11:51:35 [metrics.py:96] SpecDecoding metrics: Draft acceptance "
              "rate: 88.8%, Mean acceptance length: 5.44, Accepted throughput: 4.37 tokens/s, Drafted throughput: "
              "4.92 tokens/s, Accepted: 262 tokens, Drafted: 295 tokens, Per-position acceptance rate: 0.983, 0.949, "
              "0.915, 0.881, 0.712")
# vllm-project/vllm-ascend issue #13640 (MaoJianwei, description, 2026-08-05): the 2026 order, k = 7
ASCEND_13640 = """(APIServer pid=79) INFO 08-05 12:25:03 [metrics.py:120] SpecDecoding metrics: Mean acceptance length: 2.91, Accepted throughput: 0.72 tokens/s, Drafted throughput: 2.64 tokens/s, Accepted: 44 tokens, Drafted: 161 tokens, Per-position acceptance rate: 0.739, 0.478, 0.261, 0.174, 0.130, 0.087, 0.043, Avg Draft acceptance rate: 27.3%
(APIServer pid=79) INFO 08-05 12:25:13 [metrics.py:120] SpecDecoding metrics: Mean acceptance length: 2.93, Accepted throughput: 10.60 tokens/s, Drafted throughput: 38.50 tokens/s, Accepted: 106 tokens, Drafted: 385 tokens, Per-position acceptance rate: 0.691, 0.418, 0.382, 0.182, 0.127, 0.073, 0.055, Avg Draft acceptance rate: 27.5%
"""
K5 = (5, 59, 295, 262, (58, 56, 54, 52, 42))            # 295 / 5 = 59 calls; rates x 59 (test_traces_real.py)
K7 = (7, 78, 546, 150, (55, 34, 27, 14, 10, 6, 4))      # 23 + 55 calls; rates x 23 and x 55 (the same)


def test_vllm_restart_with_another_k_reads_the_k_asked_for():
    text = ASCEND_13640 + VLLM_24127 + "\n"
    with pytest.raises(traces.ModelChoiceError) as error:
        traces.parse(text)
    assert error.value.models == ["k=7", "k=5"]
    assert "k = 7 on 2 line(s) from line 1; k = 5 on 1 line(s) from line 3" in str(error.value)
    seven = traces.parse(text, lookahead=7)
    assert _counts(seven) == K7 and "read the k = 7 lines, 1 line(s) at another k not read" in seven.notes[0]
    assert _counts(traces.parse(text, model="k=5")) == K5
    with pytest.raises(traces.TraceError, match=r"hold 5 and 7 positions, not the lookahead given, 4: give "
                                                r"--lookahead 5 or 7"):
        traces.parse(text, lookahead=4)


@pytest.mark.parametrize("cut", [", Avg Draft acceptance rate: 27.5%", ", 0.055, Avg Draft acceptance rate: 27.5%",
                                 "5, Avg Draft acceptance rate: 27.5%", "7.5%"])
def test_vllm_last_line_cut_off_reads_the_complete_lines(cut):
    # the second interval stops short (no newline): before, it was read with a lost rate or a 2.7% rate; now the
    # first line alone: 161 / 7 = 23 calls, 44 accepted, x 23: 17, 11, 6, 4, 3, 2, 1
    text = ASCEND_13640.rstrip("\n")
    trace = traces.parse(text[:len(text) - len(cut)])
    assert _counts(trace) == (7, 23, 161, 44, (17, 11, 6, 4, 3, 2, 1))
    assert any("the last line (line 2) ends without a newline" in note for note in trace.notes)


def test_vllm_last_line_cut_inside_its_last_rate():
    # 0.10's order ends with the rates: '0.712' cut to '0.7' is one decimal where vLLM prints three
    trace = traces.parse(VLLM_24127 + "\n" + VLLM_24127[:-2])
    assert _counts(trace) == K5 and any("looks cut off" in note for note in trace.notes)
    with pytest.raises(traces.TraceError, match="inside its per-position rates: it looks cut off"):
        traces.parse(VLLM_24127[:-2])


def test_vllm_throughput_lines_alone_say_where_the_acceptance_is():
    # vllm-project/vllm pull request #15902 (WoosukKwon, description, 2025-04-01) quotes the periodic line
    line = ("Engine 000: Avg prompt throughput: 1.1 tokens/s, Avg generation throughput: 10.0 tokens/s, Running: 0 "
            "reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%\n")
    with pytest.raises(traces.TraceError, match=r"throughput lines hold no acceptance: paste the 'SpecDecoding "
                                                r"metrics:' lines"):
        traces.parse(line)


# vllm-project/vllm pull request #26498 (benchislett, description, 2025-10): the spec_decode example's summary
# with its total_num_output_tokens line, k = 10
VLLM_26498 = """--------------------------------------------------
total_num_output_tokens: 16994
num_drafts: 4687
num_draft_tokens: 46870
num_accepted_tokens: 12368
mean acceptance length: 3.64
--------------------------------------------------
acceptance at token 0: 0.74
acceptance at token 1: 0.54
acceptance at token 2: 0.41
acceptance at token 3: 0.30
acceptance at token 4: 0.22
acceptance at token 5: 0.16
acceptance at token 6: 0.12
acceptance at token 7: 0.08
acceptance at token 8: 0.05
acceptance at token 9: 0.02
"""


def test_vllm_example_summary_with_total_output_tokens_k10():
    # 1 + 12368 / 4687 = 3.639 prints 3.64; x 4687: 3468.4, 2531.0, 1921.7, 1406.1, 1031.1, 749.9, 562.4, 375.0,
    # 234.4, 93.7 -> 3468, 2531, 1922, 1406, 1031, 750, 562, 375, 234, 94
    trace = traces.parse(VLLM_26498)
    assert _counts(trace) == (10, 4687, 46870, 12368, (3468, 2531, 1922, 1406, 1031, 750, 562, 375, 234, 94))


# --- vLLM /metrics --------------------------------------------------------------------------------------

def test_prometheus_counts_a_million_and_more_in_scientific_notation():
    # prometheus/client_python `prometheus_client/utils.py` floatToGoString writes a value whose integer part has 7
    # digits or more as mantissa e+0N ('1.234567e+06', and 2000000.0 as '2e+06'); vLLM's counters pass through it.
    # Written from vllm-project/vllm `vllm/v1/spec_decode/metrics.py` (SpecDecodingProm), labels engine, model_name
    labels = 'engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"'
    text = (f"vllm:spec_decode_num_drafts_total{{{labels}}} 1.234567e+06\n"
            f"vllm:spec_decode_num_draft_tokens_total{{{labels}}} 3.703701e+06\n"
            f"vllm:spec_decode_num_accepted_tokens_total{{{labels}}} 2e+06\n"
            f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{{labels},position="0"}} 1e+06\n'
            f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{{labels},position="1"}} 600000.0\n'
            f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{{labels},position="2"}} 400000.0\n')
    # 3703701 / 1234567 = 3 = k; 1000000 + 600000 + 400000 = 2000000 accepted
    assert _counts(traces.parse(text)) == (3, 1234567, 3703701, 2000000, (1000000, 600000, 400000))


# --- SGLang -----------------------------------------------------------------------------------------------

# sgl-project/sglang pull request #30393 (F0rtiter, comment, 2026-08-14): the later accept rate, k = 5
SGLANG_30393 = """[2026-08-14 14:02:47 TP0] Decode batch, #running-req: 3, #token: 266624, token usage: 0.43, accept len: 1.67, accept rate: 0.13, pre-allocated usage: 0.22, #prealloc-req: 0, #transfer-req: 1, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 183.10, #queue-req: 0
[2026-08-14 14:02:48 TP0] Decode batch, #running-req: 3, #token: 292928, token usage: 0.47, accept len: 1.68, accept rate: 0.14, pre-allocated usage: 0.26, #prealloc-req: 0, #transfer-req: 2, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 179.61, #queue-req: 0
"""
# A window in which no request was verified, as later versions print it: sgl-project/sglang's regression test
# TestInvalidSpecMetricsWindow asserts 'accept len: 0.00, accept rate: 0.00' in the line of
# `scheduler_components/metrics_reporter.py` (report_decode_stats; an earlier version divided by zero there)
SGLANG_IDLE = ("[2026-08-14 14:02:49 TP0] Decode batch, #running-req: 0, #token: 0, token usage: 0.00, accept len: "
               "0.00, accept rate: 0.00, cuda graph: True, gen throughput (token/s): 0.00, #queue-req: 0\n")


def test_sglang_idle_window_is_skipped_not_refused():
    # (1.67 + 1.68) / 2 = 1.675; the idle line was refused as 'not a length of at least 1', the whole log with it
    trace = traces.parse(SGLANG_30393 + SGLANG_IDLE)
    assert trace.lookahead == 5 and trace.meanAcceptanceLength == pytest.approx(1.675)
    assert any("1 line(s) with 'accept len: 0.00' skipped" in note for note in trace.notes)
    with pytest.raises(traces.TraceError, match=r"every SGLang accept len line \(1\) says 'accept len: 0.00'"):
        traces.parse(SGLANG_IDLE)


def test_sglang_last_line_cut_before_its_throughput():
    # the third line stops at 'accept len: 1.7' (1.73 in the paste): read, it would move the mean
    third = SGLANG_30393.splitlines()[0].replace("1.67", "1.73")
    text = SGLANG_30393 + third[:third.index("accept len: ") + len("accept len: 1.7")]
    trace = traces.parse(text, lookahead=5)
    assert trace.meanAcceptanceLength == pytest.approx(1.675)
    assert any("the last line (line 3) ends without a newline before its gen throughput" in n for n in trace.notes)


def test_sglang_decode_lines_without_speculation_say_so():
    # sgl-project/sglang issue #4407 (winni0, 2025-03-14): a server without speculative decoding
    line = ("[2025-03-14 02:16:14 TP0] Decode batch. #running-req: 509, #token: 180776, token usage: 0.43, gen "
            "throughput (token/s): 7897.87, largest-len: 0, #queue-req: 0, \n")
    with pytest.raises(traces.TraceError, match=r"without 'accept len' come from a server without speculative"):
        traces.parse(line)


# --- llama.cpp's timings JSON ("llamacpp-json") ------------------------------------------------------------

def _timings():
    return traces.sample_text("llamacpp_timings.jsonl")


def test_llamacpp_streamed_timings_give_a_bounded_call_count():
    # llama-server b9251, DFlash: 604 drafted, 515 accepted, 665 predicted. At k = 8 the calls are at least
    # 604 / 8 = 75.5 and at most 665 - 515 - 1 = 149 decode steps
    trace = traces.parse(_timings(), lookahead=8)
    assert trace.format == "llamacpp-json"
    assert _counts(trace) == (8, 75.5, 604, 515, None) and trace.callsBound
    assert any("at most 149" in note for note in trace.notes)
    # k = 4 asks for at least 151 calls, more than the 149 decode steps: the note says to check the lookahead
    assert any("fewer than drafted / k: check the lookahead" in n for n in traces.parse(_timings(), lookahead=4).notes)
    with pytest.raises(traces.TraceError, match=r"llama.cpp's timings JSON does not record the lookahead"):
        traces.parse(_timings())


def test_llamacpp_completion_timings_with_the_draft_limit():
    # written from ggml-org/llama.cpp `tools/server/server-task.cpp`: a /completion response's generation_settings
    # ('speculative.n_max', slot_params::to_json) and timings (result_timings::to_json). 40 drafted at n_max 4 is at
    # least 10 calls; 41 predicted - 30 accepted - 1 = 10 decode steps at most: the bounds meet
    text = ('{"content": "...", "generation_settings": {"speculative.n_max": 4, "speculative.n_min": 0}, "timings": '
            '{"prompt_n": 3, "predicted_n": 41, "draft_n": 40, "draft_n_accepted": 30}}\n')
    trace = traces.parse(text)
    assert _counts(trace) == (4, 10, 40, 30, None) and not trace.callsBound


def test_llamacpp_timings_cut_off_and_repeated_chunks():
    # a request streamed with timings_per_token repeats its running totals: the last chunk of its id counts
    head = '{"id": "a", "timings": {"predicted_n": 21, "draft_n": 20, "draft_n_accepted": 12}}\n'
    last = '{"id": "a", "timings": {"predicted_n": 41, "draft_n": 40, "draft_n_accepted": 30}}\n'
    assert _counts(traces.parse(head + last, lookahead=4)) == (4, 10, 40, 30, None)
    cut = traces.parse(head + last + last[:30], lookahead=4)
    assert _counts(cut) == (4, 10, 40, 30, None) and any("cut off" in note for note in cut.notes)


# --- what any log may carry ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["", "\n\r\n  \n", "\x00\x01\x02\xff garbage\n", bytes(range(256)).decode("latin-1")])
def test_empty_and_binary_input_is_one_line(text):
    with pytest.raises(traces.TraceError) as error:
        traces.parse(text)
    message = str(error.value)  # binary bytes are named as such (tests/test_hostile_inputs.py), other text unread
    assert "\n" not in message and ("empty" in message or "unrecognised format" in message or "not text" in message)


def test_a_huge_log_is_read_line_by_line():
    # 200,000 noise lines and one SpecDecoding line every 1,000: the parser holds counts, not lines
    parser = traces.TraceParser()
    noise = "(APIServer pid=1) INFO 09-09 11:51:35 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s\n"
    for _ in range(200):
        parser.feed(noise * 999 + VLLM_24127 + "\n")
    trace = parser.finish()
    assert _counts(trace)[:4] == (5, 59 * 200, 295 * 200, 262 * 200)


# --- TensorRT-LLM's trtllm-bench ("trtllm-bench") -----------------------------------------------------------

def test_trtllm_bench_block_gives_the_mean_and_k():
    # the golden file: one request, 100 output tokens in 40 iterations at max_draft_len 3 (AL 2.50, DAR 0.50);
    # (2.50 - 1) / 0.50 = 3 = k
    trace = traces.parse(traces.sample_text("trtllm_bench.txt"))
    assert (trace.format, trace.lookahead, trace.meanAcceptanceLength) == ("trtllm-bench", 3, 2.5)
    assert trace.drafts is None and any("context phase's token" in note for note in trace.notes)


def test_trtllm_bench_averages_quoted_alone():
    # two requests written from the same `generate_statistics_summary` (unweighted at 02499765): 100 tokens in 40
    # iterations (AL 2.5, DAR 60 / 120 = 0.5) and 90 in 45 (AL 2.0, DAR 45 / 135 = 0.333): averages 2.25 and
    # 0.4167, printed 0.42; (2.25 - 1) / k = 0.42 within the rounding only at k = 3 (2.98)
    trace = traces.parse("[DAR] AVERAGE: 0.42\n[AL] AVERAGE: 2.25\n")
    assert (trace.lookahead, trace.meanAcceptanceLength) == (3, 2.25)
    given = traces.parse("[DAR] AVERAGE: 0.42\n[AL] AVERAGE: 2.25\n", lookahead=5)
    assert given.lookahead == 5 and any("fit k = 3, not the lookahead given, 5" in note for note in given.notes)


def test_vllm_v0_last_line_cut_inside_its_emitted_count():
    # V0's line ends '..., Number of emitted tokens: {}.' at every version: without its '.' and newline, '12' may be
    # '1'; read, it would fall below the line before and count as a restart. The complete line is read: 10 calls, 2
    text = ASCEND_47.splitlines()[0] + "\n" + ASCEND_47.splitlines()[0].replace("80,", "160,")[:-2]
    trace = traces.parse(text)
    assert _counts(trace) == (8, 10, 80, 2, None)
    assert any("before its closing '.': it looks cut off" in note for note in trace.notes)


def test_a_long_line_arriving_in_many_chunks_is_held_not_rejoined():
    # a line without its end is held as pieces and joined once (a 64 MB line fed in 64 KB chunks was joined again
    # at every chunk); the result is the one of the whole text
    parser = traces.TraceParser()
    for _ in range(40):
        parser.feed("x" * 1000)
    assert parser.partial == "" and len(parser.pieces) == 40
    parser.feed("\n" + VLLM_24127 + "\n")
    assert parser.pieces == [] and _counts(parser.finish()) == K5
    chunked = traces.TraceParser()
    text = ASCEND_13640 + ASCEND_13640
    for start in range(0, len(text), 7):
        chunked.feed(text[start:start + 7])
    assert _counts(chunked.finish()) == _counts(traces.parse(text))


# --- SGLang's /metrics ("sglang-metrics") ---------------------------------------------------------------------

def test_sglang_metrics_gauges_give_the_last_window_mean_and_k():
    # the golden file: two ranks' sglang:spec_accept_length 2.75 and 2.85 (mean 2.80), spec_num_steps 3 = k,
    # spec_num_draft_tokens 4 = k + 1 (a chain); spec_accept_rate (2.75 - 1) / 3 = 0.583 as written
    trace = traces.parse(traces.sample_text("sglang_metrics.prom"))
    assert (trace.format, trace.lookahead, trace.meanAcceptanceLength) == ("sglang-metrics", 3, pytest.approx(2.8))
    assert not any("tree" in note for note in trace.notes)
    tree = traces.sample_text("sglang_metrics.prom").replace("} 4.0", "} 8.0")
    assert any("tree (topk > 1)" in note for note in traces.parse(tree).notes)


def test_sglang_metrics_of_an_idle_server_say_so():
    # an unlabelled scrape between requests: the gauge holds 0 (before, 'unrecognised format')
    with pytest.raises(traces.TraceError, match="no sglang:spec_accept_length above 0"):
        traces.parse("sglang:spec_accept_length 0.0\n")
    assert traces.parse('sglang:spec_accept_length{model_name="m"} 2.5\n', lookahead=4).meanAcceptanceLength == 2.5


# --- vllm bench serve's block ---------------------------------------------------------------------------------

# `vllm bench serve` (vllm-project/vllm `vllm/benchmarks/serve.py`: '{:<40} {:<10.2f}', trailing spaces kept), as
# printed in two public repositories' benchmark notes read through the code index (December 2026): a DFlash run
# with k = 15 and an MTP run with k = 7
BENCH_K15 = """---------------Speculative Decoding---------------
Acceptance rate (%):                     18.86     
Acceptance length:                       3.83      
Drafts:                                  54713     
Draft tokens:                            820695    
Accepted tokens:                         154753    
Per-position acceptance (%):
  Position 0:                            68.26     
  Position 1:                            46.70     
  Position 2:                            31.16     
  Position 3:                            21.67     
  Position 4:                            17.07     
  Position 5:                            14.24     
  Position 6:                            12.41     
  Position 7:                            11.15     
  Position 8:                            10.14     
  Position 9:                            9.49      
  Position 10:                           8.94      
  Position 11:                           8.47      
  Position 12:                           8.14      
  Position 13:                           7.78      
  Position 14:                           7.23      
==================================================
"""
BENCH_K7 = """---------------Speculative Decoding---------------
Acceptance rate (%):                     44.33
Acceptance length:                       4.10
Drafts:                                  499545
Draft tokens:                            3496815
Accepted tokens:                         1550240
Per-position acceptance (%):
  Position 0:                            74.34
  Position 1:                            58.00
  Position 2:                            49.10
  Position 3:                            43.19
  Position 4:                            38.03
  Position 5:                            29.14
  Position 6:                            18.53
==================================================
"""


def test_vllm_bench_block_k15():
    # 820695 / 54713 = 15; 154753 / 820695 = 18.86%; 1 + 154753 / 54713 = 3.83. Counts = percent x 54713: 37347.1,
    # 25551.0, 17048.6, 11856.3, 9339.5, 7791.1, 6789.9, 6100.5 (6100.4995), 5547.9, 5192.3, 4891.3, 4634.2, 4453.6,
    # 4256.7, 3955.7
    trace = traces.parse(BENCH_K15)
    assert _counts(trace) == (15, 54713, 820695, 154753, (37347, 25551, 17049, 11856, 9340, 7791, 6790, 6100, 5548,
                                                          5192, 4891, 4634, 4454, 4257, 3956))
    assert not any("disagrees" in note for note in trace.notes)


def test_vllm_bench_block_cut_inside_its_positions():
    # the paste stops at 'Position 6:' without its figure: 3496815 / 499545 = 7 positions, 6 listed; before, the six
    # rebuilt counts (sum 1457672) were refused against the accepted total 1550240; now the totals at k = 7
    cut = BENCH_K7[:BENCH_K7.index("Position 6:") + len("Position 6:")]
    trace = traces.parse(cut)
    assert _counts(trace) == (7, 499545, 3496815, 1550240, None)
    assert any("lists 6 Position line(s) but Draft tokens / Drafts = 7" in note for note in trace.notes)
    assert len(traces.parse(BENCH_K7).perPosition) == 7


def test_prometheus_last_value_cut_off():
    # prometheus_client writes '20.0', never '20' (floatToGoString): a last line without its newline whose value has
    # no '.' stops inside the number ('2' of '20.0'); it is skipped and the totals are read without the curve. Written
    # from vllm-project/vllm `vllm/v1/spec_decode/metrics.py`: 100 drafts x k = 3, 150 accepted = 80 + 50 + 20
    head = "".join(f'vllm:spec_decode_num_{name}_total{{engine="0",model_name="m"}} {value}\n'
                   for name, value in (("drafts", "100.0"), ("draft_tokens", "300.0"), ("accepted_tokens", "150.0")))
    rows = "".join(f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{engine="0",model_name="m",position="{i}"}} '
                   f'{value}\n' for i, value in enumerate(("80.0", "50.0", "20.0")))
    assert _counts(traces.parse((head + rows).rstrip("\n"))) == (3, 100, 300, 150, (80, 50, 20))
    cut = traces.parse(head + rows[:-4])
    assert _counts(cut) == (3, 100, 300, 150, None)
    assert any("inside its value" in note for note in cut.notes)


# --- SGLang's per-request metrics as Python dicts (the request log, scripts' prints) ------------------------------

# sgl-project/sglang `benchmark/mtbench/bench_sglang_eagle.py` quotes a meta_info as Python prints it (#3152's
# fields: spec_verify_ct and completion_tokens only)
SGLANG_MTBENCH_META = ("{'id': '3bb9c5ead109488d8ed5ee9cbecaec29', 'finish_reason': {'type': 'length', 'length': 256}, "
                       "'prompt_tokens': 37, 'spec_verify_ct': 101, 'completion_tokens': 256, 'cached_tokens': 0}\n")
# A response's speculative fields as a public test quotes them (the histogram's version, #18332): 30 verify passes,
# histogram [4, 0, 2, 2, 22], 98 accepted of spec_draft_token_num 120 = 30 x 4
SGLANG_HISTOGRAM_FIELDS = ("'completion_tokens': 128, 'e2e_latency': 1.4077615810092539, 'spec_accept_rate': "
                           "0.8166666666666667, 'spec_accept_length': 4.266666666666667, 'spec_accept_histogram': "
                           "[4, 0, 2, 2, 22], 'spec_accept_token_num': 98, 'spec_draft_token_num': 120, "
                           "'spec_verify_ct': 30")


def test_sglang_meta_info_printed_as_a_python_dict():
    # 256 completion tokens - 101 verify passes = 155 accepted drafts (the prefill's token counted, said in the
    # notes); k = 4 given: 404 drafted. Unrecognised before (single quotes)
    trace = traces.parse(SGLANG_MTBENCH_META, lookahead=4)
    assert (trace.format, trace.lookahead, trace.drafts, trace.draftTokens, trace.accepted) == \
        ("sglang-json", 4, 101, 404, 155)


def test_sglang_finish_log_line_of_the_request_log():
    # SGLang's request log (--log-requests; the line of sgl-project/sglang#11144 and #18332, 'Finish:
    # obj=GenerateReqInput(...), out={...}') holding the fields above in its meta_info. Histogram: c_1 = 30 - 4 = 26,
    # c_2 = 26 - 0 = 26, c_3 = 26 - 2 = 24, c_4 = 22; 0x4 + 2x2 + 3x2 + 4x22 = 98
    line = ("[2026-02-05 02:45:46] Finish: obj=GenerateReqInput(rid='oBTZYgU-4YNCb4-980033869e849bc1', "
            "http_worker_ipc=None, video_data=None, return_logprob=False, stream=True, log_metrics=True), "
            "out={'text': 'A {brace} in the text', 'output_ids': [1, 2, 3], 'meta_info': {'id': "
            "'oBTZYgU-4YNCb4-980033869e849bc1', 'finish_reason': {'type': 'length', 'length': 128}, 'prompt_tokens': "
            "12, 'weight_version': 'default', " + SGLANG_HISTOGRAM_FIELDS + "}}\n")
    trace = traces.parse(line + line.replace("oBTZ", "xBTZ"))
    assert _counts(trace) == (4, 60, 240, 196, (52, 52, 48, 44))
    assert any("spec_draft_token_num is k = 4 per call here" in note for note in trace.notes)
    # the paste stops inside the second line's dict: the first is read
    cut = traces.parse(line + line[:-4])
    assert _counts(cut) == (4, 30, 120, 98, (26, 26, 24, 22)) and any("cut off" in n for n in cut.notes)


def test_trtllm_bench_report_json():
    # `--report_json` writes get_statistics_dict (the same file and commit): "decoding_stats" holds the percentile
    # dicts by name; the one request of the golden file: AL average 2.5, DAR average 0.5, so k = 3
    import json
    stats = {name: {key: value for key in ("minimum", "maximum", "average", "p50", "p90", "p95", "p99")}
             for name, value in (("num_draft_tokens_percentiles", 120.0), ("num_accepted_draft_tokens_percentiles", 60.0),
                                 ("draft_acceptance_rate_percentiles", 0.5), ("acceptance_length_percentiles", 2.5))}
    report = {"engine": {"model": "m"}, "decoding_stats": {"mode": "Eagle", **stats}, "dataset": {"num_requests": 1}}
    for text in (json.dumps(report, indent=4) + "\n", json.dumps(report) + "\n"):
        trace = traces.parse(text)
        assert (trace.format, trace.lookahead, trace.meanAcceptanceLength) == ("trtllm-bench", 3, 2.5)


def test_sglang_bench_serving_block_with_two_acceptance_lengths():
    # sgl-project/sglang pull request #16694 (vincentzed, description, 2026-01-08): bench_serving's Speculative
    # Decoding block in vllm bench serve's layout, 'Acceptance length (server)' and '(benchmark)'; read by the same
    # block reader: 8187 / 2729 = 3 = k, 5709 / 8187 = 69.73%, 1 + 5709 / 2729 = 3.09
    block = """---------------Speculative Decoding---------------
Acceptance rate (%):                     69.73     
Acceptance length (server):              3.09      
Acceptance length (benchmark):           3.09      
Draft tokens:                            8187      
Accepted tokens:                         5709      
Drafts:                                  2729      
==================================================
"""
    trace = traces.parse(block)
    assert _counts(trace) == (3, 2729, 8187, 5709, None) and not any("disagrees" in n for n in trace.notes)


def test_sglang_log_with_its_request_log_reads_the_exact_counts():
    # a server log with --log-requests: Decode batch lines (#30393's) and a Finish line (the fields above) between
    # them; the Finish line's counters are exact, the accept len lines a per-window mean, so the first are read
    finish = ("[2026-08-14 14:02:48] Finish: obj=GenerateReqInput(rid='a'), out={'meta_info': {'id': 'a', "
              + SGLANG_HISTOGRAM_FIELDS + "}}\n")
    lines = SGLANG_30393.splitlines(keepends=True)
    trace = traces.parse(lines[0] + finish + lines[1])
    assert (trace.format, trace.drafts, trace.accepted, trace.perPosition) == ("sglang-json", 30, 98, (26, 26, 24, 22))
    assert any("2 Decode batch accept len line(s) not added" in note for note in trace.notes)
    with pytest.raises(traces.TraceError, match=r"line 2: the dict holding 'spec_verify_ct' is not a Python literal"):
        traces.parse(lines[0] + finish.replace("'spec_verify_ct': 30", "'spec_verify_ct': f(30)") + lines[1])


def test_a_brace_inside_a_quoted_key_does_not_loop():
    # fuzzing found it: "{'{ype': ..." sent the backward search to the quoted brace, whose dict closes before the
    # key, and the search found the same key again forever; now that dict is refused as not whole
    text = SGLANG_MTBENCH_META.replace("{'type'", "{'{ype'")
    with pytest.raises(traces.TraceError, match="does not close"):
        traces.parse(text)


def test_sglang_json_request_log_lines_among_other_lines():
    # --log-requests-format json (the option sgl-project/sglang's request-logger tests exercise): one JSON object a
    # line, here after a timestamp, among the Decode batch lines; the objects are read, the other lines skipped
    import json
    meta = {"id": "a", "completion_tokens": 128, "spec_accept_histogram": [4, 0, 2, 2, 22],
            "spec_accept_token_num": 98, "spec_draft_token_num": 120, "spec_verify_ct": 30}
    finish = "[2026-08-14 14:02:48] " + json.dumps({"event": "Finish", "out": {"meta_info": meta}}) + "\n"
    lines = SGLANG_30393.splitlines(keepends=True)
    for text in (lines[0] + finish + lines[1], finish + lines[0] + lines[1]):
        trace = traces.parse(text)
        assert (trace.format, trace.drafts, trace.accepted, trace.perPosition) == \
            ("sglang-json", 30, 98, (26, 26, 24, 22))
