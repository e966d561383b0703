"""The presets a reader and SpecDecode-Bench run (Qwen3-8B, Qwen3-32B, GLM-4.5-Air, the Qwen3-0.6B draft) and the
Hugging Face names the CLIs take for them and every other preset (lab.serving_presets.HUGGING_FACE_FAMILIES)."""

import json

import pytest

from lab import cli, deployment, serving
from lab.widgets import deployment as deployment_widget, serving as serving_widget

NEW_TARGETS = ("qwen3-8b", "qwen3-32b", "glm-4.5-air")
VALID = {"--target": tuple(serving.TARGETS), "--draft": serving.PRICED_DRAFT_NAMES}


def _flag_of(preset: str) -> str:
    return "--target" if preset in serving.TARGETS else "--draft"


# --- the presets -----------------------------------------------------------------------------------

def test_the_new_presets_have_their_configs_shapes():
    """The config.json values the rows quote, restated: a typo in a row fails here before the arithmetic check."""
    shapes = {name: serving.TARGETS.get(name) or serving.DRAFTS[name] for name in (*NEW_TARGETS, "qwen3-0.6b")}
    fields = ("layers", "hidden", "heads", "kv_heads", "head_dim", "intermediate", "vocab", "tied", "qkv_bias")
    assert {n: tuple(getattr(s, f) for f in fields) for n, s in shapes.items()} == {
        "qwen3-8b": (36, 4096, 32, 8, 128, 12288, 151936, False, False),
        "qwen3-32b": (64, 5120, 64, 8, 128, 25600, 151936, False, False),
        "glm-4.5-air": (46, 4096, 96, 8, 128, 10944, 151552, False, True),
        "qwen3-0.6b": (28, 1024, 16, 8, 128, 3072, 151936, True, False)}
    air = shapes["glm-4.5-air"]
    assert (air.experts, air.active_experts, air.expert_intermediate, air.shared_intermediate, air.dense_layers,
            air.mtp) == (128, 8, 1408, 1408, 1, 1)
    assert shapes["qwen3-8b"].mtp == shapes["qwen3-32b"].mtp == 0 and not shapes["qwen3-32b"].experts


def test_the_air_prices_its_mtp_layer_and_the_qwen3_targets_an_eagle3_head():
    assert "glm-4.5-air" in serving.MTP_TARGETS and not {"qwen3-8b", "qwen3-32b"} & serving.MTP_TARGETS
    mtp = serving.eagle_head(serving.TARGETS["glm-4.5-air"])
    assert (mtp.experts, serving.moe_layers(mtp)) == (128, 1)   # its MoE layer, as GLM-4.5's
    for name in ("qwen3-8b", "qwen3-32b"):
        head = serving.eagle3_head(serving.TARGETS[name])
        # AngelSlim's EAGLE-3 configs for both: one layer of the target's width, draft_vocab_size 32000
        assert head.layers == 1 and head.hidden == serving.TARGETS[name].hidden and head.vocab == 32000


def test_the_preset_arithmetic_check_holds_the_new_presets():
    from lab.checks import serving as family

    for name in (*NEW_TARGETS, "qwen3-0.6b"):
        assert name in family.PRESET_KV_BF16 and name in family.PUBLISHED_PARAMS
    out = type("Out", (), {"visited": 0, "failures": [], "fail": lambda self, text: self.failures.append(text)})()
    family.preset_arithmetic(out)
    assert out.failures == [] and out.visited == len(serving.PRECISIONS) * (len(serving.TARGETS) + len(serving.DRAFTS))
    # the cards' "12 billion active" counts no embeddings: with them the count would be 12% over
    air = serving.TARGETS["glm-4.5-air"]
    assert abs(serving.parameter_count(air, True) / 12e9 - 1) > 0.1
    assert family.PUBLISHED_ACTIVE_WITHOUT_EMBEDDINGS["glm-4.5-air"] == 12e9


@pytest.mark.parametrize("target, draft", [("qwen3-8b", serving.EAGLE3), ("qwen3-8b", "qwen3-0.6b"),
                                           ("qwen3-8b", serving.NGRAM), ("qwen3-32b", serving.EAGLE3),
                                           ("glm-4.5-air", serving.EAGLE), ("glm-4.5-air", serving.NGRAM)])
@pytest.mark.parametrize("batch", [1, 64])
def test_a_serving_run_on_each_new_target_renders(target, draft, batch, capsys):
    """The widget's view and the CLI at batch 1 and 64; GLM-4.5-Air (214 GB in BF16) does not fit one H100, and
    the page says so rather than drawing a batch no engine runs."""
    view = serving_widget.view(f"?srvTarget={target}&srvDraft={draft}&srvGpu=h100-sxm&srvBatch={batch}")
    assert view["params"]["target"] == target and str(view["readouts"]["batch"]) == str(batch)
    assert view["summary"] and all(view["figures"][name] for name in ("heatmap", "table", "batch", "load", "tail"))
    setting = serving_widget.DEFAULT.with_(target=target, draft=draft, gpu="h100-sxm", batch=batch, context=1024)
    fits = serving.memory_needed_bytes(setting) <= serving.memory_available_bytes(setting)
    assert any("weights and KV caches need" in note for note in view["notes"]) == (not fits)
    assert fits == (target != "glm-4.5-air" and not (target == "qwen3-32b" and batch == 64))
    assert cli.main(["serving", "--target", target, "--draft", draft, "--gpu", "h100-sxm", "--batch", str(batch),
                     "--context", "1024", "--lookahead", "3", "--acceptance", "70", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["params"]["target"] == target and document["fitsInMemory"] == fits
    assert document["plainStepMs"] > 0 and document["speedup"] > 0


def test_the_deployment_panel_runs_the_air_with_its_mtp_layer():
    view = deployment_widget.view("?depTarget=glm-4.5-air&depDraft=eagle-head&depGpus=4&depGpu=h200")
    config = view["engineAnswer"]["config"]
    assert config["supported"] and '"method": "mtp"' in config["text"]
    answer = deployment.answer(deployment.DEFAULT_DEPLOYMENT._replace(target="qwen3-8b", draft=serving.EAGLE3), 0.7)
    assert answer["serving"]["speedup"] > 0


# --- the Hugging Face names ----------------------------------------------------------------------

def test_the_table_names_real_presets_each_family_with_a_reason():
    names = [name for _, _, family_names in serving.HUGGING_FACE_FAMILIES for name in family_names]
    assert len({name.lower() for name in names}) == len(names)           # no name in two families
    for preset, reason, family_names in serving.HUGGING_FACE_FAMILIES:
        assert preset in serving.TARGETS or preset in serving.PRICED_DRAFT_NAMES, preset
        assert reason and family_names and all("/" in name for name in family_names)
    assert not {name.lower() for name in names} & {p.lower() for p in (*serving.TARGETS, *serving.PRICED_DRAFT_NAMES)}
    # every target and draft model has its checkpoints' names (n-gram lookup has no checkpoint)
    assert {preset for preset, _, _ in serving.HUGGING_FACE_FAMILIES} >= {*serving.TARGETS, *serving.DRAFTS}


@pytest.mark.parametrize("name, preset", [
    (name, preset) for preset, _, names in serving.HUGGING_FACE_FAMILIES for name in names])
def test_every_hugging_face_name_maps_to_its_preset_whatever_its_case(name, preset):
    valid = VALID[_flag_of(preset)]
    for spelled in (name, name.lower(), name.upper(), f" {name} "):
        assert serving.preset_named(spelled, valid) == preset
    # a target's name is no draft, nor the other way round
    other = VALID["--draft" if _flag_of(preset) == "--target" else "--target"]
    assert serving.preset_named(name, other) is None


@pytest.mark.parametrize("name, preset", [
    ("meta-llama/Llama-3.1-8B-Instruct", "llama-3-8b"), ("meta-llama/Meta-Llama-3-8B-Instruct", "llama-3-8b"),
    ("deepseek-ai/DeepSeek-R1-Distill-Llama-8B", "llama-3-8b"), ("meta-llama/Llama-3.1-70B-Instruct", "llama-3-70b"),
    ("meta-llama/Llama-3.3-70B-Instruct", "llama-3-70b"), ("meta-llama/Meta-Llama-3-70B-Instruct", "llama-3-70b"),
    ("deepseek-ai/DeepSeek-V3", "deepseek-v3"), ("deepseek-ai/DeepSeek-R1", "deepseek-v3"),
    ("deepseek-ai/DeepSeek-R1-0528", "deepseek-v3"), ("deepseek-ai/DeepSeek-V3.1", "deepseek-v3"),
    ("Qwen/Qwen3-8B", "qwen3-8b"), ("Qwen/Qwen3-32B", "qwen3-32b"), ("zai-org/GLM-4.5-Air", "glm-4.5-air"),
    ("Qwen/Qwen3-0.6B", "qwen3-0.6b"), ("meta-llama/Llama-3.2-1B", "llama-3.2-1b"),
    ("AngelSlim/Qwen3-8B_eagle3", serving.EAGLE3)])
def test_the_names_the_study_and_readers_use(name, preset):
    assert serving.HUGGING_FACE_NAMES[name.lower()] == preset


def test_preset_names_keep_working():
    for valid in VALID.values():
        assert all(serving.preset_named(name, valid) == name for name in valid)


def test_the_serving_cli_runs_a_hugging_face_name_as_its_preset(capsys):
    args = ["--gpu", "h100-sxm", "--batch", "8", "--context", "2048", "--lookahead", "3", "--acceptance", "70", "--json"]
    assert cli.main(["serving", "--target", "QWEN/qwen3-8b", "--draft", "Qwen/Qwen3-0.6B", *args]) == 0
    by_alias = json.loads(capsys.readouterr().out)
    assert cli.main(["serving", "--target", "qwen3-8b", "--draft", "qwen3-0.6b", *args]) == 0
    by_preset = json.loads(capsys.readouterr().out)
    assert by_alias["params"]["target"] == "qwen3-8b" and by_alias["params"]["draft"] == "qwen3-0.6b"
    assert by_alias == by_preset


def test_the_deployment_cli_runs_a_hugging_face_name_as_its_preset(capsys):
    assert cli.main(["deployment", "--alpha", "70", "--target", "deepseek-ai/DeepSeek-R1", "--draft",
                     "eagle-head", "--gpu", "h200", "--gpus", "8", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["deployment"]["target"] == "deepseek-v3" and '"method": "mtp"' in document["config"]["text"]


@pytest.mark.parametrize("command", [
    ["serving", "--gpu", "h100-sxm", "--batch", "8", "--context", "2048", "--lookahead", "3", "--acceptance", "70"],
    ["deployment", "--alpha", "70"]])
@pytest.mark.parametrize("flag, other, bad", [("--target", ("--draft", "eagle-head"), "meta-llama/Llama-4-Scout"),
                                              ("--draft", ("--target", "llama-3-8b"), "Qwen/Qwen3-8B")])
def test_an_unknown_name_gets_one_line_listing_the_presets(command, flag, other, bad, capsys):
    assert cli.main([*command, *other, flag, bad]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert captured.out == "" and len(lines) == 1 and "Traceback" not in captured.err
    assert f"{flag}: unknown name {bad!r}; valid: " + ", ".join(VALID[flag]) in lines[0]
    assert "Hugging Face name of one of those models" in lines[0]


def test_only_the_cli_reads_hugging_face_names():
    """URL state and the widgets keep the preset names: a Hugging Face name in a link is a bad value, noted."""
    view = serving_widget.view("?srvTarget=Qwen%2FQwen3-8B")
    assert view["params"]["target"] == serving_widget.DEFAULT.target
    assert any("Target model: 'Qwen/Qwen3-8B' is not one of" in note for note in view["notes"])


# --- a draft model that does not share its target's vocabulary -------------------------------------------------

def test_a_draft_model_of_another_vocabulary_is_priced_with_a_note_everywhere(capsys):
    """Llama-3.2-1B (128,256 tokens) drafting for Qwen3-8B (151,936): vLLM refuses such a pair, so each place that
    prices it says so (both CLIs, text and JSON; both widgets' notes); a pair that shares its vocabulary, a head and a
    model-free proposer get no note."""
    for target, draft, mismatched in (("qwen3-8b", "llama-3.2-1b", True), ("qwen3-8b", "qwen3-0.6b", False),
                                      ("llama-3-8b", "llama-3.2-1b", False), ("qwen3-8b", serving.EAGLE3, False),
                                      ("llama-3-8b", serving.NGRAM, False)):
        note = serving.draft_vocabulary_note(target, draft)
        assert bool(note) == mismatched
        status = cli.main(["serving", "--target", target, "--draft", draft, "--gpu", "h100-sxm", "--batch", "8",
                           "--context", "1024", "--lookahead", "3", "--acceptance", "60", "--json"])
        document = json.loads(capsys.readouterr().out)
        assert status == 0 and document["draftSharesVocabulary"] is not mismatched
        cli.main(["serving", "--target", target, "--draft", draft, "--gpu", "h100-sxm", "--batch", "8", "--context",
                  "1024", "--lookahead", "3", "--acceptance", "60"])
        assert (("note: " + note) in capsys.readouterr().out) is mismatched
        cli.main(["deployment", "--target", target, "--draft", draft, "--gpu", "h100-sxm", "--gpus", "1", "--alpha", "60"])
        assert (("note: " + note) in capsys.readouterr().out) is mismatched
        views = (serving_widget.view(f"srvTarget={target}&srvDraft={draft}"),
                 deployment_widget.view(f"depTarget={target}&depDraft={draft}"))
        assert all((note in view["notes"]) is mismatched for view in views)
