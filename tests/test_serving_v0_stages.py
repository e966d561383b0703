"""vLLM V0's own logged stage times (lab/serving_v0_stages.py): the rows quote their lines, the model holds them over
the batches their run could have had, each hold fails when the term it bounds is taken away, the "scoring" kind times
what V0's scoring timer timed (no rejection sampler), and the batch-expansion share is what those times fit."""

import pytest

from lab import serving, serving_calibration as cal, serving_v0_stages as v0
from lab.serving_validation import step_measurement_ms


@pytest.fixture(autouse=True)
def fresh_constants():
    serving._measured_constants.cache_clear()
    yield
    serving._measured_constants.cache_clear()


def test_each_row_quotes_its_logged_line_and_run():
    for line in v0.STAGE_LINES:
        assert (f"average_time_per_proposal_tok_ms={line.proposalTokenMs:.2f} scoring_time_ms={line.scoringMs:.2f} "
                f"verification_time_ms={line.verificationMs:.2f}") in line.quoted
        assert f"--num_speculative_tokens {line.k}" in line.quoted and line.draftModel in line.quoted
    for m in v0.STAGE_MEASUREMENTS:
        assert "--max-concurrency 128" in m.source and "-tp 8" in m.source and m.gpus == 8
        assert m.batch == v0.BATCH_BOUND == 128 and m.engine == "vllm-v0" and m.gpu == "mi300x"
    scoring = [m.ms for m in v0.STAGE_MEASUREMENTS if m.kind == "scoring"]
    proposal = [(m.ms, m.draft, m.newTokens) for m in v0.STAGE_MEASUREMENTS if m.kind == "proposal"]
    assert scoring == [32.27, 36.46] and proposal == [(45.1, "llama-3.2-1b", 11)]   # 10 x 4.51; the 8B is no draft preset


def test_the_model_holds_every_row():
    assert v0.stage_failures() == []


def test_the_multi_gpu_proposal_needs_v0s_host_prepared_draft_steps(monkeypatch):
    """The proposal row is what holds hostDraftStepsAboveTp1: without it a draft step on 8 GPUs is a captured pass
    and the model gives a quarter of the logged 4.51 ms a token."""
    proposal = [m for m in v0.STAGE_MEASUREMENTS if m.kind == "proposal"][0]
    assert 0.75 < step_measurement_ms(proposal._replace(batch=1)) / proposal.ms < step_measurement_ms(proposal) / proposal.ms < 1
    monkeypatch.setitem(cal.ENGINES, "vllm-v0", cal.ENGINES["vllm-v0"]._replace(hostDraftStepsAboveTp1=False))
    serving._measured_constants.cache_clear()
    assert step_measurement_ms(proposal) / proposal.ms < 0.3
    assert [f for f in v0.stage_failures() if "proposal" in f]


def test_the_scoring_rows_bound_the_verify_pass_from_both_sides(monkeypatch):
    """A scoring row lies between the model at batch 1 and at the closed loop's bound. Pricing V0's scoring pass at
    one token a sequence (the drafts' width taken away) puts the bound below what V0 logged; a fixed cost of 40 ms
    puts batch one above it."""
    rows = [m for m in v0.STAGE_MEASUREMENTS if m.kind == "scoring"]
    assert v0.stage_failures([m._replace(newTokens=1) for m in rows])
    monkeypatch.setitem(cal.CALIBRATIONS, "mi300x", cal.CALIBRATIONS["mi300x"]._replace(passMs=40.0))
    serving._measured_constants.cache_clear()
    assert len(v0.stage_failures(rows)) == 2


def test_the_scoring_rows_leave_room_for_the_logged_steps_batch():
    """If the model is right, the one step each line timed ran 41 and 87 sequences, under the bound of 128: the logged
    times do not say V0's scoring pass is under-priced at batch > 1."""
    batches = [v0.implied_batch(m) for m in v0.STAGE_MEASUREMENTS if m.kind == "scoring"]
    assert batches == [41, 87] and all(1 < b < v0.BATCH_BOUND for b in batches)


def test_scoring_times_what_v0s_scoring_timer_times(monkeypatch):
    """V0 times the rejection sampler apart (verification_time_ms): a scoring row does not move with it, a verify
    row does."""
    scoring = [m for m in cal.STEP_MEASUREMENTS if m.kind == "scoring"][-1]
    before = step_measurement_ms(scoring)
    verify = scoring._replace(kind="verify")
    verify_before = step_measurement_ms(verify)
    monkeypatch.setitem(cal.CALIBRATIONS, scoring.gpu, cal.CALIBRATIONS[scoring.gpu]._replace(rejectUs=50.0))
    serving._measured_constants.cache_clear()
    assert step_measurement_ms(scoring) == before
    assert step_measurement_ms(verify) > verify_before + 128 * 5 * 0.04
    assert "without the rejection sampler" in cal.KINDS["scoring"]


def test_the_expansion_share_is_fitted_on_the_scoring_times_alone():
    assert v0.fit_expansion_kv_share() == cal.EXPANSION_KV_SHARE == cal.ENGINES["vllm-v0"].expansionKvShare == 0.37
    rows = [m for m in cal.STEP_MEASUREMENTS if m.kind == "scoring"]
    assert all(abs(step_measurement_ms(m) / m.ms - 1) <= 0.07 for m in rows)


def test_the_expansion_share_fit_moves_with_its_rows():
    rows = [m._replace(ms=m.ms * 1.1) for m in cal.STEP_MEASUREMENTS if m.kind == "scoring"]
    assert v0.fit_expansion_kv_share(rows) > cal.EXPANSION_KV_SHARE + 0.1
    assert cal.ENGINES["vllm-v0"].expansionKvShare == cal.EXPANSION_KV_SHARE   # the fit leaves the engine as it was
