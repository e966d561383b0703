"""Suffix decoding as a serving draft (lab.serving_suffix): a model-free proposer priced like n-gram lookup where the
code is of the same kind (no draft forward pass, host time a cycle, a synchronous verify step on vLLM V1), its own
measured price a request, the engines that run it (vLLM V1 alone), its acceptance family and its engine
configuration (vLLM's speculative-config keys as SuffixDecodingProposer reads them)."""

import json
import re

import pytest

from lab import cli, deployment, engine_config, serving
from lab.acceptance import family_of_draft
from lab.errors import LabValueError
from lab.widgets import deployment as deployment_widget
from lab.widgets import serving as serving_widget

SUFFIX = serving.DEFAULT_SETTINGS.with_(draft=serving.SUFFIX, stepModel=serving.MEASURED, engine="vllm-v1",
                                        target="llama-3-8b", gpu="h100-sxm", gpus=1, lookahead=4)


def test_a_suffix_cycle_runs_no_draft_model():
    """No draft shape, no extend pass; the k draft steps are the one proposal a cycle, the proposer's price."""
    assert serving.draft_shape(SUFFIX) is None and serving.model_free(SUFFIX.draft)
    for batch in (1, 16, 256):
        r = serving.serving(SUFFIX.with_(batch=batch, context=4096))
        assert serving.draft_extend_ms(SUFFIX, batch, 4096) == 0.0
        assert SUFFIX.lookahead * r.draftStepMs == pytest.approx(serving.suffix_proposal_ms("vllm-v1", batch),
                                                                 rel=1e-12)


def test_its_cost_grows_with_the_batch_not_the_context():
    """One C++ match and update a request, over the last max_tree_depth tokens: linear in B, flat in L (n-gram
    lookup's V1 scan grows with L)."""
    cycle = serving.model_free_cycle_ms
    one, many = cycle(SUFFIX, 8, 2048), cycle(SUFFIX, 64, 2048)
    assert many == pytest.approx(8 * one, rel=1e-12) and one > 0
    assert cycle(SUFFIX, 64, 512) == cycle(SUFFIX, 64, 131072)
    ngram = SUFFIX.with_(draft=serving.NGRAM)
    assert cycle(ngram, 64, 131072) > cycle(ngram, 64, 512)


def test_its_price_is_the_measured_calls_plus_the_assumed_loop():
    per_request = serving.suffix_proposal_ms("vllm-v1", 1) * 1000
    assert per_request == pytest.approx(serving.SUFFIX_SPECULATE_US + serving.SUFFIX_UPDATE_US + serving.SUFFIX_LOOP_US)
    assert serving.SUFFIX_CACHE_US == serving.SUFFIX_SPECULATE_US + serving.SUFFIX_UPDATE_US


def test_the_roofline_and_the_ideal_limit_price_no_host_work():
    assert serving.model_free_cycle_ms(SUFFIX.with_(stepModel=serving.ROOFLINE), 64, 4096) == 0.0


def test_its_verify_step_is_synchronous_like_ngram_lookups():
    """vLLM V1 turns asynchronous scheduling off for every method but EAGLE/MTP kinds, the GPU n-gram proposer,
    draft models and DSpark: the verify step pays the serial host work, as n-gram lookup's does, and no more."""
    for batch in (1, 32):
        suffix, ngram = (serving.verify_step_ms(SUFFIX.with_(draft=d), batch, 4096) for d in (serving.SUFFIX,
                                                                                            serving.NGRAM))
        eagle = serving.verify_step_ms(SUFFIX.with_(draft=serving.EAGLE), batch, 4096)
        assert suffix == ngram > eagle


def test_it_holds_no_draft_weights():
    assert serving.held_weight_bytes(SUFFIX) == serving.held_weight_bytes(SUFFIX.with_(draft=serving.NGRAM))
    assert serving.held_weight_bytes(SUFFIX) < serving.held_weight_bytes(SUFFIX.with_(draft=serving.EAGLE))


def test_the_sweeps_give_the_models_own_floats():
    """The heatmap's cells and the sweeps' cycle go through the same proposal price (model_free_cycle_ms)."""
    grid = serving.speedup_grid(SUFFIX)
    for r, context in enumerate(serving.HEATMAP_CONTEXTS):
        for c, batch in enumerate(serving.HEATMAP_BATCHES):
            assert grid[r][c] == serving.speedup_at(SUFFIX, batch, context)


@pytest.mark.parametrize("engine", [e for e in serving.ENGINES if e not in serving.SUFFIX_ENGINES])
def test_an_engine_without_it_is_refused_with_the_valid_engines(engine):
    for model in (serving.MEASURED, serving.ROOFLINE):
        with pytest.raises(LabValueError, match=r"has no suffix proposer.*runs on vllm-v1"):
            serving.serving(SUFFIX.with_(engine=engine, stepModel=model))
    assert serving.draft_engine_problem(serving.SUFFIX, engine).startswith(engine)
    assert serving.draft_engine_problem(serving.NGRAM, engine) == ""


def test_vllm_v1_0_10_runs_it_through_arctic_inferences_plugin_with_one_more_loop():
    """vLLM 0.10.1 had no suffix method (pull request 25784 came in 0.12.0); Arctic Inference's plugin ran the same
    cache calls in two Python loops over the batch (update, then speculate): one more assumed loop a request."""
    assert serving.SUFFIX_ENGINES == ("vllm-v1", "vllm-v1-0.10") and serving.SUFFIX_LOOPS["vllm-v1-0.10"] == 2
    for batch in (1, 8, 64):
        today, plugin = (serving.suffix_proposal_ms(engine, batch) for engine in serving.SUFFIX_ENGINES)
        assert plugin - today == pytest.approx(batch * serving.SUFFIX_LOOP_US / 1000, rel=1e-12)
        assert plugin == pytest.approx(batch * (serving.SUFFIX_CACHE_US + 2 * serving.SUFFIX_LOOP_US) / 1000)


def test_on_vllm_v1_0_10_it_pays_that_engines_own_terms():
    """Synchronous scheduling's host work a step, as every draft there (not the n-gram-only switch of today's V1), and
    no draft pass: its verify step is n-gram lookup's on the same engine, its cycle the plugin's proposal."""
    old = SUFFIX.with_(engine="vllm-v1-0.10")
    engine = serving.ENGINES["vllm-v1-0.10"]
    assert engine.stepHostMs > 0 and engine.ngramStepHostMs == 0
    for batch in (1, 64):
        assert serving.verify_step_ms(old, batch, 4096) == serving.verify_step_ms(old.with_(draft=serving.NGRAM), batch,
                                                                                  4096)
        assert serving.model_free_cycle_ms(old, batch, 4096) == serving.suffix_proposal_ms("vllm-v1-0.10", batch)
        r = serving.serving(old.with_(batch=batch, context=4096))
        assert 1 < r.speedup < SUFFIX.lookahead + 1


@pytest.mark.parametrize("argv", [
    ["serving", "--target", "llama-3-8b", "--draft", "suffix", "--gpu", "h100-sxm", "--batch", "8", "--context",
     "2048", "--lookahead", "4", "--acceptance", "60", "--engine", "sglang"],
    ["deployment", "--acceptance-rate", "60", "--target", "llama-3-8b", "--draft", "suffix", "--engine",
     "vllm-v0"],
])
def test_the_clis_refuse_it_in_one_line_naming_the_valid_engines(argv, capsys):
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "vllm-v1" in err and "suffix" in err, err


@pytest.mark.parametrize("engine", ["vllm-v1", "vllm-v1-0.10"])
def test_the_serving_cli_prices_it_on_both_vllm_v1_versions(engine, capsys):
    argv = ["serving", "--target", "llama-3-8b", "--draft", "suffix", "--gpu", "h100-sxm", "--batch", "8",
            "--context", "2048", "--lookahead", "4", "--acceptance", "60", "--engine", engine, "--json"]
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    expected = serving.serving(SUFFIX.with_(engine=engine, batch=8, context=2048, acceptance=60.0))
    assert out["params"]["engine"] == engine and out["speedup"] == expected.speedup
    assert out["draftStepMs"] * 4 == pytest.approx(serving.suffix_proposal_ms(engine, 8), rel=1e-12)


@pytest.mark.parametrize("widget,query", [
    (serving_widget, "?srvDraft=suffix&srvEngine=trtllm"),
    (deployment_widget, "?depDraft=suffix&depEngine=sglang"),
])
def test_the_widgets_price_it_on_an_engine_that_runs_it_and_say_why(widget, query):
    view = widget.view(query)
    assert any("no suffix proposer" in note and "vLLM V1" in note for note in view["notes"])
    assert view["params"]["engine"] == "vllm-v1"
    plain = widget.view(query.replace("trtllm", "vllm-v1").replace("sglang", "vllm-v1"))
    assert plain["notes"] == [] and plain["readouts"] == view["readouts"]
    older = widget.view(query.replace("trtllm", "vllm-v1-0.10").replace("sglang", "vllm-v1-0.10"))
    assert older["notes"] == [] and older["params"]["engine"] == "vllm-v1-0.10"
    assert older["readouts"] != plain["readouts"]  # synchronous host work and the plugin's second loop


def test_its_acceptance_family_is_suffix():
    assert family_of_draft(serving.SUFFIX) == "suffix"
    assert serving.DRAFT_CHOICES[serving.SUFFIX] == "suffix decoding (no model)"


def _config(engine, batch=4):
    d = deployment.Deployment(target="llama-3-8b", draft=serving.SUFFIX, gpu="h100-sxm", gpus=1, batch=batch,
                              context=2048, lookahead=4)
    return deployment.engine_answer(d, 70, engine)["config"]


def test_vllms_configuration_uses_the_keys_its_code_reads():
    """method "suffix" and num_speculative_tokens (the cap SuffixDecodingProposer passes to speculate), no schedule
    by batch; the proposer's own keys named in a comment, each a row read in vllm/config/speculative.py."""
    config = _config("vllm")
    assert config["supported"] and config["schedule"] is None
    blob = json.loads(re.search(r"'(\{.*\})'", config["text"])[1])
    assert set(blob) == {"method", "num_speculative_tokens"} and blob["method"] == "suffix"
    assert 1 <= blob["num_speculative_tokens"] <= deployment.MAX_LOOKAHEAD
    rows = engine_config.ENGINES["vllm"].names
    assert set(config["names"]) <= set(rows) <= set(rows) | set(config["names"])
    for key in ("suffix_decoding_max_spec_factor", "suffix_decoding_min_token_prob"):
        assert key in config["names"] and key in config["text"]
        assert rows[key].path == "vllm/config/speculative.py" and rows[key].definition.startswith(key + ":")
    assert '"suffix"' in rows["suffix"].definition


@pytest.mark.parametrize("engine", ["sglang", "trtllm", "llamacpp"])
def test_other_engines_write_no_configuration_and_say_why(engine):
    config = _config(engine)
    assert not config["supported"] and config["text"] == "" and "suffix" in config["reason"]


def test_vllms_configuration_says_what_vllm_0_10_1_with_arctic_inferences_plugin_takes():
    """The plugin overwrites num_speculative_tokens with suffix_cache_max_depth (so the depth is the cap) and turns
    speculation off past disable_by_batch_size requests (64 unless set): set only past 64; both keys read in its code."""
    for batch, limit in ((4, None), (64, None), (128, 128)):
        config = _config("vllm", batch)
        line = next(text for text in config["text"].splitlines() if "ARCTIC_INFERENCE_ENABLED=1" in text)
        blob = json.loads(re.search(r"'(\{.*\})'", line)[1])
        k = json.loads(re.search(r"'(\{.*\})'", config["text"])[1])["num_speculative_tokens"]
        assert blob["method"] == "suffix" and blob["suffix_cache_max_depth"] == k
        assert blob.get("disable_by_batch_size") == limit
        rows = engine_config.ENGINES["vllm"].names
        for key in ("ARCTIC_INFERENCE_ENABLED", "suffix_cache_max_depth", "disable_by_batch_size"):
            assert key in config["names"] and rows[key].repo == "snowflakedb/ArcticInference"


def test_the_plugin_s_batch_limit_is_said_where_suffix_decoding_runs_through_it(capsys):
    """vLLM 0.10.1 ran suffix decoding through Arctic Inference's plugin, which drafts nothing past
    disable_by_batch_size requests (64 unless set): the serving CLI, the deployment CLI and the serving widget say so
    past batch 64 on that engine, and nowhere else (batch 64, today's V1, another draft); so does the deployment panel.
    """
    from lab import cli, serving
    from lab.widgets import deployment as panel, serving as widget

    for engine, draft, batch, said in (("vllm-v1-0.10", "suffix", 128, True), ("vllm-v1-0.10", "suffix", 65, True),
                                       ("vllm-v1-0.10", "suffix", 64, False), ("vllm-v1", "suffix", 128, False),
                                       ("vllm-v1-0.10", "ngram", 128, False)):
        note = serving.plugin_batch_note(draft, engine, batch)
        assert bool(note) is said and (not said or f"batch {batch}" in note)
        assert cli.main(["serving", "--target", "qwen3-8b", "--draft", draft, "--engine", engine, "--gpu", "h100-sxm",
                         "--batch", str(batch), "--context", "1024", "--lookahead", "8", "--acceptance", "70"]) == 0
        assert ("note: Arctic Inference's plugin" in capsys.readouterr().out) is said
        assert cli.main(["deployment", "--target", "qwen3-8b", "--draft", draft, "--engine", engine, "--gpu", "h100-sxm",
                         "--gpus", "1", "--batch", str(batch), "--alpha", "70"]) == 0
        assert ("note: Arctic Inference's plugin" in capsys.readouterr().out) is said
        views = (widget.view(f"srvTarget=qwen3-8b&srvDraft={draft}&srvEngine={engine}&srvBatch={batch}"),
                 panel.view(f"depTarget=qwen3-8b&depDraft={draft}&depEngine={engine}&depBatch={batch}"))
        assert all(any(n.startswith("Arctic Inference's plugin") for n in view["notes"]) is said for view in views)
