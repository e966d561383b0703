"""The serving CLI's --lookahead up to 64 (lab.commands.serving.MAX_LOOKAHEAD, the acceptance model's positions):
suffix decoding runs 24 to 32 draft tokens (vLLM's suffix_decoding_max_tree_depth default 24; SpecDecode-Bench ran
32). The model stays sound past 16 for every draft on every engine that runs it (a cycle costs more with every draft
token, the speedup stays finite and positive, memory is checked), the best k is searched over the flag's whole range,
and the JSON and text outputs carry the chain asked for; 65 is refused in one line."""

import json
import math

import pytest

from lab import cli, serving
from lab.acceptance import MAX_POSITIONS
from lab.commands import serving as serving_command
from lab.commands.deployment import RANGES as DEPLOYMENT_RANGES
from lab.deployment import MAX_LOOKAHEAD as PANEL_LOOKAHEAD

BASE = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, target="llama-3-8b", gpu="h100-sxm", gpus=1,
                                      acceptance=70.0, context=4096)
ARGV = ["serving", "--target", "llama-3-8b", "--gpu", "h100-sxm", "--context", "4096"]


def _cost(settings, batch) -> float:
    """One cycle's time in ms: k draft steps (a model-free proposer's one proposal), the extend pass, the verify
    step and the emitted-token output, as lab.serving.serving reports them."""
    r = serving.serving(settings.with_(batch=batch))
    return settings.lookahead * r.draftStepMs + r.draftExtendMs + r.verifyStepMs + r.emittedOutputMs


def test_the_flag_reaches_every_position_the_acceptance_model_holds_and_the_panel_keeps_its_slider():
    assert serving_command.MAX_LOOKAHEAD == MAX_POSITIONS == 64
    assert serving_command.VALUE_FLAGS["--lookahead"] == "an integer from 1 to 64"
    assert PANEL_LOOKAHEAD < 16 and DEPLOYMENT_RANGES["--lookahead"] == f"an integer from 1 to {PANEL_LOOKAHEAD}"


@pytest.mark.parametrize("draft", serving.PRICED_DRAFT_NAMES)
def test_past_16_a_cycle_costs_more_with_every_draft_token_on_every_engine_that_runs_it(draft):
    for engine in serving.ENGINES:
        if serving.draft_engine_problem(draft, engine):
            continue
        settings = BASE.with_(draft=draft, engine=engine)
        for batch in (1, 64):
            costs = [_cost(settings.with_(lookahead=k), batch) for k in range(16, MAX_POSITIONS + 1)]
            assert all(later > earlier for earlier, later in zip(costs, costs[1:])), (draft, engine, batch)
            memory = [serving.memory_needed_bytes(settings.with_(lookahead=k, batch=batch)) for k in (16, 32, 64)]
            assert memory == sorted(memory), (draft, engine, batch)
            speedup = serving.serving(settings.with_(lookahead=64, batch=batch)).speedup
            assert math.isfinite(speedup) and 0 < speedup < 65, (draft, engine, batch, speedup)


def test_the_best_k_is_searched_over_the_whole_range_where_drafts_are_nearly_free():
    """At 95% acceptance a model-free draft at batch 1 gains past k = 16 (its proposal costs microseconds): the
    search over 1..64 finds a k the old range could not, and it is the largest speedup there is."""
    settings = BASE.with_(draft=serving.SUFFIX, acceptance=95.0, batch=1)
    k, best = serving.best_lookahead(settings, MAX_POSITIONS)
    speedups = serving.lookahead_speedups(settings, MAX_POSITIONS)
    assert k > 16 and best == max(speedups) == speedups[k - 1]


def _json(capsys, *extra):
    assert cli.main([*ARGV, *extra, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("draft", [serving.SUFFIX, serving.NGRAM, serving.EAGLE])
@pytest.mark.parametrize("batch", [1, 64])
def test_k_32_in_the_cli_json_and_text(draft, batch, capsys):
    extra = ["--draft", draft, "--batch", str(batch), "--lookahead", "32", "--acceptance", "70"]
    document = _json(capsys, *extra)
    expected = serving.serving(BASE.with_(draft=draft, batch=batch, lookahead=32))
    assert document["params"]["lookahead"] == 32 and document["speedup"] == expected.speedup
    assert document["tokensPerCall"] == pytest.approx(serving.tokens_per_cycle(0.7, 32), rel=1e-12)
    assert document["verifyStepMs"] == expected.verifyStepMs and math.isfinite(document["speedup"])
    assert document["bestLookahead"] == serving.best_lookahead(BASE.with_(draft=draft, batch=batch, lookahead=32),
                                                               MAX_POSITIONS)[0]
    assert document["fitsInMemory"] is True
    assert cli.main([*ARGV, *extra]) == 0
    rows = dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines() if line.strip())
    assert rows["speedup"] == f"{expected.speedup:.6f}" and rows["tokensPerCall"] == f"{document['tokensPerCall']:.6f}"


def test_k_32_on_a_curve_runs_on_its_continuation(capsys):
    """A curve of three rates at k = 32: the acceptance model continues it to position 64 (never the last rate
    repeated), so the tokens a cycle are the continued curve's, and the best k says it is extrapolated."""
    document = _json(capsys, "--draft", "suffix", "--batch", "1", "--lookahead", "32", "--acceptance-curve", "80,70,60")
    curve = serving.received_curve([0.8, 0.7, 0.6], None, MAX_POSITIONS)
    assert len(curve) == MAX_POSITIONS and curve[31] != 0.6
    assert document["tokensPerCall"] == pytest.approx(serving.tokens_per_cycle(0, 32, curve), rel=1e-12)
    assert document["bestLookaheadExtrapolatedFrom"] == (3 if document["bestLookahead"] > 3 else None)


def test_a_curve_measured_at_24_positions_is_taken_whole(capsys):
    rates = ",".join(["60"] * 24)
    document = _json(capsys, "--draft", "suffix", "--batch", "64", "--lookahead", "32", "--acceptance-curve", rates)
    assert document["params"]["lookahead"] == 32 and document["tokensPerCall"] > 2.4


@pytest.mark.parametrize("value", ["65", "0", "1000"])
def test_a_lookahead_out_of_range_is_refused_in_one_line(value, capsys):
    argv = [*ARGV, "--draft", "suffix", "--batch", "1", "--lookahead", value, "--acceptance", "70"]
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == f"--lookahead must be an integer from 1 to 64, got '{value}'"
