"""The curve library's engine curves against what their sources print: each curve's per-position rates give the mean
acceptance length its log line printed beside them, and the counts printed with them give the same length. The
printed figures below are quoted from the sources each library entry names (lab/acceptance_curves.py)."""

import pytest

from lab.acceptance_curves import CURVES, SAME_DRAFTER, drafter_of

# name -> (printed mean acceptance length, decimals the rates are printed with, the length's rounding half-width).
# Quoted.
PRINTED_LENGTH = {
    "vllm-26498-eagle-mtbench": (3.64, 2, 0.005),     # vLLM PR #26498, MT-Bench K = 10 block
    "vllm-26498-eagle-specbench": (3.36, 2, 0.005),   # vLLM PR #26498, "[SpecBench], Padding Enabled (Fixed), K=10"
    "vllm-24344-ngram": (4.59, 2, 0.005),             # vLLM PR #24344, the "method: ngram" run
    "vllm-48892-mtp8": (4.50, 4, 0.005),              # vLLM PR #48892, MTP 8 (percent to two decimals)
    "vllm-35521-suffix": (1.78, 3, 0.005),            # vLLM issue #35521, SpecDecoding line of 02-27 23:14:12
    "vllm-32628-eagle3-humaneval": (3.056, 2, 0.004),  # vLLM PR #32628, K = 8: 1 + 8 x Accept 25.7% (+-0.05% each)
}

# name -> (drafts, draft tokens, accepted tokens) as printed beside the rates. Quoted.
PRINTED_COUNTS = {
    "vllm-26498-eagle-mtbench": (4687, 46870, 12368),
    "vllm-26498-eagle-specbench": (20468, 204680, 48266),
    "vllm-24344-ngram": (993, 4960, 3562),
    "vllm-48892-mtp8": (11043, 88344, 38611),
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


def test_engine_curves_are_unconditional_rates_that_never_rise():
    """An unconditional rate (every draft up to position i survived) cannot rise with i, and lies in [0, 1]."""
    for name, (family, kind, values, *_) in CURVES.items():
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
        assert family in ("mtp", "eagle", "draft", "ngram", "suffix"), name
        assert kind in ("lengths", "unconditional") and len(values) >= 3, name
        assert label and source and licence, name
