"""The engine configurations (lab/engine_config.py) and the production terms (lab/production.py):
every name printed is a row of the engine's table, read in its source; every schedule reproduces the
serving model's best k at every batch, by the engine's own rule; the cost arithmetic; the CLI."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lab import deployment, engine_config, production, serving

ROOT = Path(__file__).resolve().parent.parent
# The panel's default and the three: a dense 8B on one H100, a 70B on four H100s, an MoE with an
# MTP head on eight GPUs (DeepSeek-V3 in FP8 on eight H200s: its BF16 weights do not fit).
DEPLOYMENTS = {
    "default": deployment.DEFAULT_DEPLOYMENT,
    "dense-8b-1xh100": deployment.Deployment(target="llama-3-8b", draft=serving.EAGLE, gpu="h100-sxm", gpus=1,
                                             batch=16, context=2048, lookahead=4),
    "70b-4xh100": deployment.Deployment(target="llama-3-70b", draft="llama-3.2-1b", gpu="h100-sxm", gpus=4,
                                        batch=32, context=4096, lookahead=4),
    "moe-mtp-8xh200": deployment.Deployment(target="deepseek-v3", draft=serving.EAGLE, gpu="h200", gpus=8, batch=32,
                                            context=4096, lookahead=3, precision="fp8"),
    # the EAGLE-3 head: every engine configures it (TensorRT-LLM and llama.cpp write nothing for an EAGLE-1 head)
    "dense-8b-eagle3-1xh100": deployment.Deployment(target="llama-3-8b", draft=serving.EAGLE3, gpu="h100-sxm", gpus=1,
                                                    batch=16, context=2048, lookahead=4),
}
PERCENT = 71


def _answers():
    for name, d in DEPLOYMENTS.items():
        for engine in engine_config.CONFIG_ENGINES:
            yield name, d, engine, deployment.engine_answer(d, PERCENT, engine)


ANSWERS = list(_answers())


def _best_ks(d, percent=PERCENT):
    s = deployment.serving_settings(d, percent)
    limit = production.schedule_limit(s)
    ks = []
    for batch in range(1, limit + 1):
        k, speedup = serving.best_lookahead(s.with_(batch=batch), deployment.MAX_LOOKAHEAD)
        ks.append(k if speedup > 1 else 0)
    return ks


@pytest.mark.parametrize("name,d,engine,answer", ANSWERS, ids=[f"{a[0]}-{a[2]}" for a in ANSWERS])
def test_every_name_printed_is_in_the_table_and_in_the_text(name, d, engine, answer):
    config = answer["config"]
    if not config["supported"]:
        assert config["reason"] and config["text"] == ""
        return
    table = engine_config.ENGINES[engine].names
    assert config["names"] and set(config["names"]) <= set(table)
    printed = set(engine_config.names_in(config["text"], engine))
    assert set(config["names"]) <= printed
    # every flag-looking word of the configuration (not its comments) is a row of the table
    body = "\n".join(line for line in config["text"].splitlines() if not line.startswith("#"))
    for flag in re.findall(r"(?<![\w-])--[a-z][a-z-]*", body):
        assert flag in table or flag in ("--model-path",), flag
    if engine == "vllm":
        blob = json.loads(re.search(r"'(\{.*\})'", body)[1])
        assert set(blob) <= set(table)
    if engine == "trtllm":
        keys = re.findall(r"^\s*([a-z_]+):", body, re.M)
        assert set(keys) <= set(table), keys


def test_model_path_is_the_one_name_outside_the_tables():
    """SGLang's --model-path and the placeholders are not speculative flags; nothing else is printed
    unread (the test above allows --model-path only)."""
    texts = [a[3]["config"]["text"] for a in ANSWERS if a[2] == "sglang" and a[3]["config"]["supported"]]
    assert texts and all("--model-path TARGET_MODEL" in text for text in texts)


def test_every_table_row_says_where_it_was_read():
    for engine, table in engine_config.ENGINES.items():
        assert table.version and table.schedule
        for name, source in table.names.items():
            assert source.repo and source.path and source.definition, (engine, name)
            assert re.fullmatch(r"[0-9a-f]{40}", source.commit) or source.locator, (engine, name)
            # the defining line names the flag (or its field, dashes as underscores) or the value
            field = name.lstrip("-").replace("-", "_")
            assert name in source.definition or field in source.definition, (engine, name)


def test_removed_and_unverified_names_are_never_printed():
    for *_, answer in ANSWERS:
        text = answer["config"]["text"]
        for gone in ("--draft-max", "--draft-min", "acceptance_rate_threshold", "--speculative-model "):
            assert gone not in text


@pytest.mark.parametrize("name", DEPLOYMENTS)
def test_schedules_reproduce_the_serving_models_best_k_at_every_batch(name):
    d = DEPLOYMENTS[name]
    best = _best_ks(d)
    answers = {engine: answer for n, _, engine, answer in ANSWERS if n == name}
    assert [k for k, _ in answers["vllm"]["kByBatch"]] == best
    # the schedules print the steady schedule (lab.production.steady_schedule): the best k but where it names a kept run
    scheduled = [k for k, _ in answers["vllm"]["scheduleByBatch"]]
    kept = {b for r in answers["vllm"]["held"] for b in range(r["from"], r["to"] + 1)}
    assert {b for b, (s, k) in enumerate(zip(scheduled, best), start=1) if s != k} == kept
    for engine in ("vllm", "trtllm"):
        config = answers[engine]["config"]
        if not config["supported"]:  # TensorRT-LLM: a separate draft model, or an EAGLE-1 head (no MTP module)
            assert engine == "trtllm" and d.draft != serving.EAGLE3
            assert d.draft != serving.EAGLE or d.target not in engine_config.MTP_TARGETS
            continue
        schedule = config["schedule"]
        k_max = max(scheduled)
        if schedule is None:  # one k everywhere
            assert len(set(scheduled)) == 1
            continue
        # TensorRT-LLM's validator caps every k at batch 1's (said in the configuration, "capped")
        expected = scheduled if engine == "vllm" else [min(k, scheduled[0]) for k in scheduled]
        for batch, k in enumerate(expected, start=1):
            assert engine_config.schedule_k_at(engine, schedule, batch, k_max) == k, (engine, batch)
        capped = {b for r in config["capped"] for b in range(r["from"], r["to"] + 1)}
        assert capped == {b for b, k in enumerate(scheduled, start=1) if k > expected[b - 1]}
        if engine == "trtllm":
            first = min(schedule)
            assert schedule[first] == max(schedule.values()) == int(re.search(
                r"(?:max_draft_len|num_nextn_predict_layers): (\d+)", config["text"])[1])
    here = best[d.batch - 1]
    for engine in ("sglang", "llamacpp"):
        config = answers[engine]["config"]
        if engine == "llamacpp" and not config["supported"]:  # an EAGLE-1 head: llama.cpp runs only EAGLE-3's
            assert d.draft == serving.EAGLE and d.target not in engine_config.MTP_TARGETS
            continue
        steps = re.search(r"--spec(?:ulative-num-steps|-draft-n-max) (\d+)", config["text"])
        assert int(steps[1]) == here


def test_the_moe_schedule_is_not_monotone_and_still_reproduced():
    """DeepSeek-V3's best k rises and falls with the batch (distinct experts read): vLLM's schedule keeps
    every run, so a monotone shortcut would fail here; TensorRT-LLM's must cap the rise and says where."""
    ks = _best_ks(DEPLOYMENTS["moe-mtp-8xh200"])
    assert any(b > a for a, b in zip(ks, ks[1:])) and any(b < a for a, b in zip(ks, ks[1:]))
    # TensorRT-LLM's answer is capped exactly where the best k rises above batch 1's (at some acceptance it does: the
    # cap is exercised, whichever acceptance the model's constants put the rise at)
    capped_somewhere = False
    for percent in (71, 85):
        ks = _best_ks(DEPLOYMENTS["moe-mtp-8xh200"], percent)
        config = deployment.engine_answer(DEPLOYMENTS["moe-mtp-8xh200"], percent, "trtllm")["config"]
        assert bool(config["capped"]) == (max(ks) > ks[0]), percent
        assert ("# capped at max_draft_len" in config["text"]) == bool(config["capped"]), percent
        capped_somewhere |= bool(config["capped"])
    assert capped_somewhere


def test_cost_arithmetic():
    for d in DEPLOYMENTS.values():
        prod = deployment.engine_answer(d, PERCENT, "vllm", 3.2, 40.0)["production"]
        for key in ("plain", "speculative", "scheduled"):
            t = prod[key]
            assert abs(t["tokensPerSecondPerUser"] * t["tpotMs"] - 1000) < 1e-9
            assert abs(t["tokensPerSecondPerGpu"] * t["tpotMs"] * d.gpus - 1000 * t["batch"]) < 1e-6
            assert abs(t["costPerMillionTokens"] * 3600 * t["tokensPerSecondPerGpu"] / 1e6 - 3.2) < 1e-9
        s = deployment.serving_settings(d, PERCENT)
        assert prod["plain"]["tpotMs"] == serving.serving(s).plainMsPerToken
        assert abs(prod["speculative"]["tpotMs"] - serving.serving(s).specMsPerToken) < 1e-12
        for key, t in prod["target"].items():
            if t is not None:
                assert t["tpotMs"] <= 40.0
                k = t["lookahead"]
                if t["batch"] < production.schedule_limit(s):  # the next batch misses the target
                    nxt = production.tpot_ms(s, t["batch"] + 1, 0 if key == "plain" else
                                             production.k_by_batch(s)[t["batch"]][0])
                    assert nxt > 40.0 or k != 0


def test_diagnosis_names_each_factor_with_its_number():
    d = deployment.Deployment(target="llama-3-70b", draft="llama-3.2-1b", batch=256, lookahead=8)
    items = deployment.engine_answer(d, 40, "vllm")["diagnosis"]
    factors = {item["factor"] for item in items}
    assert {"acceptance", "crossover"} <= factors
    assert all(re.search(r"\d", item["sentence"]) for item in items)
    log = {"alphaIid": 0.05, "meanAcceptanceLength": 1.05}
    s = deployment.serving_settings(d, 40)
    items = production.diagnosis(s, 8, production.k_by_batch(s), log)
    assert any(item["factor"] == "random" and "5.0%" in item["sentence"] for item in items)
    # without a log, a figure as low as random tokens is named too, and a good one is not
    low = deployment.engine_answer(d, 8, "vllm")["diagnosis"]
    assert any(item["factor"] == "random" and "8%" in item["sentence"] for item in low)
    assert not any(item["factor"] == "random" for item in deployment.engine_answer(d, 70, "vllm")["diagnosis"])


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "lab", "deployment", "--mean-acceptance-length", "2.8", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_cli_config_and_json():
    # the default's EAGLE-1 head: TensorRT-LLM's PyTorch backend runs none, and the configuration says so; the
    # EAGLE-3 head (a --draft the CLI takes) has one, with its schedule
    out = _cli("--config", "trtllm")
    assert out.returncode == 0 and "runs no EAGLE-1 head" in out.stdout and "speculative_config:" not in out.stdout
    out = _cli("--config", "trtllm", "--draft", "eagle3-head")
    assert out.returncode == 0 and "decoding_type: Eagle3" in out.stdout and "draft_len_schedule:" in out.stdout
    doc = json.loads(_cli("--json", "--dollars-per-gpu-hour", "3", "--tpot-target-ms", "30").stdout)
    for key in ("config", "schedule", "costPerMillionTokens", "tokensPerSecondPerGpu", "tokensPerSecondPerUser",
                "diagnosis"):
        assert key in doc
    assert doc["schedule"][0]["from"] == 1 and doc["production"]["dollarsPerGpuHour"] == 3


@pytest.mark.parametrize("args,needle", [(("--config", "vllmx"), "--config must be"),
                                         (("--dollars-per-gpu-hour", "abc"), "--dollars-per-gpu-hour"),
                                         (("--tpot-target-ms", "0"), "--tpot-target-ms"),
                                         (("--log", "/nonexistent/log"), "--log")])
def test_cli_bad_input_is_one_line_exit_2(args, needle):
    out = _cli(*args)
    assert out.returncode == 2 and needle in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_suite_checks_fail_when_broken(monkeypatch):
    from lab.audit import run_check
    from lab.checks import deployment as family

    checks = dict(family.CHECKS)
    passed = lambda name: run_check(checks[name]).failure is None  # noqa: E731
    assert passed("deployment-schedule-is-best-k") and passed("deployment-cost-arithmetic")
    monkeypatch.setattr(engine_config, "trtllm_schedule", lambda ranges: {r[1]: r[2] for r in ranges[:-2]})
    assert not passed("deployment-schedule-is-best-k")
    monkeypatch.undo()
    monkeypatch.setattr(engine_config, "vllm_schedule", lambda ranges: [[a, b, max(0, k - 1)] for a, b, k in ranges])
    assert not passed("deployment-schedule-is-best-k")
    monkeypatch.undo()
    monkeypatch.setattr(production, "cost_per_million_tokens", lambda price, per_gpu: price * 1e6 / (3000.0 * per_gpu))
    assert not passed("deployment-cost-arithmetic")


# What each engine is told to run for what the serving model prices (lab.serving.draft_shape): read from the priced
# shape, not from lab.engine_config. None: the engine runs no such draft, and the configuration must say so.
PRICED_AS = {
    "eagle": {"vllm": '"method": "eagle"', "sglang": "--speculative-algorithm EAGLE ", "trtllm": None, "llamacpp": None},
    "eagle3": {"vllm": '"method": "eagle3"', "sglang": "--speculative-algorithm EAGLE3 ",
               "trtllm": "decoding_type: Eagle3", "llamacpp": "--spec-type draft-eagle3 "},
    "mtp": {"vllm": '"method": "mtp"', "sglang": "--speculative-algorithm NEXTN ", "trtllm": "decoding_type: MTP",
            "llamacpp": "--spec-type draft-mtp "},
}


def _priced_kind(target: str, draft: str) -> str | None:
    """What the serving model prices ``draft`` on ``target`` as, from the shape it prices (its source says how it was
    built): an EAGLE-3 head as vLLM's llama_eagle3.py builds it (its own LM head over a draft vocabulary), the
    checkpoint's own MTP layer, or else an EAGLE-1 head (None for a draft model or n-gram lookup)."""
    shape = serving.draft_shape(serving.DEFAULT_SETTINGS.with_(target=target, draft=draft))
    if shape is None or shape.name in serving.DRAFTS:
        return None
    if "llama_eagle3.py" in shape.source:
        assert shape.vocab == serving.EAGLE3_DRAFT_VOCAB and shape.mtp == 0
        return "eagle3"
    if "the checkpoint's own MTP layer" in shape.source:
        assert serving.TARGETS[target].mtp > 0
        return "mtp"
    assert shape.vocab == serving.TARGETS[target].vocab   # the target's LM head, read every step: EAGLE-1's design
    return "eagle"


def _misconfigured() -> list:
    """Every (target, draft, engine) whose configuration does not name the method the serving model prices."""
    plan = {"gpus": 1, "lookahead": 3, "ranges": [(1, 8, 3), (9, 64, 2)], "batch": 4, "batchK": 3, "speedup": 1.5,
            "bestSpeedup": 1.5}
    wrong = []
    for target in serving.TARGETS:
        for draft in serving.DRAFT_NAMES:
            kind = _priced_kind(target, draft)
            if kind is None:
                continue
            for engine, needle in PRICED_AS[kind].items():
                config = engine_config.configuration(engine, {**plan, "target": target, "draft": draft})
                if needle is None:
                    ok = not config["supported"] and "EAGLE-1" in config["reason"]
                else:
                    ok = config["supported"] and needle in config["text"] + " "
                if not ok:
                    wrong.append((target, draft, engine, config["text"] or config["reason"]))
    return wrong


def test_each_draft_is_configured_as_what_the_serving_model_prices():
    """The "EAGLE or MTP head" is priced as an EAGLE-1 head (or the target's MTP module) and the EAGLE-3 head as
    EAGLE-3: each engine's configuration names that method, or says it runs no such head."""
    kinds = {_priced_kind(t, d) for t in serving.TARGETS for d in serving.DRAFT_NAMES}
    assert kinds == {None, "eagle", "eagle3", "mtp"}
    assert _misconfigured() == []


def test_an_eagle1_head_configured_as_eagle3_fails(monkeypatch):
    """The mutation the issue names: the panel priced EAGLE-1 and told the reader to run EAGLE-3."""
    original = engine_config._draft_kind
    monkeypatch.setattr(engine_config, "_draft_kind",
                        lambda target, draft: "eagle3" if original(target, draft) == "eagle" else original(target, draft))
    wrong = _misconfigured()
    assert wrong and {draft for _, draft, _, _ in wrong} == {serving.EAGLE}
    assert {engine for _, _, engine, _ in wrong} == set(engine_config.CONFIG_ENGINES)


def test_sglangs_ngram_is_configured_as_the_chain_the_model_prices():
    """SGLang's NGRAM drafts a tree by default (speculative_ngram_max_bfs_breadth = 10, BFS over its trie, read in
    server_args.py at the commit the table names), so k + 1 draft tokens there are a tree's nodes, not the chain of
    k the serving model priced: the configuration sets the breadth to 1 and says why."""
    d = deployment.Deployment(target="llama-3-70b", draft=serving.NGRAM, batch=8, lookahead=4)
    config = deployment.engine_answer(d, 70, "sglang")["config"]
    assert config["supported"]
    assert "--speculative-algorithm NGRAM --speculative-ngram-max-bfs-breadth 1 --speculative-num-draft-tokens" in config["text"]
    assert "--speculative-ngram-max-bfs-breadth" in config["names"]
    assert "= 10" in engine_config.ENGINES["sglang"].names["--speculative-ngram-max-bfs-breadth"].definition
    assert "its default, 10, drafts a tree" in config["lines"][-1]["why"]
    eagle = deployment.engine_answer(d._replace(draft=serving.EAGLE), 70, "sglang")["config"]
    assert "--speculative-ngram-max-bfs-breadth" not in eagle["text"] and "--speculative-eagle-topk 1" in eagle["text"]


def test_tensorrt_llms_mtp_is_given_its_draft_count_where_it_reads_it():
    """TensorRT-LLM's MTPDecodingConfig sets max_draft_len from num_nextn_predict_layers (default 1) in a validator
    (llm_args.py, read in the code index), so the panel's MTP configuration, which wrote max_draft_len alone, would
    have run one draft token: it now writes num_nextn_predict_layers, and EAGLE-3 keeps max_draft_len."""
    d = deployment.Deployment(target="deepseek-v3", draft=serving.EAGLE, gpu="h200", gpus=8, batch=1, lookahead=4)
    config = deployment.engine_answer(d, 70, "trtllm")["config"]
    assert config["supported"] and "decoding_type: MTP" in config["text"]
    k = int(re.search(r"  num_nextn_predict_layers: (\d+)", config["text"])[1])
    assert k == deployment.engine_answer(d, 70, "vllm")["kByBatch"][0][0] and k > 1
    assert "max_draft_len:" not in config["text"] and "num_nextn_predict_layers" in config["names"]
    row = engine_config.ENGINES["trtllm"].names["num_nextn_predict_layers"]
    assert "self.max_draft_len = self.num_nextn_predict_layers" in row.definition
    eagle3 = deployment.engine_answer(d._replace(target="llama-3-70b", draft=serving.EAGLE3, gpu="h100-sxm", gpus=4),
                                      70, "trtllm")["config"]
    assert "decoding_type: Eagle3" in eagle3["text"] and "  max_draft_len: " in eagle3["text"]


def test_vllms_schedule_says_it_is_off_under_data_parallelism():
    """vLLM's Dynamic Speculative Decoding page (Limitations): with --data-parallel-size > 1 vLLM disables
    num_speculative_tokens_per_batch_size and falls back to num_speculative_tokens; a configuration that prints a
    schedule says so, one without a schedule does not."""
    answers = {name: answer for name, _, engine, answer in ANSWERS if engine == "vllm"}
    said = [("--data-parallel-size > 1" in a["config"]["text"]) == (a["config"]["schedule"] is not None)
            for a in answers.values() if a["config"]["supported"]]
    assert said and all(said)
    assert any(a["config"]["schedule"] is not None for a in answers.values())


def test_the_random_token_diagnosis_claims_no_more_than_was_read():
    """The threshold is the lab's choice (docs/READING.md) and SPEED-Bench says random prompts overstate speculation:
    the diagnosis calls a low alpha suspect and says what a random-token benchmark measures, no more."""
    d = deployment.Deployment(target="llama-3-70b", draft="llama-3.2-1b", batch=8, lookahead=4)
    (low,) = [item for item in deployment.engine_answer(d, 8, "vllm")["diagnosis"] if item["factor"] == "random"]
    assert "8% is very low for a trained draft" in low["sentence"] and "measures those prompts, not your traffic" in low["sentence"]
    assert "is what a draft gets on random tokens" not in low["sentence"] and "no real acceptance" not in low["sentence"]
