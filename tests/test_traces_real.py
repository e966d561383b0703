"""Real engine output from public issues and pull requests, as pasted there (each sample names its
repository, thread and date), read by the trace reader. The expected counts are worked by hand
from the sample's own printed figures in the comment beside each; none was taken from running the
reader. Read through the project's search tools in December 2026; docs/READING.md (Trace formats,
"Real samples") lists the sources."""

import json
import subprocess
import sys

import pytest

from lab import traces


# --- vLLM V1 log lines, by version -------------------------------------------------------------------

# vllm-project/vllm pull request #24127 (qandrew, description, 2025-09-02): vLLM 0.10.x, n-gram, k = 5;
# the rate is printed first and the per-position rates last, as from 0.8.4 until the order changed
VLLM_24127 = ("(APIServer pid=2236552) INFO 09-09 11:51:35 [metrics.py:96] SpecDecoding metrics: Draft acceptance "
              "rate: 88.8%, Mean acceptance length: 5.44, Accepted throughput: 4.37 tokens/s, Drafted throughput: "
              "4.92 tokens/s, Accepted: 262 tokens, Drafted: 295 tokens, Per-position acceptance rate: 0.983, 0.949, "
              "0.915, 0.881, 0.712")


def _counts(trace):
    return trace.lookahead, trace.drafts, trace.draftTokens, trace.accepted, trace.perPosition


def test_vllm_0_10_line_rate_first_k5():
    # 295 / 5 = 59 calls; 1 + 262 / 59 = 5.4407 prints 5.44; 262 / 295 = 88.81% prints 88.8%.
    # c_i = rate x 59: 0.983 -> 57.997 = 58, 0.949 -> 55.99 = 56, 0.915 -> 53.985 = 54, 0.881 -> 51.98 = 52,
    # 0.712 -> 42.008 = 42; 58 + 56 + 54 + 52 + 42 = 262, the accepted total
    trace = traces.parse(VLLM_24127)
    assert _counts(trace) == (5, 59, 295, 262, (58, 56, 54, 52, 42))
    assert not any("but" in note for note in trace.notes)


@pytest.mark.parametrize("wrap", [
    "2025-09-09T11:51:35.123456789Z {}",                          # kubectl logs --timestamps
    "vllm-1  | \x1b[1;36m{}\x1b[0m\r",                            # docker compose, colours, CRLF
    "[pod/vllm-0/vllm] {}",                                       # kubectl logs --prefix
    "Dec 04 10:00:00 gpu-host vllm[1234]: {}",                    # journalctl
])
def test_vllm_line_wrapped_by_log_collectors_reads_the_same(wrap):
    assert _counts(traces.parse(wrap.format(VLLM_24127))) == (5, 59, 295, 262, (58, 56, 54, 52, 42))


# vllm-project/vllm-ascend issue #13640 (MaoJianwei, description, 2026-08-05): DSpark, k = 7, two intervals
# with a blank line between them
ASCEND_13640 = """(APIServer pid=79) INFO 08-05 12:25:03 [metrics.py:120] SpecDecoding metrics: Mean acceptance length: 2.91, Accepted throughput: 0.72 tokens/s, Drafted throughput: 2.64 tokens/s, Accepted: 44 tokens, Drafted: 161 tokens, Per-position acceptance rate: 0.739, 0.478, 0.261, 0.174, 0.130, 0.087, 0.043, Avg Draft acceptance rate: 27.3%

(APIServer pid=79) INFO 08-05 12:25:13 [metrics.py:120] SpecDecoding metrics: Mean acceptance length: 2.93, Accepted throughput: 10.60 tokens/s, Drafted throughput: 38.50 tokens/s, Accepted: 106 tokens, Drafted: 385 tokens, Per-position acceptance rate: 0.691, 0.418, 0.382, 0.182, 0.127, 0.073, 0.055, Avg Draft acceptance rate: 27.5%
"""


def test_vllm_ascend_dspark_k7_two_intervals():
    # line 1: 161 / 7 = 23 calls (1 + 44 / 23 = 2.913 prints 2.91); x 23: 17, 11, 6, 4, 3, 2, 1 (sum 44)
    # line 2: 385 / 7 = 55 calls (1 + 106 / 55 = 2.927 prints 2.93); x 55: 38, 23, 21, 10, 7, 4, 3 (sum 106)
    trace = traces.parse(ASCEND_13640)
    assert _counts(trace) == (7, 78, 546, 150, (55, 34, 27, 14, 10, 6, 4))
    assert traces.analyse(trace)["meanAcceptanceLength"] == pytest.approx(1 + 150 / 78)


# AEON-7/Qwen3.6-27B-AEON-Ultimate-Uncensored-DFlash issue #6 (hsyue, description, 2026-05-01): DFlash, k = 15
DFLASH_K15 = ("(APIServer pid=1) INFO 05-01 14:24:50 [metrics.py:101] SpecDecoding metrics: Mean acceptance length: "
              "2.37, Accepted throughput: 8.90 tokens/s, Drafted throughput: 97.50 tokens/s, Accepted: 89 tokens, "
              "Drafted: 975 tokens, Per-position acceptance rate: 0.600, 0.385, 0.215, 0.108, 0.062, 0.000, 0.000, "
              "0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, Avg Draft acceptance rate: 9.1%")


def test_vllm_dflash_k15_with_ten_empty_positions():
    # 975 / 15 = 65 calls; 1 + 89 / 65 = 2.369 prints 2.37; x 65: 39, 25.03 = 25, 13.98 = 14, 7.02 = 7,
    # 4.03 = 4, then zeros (39 + 25 + 14 + 7 + 4 = 89)
    trace = traces.parse(DFLASH_K15)
    assert _counts(trace) == (15, 65, 975, 89, (39, 25, 14, 7, 4) + (0,) * 10)
    result = traces.analyse(trace)
    # conditional: 25 / 39, 14 / 25, 7 / 14, 4 / 7, then 0 / 4 and no survivor to test past it
    assert result["conditional"][:6] == pytest.approx([39 / 65, 25 / 39, 14 / 25, 7 / 14, 4 / 7, 0.0])
    assert result["conditional"][6:] == [None] * 9


def test_vllm_line_wrapped_inside_its_rates_is_joined():
    # a paste wrapped after '0.478,': the line reads as it does whole (23 calls, 44 accepted)
    line = ASCEND_13640.splitlines()[0]
    cut = line.index("0.261")
    trace = traces.parse(line[:cut].rstrip() + "\n" + line[cut:] + "\n")
    assert _counts(trace) == (7, 23, 161, 44, (17, 11, 6, 4, 3, 2, 1))


# vllm-project/vllm issue #19254 (description, vLLM 0.9.0.1, n-gram, k = 3, log of 06-06): the issue text as the
# search index holds it, its newlines lost, so one physical line runs three log records together
VLLM_19254 = ("INFO 06-06 14:20:34 [loggers.py:116] Engine 000: Avg prompt throughput: 11244.6 tokens/s, Avg "
              "generation throughput: 267.6 tokens/s, Running: 337 reqs, Waiting: 633 reqs, GPU KV cache usage: 9.5%, "
              "Prefix cache hit rate: 0.5% INFO 06-06 14:20:34 [metrics.py:86] SpecDecoding metrics: Draft acceptance "
              "rate: 38.8%, Mean acceptance length: 2.16, Accepted: 150 tokens, Drafted: 387 tokens, Per-position "
              "acceptance rate: 0.543, 0.357, 0.264 INFO 06-06 14:20:44 [loggers.py:116] Engine 000: Avg prompt "
              "throughput: 11528.5 tokens/s, Avg generation throughput: 826.0 tokens/s, Runni...")


def test_vllm_0_9_line_run_together_with_the_next_record():
    # 387 / 3 = 129 calls (1 + 150 / 129 = 2.163 prints 2.16); x 129: 70.05 = 70, 46.05 = 46, 34.06 = 34 (sum 150).
    # Before: the rates ran into ' INFO 06-06...' and were lost, so the reader asked for --lookahead.
    assert _counts(traces.parse(VLLM_19254)) == (3, 129, 387, 150, (70, 46, 34))


# vllm-project/vllm issue #15958 (description, 2025-04-02, main at 44f990515): speculation off, the V1 logger
# still printing; newlines lost as above
VLLM_15958 = ("INFO 04-02 18:03:41 [loggers.py:87] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation "
              "throughput: 0.0 tokens/s, Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.1%, Prefix cache hit "
              "rate: 50.0% INFO 04-02 18:03:41 [metrics.py:53] SpecDecoding metrics: Draft acceptance rate: nan%, "
              "Accepted: 0 tokens, Drafted: 0 tokens INFO 04-02 18:03:51 [loggers.py:87] Engine 000: Avg prompt "
              "throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 0 reqs, Waiting: 0 reqs, "
              "GPU KV cache usage: 0.1%, Prefix cache hit rate: 50.0% INFO 04-02 18:03:51 [metrics.py:53] "
              "SpecDecoding metrics: Draft acceptance rate: nan%, Accepted: 0 tokens, Drafted: 0 tokens")


def test_vllm_idle_lines_say_no_draft_was_verified():
    # two records, both 0 accepted of 0 drafted (rate nan%): nothing to measure, and the message says why
    with pytest.raises(traces.TraceError, match=r"every SpecDecoding metrics line \(2\) says Accepted: 0 tokens"):
        traces.parse(VLLM_15958)


# vllm-project/vllm pull request #15902 (WoosukKwon, description, 2025-04-01): V1's line before and after the
# rename in vLLM 0.8.3 (no k, no mean, no per-position rates in either)
VLLM_15902_BEFORE = ("Speculative metrics: Draft acceptance rate: 1.000, Number of accepted tokens: 66, "
                     "Number of draft tokens: 66, ")
VLLM_15902_AFTER = "SpecDecoding metrics: Draft acceptance rate: 100.0%, Accepted: 66 tokens, Drafted: 66 tokens"


@pytest.mark.parametrize("text", [VLLM_15902_BEFORE, VLLM_15902_AFTER])
def test_vllm_v1_lines_of_0_8_need_the_lookahead_and_read_with_it(text):
    # neither prints k: the reader asks for it (before, the 'Speculative metrics:' V1 line was refused as a V0
    # line 'without its k count'); at k = 2, 66 / 2 = 33 calls, all 66 accepted, mean 1 + 66 / 33 = 3
    with pytest.raises(traces.TraceError, match="--lookahead"):
        traces.parse(text)
    trace = traces.parse(text, lookahead=2)
    assert _counts(trace) == (2, 33, 66, 66, None)
    assert traces.analyse(trace)["meanAcceptanceLength"] == 3.0


# vllm-project/vllm issue #55605 (stefanskiasan, comment, 2026-09-06, vLLM v0.28.0, GLM-5.3 MTP, k = 4): two
# fields quoted out of the engine's SpecDecoding line
VLLM_55605 = "Mean acceptance length: 5.00\nPer-position acceptance rate: 1.000, 1.000, 1.000, 1.000\n"


def test_vllm_fields_quoted_out_of_their_line():
    # k = 4 from the four rates; the mean as printed (the rates sum to 4.000 = 5.00 - 1); no counts, no intervals.
    # Before: 'a single figure must stand alone'.
    trace = traces.parse(VLLM_55605)
    assert (trace.format, trace.lookahead, trace.drafts, trace.meanAcceptanceLength) == ("vllm-log", 4, None, 5.0)
    assert not any("not the mean" in note for note in trace.notes)


def test_vllm_2026_rates_over_drafted_tokens_with_their_coverage():
    # Written from the format string of a 2026 tree (local-inference-lab/vllm vllm/v1/spec_decode/metrics.py at
    # 3b85a950, read through the code index) with the values its own test logs: one call drafting 1 token
    # (accepted), one drafting 2 (1 accepted). Each rate is accepted / drafted at that position, '-----' where no
    # draft reached; the coverage is drafted at i / calls. 2 calls, 3 drafted, 2 accepted; drafted per position
    # 2, 1, 0; accepted per position 2, 0, 0. Before: the line was refused for want of per-position rates.
    line = ("INFO 09-04 11:47:26 [metrics.py:125] SpecDecoding metrics: Mean acceptance length: 2.00, Mean "
            "verification depth: 1.50/3, Accepted throughput: 0.10 tokens/s, Drafted throughput: 0.30 tokens/s, "
            "Accepted: 2 tokens, Drafted: 3 tokens, Per-position acceptance rate: 1.000, 0.000, -----, Per-position "
            "verification coverage: 1.000, 0.500, 0.000, Avg Draft acceptance rate: 66.7%")
    trace = traces.parse(line)
    assert _counts(trace) == (3, 2, 3, 2, (2, 0, 0)) and trace.draftsPerPosition == (2, 1, 0)
    assert traces.analyse(trace)["perPosition"] == [1.0, 0.0, 0.0]
    with pytest.raises(traces.TraceError, match="verification coverage, which is missing"):
        traces.parse(line.replace("Per-position verification coverage: 1.000, 0.500, 0.000, ", ""))


# --- vLLM's spec_decode example ----------------------------------------------------------------------

# vllm-project/vllm pull request #17504 (zixi-qi, comment, 2025-05-01): EAGLE-3, k = 7, the V0-era summary
VLLM_17504 = """--------------------------------------------------
mean acceptance length:         3.57
--------------------------------------------------
acceptance at token 0:1.00
acceptance at token 1:0.75
acceptance at token 2:0.55
acceptance at token 3:0.42
acceptance at token 4:0.31
acceptance at token 5:0.24
acceptance at token 6:0.18
acceptance at token 7:0.13
"""


def test_vllm_example_summary_k7_without_counts():
    # token 0 is every call (1.00), so k = 7; the rest sum to 2.58 against the printed 3.57 - 1 = 2.57
    trace = traces.parse(VLLM_17504)
    assert (trace.lookahead, trace.drafts, trace.meanAcceptanceLength) == (7, None, 3.57)
    assert not any("not the printed mean" in note for note in trace.notes)


# vllm-project/vllm pull request #24344 (ekagra-ranjan, description, 2025-09): n-gram, k = 5, the summary with
# the later lines (num_tokens_generated_without_sd, seq normalized acceptance length)
VLLM_24344 = """--------------------------------------------------
num generation tokens: 5376
--------------------------------------------------
total_num_output_tokens: 5376
num_drafts: 993
num_draft_tokens: 4960
num_accepted_tokens: 3562
mean acceptance length: 4.59
num_tokens_generated_without_sd: 821
seq normalized acceptance length: 2.96
--------------------------------------------------
acceptance at token 0: 0.81
acceptance at token 1: 0.74
acceptance at token 2: 0.70
acceptance at token 3: 0.68
acceptance at token 4: 0.66
"""


def test_vllm_example_summary_ngram_k5_short_drafts():
    # 993 calls, 4960 drafted (< 5 x 993 = 4965: short n-gram drafts), 3562 accepted (1 + 3562 / 993 = 4.587);
    # x 993: 804.33 = 804, 734.82 = 735, 695.1 = 695, 675.24 = 675, 655.38 = 655
    trace = traces.parse(VLLM_24344)
    assert _counts(trace) == (5, 993, 4960, 3562, (804, 735, 695, 675, 655))
    assert any("4960 < k x num_drafts = 4965" in note for note in trace.notes)


# vllm-project/vllm pull request #24243 (LDLINGLINGLING, description, 2025-09-04): a script of the PR's own
# (thousands separators, 'Number of draft proposals'), not an engine's output
VLLM_24243 = """200 samples, 10 concurrency, single RTX 4090:
Total output tokens: 106,678
Number of draft proposals: 43,221
Number of draft tokens generated: 259,326
Number of accepted tokens: 63,669
Mean acceptance length: 2.47

Acceptance rate at token 0: 0.58
"""


def test_a_script_of_its_own_is_refused_naming_the_figure_and_what_to_paste():
    with pytest.raises(traces.TraceError) as caught:
        traces.parse(VLLM_24243)
    message = str(caught.value)
    assert "'Mean acceptance length: 2.47'" in message and "--lookahead" in message and "\n" not in message


# --- SGLang ------------------------------------------------------------------------------------------

# sgl-project/sglang issue #11948 (xiayuan, description, 2025-10-22): EAGLE-3, the 'Decode batch.' lines
SGLANG_11948 = """[2025-10-22 10:27:56 TP0] Prefill batch. #new-seq: 1, #new-token: 28, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, 
[2025-10-22 10:27:57 TP0] Decode batch. #running-req: 1, #token: 108, token usage: 0.00, accept len: 2.17, accept rate: 0.54, cuda graph: True, gen throughput (token/s): 0.39, #queue-req: 0, 
[2025-10-22 10:27:57 TP0] Decode batch. #running-req: 1, #token: 186, token usage: 0.00, accept len: 1.95, accept rate: 0.49, cuda graph: True, gen throughput (token/s): 178.86, #queue-req: 0, 
[2025-10-22 10:27:58 TP0] Decode batch. #running-req: 1, #token: 258, token usage: 0.00, accept len: 1.80, accept rate: 0.45, cuda graph: True, gen throughput (token/s): 165.41, #queue-req: 0, 
[2025-10-22 10:27:58 TP0] Decode batch. #running-req: 1, #token: 340, token usage: 0.00, accept len: 2.05, accept rate: 0.51, cuda graph: True, gen throughput (token/s): 188.68, #queue-req: 0, 
[2025-10-22 10:27:58 TP0] Decode batch. #running-req: 1, #token: 412, token usage: 0.00, accept len: 1.80, accept rate: 0.45, cuda graph: True, gen throughput (token/s): 165.59, #queue-req: 0, 
"""


def test_sglang_decode_lines_with_the_older_accept_rate():
    # accept rate = accept len / (k + 1) at k = 3: 2.17 / 4 = 0.5425, 1.95 / 4 = 0.4875, 1.80 / 4 = 0.45,
    # 2.05 / 4 = 0.5125 (printed 0.54, 0.49, 0.45, 0.51); mean of the five: 9.77 / 5 = 1.954
    trace = traces.parse(SGLANG_11948)
    assert (trace.format, trace.lookahead) == ("sglang-log", 3)
    assert trace.meanAcceptanceLength == pytest.approx(1.954)
    assert any("'tokens / (k + 1)'" in note for note in trace.notes)


# sgl-project/sglang pull request #30393 (F0rtiter, comment, 2026-08-14): a decode server of a disaggregated
# deployment (pre-allocated usage, #transfer-req), 'Decode batch,' with the later accept rate
SGLANG_30393 = """[2026-08-14 14:02:47 TP0] Decode batch, #running-req: 3, #token: 266624, token usage: 0.43, accept len: 1.67, accept rate: 0.13, pre-allocated usage: 0.22, #prealloc-req: 0, #transfer-req: 1, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 183.10, #queue-req: 0
[2026-08-14 14:02:48 TP0] Decode batch, #running-req: 3, #token: 292928, token usage: 0.47, accept len: 1.68, accept rate: 0.14, pre-allocated usage: 0.26, #prealloc-req: 0, #transfer-req: 2, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 179.61, #queue-req: 0
[2026-08-14 14:02:49 TP0] Decode batch, #running-req: 3, #token: 331712, token usage: 0.54, accept len: 1.73, accept rate: 0.14, pre-allocated usage: 0.33, #prealloc-req: 0, #transfer-req: 3, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 185.97, #queue-req: 0
[2026-08-14 14:02:50] INFO:     127.0.0.1:52024 - "GET /metrics HTTP/1.1" 200 OK
[2026-08-14 14:02:50 TP0] Decode batch, #running-req: 3, #token: 331904, token usage: 0.54, accept len: 1.72, accept rate: 0.14, pre-allocated usage: 0.33, #prealloc-req: 0, #transfer-req: 3, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 183.75, #queue-req: 0
"""


def test_sglang_decode_lines_with_the_later_accept_rate():
    # accept rate = (accept len - 1) / k at k = 5: 0.67 / 5 = 0.134, 0.68 / 5 = 0.136, 0.73 / 5 = 0.146 (1.725 to
    # 1.735 and 0.135 to 0.145 meet at 0.145), 0.72 / 5 = 0.144; mean (1.67 + 1.68 + 1.73 + 1.72) / 4 = 1.70
    trace = traces.parse(SGLANG_30393)
    assert trace.lookahead == 5 and trace.meanAcceptanceLength == pytest.approx(1.70)
    assert any("'drafts / k'" in note for note in trace.notes)


# sgl-project/sglang pull request #4247 (chromecast56, comment, 2025-03-10): the mt-bench script's line
SGLANG_4247 = "EAGLE-3 (num_steps=8):\n#questions: 80, Throughput: 378.57 token/s, Acceptance length: 5.39\n"


def test_sglang_mtbench_script_line():
    # completion tokens / spec_verify_ct = 5.39; k as given (8 steps). Before: unrecognised format.
    trace = traces.parse(SGLANG_4247, lookahead=8)
    assert (trace.format, trace.meanAcceptanceLength) == ("sglang-log", 5.39)
    assert any("prefill" in note for note in trace.notes)
    with pytest.raises(traces.TraceError, match="--lookahead"):
        traces.parse(SGLANG_4247)


# --- several engines in one text -----------------------------------------------------------------------

def test_another_engines_lines_are_named_not_read():
    # the vLLM line of vllm-ascend#13640 and an SGLang line of sglang#11948 in one paste: the vLLM line is read
    # (23 calls, 44 accepted) and the SGLang line is named as not read
    text = ASCEND_13640.splitlines()[0] + "\n" + SGLANG_11948.splitlines()[1] + "\n"
    trace = traces.parse(text)
    assert (trace.drafts, trace.accepted) == (23, 44)
    assert any("1 line(s) of SGLang output (the first is line 2) are not read" in note for note in trace.notes)


# --- /metrics ------------------------------------------------------------------------------------------

# vllm-project/vllm pull request #24049 (wuhang2014, description; its scrape's _created timestamps are
# 2025-09-01): Prometheus's table view pasted as markdown rows 'name{labels} | value', eight DP engines. The
# excerpt the index holds keeps every engine's num_drafts but only some engines' position 3 and 4.
PROM_24049 = """<summary> Prometheus Query `{__name__=~"vllm:spec.*"}` Result </summary>
vllm:spec_decode_num_drafts_total{engine="0", instance="localhost:8000", job="vllm", model_name="/home/models/Qwen3-0.6B"} | 22
-- | --
vllm:spec_decode_num_drafts_total{engine="1", instance="localhost:8000", job="vllm", model_name="/home/models/Qwen3-0.6B"} | 15
vllm:spec_decode_num_drafts_total{engine="2", instance="localhost:8000", job="vllm", model_name="/home/models/Qwen3-0.6B"} | 29
vllm:spec_decode_num_drafts_total{engine="3", instance="localhost:8000", job="vllm", model_name="/home/models/Qwen3-0.6B"} | 20
vllm:spec_decode_num_drafts_total{engine="4", instance="localhost:8000", job="vllm", model_name="/home/models/Qwen3-0.6B"} | 25
vllm:spec_decode_num_drafts_total{engine="5", instance="localhost:8000", job="vllm", model_name="/home/models/Qwen3-0.6B"} | 24
vllm:spec_decode_num_drafts_total{engine="6", instance="localhost:8000", job="vllm", model_name="/home/models/Qwen3-0.6B"} | 27
vllm:spec_decode_num_drafts_total{engine="7", instance="localhost:8000", job="vllm", model_name="/home/models/Qwen3-0.6B"} | 26
vllm:spec_decode_num_drafts_created{engine="0", instance="localhost:8000", job="vllm", model_name="/home/models/Qwen3-0.6B"} | 1756736798.733569
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="6", instance="localhost:8000", job="vllm", model_name="/home/models/Qwen3-0.6B", position="3"} | 24
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="7", instance="localhost:8000", job="vllm", model_name="/home/models/Qwen3-0.6B", position="3"} | 6
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0", instance="localhost:8000", job="vllm", model_name="/home/models/Qwen3-0.6B", position="4"} | 2
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1", instance="localhost:8000", job="vllm", model_name="/home/models/Qwen3-0.6B", position="4"} | 4
"""


def test_prometheus_table_rows_are_read_and_a_partial_table_is_refused():
    # Before: "'|' is not a number". The rows are read now; positions 3 and 4 of only some engines (and no
    # num_accepted_tokens) cannot give an accepted total, so the reader refuses rather than sum 24 + 6 + 2 + 4
    with pytest.raises(traces.TraceError, match="per-position series are incomplete"):
        traces.parse(PROM_24049, lookahead=5)
    # the same rows with each engine's totals written in (drafted = 5 x drafts; accepted = drafts): the eight
    # engines' drafts add up to 22 + 15 + 29 + 20 + 25 + 24 + 27 + 26 = 188
    rows = [line for line in PROM_24049.splitlines() if "num_drafts_total" in line]
    written = [row.replace("num_drafts_total", "num_draft_tokens_total").rsplit("| ", 1)[0]
               + f"| {5 * int(row.rsplit('| ', 1)[1])}" for row in rows]
    written += [row.replace("num_drafts_total", "num_accepted_tokens_total") for row in rows]
    trace = traces.parse("\n".join(rows + written), lookahead=5)
    assert (trace.drafts, trace.draftTokens, trace.accepted) == (188, 940, 188)
    assert any("summed 8 label sets" in note for note in trace.notes)


def test_llamacpp_metrics_prefix():
    # llama.cpp's server exports vLLM's counter names under 'llamacpp:' (written: 40 steps of k = 3,
    # 60 accepted, positions 30, 20, 10)
    text = ("llamacpp:spec_decode_num_draft_tokens_total 120\nllamacpp:spec_decode_num_accepted_tokens_total 60\n"
            "llamacpp:spec_decode_num_drafts_total 40\n"
            + "".join(f'llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position="{p}"}} {c}\n'
                      for p, c in enumerate((30, 20, 10))))
    trace = traces.parse(text)
    assert _counts(trace) == (3, 40, 120, 60, (30, 20, 10)) and "llama.cpp" in trace.notes[0]
    with pytest.raises(traces.TraceError, match="mixes vllm:spec_decode_"):
        traces.parse(text + "vllm:spec_decode_num_drafts_total 5\n")


# --- llama.cpp's per-call lines --------------------------------------------------------------------------

# ggml-org/llama.cpp pull request #18211 (okuvshynov, description, 2025-12-20): llama-server -v, before and
# after the fix of the drafted count
LLAMA_18211_AFTER = """slot update_slots: id  3 | task 0 | accepted 1/16 draft tokens, new n_tokens = 661
slot update_slots: id  3 | task 0 | accepted 2/16 draft tokens, new n_tokens = 664
slot update_slots: id  3 | task 0 | accepted 16/16 draft tokens, new n_tokens = 681
slot update_slots: id  3 | task 0 | accepted 16/16 draft tokens, new n_tokens = 698
slot update_slots: id  3 | task 0 | accepted 3/4 draft tokens, new n_tokens = 702
"""
LLAMA_18211_BEFORE = """slot update_slots: id  3 | task 0 | accepted 11/0 draft tokens, new n_tokens = 741
slot update_slots: id  3 | task 0 | accepted 4/0 draft tokens, new n_tokens = 746
slot update_slots: id  3 | task 0 | accepted 16/0 draft tokens, new n_tokens = 763
slot update_slots: id  3 | task 0 | accepted 11/0 draft tokens, new n_tokens = 775
slot update_slots: id  3 | task 0 | accepted 2/0 draft tokens, new n_tokens = 778
"""


def test_llamacpp_per_call_lines_are_exact():
    # calls (1/16, 2/16, 16/16, 16/16, 3/4): 5 calls, 68 drafted, 38 accepted; accepted at least i: 5, 4, 3, 2,
    # then 2 up to 16; drafted at least i: 5 up to position 4, then 4. Before: unrecognised format.
    trace = traces.parse(LLAMA_18211_AFTER)
    assert _counts(trace) == (16, 5, 68, 38, (5, 4, 3, 2) + (2,) * 12)
    assert trace.draftsPerPosition == (5,) * 4 + (4,) * 12
    assert traces.analyse(trace)["perPosition"][:5] == [1.0, 0.8, 0.6, 0.4, 0.5]


def test_llamacpp_per_call_lines_before_the_fix_need_the_lookahead():
    with pytest.raises(traces.TraceError, match="llama.cpp#18211"):
        traces.parse(LLAMA_18211_BEFORE)
    # at k = 16: 5 calls, 5 x 16 = 80 drafted, 11 + 4 + 16 + 11 + 2 = 44 accepted
    trace = traces.parse(LLAMA_18211_BEFORE, lookahead=16)
    assert (trace.drafts, trace.draftTokens, trace.accepted) == (5, 80, 44)
    # accepted at least i: 5, 5 (all reach 2), 4, 4 (not the 2), 3 up to 11 (11, 16, 11), then 1 (the 16)
    assert trace.perPosition == (5, 5, 4, 4) + (3,) * 7 + (1,) * 5


# --- the command line -------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,lookahead,expected", [
    (VLLM_19254, None, {"lookahead": 3, "drafts": 129, "acceptedTokens": 150}),
    (DFLASH_K15, None, {"lookahead": 15, "drafts": 65, "acceptedTokens": 89}),
    (LLAMA_18211_AFTER, None, {"lookahead": 16, "drafts": 5, "acceptedTokens": 38}),
    (SGLANG_4247, "8", {"lookahead": 8, "meanAcceptanceLength": 5.39}),
])
def test_the_cli_reads_the_real_samples(tmp_path, text, lookahead, expected):
    path = tmp_path / "trace.log"
    path.write_text(text, encoding="utf-8")
    command = [sys.executable, "-m", "lab", "trace", str(path), "--json"] + (["--lookahead", lookahead] if lookahead else [])
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert {key: result[key] for key in expected} == expected


def test_the_cli_refuses_in_one_line(tmp_path):
    path = tmp_path / "idle.log"
    path.write_text(VLLM_15958, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "lab", "trace", str(path), "--json"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "no draft was verified" in done.stderr + done.stdout


def test_llamacpp_shortened_line_and_its_trace_level_rates():
    # Written from later copies of ggml-org/llama.cpp tools/server/server-context.cpp (code index): 'draft
    # acceptance = %0.5f (%5d accepted / %5d generated), mean len = %5.2f', then at trace verbosity '     acc per
    # pos = (%s)'. 257 accepted, 388 generated, mean 3.65: calls = 257 / 2.65 = 96.98, so 97 (388 / 4 = 97 too);
    # x 97: 77.99 = 78, 68.0 = 68, 61.01 = 61, 49.96 = 50 (sum 257). Before: 'mean len' was not read and the
    # calls were only bounded (388 / k).
    text = ("slot print_timing: id  0 | task 42 | draft acceptance = 0.66237 (  257 accepted /   388 generated), "
            "mean len =  3.65\nslot print_timing: id  0 | task 42 |      acc per pos = (0.804, 0.701, 0.629, 0.515)\n")
    trace = traces.parse(text)
    assert _counts(trace) == (4, 97, 388, 257, (78, 68, 61, 50)) and not trace.callsBound


@pytest.mark.parametrize("text,k,mean", [
    # the block quoted without its Drafts and Accepted tokens lines (its ruler and header gone too), as notes
    # quote it; written from the print in vllm/benchmarks/serve.py ("{:<40} {:<10.2f}")
    ("Acceptance rate (%):                     73.47\nAcceptance length:                       3.20\n"
     "Draft tokens:                            19179\n  Position 0:                            83.42\n"
     "  Position 1:                            72.91\n  Position 2:                            64.07\n", 3, 3.20),
    # and with its padding collapsed (markdown): five positions sum to 2.3175, the length 3.32
    ("Acceptance rate (%): 46.35\nAcceptance length: 3.32\nPer-position acceptance (%):\nPosition 0: 59.76\n"
     "Position 1: 51.28\nPosition 2: 44.69\nPosition 3: 39.32\nPosition 4: 36.70\n", 5, 3.32),
])
def test_vllm_bench_block_quoted_without_its_counts(text, k, mean):
    # Before: 'the Speculative Decoding block has no Drafts line'
    trace = traces.parse(text)
    assert (trace.format, trace.lookahead, trace.drafts, trace.meanAcceptanceLength) == ("vllm-bench", k, None, mean)
    assert not any("not the acceptance length" in note for note in trace.notes)


def test_vllm_per_request_metrics_object_of_2026():
    # mostlygeek/llama-swap issue #1032 (NeoKactus, description, 2026-08-21), the response's 'metrics' object of
    # vLLM's --per-request-spec-decode-metrics (vllm-project/vllm#48915): histogram [39, 1, 0, 3] of 43 calls at
    # k = 3: accepted 0*39 + 1*1 + 2*0 + 3*3 = 10; accepted at least 1, 2, 3: 4, 3, 3; 129 drafted = 43 x 3
    text = ('{"choices": [], "usage": {}, "metrics": {"speculative_decoding": {"mean_acceptance_length": '
            '1.2325581395348837, "draft_acceptance_rate": 0.07751937984496124, "acceptance_histogram": [39, 1, 0, 3], '
            '"num_spec_steps": 43, "num_accepted_draft_tokens": 10, "num_draft_tokens": 129, "num_spec_tokens": 3}}}')
    trace = traces.parse(text)
    assert (trace.format,) + _counts(trace) == ("vllm-request-json", 3, 43, 129, 10, (4, 3, 3))


def test_vllm_rates_quoted_as_a_python_or_numpy_list():
    # Notes quote the rates as a list ('[0.89, 0.76, 0.61]', or numpy's '[0.89 0.76 0.61]') with throughputs in
    # place of the counts: k = 3 from the list; the printed mean 2.73 is read, and the rates' sum, 2.26, is named
    # as disagreeing with it (2.73 - 1 = 1.73). Written in the form such notes quote; before, no rates were read.
    line = ("SpecDecoding metrics: Mean acceptance length: 2.73, Accepted: 12.4 tok/s, Drafted: 15.1 tok/s, "
            "Per-position acceptance rate: [0.89, 0.76, 0.61]")
    trace = traces.parse(line)
    assert (trace.lookahead, trace.meanAcceptanceLength) == (3, 2.73)
    assert any("the rates sum to 2.260, not the mean acceptance length minus one, 1.73" in n for n in trace.notes)
    numpy = traces.parse("Per-position acceptance rate: [0.89 0.76 0.61]\n")
    assert (numpy.lookahead, numpy.meanAcceptanceLength) == (3, pytest.approx(3.26))


def test_vllm_dynamic_depth_below_k_names_itself():
    # Written from the 2026 line (the GLM-5.3 and Qwen DFlash logs quoted in public notes print 'Current
    # speculative depth: %d' after the mean): k = 5 positions, depth 3 in force, 300 drafted = 3 x 100 calls, so
    # 300 / 5 = 60 would give a mean of 1 + 100 / 60 = 2.67, not the printed 2.00; 100 / (2.00 - 1) = 100 calls;
    # x 100: 60, 30, 10, 0, 0
    line = ("(APIServer pid=1) INFO 09-04 11:47:26 [metrics.py:125] SpecDecoding metrics: Mean acceptance length: "
            "2.00, Current speculative depth: 3, Accepted throughput: 1.00 tokens/s, Drafted throughput: 3.00 "
            "tokens/s, Accepted: 100 tokens, Drafted: 300 tokens, Per-position acceptance rate: 0.600, 0.300, 0.100, "
            "0.000, 0.000, Avg Draft acceptance rate: 33.3%")
    trace = traces.parse(line)
    assert _counts(trace) == (5, 100, 300, 100, (60, 30, 10, 0, 0))
    assert "the printed Current speculative depth, 3" in trace.notes[0]


def test_two_servers_interleaved_are_refused_naming_the_line():
    # vllm-ascend#13640's lines (k = 7) and vllm#24127's (k = 5) in one paste: no one k, so one line says so
    with pytest.raises(traces.TraceError, match=r"\(5 and 7 positions, line 4\): two servers or a restart"):
        traces.parse(ASCEND_13640 + VLLM_24127 + "\n")
