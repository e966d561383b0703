"""The crossover brackets against their sources (their fact check, 4 December 2026): each bracket's first
loss is the one its source's quoted speedups put it in, each quoted table is the source's as printed, and what
the source does not say is marked assumed, the GPU included."""

import pytest

from lab import serving, serving_validation
from lab.serving_validation import CROSSOVER_BRACKETS, first_loss

SGLANG, VLLM, DRAFT_70B = CROSSOVER_BRACKETS

# The EAGLE rows of the EAGLE-3 paper's Tables 3 and 5, typed here from the paper's text (arXiv 2503.01840v3 and
# its NeurIPS 2025 version print the same numbers), apart from the literals in lab/serving_validation.py.
TABLE_3_EAGLE = {2: 1.40, 4: 1.38, 8: 1.23, 16: 1.02, 24: 0.93, 32: 0.94, 48: 0.88, 56: 0.99, 64: 0.99}
TABLE_5_EAGLE = {2: 1.30, 4: 1.25, 8: 1.21, 16: 1.10, 24: 1.03, 32: 0.93, 48: 0.82, 56: 0.71}


def test_the_quoted_tables_are_the_papers_eagle_rows():
    assert dict(SGLANG.quoted) == TABLE_3_EAGLE and [b for b, _ in SGLANG.quoted] == sorted(TABLE_3_EAGLE)
    assert dict(VLLM.quoted) == TABLE_5_EAGLE and [b for b, _ in VLLM.quoted] == sorted(TABLE_5_EAGLE)
    # the two speedups each side of the loss are written in the bracket's source too, marked quoted
    for bracket in (SGLANG, VLLM):
        low, high = dict(bracket.quoted)[bracket.low], dict(bracket.quoted)[bracket.high]
        assert f"{low:.2f}x at batch {bracket.low}, {high:.2f}x at {bracket.high} (quoted)" in bracket.source


@pytest.mark.parametrize("bracket", CROSSOVER_BRACKETS, ids=lambda b: b.label)
def test_a_brackets_first_loss_is_its_sources(bracket):
    if bracket.quoted:
        assert (bracket.low, bracket.high) == first_loss(bracket.quoted)
    else:   # no table as text: the bracket rests on the sentence it quotes, and says the batches are assumed
        assert f"a performance reversal occurs at Batchsize {bracket.high}'" in bracket.source
        assert "batches taken as powers of two" in bracket.note and bracket.low == bracket.high // 2


def test_first_loss_takes_the_first_batch_at_or_below_one():
    assert first_loss(((1, 1.2), (2, 1.0), (4, 1.1), (8, 0.9))) == (1, 2)   # a later recovery does not move it
    assert first_loss(((8, 0.9),)) is None and first_loss(((2, 1.01), (4, 1.02))) is None


def test_each_setting_is_what_the_source_ran_or_says_assumed():
    # the paper: 'the chain length was set to 3' (SGLang), 'the maximum chain length was set to 2' (vLLM), no tree,
    # one GPU, Llama-3.1-8B with an EAGLE head; the issue: a 1B draft on a 70B target, nothing else
    assert (SGLANG.lookahead, VLLM.lookahead) == (3, 2) and SGLANG.gpus == VLLM.gpus == 1
    assert "'the chain length was set to 3'" in SGLANG.source and "'the maximum chain length was set to 2'" in VLLM.source
    assert SGLANG.draft == VLLM.draft == serving.EAGLE and SGLANG.target == VLLM.target == "llama-3-8b"
    assert (DRAFT_70B.target, DRAFT_70B.draft) == ("llama-3-70b", "llama-3.2-1b")
    assert "SGLang v0.4.4" in SGLANG.source and SGLANG.engine == "sglang-eager-extend"
    for bracket in CROSSOVER_BRACKETS:
        assert "assumed" in bracket.note and bracket.gpuBasis in ("stated", "disputed", "assumed")


def test_the_vllm_sweeps_gpu_is_marked_disputed_not_stated():
    # Table 5's caption says A100 in arXiv v3 and RTX3090 in the NeurIPS version; the text says RTX3090 in both.
    # The model has no RTX 3090, so the bracket runs on the A100 80GB and says the GPU is disputed.
    assert (SGLANG.gpuBasis, VLLM.gpuBasis, DRAFT_70B.gpuBasis) == ("stated", "disputed", "assumed")
    assert "'RTX3090' in both versions" in VLLM.source and "'A100' in v3" in VLLM.source
    assert VLLM.gpu == "a100-80g" and not any("3090" in name for name in serving.GPUS)
    assert "RTX 3090" in VLLM.note and "memory not stated" in VLLM.note


def test_the_comparison_rows_carry_the_quoted_tables_and_the_gpu_basis():
    rows = serving_validation.crossover_comparison()
    assert [row["quoted"] for row in rows] == [b.quoted for b in CROSSOVER_BRACKETS]
    assert [row["gpuBasis"] for row in rows] == ["stated", "disputed", "assumed"]
