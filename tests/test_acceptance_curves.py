"""The curve library's engine curves against what their sources print: each curve's per-position rates give the mean
acceptance length its log line printed beside them, and the counts printed with them give the same length. The
printed figures below are quoted from the sources each library entry names (lab/acceptance_curves.py)."""

import pytest

from lab.acceptance_curves import (
    _FP8_ABLATION_DFLASH_ROWS, _FP8_ABLATION_DSPARK_ROWS, _SPECULATORS_822_COUNTS, _SPECULATORS_822_DRAFTS,
    _SPECULATORS_V060_PEAGLE_ROWS, CURVES, SAME_DRAFTER, drafter_of, mean_rates, pooled_rates,
)

# name -> (printed mean acceptance length, decimals the rates are printed with, the length's rounding half-width).
# Quoted.
PRINTED_LENGTH = {
    "vllm-26498-eagle-mtbench": (3.64, 2, 0.005),     # vLLM PR #26498, MT-Bench K = 10 block
    "vllm-26498-eagle-specbench": (3.36, 2, 0.005),   # vLLM PR #26498, "[SpecBench], Padding Enabled (Fixed), K=10"
    "vllm-24344-ngram": (4.59, 2, 0.005),             # vLLM PR #24344, the "method: ngram" run
    "vllm-48892-mtp8": (4.50, 4, 0.005),              # vLLM PR #48892, MTP 8 (percent to two decimals)
    "vllm-35521-suffix": (1.78, 3, 0.005),            # vLLM issue #35521, SpecDecoding line of 02-27 23:14:12
    "vllm-32628-eagle3-humaneval": (3.056, 2, 0.004),  # vLLM PR #32628, K = 8: 1 + 8 x Accept 25.7% (+-0.05% each)
    "vllm-26191-eagle3-mtbench": (3.53, 2, 0.005),    # vLLM issue #26191, its 'Previous AL=3.53' block
    "ascend-11602-dspark-qwen3-8b": (6.48, 4, 0.005),  # vllm-ascend PR #11602, its vllm-ascend run
    "ascend-11765-dflash-qwen3-8b": (4.73, 2, 0.005),  # vllm-ascend PR #11765, the Qwen3-8B DFlash row
    # The fourth search (December 2026). Curves kept as counts over drafts are exact (12 decimals).
    "vllm-42764-eagle31-gptoss": (2.346, 12, 0.0005),    # vLLM PR #42764, 'Ours'
    "vllm-42764-eagle3-gptoss": (2.359, 12, 0.0005),     # vLLM PR #42764, 'Existing'
    "vllm-43010-peagle-qwen3-8b": (2.3317, 12, 0.00005),  # vLLM PR #43010, acceptance_len (1+acc/drafts)
    "llamacpp-27917-glm53flash-mtp": (4.13, 3, 0.005),   # llama.cpp PR #27917, 'mean len =  4.13'
    "vllm-24344-ngram-instructcoder": (3.63, 2, 0.005),  # vLLM PR #24344, the InstructCoder 'method: ngram' run
}

# name -> (drafts, draft tokens, accepted tokens) as printed beside the rates. Quoted.
PRINTED_COUNTS = {
    "vllm-26498-eagle-mtbench": (4687, 46870, 12368),
    "vllm-26498-eagle-specbench": (20468, 204680, 48266),
    "vllm-24344-ngram": (993, 4960, 3562),
    "vllm-48892-mtp8": (11043, 88344, 38611),
    "vllm-26191-eagle3-mtbench": (4816, 33712, 12208),
    "ascend-11602-dspark-qwen3-8b": (13638, 95466, 74759),
    "vllm-24344-ngram-instructcoder": (30249, 150775, 79552),
}


@pytest.mark.parametrize("name", sorted(PRINTED_LENGTH))
def test_rates_give_the_printed_mean_acceptance_length(name):
    """1 + a_1 + ... + a_k is the printed length, up to the rounding of the k printed rates and of the length."""
    length, rate_decimals, half_width = PRINTED_LENGTH[name]
    values = CURVES[name][2]
    slack = len(values) * 0.5 * 10 ** -rate_decimals + half_width
    assert abs(1 + sum(values) - length) <= slack + 1e-12


@pytest.mark.parametrize("name", sorted(PRINTED_COUNTS))
def test_printed_counts_give_the_printed_length_and_the_lookahead(name):
    """The counts printed with the rates: 1 + accepted / drafts rounds to the printed length, and a fixed-k run's
    draft tokens are at most k a draft (n-gram lookup proposes fewer near the end of a request)."""
    drafts, draft_tokens, accepted = PRINTED_COUNTS[name]
    length = PRINTED_LENGTH[name][0]
    k = len(CURVES[name][2])
    assert round(1 + accepted / drafts, 2) == pytest.approx(length)
    assert draft_tokens <= k * drafts and draft_tokens > (k - 1) * drafts
    assert sum(CURVES[name][2]) == pytest.approx(accepted / drafts, abs=k * 0.5 * 10 ** -PRINTED_LENGTH[name][1])


def test_the_k7_engine_curves_reproduce_their_printed_counts():
    """The three k = 7 engine curves of December 2026 from their quoted prints, worked by hand: vLLM #26191's
    baseline (a fixed-k run: 33,712 = 7 x 4,816 draft tokens; 1 + 12,208 / 4,816 = 3.535 prints 3.53; the rates sum
    to 2.53 against 2.535); vllm-ascend #11602 (95,466 = 7 x 13,638; 1 + 74,759 / 13,638 = 6.4816 prints 6.48; the
    four-decimal rates sum to 5.4817 against 5.48167, within 7 x 0.00005); vllm-ascend #11765's DFlash row, printed
    without counts (its rates sum to 3.73, the length 4.73 less one). Each is one drafter's run at k = 7, family as
    the library files it, and the EAGLE-3 baseline is the drafter of pull request #26498's K = 10 pair."""
    assert 33712 == 7 * 4816 and round(1 + 12208 / 4816, 2) == 3.53
    assert sum(CURVES["vllm-26191-eagle3-mtbench"][2]) == pytest.approx(2.53)
    assert 95466 == 7 * 13638 and round(1 + 74759 / 13638, 2) == 6.48
    assert abs(sum(CURVES["ascend-11602-dspark-qwen3-8b"][2]) - 74759 / 13638) <= 7 * 0.00005
    assert sum(CURVES["ascend-11765-dflash-qwen3-8b"][2]) == pytest.approx(4.73 - 1)
    assert [CURVES[name][0] for name in ("vllm-26191-eagle3-mtbench", "ascend-11602-dspark-qwen3-8b",
                                         "ascend-11765-dflash-qwen3-8b")] == ["eagle", "block", "block"]
    assert all(len(CURVES[name][2]) == 7 for name in ("vllm-26191-eagle3-mtbench", "ascend-11602-dspark-qwen3-8b",
                                                       "ascend-11765-dflash-qwen3-8b"))
    assert drafter_of("vllm-26191-eagle3-mtbench") == drafter_of("vllm-26498-eagle-mtbench")
    assert drafter_of("ascend-11602-dspark-qwen3-8b") == "ascend-11602-dspark-qwen3-8b"
    assert drafter_of("ascend-11765-dflash-qwen3-8b") == "ascend-11765-dflash-qwen3-8b"


def test_the_k4_and_k5_engine_curves_reproduce_their_printed_figures():
    """The five curves of the fourth search (December 2026) from their quoted prints, worked by hand. vLLM #42764
    prints each position as 'rate (count)' with num_drafts: 'Ours' 4530 + 2544 + 1500 + 891 + 538 = 10,003 accepted
    over 7,431 drafts (1 + 10003 / 7431 = 2.3461, printed 2.346), 'Existing' 4098 + 2344 + 1339 + 783 + 394 = 8,958
    over 6,590 (2.3593, printed 2.359), each count over the drafts rounding to its printed rate. vLLM #43010 (P-EAGLE,
    k = 4): 267,396 = 4 x 66,849 draft tokens, 45145 + 25136 + 13110 + 5633 = 89,024 accepted (1 + 89024 / 66849 =
    2.33172, printed 2.3317). llama.cpp #27917 prints no drafts: 1 + 3474 / n rounds to 4.13 only for n = 1,109 to
    1,111, and the three-decimal rates (sum 3.126 +- 0.0025) allow n = 1,111 or 1,112; at 1,111 the counts 1027,
    903, 667, 490, 387 give every printed rate and sum to the 3,474 accepted. vLLM #24344's InstructCoder run:
    1 + 79552 / 30249 = 3.6299 (printed 3.63), 150,775 draft tokens <= 5 x 30,249 (n-gram lookup proposes fewer near
    the end of a request). Families as the library files them; the gpt-oss head the description does not name and the
    second n-gram run join the drafters they may be or are (SAME_DRAFTER)."""
    ours, existing = (4530, 2544, 1500, 891, 538), (4098, 2344, 1339, 783, 394)
    assert sum(ours) == 10003 and round(1 + 10003 / 7431, 3) == 2.346
    assert sum(existing) == 8958 and round(1 + 8958 / 6590, 3) == 2.359
    assert [round(n / 7431, 3) for n in ours] == [0.610, 0.342, 0.202, 0.120, 0.072]
    assert [round(n / 6590, 3) for n in existing] == [0.622, 0.356, 0.203, 0.119, 0.060]
    assert CURVES["vllm-42764-eagle31-gptoss"][2] == tuple(n / 7431 for n in ours)
    assert CURVES["vllm-42764-eagle3-gptoss"][2] == tuple(n / 6590 for n in existing)
    peagle = (45145, 25136, 13110, 5633)
    assert 267396 == 4 * 66849 and sum(peagle) == 89024 and round(1 + 89024 / 66849, 4) == 2.3317
    assert [round(n / 66849, 4) for n in peagle] == [0.6753, 0.3760, 0.1961, 0.0843]
    assert CURVES["vllm-43010-peagle-qwen3-8b"][2] == tuple(n / 66849 for n in peagle)
    printed = (0.924, 0.813, 0.600, 0.441, 0.348)
    by_length = [n for n in range(1000, 1300) if round(1 + 3474 / n, 2) == 4.13]
    by_rates = [n for n in range(1000, 1300) if abs(3474 / n - sum(printed)) <= 5 * 0.0005]
    assert by_length == [1109, 1110, 1111] and by_rates == [1111, 1112]
    glm = (1027, 903, 667, 490, 387)
    assert sum(glm) == 3474 and [round(n / 1111, 3) for n in glm] == list(printed)
    assert CURVES["llamacpp-27917-glm53flash-mtp"][2] == printed and 4664 / 1111 < 5
    assert round(1 + 79552 / 30249, 2) == 3.63 and 4 * 30249 < 150775 <= 5 * 30249
    assert sum(CURVES["vllm-24344-ngram-instructcoder"][2]) == pytest.approx(2.63)
    assert [CURVES[name][0] for name in ("vllm-42764-eagle31-gptoss", "vllm-42764-eagle3-gptoss",
                                         "vllm-43010-peagle-qwen3-8b", "llamacpp-27917-glm53flash-mtp",
                                         "vllm-24344-ngram-instructcoder")] == ["eagle", "eagle", "eagle", "mtp", "ngram"]
    assert drafter_of("vllm-42764-eagle3-gptoss") == drafter_of("vllm-32628-eagle3-humaneval")
    assert drafter_of("vllm-24344-ngram-instructcoder") == drafter_of("vllm-24344-ngram")
    assert drafter_of("vllm-42764-eagle31-gptoss") == "vllm-42764-eagle31-gptoss"
    assert drafter_of("vllm-43010-peagle-qwen3-8b") == "vllm-43010-peagle-qwen3-8b"
    assert drafter_of("llamacpp-27917-glm53flash-mtp") == "llamacpp-27917-glm53flash-mtp"


def test_engine_curves_are_unconditional_rates_that_never_rise():
    """An unconditional rate (every draft up to position i survived) cannot rise with i, and lies in [0, 1]."""
    for name, (_family, kind, values, *_) in CURVES.items():
        if kind != "unconditional":
            continue
        assert all(0.0 <= a <= 1.0 for a in values), name
        assert all(later <= earlier for earlier, later in zip(values, values[1:])), name


def test_the_k10_curves_are_one_drafter_and_every_group_names_library_curves():
    assert drafter_of("vllm-26498-eagle-mtbench") == drafter_of("vllm-26498-eagle-specbench") == "vllm-26498-eagle"
    assert drafter_of("vllm-24344-ngram") == "vllm-24344-ngram"
    assert drafter_of("vllm-32628-eagle3-humaneval") == "vllm-32628-eagle3-humaneval"
    for names in SAME_DRAFTER.values():
        assert names and all(name in CURVES for name in names)
    grouped = [name for names in SAME_DRAFTER.values() for name in names]
    assert len(grouped) == len(set(grouped))  # a curve measures one drafter


def test_every_curve_names_its_source_and_licence():
    for name, (family, kind, values, label, source, licence) in CURVES.items():
        assert family in ("mtp", "eagle", "draft", "block", "ngram", "suffix"), name
        assert kind in ("lengths", "unconditional") and len(values) >= 3, name
        assert label and source and licence, name


# vllm-project/speculators docs/fp8_ablation/*_bf16_acceptance.csv (DFlash @a910cec7, DSpark @c9000597): per subset,
# num_drafts and num_accepted_tokens, and one printed rate, acceptance_at_pos_0 (full precision). Quoted.
FP8_ABLATION_PRINTED = {
    "speculators-fp8-dflash-qwen3-8b": (
        _FP8_ABLATION_DFLASH_ROWS, 15,
        {"HumanEval": (127947, 156587, 0.6295184724925165), "math_reasoning": (64478, 91503, 0.6533701417537765),
         "qa": (56083, 50813, 0.5366332043578268), "question": (72638, 75716, 0.577246069550373),
         "rag": (39295, 34191, 0.5283878356024939), "summarization": (27871, 18783, 0.4592587277098059),
         "tool_call": (34289, 31692, 0.544081192219079), "translation": (33496, 25524, 0.4717578218294722),
         "writing": (72048, 75036, 0.5753525427492783)}),
    "speculators-fp8-dspark-qwen3-8b": (
        _FP8_ABLATION_DSPARK_ROWS, 8,
        {"HumanEval": (200387, 294629, 0.6506160579279094), "math_reasoning": (57857, 97301, 0.6720880792298253),
         "qa": (51928, 49181, 0.5252079802803882), "question": (66814, 82167, 0.590879157062891),
         "rag": (36758, 35869, 0.531312911475053), "summarization": (28334, 21704, 0.48023575915860806),
         "tool_call": (66722, 73882, 0.5694223794250772), "translation": (32499, 26636, 0.470291393581341),
         "writing": (66039, 81312, 0.5898938506034314)}),
}
# RESULTS_SUMMARY.md @7b61e44c, 'guidellm throughput eval' table, bf16 rows: weighted acceptance_length, weighted
# acceptance_rate (accepted / draft tokens), n_drafts. Quoted.
FP8_ABLATION_SUMMARY = {
    "speculators-fp8-dflash-qwen3-8b": (2.0600, 0.0707, 528145),
    "speculators-fp8-dspark-qwen3-8b": (2.2558, 0.1570, 607338),
}


@pytest.mark.parametrize("name", sorted(FP8_ABLATION_PRINTED))
def test_fp8_ablation_counts_give_each_subsets_printed_figures(name):
    """Each subset's kept counts: k positions, never rising, summing to its num_accepted_tokens, and the first over
    num_drafts is the CSV's printed rate (so the counts are the rates times num_drafts, not rounded rates)."""
    rows, k, printed = FP8_ABLATION_PRINTED[name]
    assert sorted(subset for subset, *_ in rows) == sorted(printed)
    for subset, drafts, counts in rows:
        printed_drafts, printed_accepted, printed_first = printed[subset]
        assert len(counts) == k and drafts == printed_drafts, subset
        assert sum(counts) == printed_accepted, subset
        assert counts[0] / drafts == pytest.approx(printed_first, rel=1e-12), subset
        assert all(later <= earlier for earlier, later in zip(counts, counts[1:])), subset


@pytest.mark.parametrize("name", sorted(FP8_ABLATION_SUMMARY))
def test_fp8_ablation_pooled_curve_gives_the_summarys_weighted_figures(name):
    """The pooled curve (the library's) gives the summary's weighted length, its rate per draft token at k, and its
    drafts: a wrong k, a dropped subset or an unweighted mean would miss at least one."""
    length, rate, drafts = FP8_ABLATION_SUMMARY[name]
    rows, k, _ = FP8_ABLATION_PRINTED[name]
    values = CURVES[name][2]
    assert values == pooled_rates(rows) and len(values) == k
    assert sum(row[1] for row in rows) == drafts
    assert round(1 + sum(values), 4) == pytest.approx(length)
    assert round(sum(values) / k, 4) == pytest.approx(rate)
    assert CURVES[name][0] == "block" and drafter_of(name) == name


# The fifth search (December 2026). Quoted from the sources each library entry names.
from lab.acceptance_curves import (  # noqa: E402
    _CLUB3090_DFLASH_ROWS, _SPECULATORS_563_ROWS, _SPECULATORS_610_ROWS,
)

# speculators issue #563, 'Acceptance lengths (Qwen3-arch vs Llama-arch)', as printed ('Format: **Qwen3** (Llama)').
SPECULATORS_563_PRINTED = (
    "| Coding | **1.81** (1.79) | **2.40** (2.35) | **2.80** (2.71) | **3.06** (2.88) | **3.22** (3.00) | **3.30** (3.06) "
    "| **3.33** (3.10) |",
    "| Math | **1.83** (1.81) | **2.50** (2.42) | **2.95** (2.87) | **3.28** (3.12) | **3.45** (3.30) | **3.61** (3.42) "
    "| **3.68** (3.45) |",
    "| Summarization | **1.69** (1.67) | **2.11** (2.05) | **2.35** (2.25) | **2.46** (2.33) | **2.50** (2.37) "
    "| **2.52** (2.38) | **2.52** (2.39) |",
)


def test_the_k7_reference_curves_of_speculators_563_are_its_table_as_printed():
    """Each printed row parsed the way it reads (bold is the Qwen3-arch drafter, brackets the Llama-arch one) gives
    the library's two curves of that use case, k = 1..7 in order; every length lies in [1, k + 1]; the three use cases
    of one drafter are one drafter (SAME_DRAFTER), the two drafters two."""
    import re
    for line, (case, qwen3, llama) in zip(SPECULATORS_563_PRINTED, _SPECULATORS_563_ROWS):
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        assert cells[0] == case
        pairs = [re.fullmatch(r"\*\*([0-9.]+)\*\* \(([0-9.]+)\)", cell).groups() for cell in cells[1:]]
        assert tuple(float(a) for a, _ in pairs) == qwen3 and tuple(float(b) for _, b in pairs) == llama
        for arch, lengths in (("qwen3", qwen3), ("llama", llama)):
            name = f"speculators-563-eagle3-{arch}-qwen3-8b-{case.lower()}"
            family, kind, values, *_ = CURVES[name]
            assert (family, kind, values) == ("eagle", "lengths", lengths)
            assert all(1 <= length <= k + 1 for k, length in enumerate(values, start=1))
            assert drafter_of(name) == f"speculators-563-eagle3-{arch}"
    assert len(SAME_DRAFTER["speculators-563-eagle3-qwen3"]) == len(SAME_DRAFTER["speculators-563-eagle3-llama"]) == 3


def test_the_speculators_610_rates_give_the_printed_average_length():
    """PR #610's per-position rates (averaged over the nine subsets, four decimals) give the printed average length
    within their rounding, and so does the mean of the nine printed subset lengths: 1 + 0.5858 + 0.2991 + 0.1491 +
    0.0790 + 0.0423 = 2.1553 against 2.156 (the nine lengths average 2.15556); 2.1803 against 2.180 (2.18022). Rates
    unconditional, never rising, k = 5; two drafters."""
    for column, name in (("Eagle 3 (Llama)", "speculators-610-eagle3-qwen3-30b"),
                         ("Eagle 3.1 fc-norm (Llama)", "speculators-610-eagle31-qwen3-30b")):
        subsets, average, rates = _SPECULATORS_610_ROWS[column]
        assert len(subsets) == 9 and round(sum(subsets) / 9, 3) == pytest.approx(average)
        assert abs(1 + sum(rates) - average) <= 5 * 0.00005 + 0.0005
        assert CURVES[name][:3] == ("eagle", "unconditional", rates) and drafter_of(name) == name
    assert round(1 + sum(CURVES["speculators-610-eagle3-qwen3-30b"][2]), 4) == 2.1553
    assert round(1 + sum(CURVES["speculators-610-eagle31-qwen3-30b"][2]), 4) == 2.1803


# club-3090 @0bdcb69f, results/v0.20-migration/*-bench.txt, the last three SpecDecoding lines of each, as printed:
# (mean acceptance length, accepted, drafted, per-position rates). Quoted.
CLUB3090_PRINTED = {
    "dual-dflash": ((4.28, 958, 1460, (0.880, 0.788, 0.644, 0.534, 0.435)),
                    (4.23, 944, 1460, (0.870, 0.760, 0.620, 0.534, 0.449)),
                    (4.33, 971, 1460, (0.908, 0.771, 0.654, 0.531, 0.462))),
    "dual-dflash-noviz": ((4.38, 991, 1465, (0.918, 0.799, 0.659, 0.543, 0.464)),
                          (4.27, 953, 1455, (0.876, 0.787, 0.639, 0.543, 0.430)),
                          (4.14, 918, 1460, (0.890, 0.747, 0.613, 0.497, 0.397))),
}


@pytest.mark.parametrize("run", sorted(CLUB3090_PRINTED))
def test_club3090_dflash_counts_are_the_only_ones_that_give_each_printed_line(run):
    """Per window: k = 5 fixed, so drafts = drafted / 5; the kept count at each position is the only integer that
    rounds to the printed rate over those drafts; the five sum to the printed accepted tokens, and 1 + accepted /
    drafts rounds to the printed length. The library's curve is the three windows pooled (counts over 876 drafts)."""
    rows = _CLUB3090_DFLASH_ROWS[run]
    for (length, accepted, drafted, rates), (_, drafts, counts) in zip(CLUB3090_PRINTED[run], rows):
        assert drafted == 5 * drafts
        for rate, count in zip(rates, counts):
            assert [n for n in range(drafts + 1) if round(n / drafts, 3) == rate] == [count]
        assert sum(counts) == accepted and round(1 + accepted / drafts, 2) == pytest.approx(length)
    name = "club3090-qwen3.6-27b-dflash" + ("-noviz" if run.endswith("noviz") else "")
    assert CURVES[name][:3] == ("block", "unconditional", pooled_rates(rows))
    assert sum(row[1] for row in rows) == 876 and drafter_of(name) == "club3090-qwen3.6-27b-dflash"


# vllm-project/speculators pull request #822, its regression run's metrics_dict, as printed (full precision). Quoted.
SPECULATORS_822_PRINTED = {
    "total_num_output_tokens": 1536, "num_drafts": 1035, "num_draft_tokens": 8280, "num_accepted_tokens": 499,
    "acceptance_length": 1.4821256038647344,
    "acceptance_at_token": (0.3217391304347826, 0.1072463768115942, 0.035748792270531404, 0.012560386473429951,
                            0.004830917874396135, 0.0, 0.0, 0.0),
}


def test_the_speculators_822_dspark_curve_is_its_printed_metrics_dict():
    """The seventh search's curve, worked by hand from its print: a fixed k = 8 (8,280 = 8 x 1,035 draft tokens); each
    printed rate is an integer count over the 1,035 drafts (333, 111, 37, 13, 5, then none), and no other integer gives
    it; the counts sum to the 499 accepted tokens; 1 + 499 / 1,035 is the printed acceptance length to the last digit;
    the library's rates are the printed floats. A DSpark drafter of its own (family draft), on three prompts at
    temperature 0 with 512 tokens each (1,536 output tokens)."""
    printed = SPECULATORS_822_PRINTED
    drafts = printed["num_drafts"]
    assert drafts == _SPECULATORS_822_DRAFTS and printed["num_draft_tokens"] == 8 * drafts
    for rate, count in zip(printed["acceptance_at_token"], _SPECULATORS_822_COUNTS):
        assert [n for n in range(drafts + 1) if abs(n / drafts - rate) < 1e-12] == [count]
    assert sum(_SPECULATORS_822_COUNTS) == printed["num_accepted_tokens"] == 499
    assert 1 + printed["num_accepted_tokens"] / drafts == printed["acceptance_length"]
    family, kind, values, *_ = CURVES["speculators-822-dspark-qwen3-8b"]
    assert (family, kind, values) == ("block", "unconditional", printed["acceptance_at_token"])
    assert printed["total_num_output_tokens"] == 3 * 512
    assert drafter_of("speculators-822-dspark-qwen3-8b") == "speculators-822-dspark-qwen3-8b"


# vllm-project/speculators release v0.6.0 (2026-06-16), 'Acceptance rates matrix for the Qwen3-8B P-EAGLE model', as
# printed: subset, Pos 0..6 in percent, Avg. Length. Quoted.
SPECULATORS_V060_PRINTED = (
    ("HumanEval", ("81.30%", "59.00%", "41.10%", "27.90%", "18.80%", "12.80%", "8.90%"), "3.5"),
    ("math_reasoning", ("83.30%", "63.50%", "47.00%", "34.30%", "24.40%", "17.20%", "11.80%"), "3.82"),
    ("qa", ("70.50%", "44.70%", "27.60%", "17.10%", "10.80%", "7.10%", "4.80%"), "2.83"),
    ("question", ("74.60%", "49.60%", "31.60%", "20.20%", "13.10%", "8.50%", "5.60%"), "3.03"),
    ("rag", ("73.60%", "48.40%", "29.80%", "18.40%", "11.30%", "6.90%", "4.10%"), "2.93"),
    ("summarization", ("68.00%", "39.00%", "21.00%", "10.80%", "5.40%", "2.60%", "1.20%"), "2.48"),
    ("tool_call", ("73.70%", "47.60%", "28.70%", "17.10%", "10.30%", "6.20%", "3.70%"), "2.87"),
    ("translation", ("73.80%", "47.70%", "28.70%", "17.30%", "10.40%", "6.50%", "4.10%"), "2.89"),
    ("writing", ("75.00%", "50.00%", "32.10%", "20.60%", "13.30%", "8.70%", "5.70%"), "3.05"),
)


def _unit(printed: str) -> float:
    """The unit of a printed figure's last digit ('81.30%' -> 0.0001, '3.82' -> 0.01, '3.5' -> 0.1)."""
    digits = printed.rstrip("%").split(".")[1]
    return 10.0 ** -len(digits) * (0.01 if printed.endswith("%") else 1.0)


def test_the_speculators_v060_peagle_table_checks_row_by_row_and_the_curve_is_its_mean():
    """The eighth search's rule, worked on the table: every position 1..7 printed in every row; each row's 1 + the
    rates' sum is its printed length within |1 + sum - L| <= k u_a / 2 + u_L / 2 (HumanEval 3.498 against 3.5,
    math_reasoning 3.815 against 3.82, the edge: 0.005 of 0.00535); the library keeps the rows as printed, and the curve
    is their equal-weight mean (0.74867, 0.49944, ...; 1 + the sum 3.0431 against the lengths' mean 3.0444, within the
    lengths' rounding); unconditional rates that never rise; its own drafter, family eagle, k = 7."""
    assert len(SPECULATORS_V060_PRINTED) == len(_SPECULATORS_V060_PEAGLE_ROWS) == 9
    for (subset, rates, length), (kept, values, kept_length) in zip(SPECULATORS_V060_PRINTED,
                                                                   _SPECULATORS_V060_PEAGLE_ROWS):
        assert subset == kept and len(rates) == len(values) == 7
        assert [float(r.rstrip("%")) for r in rates] == list(values) and float(length) == kept_length
        slack = 7 * _unit(rates[0]) / 2 + _unit(length) / 2
        assert abs(1 + sum(values) / 100 - kept_length) <= slack + 1e-12, subset
        assert all(a >= b for a, b in zip(values, values[1:]))
    family, kind, curve, *_ = CURVES["speculators-v060-peagle-qwen3-8b"]
    assert (family, kind, len(curve)) == ("eagle", "unconditional", 7)
    assert curve == mean_rates(_SPECULATORS_V060_PEAGLE_ROWS, 0.01)
    assert curve[:2] == pytest.approx((0.74867, 0.49944), abs=5e-6)
    mean_length = sum(row[2] for row in _SPECULATORS_V060_PEAGLE_ROWS) / 9
    assert round(1 + sum(curve), 4) == 3.0431 and abs(1 + sum(curve) - mean_length) <= 0.005 + 7 * 0.00005
    assert drafter_of("speculators-v060-peagle-qwen3-8b") == "speculators-v060-peagle-qwen3-8b"


def test_a_row_that_fails_its_own_check_is_caught():
    """The check above can fail: a row whose rates were conditional (HumanEval's read as each position over the one
    before, 0.813, 0.59 / 0.813, ...) or with one figure misread does not give its printed length."""
    subset, values, length = _SPECULATORS_V060_PEAGLE_ROWS[0]
    conditional = [values[0]] + [b / a * 100 for a, b in zip(values, values[1:])]
    misread = (values[0], values[1], 14.10) + values[3:]
    slack = 7 * 0.0001 / 2 + 0.1 / 2
    for wrong in (conditional, misread):
        assert abs(1 + sum(wrong) / 100 - length) > slack


# The ninth search (branch curves9, 6 December 2026): vllm-project/speculators issue #613, as printed. Quoted.
# `vllm bench serve` blocks of z-lab's DFlash drafter on RedHatAI/Qwen3.6-35B-A3B-NVFP4 at k = 8 (comments of 06-16 and
# 07-07): (acceptance rate %, acceptance length, drafts, draft tokens, accepted tokens, per-position acceptance %).
SPECULATORS_613_BENCH_PRINTED = {
    "speculators-613-zlab-dflash-qwen3.6-35b": (
        "47.16", "4.77", 446819, 3574552, 1685779,
        ("82.27", "66.16", "54.24", "45.65", "38.99", "33.89", "29.75", "26.34")),
    "speculators-613-zlab-dflash-qwen3.6-35b-garp": (
        "65.97", "6.28", 255426, 2043408, 1347987,
        ("83.95", "75.11", "69.54", "65.11", "62.09", "59.36", "57.24", "55.33")),
}
# The two SpecDecoding lines of 07-01 at k = 15: (mean, accepted, drafted, rates).
SPECULATORS_613_K15_PRINTED = {
    "speculators-613-dflash-qwen3.5-4b-ultrachat": (
        "4.97", 699, 2640, ("0.830", "0.670", "0.562", "0.483", "0.398", "0.347", "0.256", "0.142", "0.097", "0.085",
                            "0.040", "0.017", "0.017", "0.017", "0.011")),
    "speculators-613-dflash-qwen3.6-35b-ultrachat": (
        "5.05", 352, 1305, ("0.897", "0.701", "0.575", "0.471", "0.333", "0.310", "0.230", "0.161", "0.138", "0.115",
                            "0.046", "0.023", "0.023", "0.011", "0.011")),
}


@pytest.mark.parametrize("name", sorted(SPECULATORS_613_BENCH_PRINTED))
def test_the_speculators_613_bench_blocks_check_both_ways(name):
    """A `vllm bench serve` block at k = 8, worked by hand: draft tokens are 8 a draft; 1 + accepted / drafts rounds
    to the printed length and accepted / draft tokens to the printed rate; 1 + the rates' sum is the length within the
    rates' rounding (8 x 0.005% + 0.005); each rate times the drafts, summed, is the accepted tokens within the same
    rounding (0.005% of the drafts a position: 22 and 13 tokens); the library keeps the printed rates over 100. The two
    blocks are one drafter (z-lab's, its config printed the same in both comments) on two workloads."""
    rate, length, drafts, draft_tokens, accepted, positions = SPECULATORS_613_BENCH_PRINTED[name]
    assert draft_tokens == 8 * drafts
    assert f"{1 + accepted / drafts:.2f}" == length and f"{100 * accepted / draft_tokens:.2f}" == rate
    values = [float(p) / 100 for p in positions]
    assert abs(1 + sum(values) - float(length)) <= 8 * 0.00005 + 0.005
    assert abs(sum(v * drafts for v in values) - accepted) <= 8 * 0.00005 * drafts
    family, kind, curve, *_ = CURVES[name]
    assert (family, kind) == ("block", "unconditional") and list(curve) == values
    assert drafter_of(name) == "speculators-613-zlab-dflash-qwen3.6-35b"


@pytest.mark.parametrize("name", sorted(SPECULATORS_613_K15_PRINTED))
def test_the_speculators_613_k15_lines_are_their_only_counts(name):
    """A SpecDecoding line at k = 15: drafts = Drafted / 15 (176 and 87); the library's count at each position is the
    only integer over those drafts that prints the line's rate to three decimals; the counts sum to Accepted and
    1 + Accepted / drafts prints the line's mean; each line is its own drafter (UltraChat-trained, one per target)."""
    mean, accepted, drafted, rates = SPECULATORS_613_K15_PRINTED[name]
    drafts, remainder = divmod(drafted, 15)
    assert remainder == 0
    family, kind, curve, *_ = CURVES[name]
    counts = [round(value * drafts) for value in curve]
    assert curve == tuple(n / drafts for n in counts) and (family, kind) == ("block", "unconditional")
    for rate, count in zip(rates, counts):
        assert [n for n in range(drafts + 1) if f"{n / drafts:.3f}" == rate] == [count]
    assert sum(counts) == accepted and f"{1 + accepted / drafts:.2f}" == mean
    assert drafter_of(name) == name


# The tenth search (branch curves10, 6 December 2026): tomasruizt/vllm-scripts' `vllm bench serve` blocks, as printed
# (files and commits in lab/acceptance_curves.py). Quoted: (acceptance rate %, acceptance length, drafts, draft tokens,
# accepted tokens, per-position acceptance % at positions 0..k-1).
VLLM_SCRIPTS_BENCH_PRINTED = {
    "tomasruizt-draft-llama3.2-1b-llama3.3-70b": (
        "56.59", "5.53", 16882, 135056, 76428, ("79.88", "69.61", "61.62", "56.12", "51.55", "47.74", "44.48", "41.72")),
    "tomasruizt-eagle3-llama3.3-70b": (
        "35.07", "3.81", 24514, 196112, 68784, ("72.55", "56.18", "43.32", "33.41", "26.13", "20.57", "16.24", "12.20")),
    "tomasruizt-draft-qwen3-1.7b-qwen3-32b-instructcoder": (
        "35.15", "3.11", 164929, 989574, 347799, ("69.70", "47.93", "34.34", "25.43", "18.96", "14.52")),
    "tomasruizt-draft-qwen3-1.7b-qwen3-32b-mtbench": (
        "43.10", "3.59", 5735, 34410, 14832, ("74.59", "56.11", "43.19", "34.18", "27.81", "22.74")),
    "tomasruizt-draft-qwen3-4b-qwen3-32b-instructcoder": (
        "42.48", "3.55", 144588, 867528, 368496, ("74.35", "56.45", "43.63", "33.41", "26.23", "20.79")),
    "tomasruizt-draft-qwen3-4b-qwen3-32b-mtbench": (
        "49.66", "3.98", 5167, 31002, 15397, ("77.88", "62.36", "51.50", "42.02", "35.07", "29.17")),
    "tomasruizt-eagle3-qwen3-32b-instructcoder": (
        "21.69", "2.30", 222088, 1332528, 289004, ("61.83", "34.69", "18.21", "8.79", "4.28", "2.33")),
    "tomasruizt-eagle3-qwen3-32b-mtbench": (
        "24.71", "2.48", 8261, 49566, 12249, ("65.44", "39.05", "22.18", "11.35", "6.36", "3.90")),
}


@pytest.mark.parametrize("name", sorted(VLLM_SCRIPTS_BENCH_PRINTED))
def test_the_vllm_scripts_bench_blocks_check_both_ways(name):
    """A `vllm bench serve` block at k = 6 or 8, worked by hand: draft tokens are k a draft; 1 + accepted / drafts
    rounds to the printed length and accepted / draft tokens to the printed rate; 1 + the rates' sum is the length
    within the rates' rounding (k x 0.005% + 0.005); each rate times the drafts, summed, is the accepted tokens within
    the same rounding (0.005% of the drafts a position); the library keeps the printed rates over 100."""
    rate, length, drafts, draft_tokens, accepted, positions = VLLM_SCRIPTS_BENCH_PRINTED[name]
    k = len(positions)
    assert draft_tokens == k * drafts
    assert f"{1 + accepted / drafts:.2f}" == length and f"{100 * accepted / draft_tokens:.2f}" == rate
    values = [float(p) / 100 for p in positions]
    assert abs(1 + sum(values) - float(length)) <= k * 0.00005 + 0.005
    assert abs(sum(v * drafts for v in values) - accepted) <= k * 0.00005 * drafts
    family, kind, curve, *_ = CURVES[name]
    assert kind == "unconditional" and list(curve) == values
    assert family == ("eagle" if "-eagle3-" in name else "draft")


def test_the_vllm_scripts_curves_are_five_drafters_and_the_draft_models_rise():
    """The eight curves are five drafters on two targets: each Qwen3-32B drafter's InstructCoder and MT-Bench runs are
    one drafter (SAME_DRAFTER), the two Llama-3.3-70B runs each their own. A classic draft model's conditional rates
    (a_i / a_(i-1)) rise from position 2 to its last, on every one of the five, which is what the draft family's falling
    prior does not follow (docs/READING.md); the EAGLE-3 head on Qwen3-32B falls."""
    groups = {drafter_of(name) for name in VLLM_SCRIPTS_BENCH_PRINTED}
    assert groups == {"tomasruizt-draft-llama3.2-1b-llama3.3-70b", "tomasruizt-eagle3-llama3.3-70b",
                      "tomasruizt-draft-qwen3-1.7b-qwen3-32b", "tomasruizt-draft-qwen3-4b-qwen3-32b",
                      "tomasruizt-eagle3-qwen3-32b"}
    for name in VLLM_SCRIPTS_BENCH_PRINTED:
        values = CURVES[name][2]
        conditional = [later / earlier for earlier, later in zip(values, values[1:])]
        if "-draft-" in name:
            assert conditional[-1] > conditional[0], name
        if name.startswith("tomasruizt-eagle3-qwen3-32b"):
            assert conditional[3] < values[0], name
