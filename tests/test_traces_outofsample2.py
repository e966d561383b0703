"""The trace reader out of sample, second pass (5-6 December 2026, branch pastes10): public engine output that no test
had used (not the 28 texts of tests/test_traces_outofsample.py, nor any earlier sample), found through the search tools
(issues corpus, code index), run through the reader at main 04abce3 BEFORE any change and only then fixed where it
misread. 17 texts, 9 at k = 5 to 16; 12 read right before (a correct refusal counts as right). Each expectation is
worked by hand in the comment beside it from the text's own printed figures (each vLLM line's calls = Drafted / k, its
mean 1 + Accepted / calls printed back, each count = rate x calls rounded, the counts summing to the line's Accepted);
none was taken from running the reader. Only the lines needed are quoted. docs/READING.md ("December 2026: the trace
reader out of sample, second pass") lists the sources and what the reader returned before and after."""

import pytest

from lab import traces
from lab.traces.common import LookaheadMissing


def _counts(trace):
    return trace.lookahead, trace.drafts, trace.draftTokens, trace.accepted, trace.perPosition


def _line(pid, stamp, where, mean, accepted, drafted, rates, avg):
    """A vLLM SpecDecoding metrics line as the text printed it (its throughputs are not read, so written as 0)."""
    return (f"(APIServer pid={pid}) INFO {stamp} [metrics.py:{where}] SpecDecoding metrics: Mean acceptance length: "
            f"{mean}, Accepted throughput: 0.00 tokens/s, Drafted throughput: 0.00 tokens/s, Accepted: {accepted} "
            f"tokens, Drafted: {drafted} tokens, Per-position acceptance rate: {rates}, Avg Draft acceptance rate: "
            f"{avg}%\n")


# --- read right before (guards) --------------------------------------------------------------------------------------

# vllm-project/vllm-ascend#12521 (AlanisZomeg, description; lines of 07-20): MTP at k = 3 on an Ascend image (B119),
# one line each from two API servers ('Engine 002' and 'Engine 004'), their throughput lines between
ASCEND_12521 = (
    "(APIServer pid=95669) INFO 07-20 18:11:49 [loggers.py:271] Engine 002: Avg prompt throughput: 0.1 tokens/s, Avg "
    "generation throughput: 43.3 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 10.1%\n"
    + _line(95669, "07-20 18:11:49", 101, "2.87", 282, 453, "0.821, 0.609, 0.437", "62.3")
    + _line(95673, "07-20 18:11:49", 101, "2.98", 299, 453, "0.821, 0.675, 0.483", "66.0"))


def test_ascend_mtp_k3_two_engines_lines_are_summed_and_named():
    # 453 / 3 = 151 calls a line; 1 + 282 / 151 = 2.868 prints 2.87: 0.821 x 151 = 123.97 -> 124, 0.609 x 151 = 91.96
    # -> 92, 0.437 x 151 = 65.99 -> 66 (sum 282); 1 + 299 / 151 = 2.980: 124, 0.675 x 151 = 101.9 -> 102, 0.483 x 151 =
    # 72.9 -> 73 (sum 299); together 302 calls, (248, 194, 139), 581 accepted
    trace = traces.parse(ASCEND_12521)
    assert _counts(trace) == (3, 302, 906, 581, (248, 194, 139))
    assert any("2 processes" in note for note in trace.notes)


# noonghunna/club-3090#613 (guybrush01, comment; lines of 07-06, metrics.py:120): a vLLM MTP run at k = 3, a request
# line and a throughput line between two SpecDecoding lines
CLUB_613 = (_line(1, "07-06 23:21:13", 120, "2.89", 598, 951, "0.814, 0.615, 0.457", "62.9")
            + '(APIServer pid=1) INFO:     172.26.0.1:49544 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'
            + _line(1, "07-06 23:21:23", 120, "2.68", 805, 1434, "0.801, 0.546, 0.337", "56.1"))


def test_club3090_613_k3_lines():
    # 951 / 3 = 317 (1 + 598 / 317 = 2.886): 0.814 x 317 = 258.04 -> 258, 0.615 x 317 = 194.96 -> 195, 0.457 x 317 =
    # 144.87 -> 145 (sum 598); 1434 / 3 = 478 (1 + 805 / 478 = 2.684): 0.801 x 478 = 382.9 -> 383, 0.546 x 478 =
    # 260.99 -> 261, 0.337 x 478 = 161.09 -> 161 (sum 805)
    assert _counts(traces.parse(CLUB_613)) == (3, 795, 2385, 1403, (641, 456, 306))


# noonghunna/club-3090#74 (danbedford, description; lines of 05-06, metrics.py:101) inside a ```markdown fence
CLUB_74 = ("```markdown\n" + _line(1, "05-06 04:34:37", 101, "2.67", 639, 1146, "0.801, 0.524, 0.348", "55.8")
           + _line(1, "05-06 04:34:47", 101, "2.62", 617, 1143, "0.756, 0.520, 0.344", "54.0"))


def test_club3090_74_k3_lines_in_a_fence():
    # 1146 / 3 = 382: 0.801 x 382 = 305.98 -> 306, 0.524 x 382 = 200.17 -> 200, 0.348 x 382 = 132.94 -> 133 (sum 639);
    # 1143 / 3 = 381: 0.756 x 381 = 288.04 -> 288, 0.520 x 381 = 198.12 -> 198, 0.344 x 381 = 131.06 -> 131 (sum 617)
    assert _counts(traces.parse(CLUB_74)) == (3, 763, 2289, 1256, (594, 398, 264))


# noonghunna/club-3090#294 (hlo-world, description; lines of 06-01): three intervals at k = 3, then the closing tag
# of the <details> block they were pasted in
CLUB_294 = (_line(1, "06-01 10:10:41", 101, "3.45", 593, 726, "0.917, 0.839, 0.694", "81.7")
            + _line(1, "06-01 10:10:51", 101, "3.49", 592, 714, "0.933, 0.857, 0.697", "82.9")
            + _line(1, "06-01 10:11:01", 101, "3.44", 697, 858, "0.937, 0.839, 0.661", "81.2") + "\n\n</details>\n")


def test_club3090_294_k3_three_intervals():
    # 726 / 3 = 242: 221.9 -> 222, 203.04 -> 203, 167.9 -> 168 (593); 714 / 3 = 238: 222.05 -> 222, 203.97 -> 204,
    # 165.9 -> 166 (592); 858 / 3 = 286: 267.98 -> 268, 239.95 -> 240, 189.05 -> 189 (697)
    assert _counts(traces.parse(CLUB_294)) == (3, 766, 2298, 1882, (712, 647, 523))


# vllm-project/vllm#22333 (lec77, description, 2025-08-06): examples/offline_inference/spec_decode.py, Qwen3-8B with
# an EAGLE-3 drafter at k = 3; 'acceptance at token 0' is position 1
VLLM_22333 = """total_num_output_tokens: 1000
num_drafts: 352
num_draft_tokens: 1056
num_accepted_tokens: 680
mean acceptance length: 2.93
--------------------------------------------------
acceptance at token 0: 1.00
acceptance at token 1: 0.62
acceptance at token 2: 0.31
"""


def test_spec_decode_example_k3_summary():
    # 352 calls (1056 = 3 x 352), 680 accepted, mean 1 + 680 / 352 = 2.932 (printed 2.93); the 2-decimal rates allow
    # position 1 = 351 or 352 (>= 0.995 x 352 = 350.2), position 2 = 217 to 219 (0.615 to 0.625 of 352), position 3 =
    # 108 to 110: each rebuilt count is within those (their sum, 679, is one short of 680: the note says approximate)
    trace = traces.parse(VLLM_22333)
    assert _counts(trace)[:4] == (3, 352, 1056, 680)
    first, second, third = trace.perPosition
    assert 351 <= first <= 352 and 217 <= second <= 219 and 108 <= third <= 110
    assert any("approximate" in note for note in trace.notes)


# sgl-project/sglang#31047 (dongyibo, comment, 2026-07-16): SGLang's DSPARK drafter for GLM-5.2, launched without
# --speculative-num-steps; every line accepts nothing
SGLANG_31047 = ("[2026-07-16 08:00:43 TP0] Decode batch, #running-req: 1, #token: 192, token usage: 0.00, accept len: "
                "1.00, accept rate: 0.00, cuda graph: True, gen throughput (token/s): 32.87, #queue-req: 0\n")


def test_sglang_dspark_line_without_k_is_refused_for_the_lookahead():
    # accept len 1.00 and accept rate 0.00 fit every k: the lookahead cannot be read from the line
    with pytest.raises(LookaheadMissing):
        traces.parse(SGLANG_31047)


# ggml-org/llama.cpp#10455 (vitobotta, comment, 2024-11-26): llama-speculative, --draft-max 16
LLAMA_10455 = """encoded   12 tokens in    0.514 seconds, speed:   23.325 t/s
decoded  371 tokens in   34.412 seconds, speed:   10.781 t/s

n_draft   = 16
n_predict = 371
n_drafted = 912
n_accept  = 313
accept    = 34.320%
"""

# ggml-org/llama.cpp#5877 (oxfighterjet, comment, 2024-11-19): llama-speculative with its default n_draft 5
LLAMA_5877 = """encoded   14 tokens in    0.054 seconds, speed:  258.250 t/s
decoded  673 tokens in   12.132 seconds, speed:   55.473 t/s

n_draft   = 5
n_predict = 673
n_drafted = 730
n_accept  = 526
accept    = 72.055%
"""


@pytest.mark.parametrize("text, expected", [
    # calls = n_predict - n_accept - 1 = 371 - 313 - 1 = 57, and 57 x 16 = 912 = n_drafted (every draft full length)
    (LLAMA_10455, (16, 57, 912, 313, None)),
    # 673 - 526 - 1 = 146, and 146 x 5 = 730 = n_drafted
    (LLAMA_5877, (5, 146, 730, 526, None)),
])
def test_llama_speculative_example_k16_and_k5(text, expected):
    assert _counts(traces.parse(text)) == expected


# a Chinese engineering note (code index; the index does not name its repository): vLLM's line (metrics.py:120) at
# k = 5 quoted as its rates, then the mean as the range its intervals printed
NOTE_CN_K5 = """服务端日志 `[metrics.py:120] SpecDecoding metrics` 每 10 s 打印:
```
Per-position acceptance rate: 0.667, 0.393, 0.179, 0.048, 0.036   (k=5, 较大样本)
Mean acceptance length: 2.32\u20132.66   (含 bonus token)
```
"""


def test_rates_quoted_alone_at_k5_with_a_range_of_means_after_them():
    # five rates: k = 5, mean 1 + 0.667 + 0.393 + 0.179 + 0.048 + 0.036 = 2.323; the range 2.32-2.66 is several
    # intervals' means, not this one's (it is now named in the notes and not read)
    trace = traces.parse(NOTE_CN_K5)
    assert (trace.lookahead, trace.drafts) == (5, None)
    assert trace.meanAcceptanceLength == pytest.approx(2.323)
    assert any("range" in note for note in trace.notes)


# a note on DeepSeek-V4-Flash-0731's DSpark drafter (code index): the line quoted without its prefix and counts,
# wrapped after each throughput
NOTE_DSV4 = """```
Mean acceptance length: 2.28, Accepted throughput: 19.00 tokens/s,
Drafted throughput: 74.49 tokens/s,
Per-position acceptance rate: 0.631, 0.282, 0.181, 0.114, 0.067,
Avg Draft acceptance rate: 25.5%
```
"""


def test_abridged_wrapped_line_at_k5():
    # five rates summing to 1.275: mean 2.275 (printed 2.28), 1.275 / 5 = 25.5% as printed; no counts
    trace = traces.parse(NOTE_DSV4)
    assert (trace.lookahead, trace.drafts, trace.accepted) == (5, None, None)
    assert trace.meanAcceptanceLength == pytest.approx(2.275)


# a README benchmarking Qwen3-32B with an EAGLE-3 drafter (code index; its line of 10-26, metrics.py:96)
README_K3 = "```bash\n" + _line(722408, "10-26 12:36:16", 96, "2.01", 206, 609, "0.601, 0.286, 0.128", "33.8") + "```\n"


def test_readme_line_k3():
    # 609 / 3 = 203 (1 + 206 / 203 = 2.015): 0.601 x 203 = 122.0, 0.286 x 203 = 58.06 -> 58, 0.128 x 203 = 25.98 -> 26
    assert _counts(traces.parse(README_K3)) == (3, 203, 609, 206, (122, 58, 26))


# ggml-org/llama.cpp#12603 (mostlygeek, description, 2025-03-27): the server's timings, --draft-max 16 --draft-min 4
LLAMA_12603 = """{
  "prompt_n": 1,
  "predicted_n": 200,
  "predicted_ms": 11082.606,
  "draft_n": 347,
  "draft_n_accepted": 65
}
"""


def test_llama_timings_json_needs_k_and_then_bounds_the_calls():
    # tokens only, drafts of 4 to 16: refused without k; at 16, at least 347 / 16 = 21.7 calls and at most
    # 200 - 65 - 1 = 134
    with pytest.raises(LookaheadMissing):
        traces.parse(LLAMA_12603)
    trace = traces.parse(LLAMA_12603, lookahead=16)
    assert (trace.draftTokens, trace.accepted, trace.callsBound) == (347, 65, True)
    assert trace.drafts == pytest.approx(21.6875) and any("at most 134" in note for note in trace.notes)


# --- misread before, fixed ---------------------------------------------------------------------------------------------

# eugr/spark-vllm-docker#350 (erikvullings, comment, 2026-08-28): a script's summary of `docker logs` of a vLLM server
# (Qwen3.8-27B with a drafter at k = 7), each figure the script's average over the SpecDecoding lines it read
SPARK_350_K7 = """Container: vllm_node
Samples: 825

Mean acceptance length: 2.76
Avg Draft Acceptance Rate: 25.19%

Pos 1: 0.576
Pos 2: 0.378
Pos 3: 0.266
Pos 4: 0.200
Pos 5: 0.150
Pos 6: 0.111
Pos 7: 0.081

Recommended num_speculative_tokens: 3
Mean-based recommendation: 3
"""

# the same comment, the same script over a DSpark drafter at k = 5
SPARK_350_K5 = """Samples: 294

Mean acceptance length: 3.73
Avg Draft Acceptance Rate: 54.66%

Pos 1: 0.788
Pos 2: 0.636
Pos 3: 0.527
Pos 4: 0.429
Pos 5: 0.354

Recommended num_speculative_tokens: 5
"""


@pytest.mark.parametrize("text, k, mean", [
    # seven rates summing to 1.762: 1 + 1.762 = 2.762, printed 2.76; 1.762 / 7 = 25.17%, printed 25.19% (averages)
    (SPARK_350_K7, 7, 2.76),
    # five summing to 2.734: 3.734, printed 3.73; 2.734 / 5 = 54.68%, printed 54.66%
    (SPARK_350_K5, 5, 3.73),
])
def test_a_scripts_pos_list_is_read_as_the_rates(text, k, mean):
    # before: refused ('a single figure must stand alone; 'Container: vllm_node' is not one')
    trace = traces.parse(text)
    assert (trace.format, trace.lookahead, trace.drafts) == ("vllm-log", k, None)
    assert trace.meanAcceptanceLength == pytest.approx(mean)
    assert any("'Pos i: r'" in note for note in trace.notes)


def test_a_pos_list_that_skips_a_position_is_refused():
    with pytest.raises(traces.TraceError, match="skip or repeat a position"):
        traces.parse("Mean acceptance length: 2.00\nPos 1: 0.600\nPos 3: 0.200\n")


# vllm-project/speculators#1135 (rasyosef, comment, 2026-09-20): a DSpark drafter's model card, speculators'
# evaluation rendered as a markdown table (percent, no counts), k = 8
SPECULATORS_1135 = """| subset | acceptance_length | pos_0 | pos_1 | pos_2 | pos_3 | pos_4 | pos_5 | pos_6 | pos_7 |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
| HumanEval | 4.573 | 83.7% | 68.5% | 56.2% | 46.0% | 36.8% | 28.3% | 21.7% | 16.1% |
| math_reasoning | 4.436 | 83.6% | 68.2% | 55.0% | 43.8% | 34.5% | 25.8% | 19.2% | 13.4% |
| tool_call | 3.462 | 73.3% | 55.5% | 41.3% | 30.1% | 20.2% | 13.3% | 8.1% | 4.3% |
"""


def test_speculators_markdown_table_one_subset_at_k8():
    # before: 'unrecognised format'. HumanEval: 83.7 + 68.5 + 56.2 + 46.0 + 36.8 + 28.3 + 21.7 + 16.1 = 357.3 points,
    # 1 + 3.573 = 4.573 as printed; tool_call: 246.1 points, 3.461, printed 3.462 (within the rounding)
    with pytest.raises(traces.ModelChoiceError, match="3 subsets"):
        traces.parse(SPECULATORS_1135)
    trace = traces.parse(SPECULATORS_1135, model="HumanEval")
    assert (trace.format, trace.lookahead, trace.drafts, trace.model) == ("speculators-csv", 8, None, "HumanEval")
    assert trace.meanAcceptanceLength == pytest.approx(4.573)
    assert not any("add up to" in note for note in trace.notes)
    tool = traces.parse(SPECULATORS_1135, model="tool_call")
    assert tool.meanAcceptanceLength == pytest.approx(3.462) and not any("add up to" in note for note in tool.notes)
    skewed = SPECULATORS_1135.replace("| 3.462 |", "| 3.562 |")  # a length the rates cannot give is named
    assert any("add up to" in note for note in traces.parse(skewed, model="tool_call").notes)


# a note on a vLLM fix (code index): the figures of several intervals quoted as ranges, k = 4
NOTE_RANGES = """#### Before Fix (enable_prefix_caching=False, Flash Attention 2)

```
Mean acceptance length: 1.03-1.39
Avg Draft acceptance rate: 5-10%
Per-position acceptance rate: 0.15-0.17, 0.09-0.12, 0.06-0.09, 0.04-0.05
```
"""


def test_rates_quoted_as_ranges_are_refused():
    # before: k = 1 and a mean of 1.15, silently (the first range's low end read as the only rate); the ranges span
    # several intervals, so there is no one figure a position to read
    with pytest.raises(traces.TraceError, match="ranges over several intervals"):
        traces.parse(NOTE_RANGES)


def test_a_range_of_means_before_the_rates_is_not_read_as_the_mean():
    trace = traces.parse("SpecDecoding metrics:\nMean acceptance length: 1.03-1.39\n"
                         "Per-position acceptance rate: 0.600, 0.300\n")
    assert trace.meanAcceptanceLength == pytest.approx(1.9)


# --- misread before, now refused with what to paste ----------------------------------------------------------------------

# tonyd2wild/DeepSeek-v4-Flash-Vision-Exp-DSpark-1M-NVFP4-KV-2x-DGX-Spark#6 (tonyd2wild, comment, 2026-07-29): three
# 10-second windows of a vLLM 0.25.2 run at k = 5, reworded by the author
TONYD_6 = """window 1   Drafted 62.5 tok/s   Accepted 51.1 tok/s   mean accept length 5.09
           per-position: 0.968  0.912  0.848  0.728  0.632     (avg 81.8%)

window 2   Drafted 64.0 tok/s   Accepted 32.6 tok/s   mean accept length 3.55
           per-position: 0.812  0.602  0.461  0.367  0.305     (avg 50.9%)
"""


def test_a_reworded_per_position_list_is_refused_naming_what_to_paste():
    # by hand: k = 5, means 5.09 (1 + 4.088) and 3.55 (1 + 2.547); the wording is the author's own, so it is not
    # guessed at: the refusal (before: 'unrecognised format') now says what it is and what to paste
    with pytest.raises(traces.TraceError, match="per-position:' list reworded"):
        traces.parse(TONYD_6)
