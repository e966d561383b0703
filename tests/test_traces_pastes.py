"""Engine output as people paste it (December 2026, branch formats): 2026 pastes found through the search
tools (issues corpus, code index) and the odd shapes they come in (a wrapped llama.cpp statistics line, fields
quoted one a line, a README's abridged rates), each read by the trace reader. The expected counts are worked by
hand from each paste's own printed figures in the comment beside it (or, for a log of many lines, by the
independent arithmetic the test spells out); none was taken from running the reader. docs/READING.md ("Trace
formats", "Pastes of December 2026") lists the sources."""

import json
import re
import subprocess
import sys

import pytest

from lab import traces


def _counts(trace):
    return trace.lookahead, trace.drafts, trace.draftTokens, trace.accepted, trace.perPosition


# --- vLLM ----------------------------------------------------------------------------------------------------------

def test_vllm_bench_block_of_2026_mtp_k8():
    # vllm-project/vllm#48892 (comment, 2026-08-03): 88344 / 11043 = 8 draft tokens a call; 1 + 38611 / 11043 =
    # 4.4964 prints 4.50; 38611 / 88344 = 43.705% prints 43.71; the counts: 76.17% x 11043 = 8411.45 -> 8411, 61.58%
    # -> 6800.28 -> 6800, 51.25% -> 5659.54 -> 5660, 42.43% -> 4685.54 -> 4686, 36.40% -> 4019.65 -> 4020, 30.94% ->
    # 3416.70 -> 3417, 27.22% -> 3005.90 -> 3006, 23.65% -> 2611.67 -> 2612
    trace = traces.parse(traces.sample_text("vllm_bench_mtp8.txt"))
    assert trace.format == "vllm-bench"
    assert _counts(trace) == (8, 11043, 88344, 38611, (8411, 6800, 5660, 4686, 4020, 3417, 3006, 2612))
    assert traces.analyse(trace)["meanAcceptanceLength"] == pytest.approx(1 + 38611 / 11043)


def test_vllm_bench_block_of_2026_mtp_k1():
    # the same comment's MTP 1 block: 26407 drafts of one token; 83.39% x 26407 = 22020.8 -> 22021 = Accepted tokens
    text = traces.sample_text("vllm_bench_mtp8.txt")
    block = text.replace("43.71     ", "83.39     ").replace("4.50      ", "1.83      ")
    block = block.replace("11043     ", "26407     ").replace("88344     ", "26407     ").replace("38611", "22021")
    block = re.sub(r"  Position [1-7]:.*\n", "", block).replace("76.17", "83.39")
    trace = traces.parse(block)
    assert _counts(trace) == (1, 26407, 26407, 22021, (22021,))


def test_vllm_dflash_k6_log_sums_its_intervals():
    # vLLM 0.22.0, DFlash, num_speculative_tokens 6 (a public repository's notes): each line's calls are Drafted / 6
    # and its counts rate x calls rounded; the sums are the trace's
    text = traces.sample_text("vllm_dflash_k6.log")
    calls = drafted = accepted = 0
    per_position = [0] * 6
    for m in re.finditer(r"Accepted: (\d+) tokens, Drafted: (\d+) tokens, Per-position acceptance rate: ([0-9., ]+),"
                         r" Avg", text):
        n = int(m.group(2)) // 6
        counts = [round(float(r) * n) for r in m.group(3).split(",")]
        assert sum(counts) == int(m.group(1))  # each line's rebuilt counts add up to its own Accepted
        calls, drafted, accepted = calls + n, drafted + int(m.group(2)), accepted + int(m.group(1))
        per_position = [a + b for a, b in zip(per_position, counts)]
    trace = traces.parse(text)
    assert (calls, drafted, accepted) == (1767, 10602, 3535)
    assert _counts(trace) == (6, calls, drafted, accepted, tuple(per_position))
    assert trace.method == "block"  # 'method': 'dflash' in the non-default args line: a block drafter


# vllm-project/speculators#613 (comment, 2026-06-18): two DFlash lines at k = 15 quoted without their
# 'SpecDecoding metrics:' prefix, a blank line between them
SPECULATORS_613 = """```
Mean acceptance length: 1.04, Accepted throughput: 2.20 tokens/s, Drafted throughput: 920.97 tokens/s, Accepted: 22 tokens, Drafted: 9210 tokens, Per-position acceptance rate: 0.036, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, Avg Draft acceptance rate: 0.2%

Mean acceptance length: 1.07, Accepted throughput: 0.11 tokens/s, Drafted throughput: 22.83 tokens/s, Accepted: 39 tokens, Drafted: 8220 tokens, Per-position acceptance rate: 0.071, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, 0.000, Avg Draft acceptance rate: 0.5%
```
"""


def test_vllm_lines_without_their_prefix_keep_their_counts():
    # read before as two abridged means averaged (1.055, 'without its Accepted/Drafted counts'); now the counts:
    # 9210 / 15 = 614 calls (1 + 22 / 614 = 1.036 prints 1.04; 0.036 x 614 = 22.1 -> 22), 8220 / 15 = 548 (1 + 39 /
    # 548 = 1.071; 0.071 x 548 = 38.9 -> 39): 1162 calls, 17430 drafted, 61 accepted, all at position 1
    trace = traces.parse(SPECULATORS_613)
    assert _counts(trace) == (15, 1162, 17430, 61, (61,) + (0,) * 14)
    assert traces.analyse(trace)["meanAcceptanceLength"] == pytest.approx(1 + 61 / 1162)


def test_vllm_2026_lines_with_the_current_depth():
    # a deployment report (code index, a DFlash2 run, 09-04): 308 / 7 = 44 calls, 1 + 256 / 44 = 6.818 prints 6.82;
    # 1.000 x 44 = 44 (four times), 0.795 x 44 = 34.98 -> 35, 0.614 x 44 = 27.02 -> 27, 0.409 x 44 = 18.0 -> 18 (sum 256)
    line = ("(APIServer pid=1) INFO 09-04 11:01:16 [metrics.py:125] SpecDecoding metrics: Mean acceptance length: 6.82, "
            "Current speculative depth: 7, Accepted throughput: 6.46 tokens/s, Drafted throughput: 7.77 tokens/s, "
            "Accepted: 256 tokens, Drafted: 308 tokens, Per-position acceptance rate: 1.000, 1.000, 1.000, 1.000, 0.795, "
            "0.614, 0.409, Avg Draft acceptance rate: 83.1%")
    assert _counts(traces.parse("```text\n" + line + "\n```\n")) == (7, 44, 308, 256, (44, 44, 44, 44, 35, 27, 18))
    # a log quoted in a markdown table (another report, code index): 35 / 5 = 7 calls, 1 + 14 / 7 = 3.00; 0.714 x 7 =
    # 5, 0.429 x 7 = 3, 0.286 x 7 = 2 (three times): 5 + 3 + 2 + 2 + 2 = 14
    row = ("| 04:22:04.341 | APIServer | `SpecDecoding metrics: Mean acceptance length: 3.00, Current speculative depth: 5, "
           "Accepted throughput: 0.13 tokens/s, Drafted throughput: 0.32 tokens/s, Accepted: 14 tokens, Drafted: 35 "
           "tokens, Per-position acceptance rate: 0.714, 0.429, 0.286, 0.286, 0.286, Avg Draft acceptance rate: 40.0%` |\n")
    assert _counts(traces.parse(row)) == (5, 7, 35, 14, (5, 3, 2, 2, 2))


def test_vllm_lines_of_two_processes_are_named():
    # two docker compose services' lines interleaved (the DFlash sample's lines under two service names, the second's
    # APIServer pid changed): summed as before, and the note names both sources
    lines = traces.sample_text("vllm_dflash_k6.log").splitlines()
    text = "\n".join(["vllm-a  | " + line for line in lines[:6]]
                     + ["vllm-b  | " + line.replace("pid=1)", "pid=7)") for line in lines[-3:]]) + "\n"
    trace = traces.parse(text)
    assert trace.drafts == sum(int(d) // 6 for d in re.findall(r"Drafted: (\d+) tokens", text))
    assert any("2 processes (vllm-a (APIServer pid=1), vllm-b (APIServer pid=7))" in note for note in trace.notes)
    assert not any("processes" in note for note in traces.parse("\n".join(lines) + "\n").notes)


# vllm-project/vllm#41834 (kelnei, comment, 2026-08-01): DSpark at k = 7 then k = 5, each line abridged and wrapped
# by the paste after 'Per-position acceptance rate:'
PR_41834 = ("SpecDecoding metrics: Mean acceptance length: 1.31, Accepted throughput: 13.40 tokens/s,\n"
            "Drafted throughput: 302.37 tokens/s, Per-position acceptance rate:\n"
            "0.181, 0.067, 0.039, 0.014, 0.009, 0.000, 0.000, Avg Draft acceptance rate: 4.4%\n")
PR_41834_K5 = ("SpecDecoding metrics: Mean acceptance length: 2.74, Per-position acceptance rate:\n"
               "0.579, 0.447, 0.316, 0.237, 0.158, Avg Draft acceptance rate: 34.7%\n")


def test_vllm_abridged_line_wrapped_after_its_rates_label():
    # refused before (k asked for: the rates on the next line were lost); 1 + 0.31 = 1.31 at k = 7, 1 + 1.737 = 2.74
    # at k = 5
    trace = traces.parse(PR_41834)
    assert (trace.lookahead, trace.meanAcceptanceLength, trace.drafts) == (7, 1.31, None)
    assert (traces.parse(PR_41834_K5).lookahead, traces.parse(PR_41834_K5).meanAcceptanceLength) == (5, 2.74)
    with pytest.raises(traces.TraceError, match=r"disagree on the lookahead \(5, 7 positions\): choose one"):
        traces.parse(PR_41834 + PR_41834_K5)
    assert traces.parse(PR_41834 + PR_41834_K5, lookahead=5).meanAcceptanceLength == 2.74


# a Chinese project note (code index) reformatting one SpecDecoding line, one field a line, a comment after each
ZH_FIELDS = """```
Avg prompt throughput: 659.3 tokens/s      # Prefill 峰值
SpecDecoding metrics:
  Mean acceptance length: 3.32             # MTP3 每步接受 3.32 token
  Accepted throughput: 39.00 tokens/s      # 接受速度
  Drafted throughput: 50.40 tokens/s       # Draft 速度
  Per-position acceptance rate: 0.851, 0.762, 0.708  # 位置 1/2/3
  Avg Draft acceptance rate: 77.4%         # 平均接受率
```
"""


def test_vllm_header_with_its_fields_one_a_line():
    # refused before ('a SpecDecoding metrics line without Accepted/Drafted counts or a Mean acceptance length'):
    # the mean 3.32 at k = 3 (the rates sum to 2.321 = 3.32 - 1, and 2.321 / 3 = 77.4%)
    trace = traces.parse(ZH_FIELDS)
    assert (trace.lookahead, trace.meanAcceptanceLength, trace.drafts) == (3, 3.32, None)


def test_vllm_mean_and_rates_quoted_on_two_lines_are_one_record():
    # a deployment note (code index): the mean on the SpecDecoding line, the rates below it; one record (before: two,
    # 'averaged 2 lines unweighted')
    text = ("SpecDecoding metrics: Mean acceptance length: 1.00\nPer-position acceptance rate: 0.000, 0.000\n"
            "Avg Draft acceptance rate: 0.0%\n")
    trace = traces.parse(text)
    assert (trace.lookahead, trace.meanAcceptanceLength) == (2, 1.0)
    assert not any("averaged" in note for note in trace.notes)
    # a mean that the rates do not sum to is kept as printed, not averaged with 1 + the rates' sum
    trace = traces.parse("SpecDecoding metrics: Mean acceptance length: 2.50\nPer-position acceptance rate: 0.9, 0.5\n")
    assert trace.meanAcceptanceLength == 2.5


def test_vllm_elided_rates_are_refused_saying_so():
    # a model card's README (code index): 'Per-position acceptance rate: 0.87, 0.79, 0.71, ..., 0.15' at k = 15
    text = ("SpecDecoding metrics: Mean acceptance length: 7.36, ...\n"
            "Per-position acceptance rate: 0.87, 0.79, 0.71, ..., 0.15\nAvg Draft acceptance rate: 42.4%\n")
    with pytest.raises(traces.TraceError, match=r"elided \('\.\.\.'\): paste the whole line"):
        traces.parse(text)


# vllm-project/vllm#15902 (description, 2025-04-01): the line after the rename, no mean and no rates; the engine's
# configuration line as `SpeculativeConfig.__repr__` prints it (vllm/config/speculative.py)
V083 = ("INFO 04-01 10:00:00 [core.py:58] Initializing a V1 LLM engine (v0.8.3) with config: model='m', "
        "speculative_config=SpeculativeConfig(method='ngram', model=None, num_spec_tokens=3)\n"
        "INFO 04-01 10:00:10 [loggers.py:87] SpecDecoding metrics: Draft acceptance rate: 100.0%, Accepted: 66 tokens, "
        "Drafted: 66 tokens\n")


def test_vllm_lookahead_from_its_configuration_line():
    # 66 drafted / k = 3 = 22 calls (refused without --lookahead before)
    trace = traces.parse(V083)
    assert _counts(trace)[:4] == (3, 22, 66, 66)
    assert any("num_spec_tokens=3" in note for note in trace.notes)
    # the lookahead given wins over the configuration line
    assert traces.parse(V083, lookahead=2).lookahead == 2


def test_two_configured_lookaheads_are_not_guessed_between():
    text = V083 + V083.splitlines()[0].replace("num_spec_tokens=3", "num_spec_tokens=5") + "\n"
    with pytest.raises(traces.TraceError, match="does not record the lookahead"):
        traces.parse(text)


# --- llama.cpp -----------------------------------------------------------------------------------------------------

def test_llamacpp_2026_statistics_lines_are_cumulative_over_requests():
    # the last statistics line holds both requests: 2 + 204 calls = 206, 4 + 407 drafted = 411, 4 + 307 accepted =
    # 311; 0.840 x 206 = 173.04 -> 173 (#acc drafts 173), 0.670 x 206 = 138.02 -> 138 (173 + 138 = 311)
    trace = traces.parse(traces.sample_text("llamacpp_2026_mtp.log"))
    assert trace.format == "llamacpp-stats"
    assert _counts(trace) == (2, 206, 411, 311, (173, 138))
    assert any("411 in 206 calls, not 412" in note for note in trace.notes)


def test_llamacpp_request_after_the_last_statistics_line_is_named():
    # the same log cut before the second request's statistics line: the first line's 2 calls are read, and the note
    # says the request at the cut (307 accepted of 407) is not in them
    lines = traces.sample_text("llamacpp_2026_mtp.log").splitlines(keepends=True)
    cut = "".join(line for line in lines if "#calls(b,g,a) =    2" not in line)
    trace = traces.parse(cut)
    assert _counts(trace)[:4] == (2, 2, 4, 4)
    assert any("1 request line(s) after the last statistics line (line 7)" in note for note in trace.notes)


# a public project's notes (code index): a statistics line as a paste wrapped it, three lines
WRAPPED = """statistics draft-mtp: #calls(b,g,a) = 1 67 67, #gen drafts = 67, #acc drafts = 37,
  #gen tokens = 134, #acc tokens = 53, #mean acc len = 1.79,
  #acc rate/pos = (0.552, 0.239), dur(b,g,a) = 0.004, 738.044, 0.354 ms
"""


def test_llamacpp_statistics_line_wrapped_by_a_paste():
    # refused before ('a statistics line without its #gen Tokens'): 67 calls, 134 drafted, 53 accepted; 0.552 x 67 =
    # 36.98 -> 37 (#acc drafts 37), 0.239 x 67 = 16.01 -> 16 (37 + 16 = 53); 1 + 53 / 67 = 1.791 prints 1.79
    assert _counts(traces.parse(WRAPPED)) == (2, 67, 134, 53, (37, 16))


def test_llamacpp_statistics_line_cut_before_its_rest():
    with pytest.raises(traces.TraceError, match="without its #gen tokens"):
        traces.parse(WRAPPED.splitlines()[0] + "\nsrv  update_slots: all slots are idle\n")


def test_llamacpp_statistics_fields_quoted_one_a_line():
    # a Spanish model note (code index): the fields one a line, no implementation name (the trace was empty before);
    # 0.756 x 2053 = 1552.07 -> 1552, 0.616 x 2053 = 1264.65 -> 1265 (1552 + 1265 = 2817)
    text = ("```\n#calls(b,g,a) = 1 2053 2053\n#gen drafts = 2053\n#acc drafts = 1553\n#gen tokens = 4106\n"
            "#acc tokens = 2817\n#mean acc len = 2.37\n#acc rate/pos = (0.756, 0.616)\n```\n")
    assert _counts(traces.parse(text)) == (2, 2053, 4106, 2817, (1552, 1265))


def test_llamacpp_server_line_and_its_rates_quoted_on_two_lines():
    # a README (code index): calls from the mean, 108 / (3.12 - 1) = 50.9, narrowed by the rates (108 / 2.117 = 51.0):
    # 51; 0.902 x 51 = 46.0, 0.725 x 51 = 36.98 -> 37, 0.490 x 51 = 24.99 -> 25 (46 + 37 + 25 = 108). Refused before
    # ('does not record the lookahead')
    text = ("draft acceptance = 0.71053 (108 accepted / 152 generated), mean len = 3.12\n"
            "#acc rate/pos = (0.902, 0.725, 0.490)\n")
    assert _counts(traces.parse(text)) == (3, 51, 152, 108, (46, 37, 25))


def test_llamacpp_rates_quoted_alone_give_the_mean():
    # a Chinese troubleshooting note (code index), no spaces after the commas: 1 + 0.85 + 0.6 + 0.4 + 0.1 + 0.1 = 3.05
    trace = traces.parse("#acc rate/pos = (0.850,0.600,0.400,0.100,0.100)\n")
    assert (trace.lookahead, trace.drafts, trace.meanAcceptanceLength) == (5, None, pytest.approx(3.05))
    with pytest.raises(traces.TraceError, match="lookahead given is 4"):
        traces.parse("#acc rate/pos = (0.850,0.600,0.400,0.100,0.100)\n", lookahead=4)


def test_llamacpp_k6_server_line_and_its_trace_level_rates():
    # a Chinese hardware note (code index), llama-server MTP at n_max 6: 185 / (3.72 - 1) = 68.0 calls, 408 / 68 = 6
    # drafts each; 0.897 x 68 = 61.0, 0.662 -> 45.0, 0.456 -> 31.0, 0.279 -> 18.97 -> 19, 0.250 -> 17, 0.176 -> 11.97 ->
    # 12 (sum 185)
    text = ("draft acceptance = 0.45343 (185 accepted / 408 generated), mean len = 3.72\n"
            "acc per pos = (0.897, 0.662, 0.456, 0.279, 0.250, 0.176)\npp 165.124 t/s   tg 13.938 t/s\n")
    assert _counts(traces.parse(text)) == (6, 68, 408, 185, (61, 45, 31, 19, 17, 12))


def test_llamacpp_elided_counts_and_rising_rates_are_named():
    # a teaching note (code index) elides the counts: the rates are read (1 + 0.68 + 0.49 + 0.24 = 2.41), the line named
    text = "draft acceptance = 0.37 (\u2026), mean len = 2.10\n     acc per pos = (0.68, 0.49, 0.24)\n"
    trace = traces.parse(text)
    assert (trace.format, trace.lookahead, trace.meanAcceptanceLength) == ("llamacpp-log", 3, pytest.approx(2.41))
    assert any("line 1: a draft acceptance line whose counts cannot be read" in note for note in trace.notes)
    with pytest.raises(traces.TraceError, match="line 1: the draft acceptance line's counts cannot be read"):
        traces.parse(text.splitlines()[0] + "\n")
    # a fixture's 'acc per pos = (0.833, 0.867)' (code index): unconditional rates cannot rise
    with pytest.raises(traces.TraceError, match="rise from position 1 to 2"):
        traces.parse("slot print_timing: id  0 | task 11779 | acc per pos = (0.833, 0.867)\n")


# ggml-org/llama.cpp#23269 (a comment): llama-swap's '[pid]' prefix, the older multi-line print_timing, three
# implementations chained (ngram-map-k without drafts, ngram-mod, draft-mtp)
SWAP = """[53409] 4.48.313.649 I slot print_timing: id  0 | task 689 | 
[53409] prompt eval time =     900.22 ms /    30 tokens (   30.01 ms per token,    33.33 tokens per second)
[53409]        eval time =   14323.78 ms /   192 tokens (   74.60 ms per token,    13.40 tokens per second)
[53409]       total time =   15224.00 ms /   222 tokens
[53409] draft acceptance rate = 0.81944 (  118 accepted /   144 generated)
[53409] 4.48.313.675 I statistics ngram-map-k: #calls(b,g,a) = 10 730 0, #gen drafts = 0, #acc drafts = 0, #gen tokens = 0, #acc tokens = 0, dur(b,g,a) = 1.276, 1.457, 0.000 ms
[53409] 4.48.313.677 I statistics ngram-mod: #calls(b,g,a) = 10 730 3, #gen drafts = 3, #acc drafts = 3, #gen tokens = 192, #acc tokens = 43, dur(b,g,a) = 0.325, 1.904, 1.101 ms
[53409] 4.48.313.680 I statistics draft-mtp: #calls(b,g,a) = 10 727 727, #gen drafts = 727, #acc drafts = 632, #gen tokens = 1447, #acc tokens = 1135, dur(b,g,a) = 0.007, 30384.874, 1.156 ms
"""


def test_llamacpp_chained_implementations_are_named_and_chosen():
    with pytest.raises(traces.TraceError, match=r"2 speculative implementations \(ngram-mod, draft-mtp\)"):
        traces.parse(SWAP)
    # no #acc rate/pos in this version: k is given; 727 calls, 1447 drafted, 1135 accepted (1447 < 2 x 727 = 1454)
    trace = traces.parse(SWAP, lookahead=2, model="draft-mtp")
    assert _counts(trace) == (2, 727, 1447, 1135, None)


def test_llamacpp_dflash_clamp_gives_k():
    # noonghunna/club-3090#759 (comment, 2026-08-06): the start-up lines verbatim, then an older-format request line
    # (written here): k = 15, not 16; 1000 drafted / 15 = 66.7 calls at least (drafts stop early: a lower bound)
    text = ("common_speculative_impl_draft_dflash: adding speculative implementation 'draft-dflash'\n"
            "  - n_max=16 -> clamped to 15 (trained DFlash block_size=16)\n"
            "  - block_size=16, mask_token_id=248070, n_extract=5 (5 target layers)\n"
            "slot print_timing: id  0 | task 0 | draft acceptance = 0.23800 (  238 accepted /  1000 generated)\n")
    trace = traces.parse(text)
    assert (trace.lookahead, trace.drafts, trace.callsBound) == (15, pytest.approx(1000 / 15), True)
    # llama-server's 2026 flag, as ggml-org/llama.cpp#27151 (2026-08-15) launched it
    flag = "llama-server --spec-type draft-mtp --spec-draft-n-max 3 --port 9931\n" + text.splitlines()[-1] + "\n"
    assert traces.parse(flag).lookahead == 3


def test_llamacpp_runs_of_two_lookaheads_are_chosen_between():
    # a restart with another n_max (the #24536 statistics line, then a run of 5 written in its format): the two were
    # summed at k = 5 before (137 calls, mean 3.09, no curve); now --lookahead chooses and without it the refusal
    # names both
    first = ("I statistics     draft-mtp: #calls(b,g,a) =    1     87     87, #gen drafts =     87, #acc drafts =    70, "
             "#gen tokens =    259, #acc tokens =   167, #mean acc len = 2.92, #acc rate/pos = (0.805, 0.632, 0.483)\n")
    second = ("I statistics     draft-mtp: #calls(b,g,a) =    1     50     50, #gen drafts =     50, #acc drafts =    40, "
              "#gen tokens =    250, #acc tokens =   120, #mean acc len = 3.40, "
              "#acc rate/pos = (0.800, 0.600, 0.400, 0.400, 0.200)\n")
    with pytest.raises(traces.TraceError, match=r"runs of 2 lookaheads \(k = 3 on 1 line\(s\) from line 1; k = 5"):
        traces.parse(first + second)
    # 0.8 x 50 = 40, 0.6 x 50 = 30, 20, 20, 10 (sum 120)
    assert _counts(traces.parse(first + second, lookahead=5)) == (5, 50, 250, 120, (40, 30, 20, 20, 10))
    assert _counts(traces.parse(first + second, lookahead=3))[:4] == (3, 87, 259, 167)


def test_llamacpp_metrics_without_a_final_newline_keep_their_last_line():
    # tools/server's /metrics as the 2026 server writes it (the per-position counter of ggml-org/llama.cpp#24536,
    # integers without a '.'): the last line without its newline was dropped as cut (a rule for vLLM's client, which
    # writes '110.0'), losing position 4; 250 calls, 600 accepted, (200, 160, 130, 110)
    text = ("llamacpp:spec_decode_num_draft_tokens_total 1000\nllamacpp:spec_decode_num_drafts_total 250\n"
            "llamacpp:spec_decode_num_accepted_tokens_total 600\n"
            + "\n".join(f'llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position="{i}"}} {c}'
                        for i, c in enumerate((200, 160, 130, 110))))
    assert _counts(traces.parse(text)) == (4, 250, 1000, 600, (200, 160, 130, 110))
    # vLLM's own scrape keeps the rule: '11' where its client writes '110.0' is a cut value
    vllm = text.replace("llamacpp:", "vllm:").replace(" 1000\n", " 1000.0\n").replace(" 250\n", " 250.0\n")
    assert traces.parse(vllm.replace("} 110", "} 11")).perPosition is None


def test_llamacpp_metrics_of_a_million_and_more_keep_the_curve():
    # llama.cpp writes its scalar counters as doubles with six significant digits (a public harness notes
    # '3.05406e+06'; code index) and the per-position counter as integers: 900123 + 800456 + 700789 + 652693 = 3054061
    # against num_accepted_tokens '3.05406e+06' (3054060): the curve was dropped before ('add up to 3054061, not the
    # accepted total'); now the sum stands for the total and the notes say the totals are within 5
    text = ("llamacpp:spec_decode_num_draft_tokens_total 4.16364e+06\nllamacpp:spec_decode_num_drafts_total 1.04091e+06\n"
            "llamacpp:spec_decode_num_accepted_tokens_total 3.05406e+06\n"
            + "".join(f'llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position="{i}"}} {c}\n'
                      for i, c in enumerate((900123, 800456, 700789, 652693))))
    trace = traces.parse(text)
    assert _counts(trace) == (4, 1040910, 4163640, 3054061, (900123, 800456, 700789, 652693))
    assert any("six significant digits" in note for note in trace.notes)
    # a per-position sum further off than the rounding is still a missing series, not rounding
    off = text.replace("652693", "652593")
    assert traces.parse(off).perPosition is None


# --- SGLang --------------------------------------------------------------------------------------------------------

# the server_args line as a 2026 SGLang prints it (quoted in a public repository's test, code index; abridged) and a
# Decode batch line of `report_decode_stats`
SGLANG_ARGS = ("[2026-07-21 08:21:32] server_args=ServerArgs(model_path='/models/Qwen3.6-27B-FP8', tp_size=3, "
               "speculative_algorithm='EAGLE', speculative_num_steps=5, speculative_eagle_topk=1, "
               "speculative_num_draft_tokens=6, speculative_adaptive=True)\n")
SGLANG_DECODE = ("[2026-07-21 08:25:41 TP0] Decode batch, #running-req: 1, #token: 1024, token usage: 0.01, "
                 "accept len: 3.41, cuda graph: True, gen throughput (token/s): 80.12, #queue-req: 0, \n")


def test_sglang_lookahead_from_server_args():
    # a chain (topk 1) of 5 steps: k = 5; the mean is the accept len
    trace = traces.parse(SGLANG_ARGS + SGLANG_DECODE)
    assert (trace.format, trace.lookahead, trace.meanAcceptanceLength, trace.method) == ("sglang-log", 5, 3.41, "eagle")
    assert any("speculative_num_steps=5" in note for note in trace.notes)


def test_sglang_lookahead_from_the_launch_command_one_flag_a_line():
    # sgl-project/SpecForge#310 (description, 2025-11-19) launched with one flag a line
    command = ("python -m sglang.launch_server \\\n    --speculative-algorithm EAGLE3 \\\n    --speculative-num-steps 4 \\\n"
               "    --speculative-eagle-topk 1 \\\n    --speculative-num-draft-tokens 24 \\\n")
    assert traces.parse(command + SGLANG_DECODE.replace("3.41", "1.04")).lookahead == 4


def test_sglang_tree_drafting_is_not_read_as_a_chain():
    with pytest.raises(traces.TraceError, match="does not record the lookahead"):
        traces.parse(SGLANG_ARGS.replace("speculative_eagle_topk=1", "speculative_eagle_topk=4") + SGLANG_DECODE)


# SGLang's /metrics with the finished requests' counters (TokenizerMetricsCollector.observe_one_finished_request:
# generation_tokens_total and spec_verify_calls_total; as the public speedbench scripts in the code index read them),
# two is_streaming label sets, and the scheduler's gauges
SGLANG_COUNTERS = """# TYPE sglang:generation_tokens_total counter
sglang:generation_tokens_total{model_name="m",is_streaming="true"} 3300.0
sglang:generation_tokens_total{model_name="m",is_streaming="false"} 700.0
# TYPE sglang:num_requests_total counter
sglang:num_requests_total{model_name="m",is_streaming="true"} 30.0
sglang:num_requests_total{model_name="m",is_streaming="false"} 10.0
# TYPE sglang:spec_verify_calls_total counter
sglang:spec_verify_calls_total{model_name="m",is_streaming="true"} 900.0
sglang:spec_verify_calls_total{model_name="m",is_streaming="false"} 200.0
# TYPE sglang:spec_accept_length gauge
sglang:spec_accept_length{model_name="m",tp_rank="0"} 3.9
sglang:spec_num_steps{model_name="m",tp_rank="0"} 5.0
sglang:spec_num_draft_tokens{model_name="m",tp_rank="0"} 6.0
"""


def test_sglang_metrics_counters_give_the_run_mean():
    # (3300 + 700 - 30 - 10) / (900 + 200) = 3960 / 1100 = 3.6 over every finished request, not the last window's 3.9
    trace = traces.parse(SGLANG_COUNTERS)
    assert (trace.format, trace.lookahead, trace.meanAcceptanceLength) == ("sglang-metrics", 5, pytest.approx(3.6))
    # without num_requests_total, SGLang's own convention: 4000 / 1100, each request's first token counted too
    no_requests = "".join(l + "\n" for l in SGLANG_COUNTERS.splitlines() if "num_requests" not in l)
    assert traces.parse(no_requests).meanAcceptanceLength == pytest.approx(4000 / 1100)
    # a scrape of a server without speculation: said so, not 'no verify pass in the last window'
    with pytest.raises(traces.TraceError, match="without speculative decoding"):
        traces.parse('sglang:num_running_reqs{model_name="m"} 1.0\n')


# --- TensorRT-LLM /metrics -----------------------------------------------------------------------------------------

def test_trtllm_metrics_per_position_counters():
    # drafted at positions 0..3: 120, 120, 118, 118; accepted 96, 71, 50, 33: 120 calls, 476 drafted, 250 accepted,
    # the rates over each position's drafted tokens
    trace = traces.parse(traces.sample_text("trtllm_metrics.prom"))
    assert trace.format == "trtllm-metrics"
    assert _counts(trace) == (4, 120, 476, 250, (96, 71, 50, 33))
    assert trace.draftsPerPosition == (120, 120, 118, 118)
    result = traces.analyse(trace)
    assert result["perPosition"] == pytest.approx([96 / 120, 71 / 120, 50 / 118, 33 / 118])


# the exposition of a public TensorRT-LLM runner's test (code index): two workers, three positions; an accepted
# series exists only once incremented
TWO_WORKERS = """# TYPE trtllm_spec_decode_drafted_tokens counter
trtllm_spec_decode_drafted_tokens_total{token_position="0",worker="0"} 10
trtllm_spec_decode_drafted_tokens_total{token_position="0",worker="1"} 20
trtllm_spec_decode_drafted_tokens_total{token_position="1",worker="0"} 10
trtllm_spec_decode_drafted_tokens_total{token_position="1",worker="1"} 20
trtllm_spec_decode_drafted_tokens_total{token_position="2",worker="0"} 10
trtllm_spec_decode_drafted_tokens_total{token_position="2",worker="1"} 20
# TYPE trtllm_spec_decode_accepted_tokens counter
trtllm_spec_decode_accepted_tokens_total{token_position="0",worker="0"} 10
trtllm_spec_decode_accepted_tokens_total{token_position="0",worker="1"} 20
trtllm_spec_decode_accepted_tokens_total{token_position="1",worker="1"} 20
trtllm_spec_decode_accepted_tokens_total{token_position="2",worker="1"} 10
"""


def test_trtllm_metrics_workers_summed_and_missing_series_zero():
    # 10 + 20 = 30 calls at every position (90 drafted); accepted 30, 20 (worker 0 has none), 10
    trace = traces.parse(TWO_WORKERS)
    assert _counts(trace) == (3, 30, 90, 60, (30, 20, 10))
    assert trace.draftsPerPosition is None  # full-length drafts
    assert traces.parse(TWO_WORKERS.replace("trtllm_spec", "trtllm:spec")).drafts == 30  # Dynamo's older prefix
    assert traces.parse(TWO_WORKERS, lookahead=5).lookahead == 5
    with pytest.raises(traces.TraceError, match="3 positions but the lookahead given is 2"):
        traces.parse(TWO_WORKERS, lookahead=2)


def test_trtllm_metrics_cut_scrapes_are_refused_not_read_as_zero():
    text = traces.sample_text("trtllm_metrics.prom")
    # cut inside the accepted family's first sample (no newline at the end): its counts are not all there
    cut = text[:text.index("trtllm_spec_decode_accepted_tokens_total{") + 20]
    with pytest.raises(traces.TraceError, match="scrape stops inside or before trtllm_spec_decode_accepted_tokens"):
        traces.parse(cut)
    # cut after whole lines, inside the accepted counts: their _created lines (written after them) are missing
    lines = text.splitlines(keepends=True)
    cut = "".join(lines[:lines.index(next(l for l in lines if 'accepted_tokens_total{' in l and '"2"' in l))])
    with pytest.raises(traces.TraceError, match="scrape stops inside or before"):
        traces.parse(cut)
    # the accepted family declared and empty: nothing was accepted (read as 0, said in a note)
    zero = "".join(l for l in lines if "accepted" not in l) + "# TYPE trtllm_spec_decode_accepted_tokens_total counter\n"
    trace = traces.parse(zero)
    assert (trace.accepted, trace.perPosition) == (0, (0, 0, 0, 0))
    assert any("nothing was accepted" in note for note in trace.notes)


def test_trtllm_per_choice_record_with_steps_and_histogram():
    # NVIDIA/TensorRT-LLM#19311 (description, 2026-09-17, open) as ai-dynamo/aiperf#1433 quotes the choice: 20 verify
    # steps, histogram [8, 0, 6, 6]: c_1 = 0 + 6 + 6 = 12, c_2 = 12, c_3 = 6 (12 + 12 + 6 = 30 accepted); k = 3
    choice = {"index": 0, "finish_reason": "stop", "avg_decoded_tokens_per_iter": 2.5,
              "speculative_decoding": {"acceptance_rate": 0.5, "total_accepted_draft_tokens": 30,
                                       "total_draft_tokens": 60, "num_spec_steps": 20,
                                       "acceptance_histogram": [8, 0, 6, 6], "num_spec_tokens": 3}}
    trace = traces.parse(json.dumps(choice, indent=2))
    assert (trace.format,) + _counts(trace) == ("trtllm-request-json", 3, 20, 60, 30, (12, 12, 6))
    bad = json.loads(json.dumps(choice))
    bad["speculative_decoding"]["acceptance_histogram"] = [8, 0, 6, 5]
    with pytest.raises(traces.TraceError, match="counts 19 steps, num_spec_steps 20"):
        traces.parse(json.dumps(bad))


def test_trtllm_choice_with_only_avg_decoded_tokens_per_iter_is_named():
    # trtllm-serve's chat response (its docs' example, code index): no acceptance counts, one figure per choice
    text = json.dumps({"choices": [{"index": 0, "finish_reason": "stop", "avg_decoded_tokens_per_iter": 2.31}]},
                      indent=2)
    with pytest.raises(traces.TraceError, match="avg_decoded_tokens_per_iter is one request's"):
        traces.parse(text)


def test_trtllm_metrics_token_counters_alone_give_a_bound():
    # Dynamo's iteration-stats counters: tokens only, 120 drafted at k = 4 are at least 30 calls
    text = ("trtllm_spec_decode_num_draft_tokens_total{model_name=\"m\"} 120.0\n"
            "trtllm_spec_decode_num_accepted_tokens_total{model_name=\"m\"} 75.0\n"
            "trtllm_spec_decode_acceptance_length{model_name=\"m\"} 3.5\n")
    with pytest.raises(traces.TraceError, match="does not record the lookahead"):
        traces.parse(text)
    trace = traces.parse(text, lookahead=4)
    assert (trace.drafts, trace.draftTokens, trace.accepted, trace.callsBound) == (30, 120, 75, True)


def test_trtllm_metrics_accepted_without_drafted_is_refused():
    with pytest.raises(traces.TraceError, match="no drafted_tokens series"):
        traces.parse('trtllm_spec_decode_accepted_tokens_total{token_position="0"} 5\n')


# --- the CLI, as the judgment runs it ------------------------------------------------------------------------------

@pytest.mark.parametrize("name, k, mean", [
    ("vllm_bench_mtp8.txt", 8, 1 + 38611 / 11043),
    ("llamacpp_2026_mtp.log", 2, 1 + 311 / 206),
    ("trtllm_metrics.prom", 4, 1 + 250 / 120),
])
def test_cli_trace_and_acceptance_read_the_pastes(name, k, mean):
    path = traces.SAMPLES_DIR + "/" + name
    out = subprocess.run([sys.executable, "-m", "lab", "trace", path, "--json"], capture_output=True, text=True,
                         check=True).stdout
    result = json.loads(out)
    assert (result["lookahead"], result["meanAcceptanceLength"]) == (k, pytest.approx(mean))
    out = subprocess.run([sys.executable, "-m", "lab", "acceptance", "--trace", path, "--lookahead", str(k), "--json"],
                         capture_output=True, text=True, check=True).stdout
    # the acceptance model's mean at k comes from the measured curve: within the rates' rounding of the counts
    assert json.loads(out)["meanAcceptanceLength"] == pytest.approx(mean, abs=0.01)
