"""A mutation sweep of the instruments suite (CPython only, standard library; not part of lab/).

Each mutation below is one mistake a maintainer could make in the model code (an engine's flag flipped, a cost
term dropped, conditional rates where unconditional are meant, an off-by-one in a curve's positions, a strict
comparison made loose) or in a widget's figures and tables (a row named after its neighbour, a mark drawn at
another series' value, a sentence on the wrong side of its threshold): the tool copies the repository's ``lab/`` into a temporary directory, applies
ONE mutation there (the original snippet must occur exactly once in its file, so a snippet the code no longer
holds is refused by name instead of silently testing nothing), runs ``python -m lab audit --suite instruments``
on that copy in a subprocess and records whether the suite failed (the mutant is killed) or passed (it
survived). The repository's own ``lab/`` is never touched.

    python tools/mutation_sweep.py                  # every mutation, one suite run each (~10 s a run)
    python tools/mutation_sweep.py --only NAME ...  # some of them (tests/test_mutation_sweep.py)
    python tools/mutation_sweep.py --list           # the names, files and reasons, nothing run
    python tools/mutation_sweep.py --check          # every snippet found exactly once, nothing run

Exit status: 0 when every mutation run was killed or is listed as benign (an equivalent mutant, with its reason),
1 when another survived, 2 for a refused snippet or bad arguments. docs/CHECKS.md ("The mutation sweep") says what the full run found and when.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
COUNTER = re.compile(r"^(\d+)/(\d+) instrument checks passed$", re.M)
FAILED = re.compile(r"^FAIL  (\S+)", re.M)
RUN_TIMEOUT_S = 600


class Mutation(NamedTuple):
    name: str       # short and unique: what --only takes
    file: str       # relative to lab/
    original: str   # must occur exactly once in the file
    replacement: str
    why: str        # the mistake, as a maintainer would make it
    benign: str = ""  # for an equivalent mutant (no number the lab shows can change): why; it is expected to survive


M = Mutation
MUTATIONS: tuple[Mutation, ...] = (
    # --- lab/production.py: the best k by batch, the steady schedule, where it rises -------------------------------
    M("k-by-batch-ties", "production.py", "value = serving.cycle_speedup(plain, tokens, cycle)\n            if value > best:",
      "value = serving.cycle_speedup(plain, tokens, cycle)\n            if value >= best:",
      "k_by_batch's strict '>' made '>=': the last of equal speedups wins, not the first (best_lookahead's rule)"),
    M("steady-tolerance-sign", "production.py", "if value >= best * (1 - tolerance):", "if value >= best * (1 + tolerance):",
      "steady_schedule's tolerance sign flipped: a kept k must beat the best by 2%, so no k is ever kept"),
    M("steady-rise-or-equal", "production.py", "if steady and best_k > steady[-1][0]:", "if steady and best_k >= steady[-1][0]:",
      "steady_schedule treats an unchanged k as a rise (and names a run it did not hold)"),
    M("steady-shortfall-sign", "production.py", "shortfall = 1 - value / best", "shortfall = value / best - 1",
      "the shortfall a held k gives up written the other way round (a negative share)"),
    M("steady-holds-any-k", "production.py", "            kept = steady[-1][0]\n",
      "            kept = steady[0][0]\n", "steady_schedule keeps batch 1's k instead of the k of the batch before"),
    M("rises-off-by-one", "production.py", "low, (high, faster) = steady[batch - 2][0], steady[batch - 1]",
      "low, (high, faster) = steady[batch - 1][0], steady[batch - 1]",
      "schedule_rises compares a batch with itself (position index off by one): no rise is ever found"),
    M("rises-experts-sign", "production.py", "target.experts and read > EXPERTS_REACHED * target.experts",
      "target.experts and read < EXPERTS_REACHED * target.experts",
      "schedule_rises' experts cause with its comparison reversed"),
    M("rises-old-k-tokens", "production.py", "tokens = batch * serving.verify_tokens(settings.with_(lookahead=high))",
      "tokens = batch * serving.verify_tokens(settings.with_(lookahead=low))",
      "schedule_rises sizes the all-reduce message for the old k's verify pass, not the new k's"),
    M("rises-allreduce-sign", "production.py", '("allreduce", message > start)', '("allreduce", message < start)',
      "schedule_rises' all-reduce cause with its comparison reversed"),
    M("schedule-limit-plus-one", "production.py", "int(serving.max_batch_in_memory(settings))))",
      "int(serving.max_batch_in_memory(settings)) + 1))",
      "the schedule runs one batch past the largest that fits in memory (the memory-fit test off by one)"),
    # --- lab/acceptance.py, acceptance_rates.py, acceptance_prior.py: the curve and its rules ------------------------
    M("curve-second-rate-by-d", "acceptance_rates.py", "out.append(min(self.ceiling, out[0] * c))",
      "out.append(min(self.ceiling, out[0] * d))", "Curve.rates fills position 2 with the fall d instead of the drop c"),
    M("curve-tail-uncapped", "acceptance_rates.py", "            rate = min(self.ceiling, rate * d)\n",
      "            rate = rate * d\n", "Curve.rates' filled-in tail loses the ceiling (a copying curve's rates pass 1)"),
    M("curve-anchor-ignored", "acceptance_rates.py",
      "rate = out[-1] if self.anchor is None or len(out) != len(measured) else self.anchor",
      "rate = out[-1]", "Curve.rates continues from the last measured rate even where an anchor is set"),
    M("length-counts-one-more", "acceptance_rates.py", "        survival *= rates[position]\n        total += survival\n    return 1 + total",
      "        total += survival\n        survival *= rates[position]\n    return 1 + total",
      "mean_acceptance_length adds the survival before position i's rate (an off-by-one in the positions)"),
    M("conditional-is-unconditional", "acceptance_rates.py", "out.append(min(1.0, a / before) if before > 0",
      "out.append(min(1.0, a) if before > 0",
      "conditional_from_unconditional returns the unconditional rates (no division by the position before)"),
    M("from-unconditional-not-converted", "acceptance.py",
      "from_conditional(conditional_from_unconditional(per_position), method)", "from_conditional(per_position, method)",
      "from_unconditional takes vLLM's printed (unconditional) rates as conditional ones"),
    M("conditional-measured-at-off", "acceptance.py", '"per-position", method, spread, len(rates), ceiling',
      '"per-position", method, spread, len(rates) - 1, ceiling',
      "from_conditional marks one position fewer as measured (off by one)"),
    M("single-measured-at-off", "acceptance.py", 'point, "single", method, spread, at, ceiling',
      'point, "single", method, spread, at + 1, ceiling', "from_single marks one position more as measured"),
    M("two-lengths-unconditional", "acceptance.py", "r2 = min(1.0, max(0.0, (clean[2] - clean[1]) / r1)) if r1 > 0 else 0.0",
      "r2 = min(1.0, max(0.0, clean[2] - clean[1])) if r1 > 0 else 0.0",
      "from_lengths at k = 1, 2 takes L(2) - L(1) (unconditional) as the conditional r_2"),
    M("draft-borrows-own-only", "acceptance_prior.py", 'BORROWS_FROM = {"draft": ("draft", "block")}',
      'BORROWS_FROM = {"draft": ("draft",)}',
      "a reader's draft model (not said to be block) takes the classic draft models' curves alone as its prior"),
    M("two-lengths-anchor-r2", "acceptance.py", "anchor=min(1.0, r1 * c)", "anchor=min(1.0, r2)",
      "from_lengths at k = 1, 2 continues from the noisy measured r_2, not the weighted drop"),
    M("tail-shape-unconditional", "acceptance.py", "return (rates[1] / rates[0], point[1]), spread",
      "return (rates[1], point[1]), spread", "_tail_shape's drop c taken as r_2 instead of r_2 / r_1",
      benign="equivalent: the drop c of a curve with two or more measured rates is never read (Curve.rates uses c "
             "only to fill position 2 after a single measured rate, and Curve.interval reads no shape, only the "
             "point's lengths)"),
    M("copy-ceiling-every-family", "acceptance_prior.py", "    if family not in COPYING:\n        return 1.0\n    names = list(names)",
      "    if family is None:\n        return 1.0\n    names = list(names)",
      "copy_ceiling applied to a model drafter (EAGLE, MTP, a draft model) too"),
    M("copy-level-from-position-one", "acceptance_prior.py", "if i >= 1 and share >= PLATEAU_GAIN]", "if share >= PLATEAU_GAIN]",
      "_copy_level counts position 1's rate (the first draft is no copied run)"),
    M("plateau-start-off-by-one", "acceptance.py", "return k - 1 if found is None else min(found, k - 1)",
      "return k if found is None else min(found, k)", "plateau_start returns the first k below the gain, not the one before"),
    M("plateau-cap-no-plus-one", "acceptance.py", "limit = max_k if plateau is None else min(max_k, plateau + 1)",
      "limit = max_k if plateau is None else min(max_k, plateau)", "best_lookahead's cap without the plateau rule's +1"),
    M("capped-or-equal", "acceptance.py", '"capped": unlimited > best_k', '"capped": unlimited >= best_k',
      "best_lookahead says 'capped' when the cap did not bind"),
    M("first-argmax-last", "acceptance.py", "        if value > best:\n            best_k, best = k, value\n    return best_k, best",
      "        if value >= best:\n            best_k, best = k, value\n    return best_k, best",
      "_first_argmax keeps the last of equal speedups (on a plateau, the deepest k)"),
    M("token-curve-ignores-measured", "acceptance.py",
      'measuredAt=len(rates) if measured_at is None else measured_at)', "measuredAt=len(rates))",
      "token_curve drops the token's @m mark: every received position counts as measured"),
    M("extended-rates-reach-one", "acceptance.py", "rates + [min(r, MAX_SENT_RATE) for r in", "rates + [r for r in",
      "extended_rates lets a filled-in rate reach 1 (a policy's chain with no stationary law)"),
    # --- lab/serving_calibration.py: one engine's flag flipped ------------------------------------------------------
    M("v1-first-draft-one-token", "serving_calibration.py",
      "asyncScheduling=True, firstDraftOverVerified=True, ngramProposer=\"vllm-batched\"",
      "asyncScheduling=True, firstDraftOverVerified=False, ngramProposer=\"vllm-batched\"",
      "vLLM V1's first draft step priced over one token a sequence, not over the verified tokens"),
    M("v0-no-token-output", "serving_calibration.py", "specCycleMs=SPEC_CYCLE_MS, serialOutput=True, tokenOutput=True",
      "specCycleMs=SPEC_CYCLE_MS, serialOutput=True, tokenOutput=False", "vLLM V0 loses its per-token detokenization"),
    M("v0-no-batch-expansion", "serving_calibration.py", '"vllm-v0", "vLLM V0 (≤0.7; drafts ≤0.10)", True, BATCH_EXPANSION_MS',
      '"vllm-v0", "vLLM V0 (≤0.7; drafts ≤0.10)", False, BATCH_EXPANSION_MS', "vLLM V0 verifies without batch expansion"),
    M("sglang-no-first-from-extend", "serving_calibration.py",
      'ngramRequestOps=NGRAM_MASK_OPS["today"], firstDraftFromExtend=True',
      'ngramRequestOps=NGRAM_MASK_OPS["today"], firstDraftFromExtend=False',
      "today's SGLang runs k one-token draft steps beside its extend pass (firstDraftFromExtend off)"),
    M("sglang-2025-overlap", "serving_calibration.py",
      '        serialOutput=True, memoryRule="sglang", ngramProposer="sglang-rebuild", mtpFusionWhole=("deepseek-v3",),\n'
      '        ngramRequestOps=NGRAM_MASK_OPS["v1"]',
      '        serialOutput=False, memoryRule="sglang", ngramProposer="sglang-rebuild", mtpFusionWhole=("deepseek-v3",),\n'
      '        ngramRequestOps=NGRAM_MASK_OPS["v1"]', "SGLang 2025 (no overlap) charged no serial output processing"),
    M("sglang-eager-captured", "serving_calibration.py", "serialOutput=True, eagerExtend=True",
      "serialOutput=True, eagerExtend=False", "SGLang's eager-extend version loses its eager extend pass"),
    M("trtllm-draft-outside-graph", "serving_calibration.py", "draftInVerifyGraph=True", "draftInVerifyGraph=False",
      "TensorRT-LLM's MTP head pays a draft pass's launch outside its verify graph"),
    M("v1-0.10-fused-steps", "serving_calibration.py", "interStepOps=V1_UNFUSED_STEP_OPS", "interStepOps=0",
      "vLLM V1 0.10's unfused state updates between draft steps dropped"),
    # --- lab/serving_step.py (and serving_presets.py's distinct experts): a cost term dropped or misplaced -----------
    M("serial-output-every-step", "serving_step.py", 'serial_paid = role == "verify" and charged is not None',
      'serial_paid = role != "draft" and charged is not None',
      "serial output processing charged on a plain step too (plain decoding overlaps it)"),
    M("host-draft-no-sequence-work", "serving_step.py", 'sequence = 0.0 if role == "draft" and not host_draft else',
      'sequence = 0.0 if role == "draft" else', "a host-prepared draft step (vLLM V0 above TP 1) loses its per-sequence work"),
    M("host-work-verify-only", "serving_step.py", '    if charged is not None and role != "draft":\n        fixed += charged.stepHostMs',
      '    if charged is not None and role == "verify":\n        fixed += charged.stepHostMs',
      "a synchronous engine's host work charged on the verify step only, not on a plain step"),
    M("moe-kernels-every-layer", "serving_step.py", "fixed += moe_layers(shape) * moe_layer_us(cal, stack) / 1000",
      "fixed += shape.layers * moe_layer_us(cal, stack) / 1000", "a MoE layer's kernels charged on the dense layers too"),
    M("mla-cache-split", "serving_step.py", "kv_share = 1 if shape.kv_lora else min(g, shape.kv_heads)",
      "kv_share = min(g, shape.kv_heads)", "a latent (MLA) cache split over the GPUs instead of replicated"),
    M("mla-attention-flops", "serving_step.py", "2 * shape.layers * shape.heads * (2 * shape.kv_lora + shape.rope_dim)",
      "2 * shape.layers * shape.heads * (shape.kv_lora + shape.rope_dim)",
      "absorbed MLA's attention arithmetic counts the scores and forgets the values (the verify pass's compute)"),
    M("moe-distinct-per-expert", "serving_presets.py",
      "return step.experts * (1 - (1 - step.active_experts / step.experts) ** tokens)",
      "return step.experts * (1 - (1 - 1 / step.experts) ** (tokens * step.active_experts))",
      "the distinct experts counted as k independent single picks a token (with replacement), not k of E"),
    M("expansion-reads-off-by-one", "serving_step.py", "return batch + step.kv_reread * (tokens - batch)",
      "return batch + step.kv_reread * (tokens - 1)", "batch expansion's extra KV reads counted once a pass, not a sequence"),
    M("reject-every-token", "serving_step.py", "step.draft_token_ms * (new_tokens - 1))", "step.draft_token_ms * new_tokens)",
      "the rejection sampler charged for the bonus token too"),
    M("sglang-k-steps-with-fc", "serving_step.py", "steps = extended - 1 - (replaced > 0)", "steps = extended - 1",
      "EAGLE-3's fc taken off k one-token steps on SGLang, which runs k - 1"),
    M("inter-step-gaps", "serving_step.py", "extra += inter_step_ms(ENGINES[settings.engine], steps - 1)",
      "extra += inter_step_ms(ENGINES[settings.engine], steps)", "k gaps between k chained draft steps instead of k - 1"),
    M("chain-test-strict", "serving_step.py", "chain, mla = n <= k + 1, TARGETS",
      "chain, mla = n < k + 1, TARGETS", "a chain no longer counts as a chain for the eager extend"),
    M("eager-extend-whole-pass", "serving_step.py", "    return cal.passMs - cal.draftPassMs\n", "    return cal.passMs\n",
      "the eager extend pass charged a whole pass's fixed cost on top of the captured one's"),
    M("emitted-output-every-token", "serving_step.py", "batch * (tokens - 1) * verify_step.token_output_ms",
      "batch * tokens * verify_step.token_output_ms", "per-token output processing charged for a sequence's first token too"),
    M("memory-fit-no-weights", "serving_memory.py", "    spare = memory_available_bytes(settings) - weights\n",
      "    spare = memory_available_bytes(settings)\n", "the memory-fit test forgets the weights"),
    # --- lab/serving_sglang.py, lab/serving_mtp.py --------------------------------------------------------------------
    M("eager-extend-chain-and-mla", "serving_sglang.py", "return gpu in gpus and (chain or mla)",
      "return gpu in gpus and (chain and mla)", "today's SGLang runs its extend pass eagerly only for an MLA chain"),
    M("sglang-extend-over-tree", "serving_sglang.py", "    return min(n, k + 1)\n", "    return n\n",
      "SGLang's extend pass priced over a tree's every verified token, not the k + 1 its graph runs"),
    M("sglang-v1-ops-every-step", "serving_sglang.py", "cycle_ops + (steps - 1) * step_ops",
      "cycle_ops + steps * step_ops", "SGLang's V1 worker charged its per-step metadata ops for the first draft step too"),
    M("sglang-v1-ops-dropped", "serving_step.py", "- fc - replaced + ops\n", "- fc - replaced\n",
      "SGLang's V1 worker's eager ops a cycle left out of its cycle"),
    M("mtp-fusion-whole-share", "serving_mtp.py", "weight_bytes = (g - 1) / g * 2 * target.hidden ** 2 * head_bytes",
      "weight_bytes = 2 * target.hidden ** 2 * head_bytes", "an MTP fusion read whole charged a whole fusion beyond its share"),
    # --- lab/deployment.py, lab/engine_config.py ----------------------------------------------------------------------
    M("deployment-engine-dropped", "deployment.py", "stepModel=STEP_MODEL, treeTokens=0, engine=d.engine)",
      "stepModel=STEP_MODEL, treeTokens=0)", "the panel's serving settings forget the reader's engine"),
    M("schedule-cap-no-plus-one", "deployment.py", "None if plateau is None else plateau + 1",
      "None if plateau is None else plateau", "the schedule's cap on a curve without the plateau rule's +1"),
    M("engine-plan-batch-off", "deployment.py", "here = min(d.batch, len(ks)) - 1", "here = min(d.batch, len(ks) - 1)",
      "the engine plan's best k read at the next batch (an index off by one)"),
    M("vllm-schedule-strict", "engine_config.py", "            if batch >= low:\n", "            if batch > low:\n",
      "vLLM's schedule rule misses a range's first batch"),
    M("trtllm-schedule-low-keys", "engine_config.py", "return {high: k for _, high, k in kept}",
      "return {low: k for low, _, k in kept}", "TensorRT-LLM's draft_len_schedule keyed by each range's first batch"),
    M("trtllm-capped-or-equal", "engine_config.py", "capped, lowered = [], [r for r in ranges if r[2] > cap]",
      "capped, lowered = [], [r for r in ranges if r[2] >= cap]", "TensorRT-LLM's capped ranges include the ones the cap left alone"),
    # --- planted by an outsider (5 December 2026): the newest code the entries above had not looked at ---------------
    # lab/serving_suffix.py: suffix decoding's proposer cost, which engines run it, the plugin's batch limit
    M("suffix-loops-swapped", "serving_suffix.py", 'SUFFIX_LOOPS = {"vllm-v1": 1, "vllm-v1-0.10": 2}',
      'SUFFIX_LOOPS = {"vllm-v1": 2, "vllm-v1-0.10": 1}',
      "suffix decoding's Python loops a cycle swapped between today's vLLM V1 and the 0.10.1 plugin"),
    M("suffix-proposal-in-us", "serving_suffix.py", "SUFFIX_LOOPS[engine] * SUFFIX_LOOP_US) / 1000",
      "SUFFIX_LOOPS[engine] * SUFFIX_LOOP_US)", "suffix decoding's proposal returned in us where ms is meant (unit slip)"),
    M("suffix-update-no-bonus", "serving_suffix.py", "SUFFIX_UPDATE_US = 1000 * 0.004126 * (0.693407 + 1)",
      "SUFFIX_UPDATE_US = 1000 * 0.004126 * 0.693407",
      "the tree update priced over the accepted tokens only, forgetting the bonus token each step appends"),
    M("suffix-loop-once-a-cycle", "serving_suffix.py",
      "return batch * (SUFFIX_CACHE_US + SUFFIX_LOOPS[engine] * SUFFIX_LOOP_US) / 1000",
      "return (batch * SUFFIX_CACHE_US + SUFFIX_LOOPS[engine] * SUFFIX_LOOP_US) / 1000",
      "the propose loop's own Python charged once a cycle, not once a request"),
    M("plugin-note-at-the-limit", "serving_suffix.py", "batch <= ARCTIC_SUFFIX_BATCH_LIMIT:",
      "batch < ARCTIC_SUFFIX_BATCH_LIMIT:",
      "the plugin's 'drafts nothing' note fires at batch 64 itself, where the plugin still drafts (wrong side)"),
    M("plugin-note-every-vllm", "serving_suffix.py", "if draft != SUFFIX or engine != PLUGIN_ENGINE or batch",
      "if draft != SUFFIX or engine not in SUFFIX_ENGINES or batch",
      "the Arctic plugin's batch limit told to a reader of today's vLLM V1, whose own proposer has none"),
    M("suffix-fallback-label-swapped", "serving_suffix.py", "return SUFFIX_ENGINES[0], f\"Engine: {problem}",
      "return SUFFIX_ENGINES[-1], f\"Engine: {problem}",
      "a refused engine priced on vLLM 0.10's plugin while its note says today's vLLM V1"),
    M("suffix-refusal-admits-v0", "serving_suffix.py", "if draft != SUFFIX or engine in SUFFIX_ENGINES:",
      "if draft != SUFFIX or engine in SUFFIX_ENGINES or engine.startswith(\"vllm\"):",
      "suffix decoding no longer refused on vLLM V0 (which has no suffix proposer)"),
    # lab/serving.py: the longest-lookahead sentence
    M("longest-lookahead-never", "serving.py", "    if best_k < longest:\n        return \"\"",
      "    if best_k <= longest:\n        return \"\"",
      "the longest-lookahead note's comparison made loose: it never fires, even at the slider's end"),
    M("longest-lookahead-searches-slider", "serving.py", "searches k to {MAX_POSITIONS})", "searches k to {longest})",
      "the note says the CLI searches to the widget's own end, not the acceptance model's 64"),
    # lab/serving_presets.py: the 2026 presets and the vocabulary note
    M("qwen3-8b-llama-mlp", "serving_presets.py", 'Transformer("qwen3-8b", "Qwen3-8B", 36, 4096, 32, 8, 128, 12288,',
      'Transformer("qwen3-8b", "Qwen3-8B", 36, 4096, 32, 8, 128, 14336,',
      "Qwen3-8B given Llama-3-8B's intermediate size (14336), a copy slip between two 8B presets"),
    M("glm-air-no-dense-layer", "serving_presets.py",
      "expert_intermediate=1408, shared_intermediate=1408, dense_layers=1,\n                mtp=1),",
      "expert_intermediate=1408, shared_intermediate=1408, dense_layers=0,\n                mtp=1),",
      "GLM-4.5-Air's first_k_dense_replace 1 lost: every layer a MoE layer"),
    M("glm-air-no-mtp", "serving_presets.py",
      "expert_intermediate=1408, shared_intermediate=1408, dense_layers=1,\n                mtp=1),",
      "expert_intermediate=1408, shared_intermediate=1408, dense_layers=1,\n                mtp=0),",
      "GLM-4.5-Air's MTP layer forgotten: its head priced as an EAGLE head's dense layer"),
    M("qwen3-0.6b-untied", "serving_presets.py", 'Transformer("qwen3-0.6b", "Qwen3-0.6B", 28, 1024, 16, 8, 128, 3072, 151936, True,',
      'Transformer("qwen3-0.6b", "Qwen3-0.6B", 28, 1024, 16, 8, 128, 3072, 151936, False,',
      "Qwen3-0.6B's tie_word_embeddings read as false (its LM head counted twice)"),
    M("vocab-note-smaller-passes", "serving_presets.py", "DRAFTS[draft].vocab == TARGETS[target].vocab",
      "DRAFTS[draft].vocab <= TARGETS[target].vocab",
      "the vocabulary note stays silent when the draft's vocabulary is the smaller (Llama-3.2-1B under Qwen3)"),
    M("eagle-head-every-moe", "serving_presets.py", "moe = bool(target.mtp and target.experts)",
      "moe = bool(target.experts)", "an EAGLE head on a MoE without an MTP module priced as a whole MoE layer"),
    # lab/serving_moe.py, lab/serving_mtp.py
    M("moe-assumed-blackwell", "serving_moe.py", 'MOE_ASSUMED = {"trtllm": "hopper", "triton": "ampere"}',
      'MOE_ASSUMED = {"trtllm": "blackwell", "triton": "ampere"}',
      "TensorRT-LLM's MoE cost on an unfitted family assumed from Blackwell, not Hopper"),
    M("moe-layer-first-stack", "serving_moe.py", "calibration.moeLayerUs if name == stack), 0.0)",
      "calibration.moeLayerUs), 0.0)",
      "every engine charged the first kernel stack's MoE cost (TensorRT-LLM's on vLLM and SGLang)"),
    M("mtp-gather-head-bytes", "serving_mtp.py", "gather_bytes = target.vocab * MTP_LOGIT_BYTES",
      "gather_bytes = target.vocab * head_bytes",
      "the MTP logits gathered at the head's weight precision, not in BF16 (an FP8 head gathers half)"),
    M("mtp-extras-one-gpu", "serving_mtp.py", "if not target.mtp or not cal.engineTerms or g <= 1:",
      "if not target.mtp or not cal.engineTerms or g < 1:",
      "the MTP gather and its all-reduce charged on a single GPU",
      benign="equivalent: on one GPU the fusion's share (g - 1) / g is 0, allreduce_cost gives no latency and "
             "message_rates prices no message (both return nothing for g <= 1), so the extras priced are all zero "
             "and no step time moves"),
    # lab/serving_memory.py, lab/serving_engine_memory.py: the memory fit
    M("memory-note-gib", "serving_memory.py", "need {need / 1e9:,.0f} GB in", "need {need / 2 ** 30:,.0f} GB in",
      "the 'does not fit' note's need in GiB, beside a capacity in GB"),
    M("fits-instead-most-gpus", "serving_memory.py", 'options.append(f"on {more[0]} GPUs")',
      'options.append(f"on {more[-1]} GPUs")', "fits_instead names the most GPUs that hold it, not the fewest"),
    M("sglang-eagle3-model-reserve", "serving_memory.py",
      '"eagle" if settings.draft in (EAGLE, EAGLE3) else "model"', '"eagle" if settings.draft == EAGLE else "model"',
      "SGLang's memory for an EAGLE-3 head keeps a draft model's 6 GiB, not an EAGLE draft's 2"),
    M("memory-draft-in-target-precision", "serving_memory.py", "return [(shape, PRECISIONS[pass_precision(settings, role)])",
      "return [(shape, PRECISIONS[settings.precision])",
      "the memory fit holds the draft in the target's precision, not its own (draftPrecision)"),
    M("state-slots-num-spec", "serving_memory.py", "    return verify_tokens(settings)\n",
      "    return settings.lookahead\n",
      "num_spec linear-attention state copies a sequence, not num_spec + 1 (off by one)"),
    M("sglang-big-tp-from-8", "serving_engine_memory.py", "big_tp = tp >= 4", "big_tp = tp > 4",
      "SGLang's larger CUDA-graph batch from TP 8, not TP 4"),
    M("trtllm-fraction-of-whole", "serving_engine_memory.py",
      "return weights_bytes + TRTLLM_FREE_GPU_MEMORY_FRACTION * max(0.0, total - weights_bytes)",
      "return TRTLLM_FREE_GPU_MEMORY_FRACTION * total",
      "TensorRT-LLM's free_gpu_memory_fraction taken of the whole memory, as vLLM's utilization is"),
    M("sglang-reserve-per-gpu-count", "serving_engine_memory.py", "reserved = 512 + max(chunk, 2048) * 1.5 + graphs * 2 + tp / 8 * 1024",
      "reserved = 512 + max(chunk, 2048) * 1.5 + graphs * 2 + tp * 1024",
      "SGLang's per-TP reserve taken as 1 GiB a GPU, not tp / 8 GiB"),
    # lab/production.py: the diagnosis
    M("diagnosis-crossover-strict", "production.py", "if crossover is not None and batch >= crossover:",
      "if crossover is not None and batch > crossover:",
      "the diagnosis misses the crossover at the crossover batch itself (its own first losing batch)"),
    M("diagnosis-survival-k-plus-one", "production.py", "survive = _survival(alpha, k, curve)",
      "survive = _survival(alpha, k + 1, curve)", "the chance all k drafts survive read at position k + 1"),
    M("diagnosis-draft-share-one-step", "production.py", "share = k * result.draftStepMs / result.plainStepMs",
      "share = result.draftStepMs / result.plainStepMs",
      "the slow-draft share is one draft step's, not the k a cycle runs"),
    M("diagnosis-random-for-ngram", "production.py",
      "alpha < RANDOM_TOKENS_ALPHA and not serving.model_free(settings.draft):",
      "alpha < RANDOM_TOKENS_ALPHA:",
      "a model-free proposer's low acceptance blamed on a random-token benchmark 'for a trained draft'"),
    # lab/engine_config.py
    M("arctic-disable-off-by-one", "engine_config.py", 'config["disable_by_batch_size"] = plan["batch"]',
      'config["disable_by_batch_size"] = plan["batch"] - 1',
      "the plugin's disable_by_batch_size set one below the reader's batch, which then drafts nothing"),
    M("fixed-k-schedule-max", "engine_config.py", '    k = plan["batchK"]\n', '    k = plan["lookahead"]\n',
      "an engine without a schedule told the schedule's largest k, not the best k at the reader's batch"),
    M("mtp-configured-as-eagle", "engine_config.py", 'return "mtp" if target in MTP_TARGETS else "eagle"',
      'return "eagle"', "a target's own MTP module configured as a separate EAGLE checkpoint"),
    # lab/acceptance_rates.py, lab/trees_depth.py
    M("extrapolated-at-measured", "acceptance_rates.py", "k > self.measuredAt else None", "k >= self.measuredAt else None",
      "a lookahead at the last measured position flagged as extrapolated"),
    M("depth-chain-one-short", "trees_depth.py", "chain = trees.chain_parents(levels + 1)",
      "chain = trees.chain_parents(levels)", "the depth profile's chain one level shorter than the tree"),
    M("depth-rates-all-measured", "trees_depth.py", "return extended_rates(curve, levels, measured, method)",
      "return extended_rates(curve, levels, None, method)",
      "the tree's levels continue the curve from its last received rate, not its last measured one"),
    # lab/widgets/serving.py, lab/widgets/deployment.py: the readouts and notes
    M("widget-fits-rounded-up", "widgets/serving.py", "plural(int(fits), 'sequence')", "plural(round(fits), 'sequence')",
      "the memory note rounds the sequences that fit up (79.7 said as 80)"),
    M("widget-memory-readout-gib", "widgets/serving.py", '"memory": f"{need / 1e9:,.0f} of {have / 1e9:,.0f} GB"',
      '"memory": f"{need / 1e9:,.0f} of {have / 2 ** 30:,.0f} GB"',
      "the memory readout's capacity in GiB beside a need in GB"),
    M("widget-no-room-need-not-weights", "widgets/serving.py", "need {memory['weights'] / 1e9:,.0f} GB in",
      "need {memory['need'] / 1e9:,.0f} GB in",
      "the no-room lead says the weights alone need what weights and caches need"),
    M("widget-extrapolated-from-measured", "widgets/serving.py", "span('position', measured_k + 1, lookahead)",
      "span('position', measured_k, lookahead)",
      "the summary calls the last measured position extrapolated (off by one)"),
    M("deployment-notes-at-k", "widgets/deployment.py", "serving.setting_notes(d.target, d.draft, d.engine, d.batch)",
      "serving.setting_notes(d.target, d.draft, d.engine, d.lookahead)",
      "the panel's setting notes judged at the lookahead, not the batch"),
    M("plateau-words-no-plus-one", "acceptance.py", "tokens a call), so no k past {start + 1}\"",
      "tokens a call), so no k past {start}\"", "the plateau sentence caps k at the plateau's start, not its start plus one"),
    M("cost-per-hour-in-minutes", "production.py", "dollars_per_gpu_hour * 1e6 / (3600.0 * per_gpu)",
      "dollars_per_gpu_hour * 1e6 / (60.0 * per_gpu)", "$ per million tokens with an hour of 60 seconds (unit slip)"),
    M("draft-prefill-no-context", "production.py", "return serving.step_time_ms(shape, settings, 1, prompt_tokens, prompt_tokens), target_ms",
      "return serving.step_time_ms(shape, settings, 1, prompt_tokens, 0), target_ms",
      "the draft's prefill priced without attending over its prompt (context 0)"),
    M("sglang-fraction-two-digits", "serving_engine_memory.py", "return round((mem - reserved) / mem, 3)",
      "return round((mem - reserved) / mem, 2)", "SGLang's mem_fraction_static rounded to two digits, not three"),
    M("panel-live-best-is-reader-k", "widgets/deployment.py", "best lookahead {srv['bestLookahead']}\"",
      "best lookahead {d.lookahead}\"", "the panel's live line names the reader's lookahead as the best one"),
    # --- planted by a second outsider (6 December 2026): the older widgets and the figures ---------------------------
    # lab/widgets/trees.py: the tree, the budget charts, the depth table, the summary
    M("trees-budget-tick-at-zero", "widgets/trees.py", "(1, 64, 128) if width < 480 else (1, 32, 64, 96, 128)",
      "(1, 64, 128) if width < 480 else (0, 32, 64, 96, 128)",
      "the budget axis' first tick labelled 0, a budget the charts do not have (drawn left of the axis)"),
    M("trees-level-label-plus-one", "widgets/trees.py", 'f"L{level}" if narrow else f"level {level}"',
      'f"L{level}" if narrow else f"level {level + 1}"',
      "the tree's level labels counted from the root as level 1 (each row named after the one below it)"),
    M("trees-reach-shade-floored", "widgets/trees.py", "shade = round(reach[node] * REACH_SHADES)",
      "shade = int(reach[node] * REACH_SHADES)", "a node's reach shade truncated, not rounded (most nodes a step paler)"),
    M("trees-best-triangle-on-chain", "widgets/trees.py",
      "        mx, my = to_x(marker), to_y(series[0][2][marker - 1])\n        body.append(f'<path class=\"tr-best\"",
      "        mx, my = to_x(marker), to_y(series[1][2][marker - 1])\n        body.append(f'<path class=\"tr-best\"",
      "the best budget's triangle drawn on the chain's curve, not the tree's"),
    M("trees-reader-dot-next-budget", "widgets/trees.py", 'cy="{to_y(values[selected - 1]):.1f}" r="4"',
      'cy="{to_y(values[min(selected, len(values) - 1)]):.1f}" r="4"',
      "the reader's dots drawn at the next budget's value (an index off by one, clamped at the end)"),
    M("trees-depth-table-fraction", "widgets/trees.py", """<td>{_f(100 * row["top1"], 1)}%</td>""",
      """<td>{_f(row["top1"], 3)}</td>""", "the depth table's top-1 acceptance shown as a fraction in a column of percents"),
    M("trees-memory-bound-up-to-ridge", "widgets/trees.py", "stays memory-bound up to {ridge - 1} nodes",
      "stays memory-bound up to {ridge} nodes", "the summary's memory-bound reach includes the ridge itself"),
    M("trees-lead-chain-ignores-depth", "widgets/trees.py",
      "f\"of {min(budget, depth)} nodes, one per level, {readouts['chainLength']}) and runs",
      "f\"of {budget} nodes, one per level, {readouts['chainLength']}) and runs",
      "the lead's chain said to take the whole budget, forgetting the depth limit"),
    M("trees-falling-levels-plus-one", "widgets/trees.py", "at levels 1 to {levels})", "at levels 1 to {levels + 1})",
      "the measured-curve sentence's level range one past the levels it lists"),
    # lab/widgets/policies.py: the bars, the strip, the table, the summary
    M("policies-table-lookahead-reads-tokens", "widgets/policies.py", "<td>{_f(r['meanLookahead'], 2)}</td>",
      "<td>{_f(r['tokensPerCall'], 2)}</td>", "the table's mean-lookahead cell reads the tokens-per-call column"),
    M("policies-strip-mean-n-minus-one", "widgets/policies.py", 'mean = sum(s["lookahead"] for s in strip) / n',
      'mean = sum(s["lookahead"] for s in strip) / (n - 1)', "the strip's sample mean divided by one call too few"),
    M("policies-strip-last-call-label", "widgets/policies.py", 'text-anchor="end">call {n}</text>',
      'text-anchor="end">call {n - 1}</text>', "the strip's last call numbered from 0 (off by one)"),
    M("policies-best-line-at-top-bar", "widgets/policies.py", '(best, "fig-baseline pol-best-line")',
      '(top_speed, "fig-baseline pol-best-line")', "the best-static line drawn at the longest bar (the oracle's)"),
    M("policies-good-bad-swapped", "widgets/policies.py", "        good, bad = process.rates\n",
      "        bad, good = process.rates\n", "the summary's good and bad stretches' acceptance swapped"),
    M("policies-past-measured-at-k", "widgets/policies.py", "if measured_k and k > measured_k else",
      "if measured_k and k >= measured_k else", "'past the measured k' said of the last measured k itself"),
    M("policies-gain-two-digits", "widgets/policies.py", '+ _f(abs(change), 1) + "%"', '+ _f(abs(change), 2) + "%"',
      "the gain over the best static policy rounded to two digits, not one"),
    M("policies-heuristic-mean-whole", "widgets/policies.py",
      "lookahead {_f(results['heuristic']['meanLookahead'], 1)}), {threshold}",
      "lookahead {_f(results['heuristic']['meanLookahead'], 0)}), {threshold}",
      "the summary's heuristic mean lookahead rounded to a whole k"),
    M("policies-toy-survival-fraction", "widgets/policies.py",
      "{_f(sum(process.rates) / len(process.rates) * 100, 1)}% of the time",
      "{_f(sum(process.rates) / len(process.rates), 3)}% of the time",
      "the toy model's mean survival printed as a fraction with a percent sign"),
    # lab/widgets/realtext.py: the call table, the survival table, the run's summary
    M("realtext-iid-column-shifted", "widgets/realtext.py", "<td>{_f(alpha ** (i + 1) * 100, 1)}%</td>",
      "<td>{_f(alpha ** i * 100, 1)}%</td>", "the survival table's one-alpha column one position early (alpha^(i-1))"),
    M("realtext-call-p-q-swapped", "widgets/realtext.py", "<td>{_chance(q_x)}</td><td>{_chance(p_x)}</td>",
      "<td>{_chance(p_x)}</td><td>{_chance(q_x)}</td>", "the call table's q(x) and p(x) columns swapped"),
    M("realtext-conditional-column-unconditional", "widgets/realtext.py",
      "<td>{_f(conditional[i] * 100, 1)}%</td>", "<td>{_f(rate * 100, 1)}%</td>",
      "the survival table's conditional column repeats the unconditional rate"),
    M("realtext-temperature-whole", "widgets/realtext.py", "T = {_f(settings['rtTemperature'], 1)}: ",
      "T = {_f(settings['rtTemperature'], 0)}: ", "the run's summary rounds the temperature to a whole number"),
    M("realtext-complete-strict", "widgets/realtext.py", 'complete = summary["committedTokens"] >= int(settings["rtTokens"])',
      'complete = summary["committedTokens"] > int(settings["rtTokens"])',
      "a run that wrote exactly the tokens asked for is called incomplete"),
    # lab/widgets/traces.py, lab/traces/translator.py, lab/traces/analysis.py
    M("traces-table-interval-swapped", "widgets/traces.py",
      "<td>{to_fixed(u, 3)} ({to_fixed(ui[0], 3)} to {to_fixed(ui[1], 3)})</td>",
      "<td>{to_fixed(u, 3)} ({to_fixed(ui[1], 3)} to {to_fixed(ui[0], 3)})</td>",
      "the table's unconditional interval written high end first"),
    M("traces-table-iid-one-early", "widgets/traces.py", "<td>{to_fixed(alpha ** i, 3)}</td></tr>')",
      "<td>{to_fixed(alpha ** (i - 1), 3)}</td></tr>')", "the table's independent-model column one position early"),
    M("traces-tip-interval-swapped", "widgets/traces.py",
      '(95% interval {to_fixed(low, 3)} to "\n                         f"{to_fixed(high, 3)})")',
      '(95% interval {to_fixed(high, 3)} to "\n                         f"{to_fixed(low, 3)})")',
      "a mark's tooltip gives its interval's ends swapped"),
    M("traces-conditional-marks-left", "widgets/traces.py",
      'analysis["conditionalIntervals"], shift, "conditional")',
      'analysis["conditionalIntervals"], -shift, "conditional")',
      "the conditional marks drawn left of their position, on top of the unconditional ones"),
    M("traces-rate-axis-one-digit", "widgets/traces.py", 'text-anchor="end">{to_fixed(tick, 2)}</text>',
      'text-anchor="end">{to_fixed(tick, 1)}</text>', "the chance axis' ticks rounded to one digit (0.25 said as 0.3)"),
    M("traces-sglang-old-rate-over-k", "widgets/traces.py", "_f(mean_length / (k + 1), 2),",
      "_f(mean_length / k, 2),", "older SGLang's accept rate divided by k, not k + 1"),
    M("traces-verdict-threshold-005", "widgets/traces.py", 'if independence["pValue"] < 0.01:',
      'if independence["pValue"] < 0.05:', "the strong-evidence sentence fires from p < 0.05, not 0.01"),
    M("translator-rate-over-k-plus-one", "traces/translator.py",
      '"acceptanceRate": mean_accepted / lookahead', '"acceptanceRate": mean_accepted / (lookahead + 1)',
      "the translator's acceptance rate over k + 1 positions"),
    # lab/widgets/ledger.py: the heatmap's axes, tooltips, table and outline
    M("ledger-acceptance-ticks-flipped", "widgets/ledger.py", "            y = top + (rows - 1 - r) * cell_h\n",
      "            y = top + r * cell_h\n", "the heatmap's acceptance labels drawn top-down while the rows run bottom-up"),
    M("ledger-tip-rows-not-reversed", "widgets/ledger.py", "_fmt(a, 0) for a in reversed(acceptances)",
      "_fmt(a, 0) for a in acceptances", "the hover readout's acceptance rows in the wrong order (top row called the lowest)"),
    M("ledger-table-row-header-neighbour", "widgets/ledger.py",
      """<th scope="row">{escape(_fmt(acceptances[r], 0))}%</th>{"".join(cells)}""",
      """<th scope="row">{escape(_fmt(acceptances[r - 1], 0))}%</th>{"".join(cells)}""",
      "the heatmap table's row headers read the neighbouring row's acceptance"),
    M("ledger-outline-row-below", "widgets/ledger.py",
      "x, y = left + c * cell_w, top + (len(acceptances) - 1 - r) * cell_h",
      "x, y = left + c * cell_w, top + (len(acceptances) - r) * cell_h",
      "the selected cell's outline drawn one row below the reader's"),
    M("ledger-column-label-plus-one", "widgets/ledger.py", "f'text-anchor=\"middle\">{k}</text>')",
      "f'text-anchor=\"middle\">{k + 1}</text>')", "the heatmap's lookahead labels one more than their columns"),
    # lab/serving_figures.py: the heatmap, the hatch, the tables, the brackets
    M("serving-tip-contexts-not-reversed", "serving_figures.py", "_compact(l) for l in reversed(contexts)",
      "_compact(l) for l in contexts", "the heatmap's hover readout names the contexts top-down in reverse"),
    M("serving-hatch-rows-flipped", "serving_figures.py",
      "cells = [(left + c * cell_w, top + (rows - 1 - r) * cell_h, left + (c + 1) * cell_w, top + (rows - r) * cell_h)",
      "cells = [(left + c * cell_w, top + r * cell_h, left + (c + 1) * cell_w, top + (r + 1) * cell_h)",
      "the 'does not fit' hatch drawn on the mirrored rows (short contexts hatched for long ones)"),
    M("serving-table-fit-neighbour", "serving_figures.py", "_cell(grid[r][c], fits is None or fits[r][c])",
      "_cell(grid[r][c], fits is None or fits[r][max(c - 1, 0)])",
      "a table cell's 'does not fit' read from the column before (one batch smaller)"),
    M("serving-load-ratio-inverted", "serving_figures.py", 'else _f(p / s)\n', 'else _f(s / p)\n',
      "the load table's ratio written speculative over plain"),
    M("serving-bracket-dot-at-last", "serving_figures.py", 'cx="{ends[0]:.1f}" cy="{bar}" r="5"',
      'cx="{ends[-1]:.1f}" cy="{bar}" r="5"', "the model's central crossover dot drawn at the last other acceptance's"),
    M("serving-crossover-mark-strict", "serving_figures.py", "if crossover is not None and crossover <= high:",
      "if crossover is not None and crossover < high:", "the crossover line missing when the crossover is the last batch"),
    # lab/widgets/exact.py: the distributions, the outputs
    M("exact-q-bar-residual", "widgets/exact.py", '("rejected", excess, "rejected excess q - p")',
      '("rejected", residual, "rejected excess q - p")', "the q bar's rejected part drawn as the residual p - q"),
    M("exact-outputs-label-swapped", "widgets/exact.py", "for w, a, b, c in zip(vocabulary, p, speculative, buggy))",
      "for w, a, b, c in zip(vocabulary, p, buggy, speculative))",
      "the outputs figure's description lists the buggy sampler's frequency as the speculative one's"),
    M("exact-ticks-swapped", "widgets/exact.py", 'computed = (exact if key == "speculative" else exact_buggy)[i]',
      'computed = (exact_buggy if key == "speculative" else exact)[i]',
      "each sampler's computed-output tick drawn across the other sampler's bar"),
    # --- third outsider (branch plant3): the deployment panel's sentences and tables, the production terms, the
    # curve as each instrument receives it, the serving validation table and trust line, the held-out acceptance table
    M("dep-production-user-gpu-swapped", "widgets/deployment.py",
      '<td>{_f(t["tokensPerSecondPerUser"], 1)}</td>\'\n                f\'<td>{_f(t["tokensPerSecondPerGpu"], 1)}</td>',
      '<td>{_f(t["tokensPerSecondPerGpu"], 1)}</td>\'\n                f\'<td>{_f(t["tokensPerSecondPerUser"], 1)}</td>',
      "the production table's tok/s per user and per GPU cells read each other's column"),
    M("dep-production-cost-two-digits", "widgets/deployment.py", '<td>${_f(t["costPerMillionTokens"], 3)}</td>',
      '<td>${_f(t["costPerMillionTokens"], 2)}</td>', "the $ per 1M tokens cell rounded to cents, not its 3 decimals"),
    M("dep-production-target-row-k", "widgets/deployment.py",
      "<td>{t[\"batch\"]}</td><td>{t[\"lookahead\"]}</td>", "<td>{t[\"batch\"]}</td><td>{t[\"batch\"] and t[\"lookahead\"] + 1}</td>",
      "the production table's k column one higher than the k priced"),
    M("dep-prefill-share-fraction", "widgets/deployment.py", 'share = 100 * pre["draftMs"] / pre["targetMs"]',
      'share = pre["draftMs"] / pre["targetMs"]', "the prefill line's share shown as a fraction where it says %"),
    M("dep-prefill-ms-swapped", "widgets/deployment.py",
      """f'{_f(pre["draftMs"])} ms on the target\\'s {_f(pre["targetMs"])} ms""",
      """f'{_f(pre["targetMs"])} ms on the target\\'s {_f(pre["draftMs"])} ms""",
      "the prefill line's draft and target times swapped"),
    M("dep-held-shortfall-fraction", "widgets/deployment.py", "at most {_f(100 * r['shortfall'], 1)}% faster",
      "at most {_f(r['shortfall'], 1)}% faster", "the held run's shortfall printed as a fraction with a % sign"),
    M("dep-held-kept-best-swapped", "widgets/deployment.py",
      "keeps k = {r['kept']} where k = {r['best']} is", "keeps k = {r['best']} where k = {r['kept']} is",
      "the held run names the best k as kept and the kept one as best"),
    M("dep-rises-batch-before-same", "widgets/deployment.py", "ms at batch {r['batch'] - 1}, because",
      "ms at batch {r['batch']}, because", "the rise's 'batch before' printed as the rise's own batch"),
    M("dep-rises-keeping-new-k", "widgets/deployment.py", "faster \"\n                     f\"than keeping {r['from']}:",
      "faster \"\n                     f\"than keeping {r['to']}:", "the rise says faster than keeping the new k"),
    M("dep-rises-gain-fraction", "widgets/deployment.py", "{_f(100 * r['gain'], 1)}% faster",
      "{_f(r['gain'], 1)}% faster", "the rise's gain shown as a fraction with a % sign"),
    M("dep-rise-experts-share-active", "widgets/deployment.py", "{_f(100 * rise['expertsRead'] / rise['experts'], 1)}% of the",
      "{_f(100 * rise['expertsRead'] / rise['activeExperts'], 1)}% of the",
      "the experts cause's share of experts read taken over the active experts, not all of them"),
    M("dep-rise-mib-swapped", "widgets/deployment.py", "f\"{_mib(rise['allreduceFrom'])} MiB (lab.serving_allreduce)",
      "f\"{_mib(rise['messageBytes'])} MiB (lab.serving_allreduce)",
      "the all-reduce cause names the verify pass's message as the threshold"),
    M("dep-schedule-range-end-minus-one", "widgets/deployment.py", "<td>{r[\"from\"]}&ndash;{r[\"to\"]}</td>",
      "<td>{r[\"from\"]}&ndash;{r[\"to\"] - 1}</td>", "the schedule table's batch ranges end one short (an exclusive end)"),
    M("dep-lead-best-speedup", "widgets/deployment.py",
      "speculation {verdict}: {_f(srv['speedup'])}x at lookahead {d.lookahead}",
      "speculation {verdict}: {_f(srv['bestSpeedup'])}x at lookahead {d.lookahead}",
      "the headline quotes the best k's speedup at the reader's lookahead"),
    M("dep-best-gap-rounded-down", "widgets/deployment.py", "gap = max(0.1, math.ceil(1000 *", "gap = max(0.1, math.floor(1000 *",
      "'faster by less than X%' rounded down, so the gap can exceed what it says"),
    M("dep-compare-columns-swapped", "widgets/deployment.py",
      "f\"{_f(row['ledgerVerifyMs'], 2)} ms at k = {row['lookahead']} (serving: \"\n                                f\"{_f(row['servingVerifyMs'], 2)} ms)\"",
      "f\"{_f(row['servingVerifyMs'], 2)} ms at k = {row['lookahead']} (serving: \"\n                                f\"{_f(row['ledgerVerifyMs'], 2)} ms)\"",
      "the differ sentence quotes the serving verify step as the ledger's and vice versa"),
    M("dep-rounded-sentence-sent-k", "widgets/deployment.py",
      "on the unrounded costs it agrees, best k = {result['servingSent']['bestLookahead']}",
      "on the unrounded costs it agrees, best k = {led['bestLookahead']}",
      "the rounding sentence's 'it agrees' names the rounded ledger's k"),
    M("dep-readout-alpha-whole", "widgets/deployment.py", '"alpha": f"{_f(100 * alpha, 1)}%"', '"alpha": f"{_f(100 * alpha, 0)}%"',
      "the alpha readout rounded to whole percent"),
    M("dep-readout-rate-is-alpha", "widgets/deployment.py", "\"rate\": f\"{_f(100 * units['acceptanceRate'], 1)}%\"",
      "\"rate\": f\"{_f(100 * alpha, 1)}%\"", "the acceptance-rate readout shows alpha"),
    M("dep-curve-rises-from-position-one", "widgets/deployment.py", "if len(rates) > 2 and rates[2] > rates[1] else",
      "if len(rates) > 2 and rates[1] > rates[0] else", "the curve sentence's 'rises with position' tested on positions 1-2"),
    M("dep-curve-length-at-measured", "widgets/deployment.py", "the mean acceptance length at k = {d.lookahead} is",
      "the mean acceptance length at k = {curve['measuredAt']} is", "the curve sentence labels the length with the measured k"),
    M("dep-live-ledger-is-sent", "widgets/deployment.py", "f\"; the ledger says {result['ledger']['bestLookahead']}\"",
      "f\"; the ledger says {result['servingSent']['bestLookahead']}\"", "the live line's ledger k read from the sent serving answer"),
    M("dep-realtext-largest-le", "widgets/deployment.py", "+ (\", its largest\" if values[\"realtext\"][\"rtLookahead\"] < k",
      "+ (\", its largest\" if values[\"realtext\"][\"rtLookahead\"] <= k", "the real-text hand-off says 'its largest' when k fits"),
    M("deploy-compare-serving-at-reader-k", "deployment.py",
      '[{"lookahead": k, "servingVerifyMs": step_times(d, k)["verify"],',
      '[{"lookahead": k, "servingVerifyMs": step_times(d)["verify"],',
      "the compared serving verify step priced at the reader's k, not each compared k"),
    M("deploy-clamped-limit-swapped", "deployment.py", "limits[name][0] if value < limits[name][0] else limits[name][1])",
      "limits[name][1] if value < limits[name][0] else limits[name][0])", "a clamped cost names the slider's other end"),
    M("deploy-curve-length-at-measured", "deployment.py", '"meanAcceptanceLength": curve.length(d.lookahead)',
      '"meanAcceptanceLength": curve.length(curve.measuredAt)', "the curve answer's length at the measured k, not the reader's"),
    M("production-largest-batch-first", "production.py", "return fits[-1] if fits else None", "return fits[0] if fits else None",
      "the TPOT target's largest batch is the smallest that meets it"),
    M("production-tpot-strict", "production.py", "if tpot <= target_ms]", "if tpot < target_ms]",
      "a batch exactly at the TPOT target counted as missing it"),
    M("production-target-k-batch-before", "production.py", '"scheduled": None if best_spec is None else terms(best_spec, ks[best_spec - 1][0],',
      '"scheduled": None if best_spec is None else terms(best_spec, ks[best_spec - 2][0],',
      "the TPOT target's scheduled row labelled with the k of the batch before"),
    M("production-rise-added-before-same", "production.py", '"addedMsBefore": added(batch - 1)', '"addedMsBefore": added(batch)',
      "the rise's verify cost at the batch before computed at the rise's batch"),
    M("production-ranges-start-zero", "production.py", "for batch, k in enumerate(ks, start=1):\n        if ranges",
      "for batch, k in enumerate(ks):\n        if ranges", "schedule_ranges counts batches from 0"),
    M("token-curve-measured-all", "acceptance.py",
      '"token", measuredAt=len(rates) if measured_at is None else measured_at)', '"token", measuredAt=len(rates))',
      "token_curve ignores the token's @m mark: every rate counted as measured"),
    M("extended-rates-cap-dropped", "acceptance.py", "return rates + [min(r, MAX_SENT_RATE) for r in",
      "return rates + [r for r in", "a received curve's continued rates may reach 1"),
    M("plateau-words-rise-from-one", "acceptance.py", "all(\n            b >= a for a, b in zip(rates[1:start], rates[2:start + 1]))",
      "all(\n            b >= a for a, b in zip(rates[0:start], rates[1:start + 1]))",
      "plateau_words' 'still rise' test includes position 1's rate (a fall from 1 to 2 is the rule's case)"),
    M("validation-table-ratio-neighbour", "serving_figures.py", "f'<td>{_f(r[\"ratio\"])}</td>'", "f'<td>{_f(r[\"predicted\"] / r[\"acceptanceLength\"])}</td>'",
      "the validation table's ratio cell divides by the neighbouring column (acceptance length)"),
    M("validation-table-measured-predicted-swapped", "serving_figures.py",
      '<td>{_f(r["measured"])}</td><td>{_f(r["predicted"])}</td>', '<td>{_f(r["predicted"])}</td><td>{_f(r["measured"])}</td>',
      "the validation table's measured and predicted columns swapped"),
    M("validation-dots-axes-swapped", "serving_figures.py", 'dots = [(sx(row["measured"]), sy(row["predicted"])) for row in rows]',
      'dots = [(sx(row["predicted"]), sy(row["measured"])) for row in rows]', "the validation figure's dots with the axes swapped"),
    M("validation-svg-label-swapped", "serving_figures.py", 'f"Row {i}: measured {_f(r[\'measured\'])}x, predicted {_f(r[\'predicted\'])}x."',
      'f"Row {i}: measured {_f(r[\'predicted\'])}x, predicted {_f(r[\'measured\'])}x."',
      "the validation figure's description swaps each row's measured and predicted"),
    M("trust-lean-direction-swapped", "widgets/serving.py", 'predicted above their measurement (optimistic)" if 2 * above > len(rows) else',
      'predicted above their measurement (optimistic)" if 2 * above < len(rows) else',
      "the trust line's lean on the wrong side of half"),
    M("trust-error-not-percent", "widgets/serving.py", "off by {_f(100 * middle_error, 0)}% (median)", "off by {_f(middle_error, 2)}% (median)",
      "the trust line's median error printed as a fraction with a % sign"),
    M("validation-engine-error-mean", "widgets/serving.py",
      '"medianError": _f(100 * e["medianAbsError"], 0), "above": e["above"]', '"medianError": _f(100 * e["medianAbsError"], 1), "above": e["above"]',
      "the per-engine summary's median error to one decimal where the page quotes whole percent"),
    M("held-out-step-direction-flipped", "widgets/serving.py", '"direction": "slow" if row["ratio"] > 1 else "fast"}\n                             for row in held]',
      '"direction": "fast" if row["ratio"] > 1 else "slow"}\n                             for row in held]', "a held-out step too long called fast"),
    M("held-out-predicted-one-two-swapped", "acceptance_table.py",
      "f'<td>{a[\"predicted\"]:.2f} ({signed(a[\"error\"])})</td>", "f'<td>{b[\"predicted\"]:.2f} ({signed(b[\"error\"])})</td>",
      "the held-out table's from-k=1 cell reads the k=1..2 prediction"),
    M("held-out-caption-iid-swapped", "acceptance_table.py",
      "f\"{100 * two['medianError']:.1f}% against {100 * two['medianIidError']:.1f}%, closer on",
      "f\"{100 * two['medianIidError']:.1f}% against {100 * two['medianError']:.1f}%, closer on",
      "the held-out caption's k = 1..2 errors swapped (the model's and i.i.d.'s)"),
    M("held-out-family-k1-is-two", "acceptance_table.py", "f\"median error {100 * one['byFamily'][f]['medianError']:.1f}% from k = 1 and \"",
      "f\"median error {100 * two['byFamily'][f]['medianError']:.1f}% from k = 1 and \"",
      "the by-family note's from-k=1 error read from the k=1..2 run"),
    # --- the fourth outsider (branch plant4, 6 December 2026): the acceptance model's arithmetic and words, the trace
    # readers as the traces widget uses them, the URL state, the ledger and the exact sampler, the trees, the
    # policies and real text
    M("measured-plateau-last-k", "acceptance.py", "for index, (k, length) in enumerate(given[:-1]):",
      "for index, (k, length) in enumerate(given):",
      "_measured_plateau scans the last given k too (no later length to compare: every lengths curve 'plateaus' there)"),
    M("plateau-measured-dropped-at-end", "acceptance.py", "            return k - 1 if found is None else min(found, k - 1)\n    return found",
      "            return k - 1 if found is None else min(found, k - 1)\n    return None",
      "plateau_start forgets the measured plateau when the curve's survival never falls below the gain"),
    M("best-k-extrapolated-from-uncapped", "acceptance.py", '"extrapolatedFrom": curve.extrapolated_from(best_k),',
      '"extrapolatedFrom": curve.extrapolated_from(unlimited),',
      "best_lookahead's 'extrapolated past position N' read at the uncapped k, not the k it returns"),
    M("iid-alpha-length-not-accepted", "acceptance.py", "return ledger.alpha_iid(length - 1, at)",
      "return ledger.alpha_iid(length, at)", "iid_alpha solves the i.i.d. sum for the whole length (its +1 kept)"),
    M("report-iid-alpha-at-reader-k", "acceptance.py", "anchor = min(lookahead, curve.measuredAt or lookahead)",
      "anchor = lookahead", "the report's i.i.d. alpha solved at the reader's k, not at the last measured lookahead"),
    M("measured-tail-unconditional", "acceptance.py", "out.append(step / survival if survival > 0 else 0.0)",
      "out.append(step)", "_measured_tail appends the measured survival (unconditional) as a conditional rate"),
    M("two-lengths-prior-fall-for-drop", "acceptance.py",
      "c = SECOND_WEIGHT * c_measured + (1 - SECOND_WEIGHT) * point[0]",
      "c = SECOND_WEIGHT * c_measured + (1 - SECOND_WEIGHT) * point[1]",
      "from_lengths at k = 1, 2 weights the measured drop against the prior's fall d, not its drop c"),
    M("single-prior-two-figures", "acceptance.py", "point = prior(method, exclude, _first_rate(length, at, point), figures=1)[0]",
      "point = prior(method, exclude, _first_rate(length, at, point), figures=2)[0]",
      "from_single takes the prior's point for two figures (the pooled mode) after solving r_1"),
    M("prior-note-at-three-strict", "acceptance.py", "if count >= MIN_FAMILY_CURVES:\n        return None",
      "if count > MIN_FAMILY_CURVES:\n        return None",
      "_prior_note says a family of exactly MIN_FAMILY_CURVES curves has too few"),
    M("interval-reach-plus-one", "acceptance_rates.py", "return residual_interval(point, k - self.measuredAt, RESIDUAL_QUANTILES",
      "return residual_interval(point, k - self.measuredAt + 1, RESIDUAL_QUANTILES",
      "Curve.interval widens over one position more than it extrapolates"),
    M("interval-figures-swapped", "acceptance_rates.py", 'return 1 if self.source == "single" or self.measuredAt == 1 else 2',
      'return 2 if self.source == "single" or self.measuredAt == 1 else 1',
      "Curve.figures keys one figure's quantiles to two figures and back (the interval's band swapped)"),
    M("lengths-of-from-k-zero", "acceptance_rates.py", "return [mean_acceptance_length(rates, k) for k in range(1, len(rates) + 1)]",
      "return [mean_acceptance_length(rates, k) for k in range(len(rates))]",
      "lengths_of starts at k = 0 (every length one position early)"),
    M("shape-of-drop-unconditional", "acceptance_prior.py", "max(0.0, (lengths[1] - lengths[0]) / r1 / r1))",
      "max(0.0, (lengths[1] - lengths[0]) / r1))", "shape_of's drop c taken as r_2 (L(2) - L(1) over r_1 once), not r_2 / r_1"),
    M("copy-ceiling-max-level", "acceptance_prior.py", "return median(levels) if levels else 1.0",
      "return max(levels) if levels else 1.0", "copy_ceiling takes the highest copy level of the group, not the median"),
    M("drafter-weights-per-curve", "acceptance_prior.py", "return [1.0 / groups.count(group) for group in groups]",
      "return [1.0 for group in groups]", "the prior gives every library curve a vote (a drafter measured nine times votes nine times)"),
    M("lengths-kept-two-decimals", "acceptance_prior.py", "out.append(round(total, 12))", "out.append(round(total, 2))",
      "an engine curve's lengths kept to 2 decimals (the library's printed-rate curves move)"),
    M("measured-mark-past-rates", "acceptance_text.py", "1 <= int(after) <= count):", "1 <= int(after) <= count + 1):",
      "split_measured admits a measured mark one past the rates the token carries"),
    M("curve-token-three-decimals", "acceptance.py", 'body = ",".join(to_fixed(min(r, MAX_SENT_RATE), 4) for r',
      'body = ",".join(to_fixed(min(r, MAX_SENT_RATE), 3) for r', "the curve token's rates rounded to 3 decimals"),
    M("lengths-bound-k", "acceptance_text.py", "if not (math.isfinite(value) and 1 <= value <= k + 1):\n            raise LabValueError(f\"{what}: the length",
      "if not (math.isfinite(value) and 1 <= value <= k):\n            raise LabValueError(f\"{what}: the length",
      "parse_lengths refuses lengths above k (the bound without the verifier's +1)"),
    # lab/traces: the readers and the analysis the traces widget shows
    M("reconstruct-truncates", "traces/common.py", "return [int(math.floor(rate * drafts + 0.5)) for rate in rates]",
      "return [int(rate * drafts) for rate in rates]", "counts rebuilt from printed rates truncated, not rounded"),
    M("cycles-position-off-by-one", "traces/plain.py", "if value >= i) for i in range(1, lookahead + 1))",
      "if value > i) for i in range(1, lookahead + 1))", "a cycles file's c_i counts calls that accepted more than i (one position late)"),
    M("rate-over-calls", "traces/analysis.py", "return 1 + mean_accepted, mean_accepted, trace.accepted / trace.draftTokens if trace.draftTokens else None",
      "return 1 + mean_accepted, mean_accepted, trace.accepted / trace.drafts if trace.draftTokens else None",
      "the engines' acceptance rate taken over the calls, not the drafted tokens"),
    M("printed-mean-rate-keeps-one", "traces/analysis.py", "return mean_length, mean_accepted, mean_accepted / trace.lookahead",
      "return mean_length, mean_accepted, mean_length / trace.lookahead",
      "a format that prints only the mean: its acceptance rate keeps the verifier's token"),
    M("mle-rejections-from-first", "traces/analysis.py", "alpha_mle(sum(c), n - c[-1])", "alpha_mle(sum(c), n - c[0])",
      "alphaMle's rejected calls counted as those failing position 1, not those that did not reach k"),
    M("measured-curve-unreached-zero", "traces/analysis.py", "curve.append(rate if rate is not None else (curve[-1] if curve else 0.0))",
      "curve.append(rate if rate is not None else 0.0)", "a position nobody reached sent as 0, not the rate before it"),
    M("verdict-trend-flipped", "traces/analysis.py", 'trend = "falls" if last < first else "rises"',
      'trend = "falls" if last > first else "rises"', "the independence verdict's rises/falls the wrong way round"),
    M("v0-accepted-is-emitted", "traces/common.py", "    accepted = emitted - calls\n", "    accepted = emitted\n",
      "vLLM V0's accepted prefix keeps each call's own emitted token"),
    M("v1-coverage-last-window", "traces/vllm.py",
      "tally.covered = reached if tally.covered is None else [a + b for a, b in zip(tally.covered, reached)]",
      "tally.covered = reached", "the drafted tokens per position kept from the last SpecDecoding line only, not summed"),
    M("llamacpp-rate-keeps-one", "traces/translator.py", '"llamacppDraftAcceptanceRate": mean_accepted / lookahead}',
      '"llamacppDraftAcceptanceRate": (1 + mean_accepted) / lookahead}',
      "the translator's llama.cpp draft acceptance rate counts the verifier's token"),
    # lab/urlstate.py: the sliders' clamps and the links
    M("clamp-integer-rounds-down", "urlstate.py", "value = math.floor(value + 0.5)", "value = math.floor(value)",
      "an integer slider's value rounded down, not to the nearest (4.6 -> 4)"),
    M("note-largest-smallest-swapped", "urlstate.py",
      'which = "more than the largest" if number > slider.maximum else "less than the smallest"',
      'which = "less than the smallest" if number > slider.maximum else "more than the largest"',
      "a clamped value's note says 'less than the smallest' for a value above the range"),
    M("typed-twin-kept-after-slider-moved", "urlstate.py", "if exponent_given and nearest != exponent:\n        return stop, exponent, None",
      "if exponent_given and nearest != exponent:\n        return count, exponent, None",
      "a log slider's typed count kept though the slider moved to another stop"),
    M("log-stop-floors", "urlstate.py", "return round(math.log(count, base))", "return int(math.log(count, base))",
      "a log slider's stop for a count floored, not the nearest (48 -> 2^5)"),
    M("format-query-by-name", "urlstate.py", 'return "&".join(f"{slider.key}={to_js_string(params[slider.name])}"',
      'return "&".join(f"{slider.name}={to_js_string(params[slider.name])}"',
      "a link writes each slider under its form name, not its URL key (the other widget's slider reads it)"),
    M("panel-link-no-default-k", "urlstate.py",
      'if pairs.get("trcLookahead") != pairs.get(PANEL_MEASURED_K_KEY, str(PANEL_DEFAULT_MEASURED_K)):',
      'if pairs.get("trcLookahead") != pairs.get(PANEL_MEASURED_K_KEY):',
      "a panel link without depMeasuredK no longer reads as the panel's default k"),
    # lab/ledger.py, lab/exact.py, lab/sampler.py: part one and the exact sampler
    M("ledger-verify-tax-every-token", "ledger.py", "return target_ms * (1 + (lookahead - 1) * verify_tax / 100)",
      "return target_ms * (1 + lookahead * verify_tax / 100)", "the verify tax charged on every draft, not each beyond the first"),
    M("heatmap-costs-at-reader-k", "ledger.py", "speedups.append(target / (cycle_costs(settings, k)[2] / (1 + accepted)))",
      "speedups.append(target / (cycle_costs(settings, settings.lookahead)[2] / (1 + accepted)))",
      "the heatmap's columns priced at the reader's lookahead, not their own"),
    M("curve-tail-first-rate", "ledger.py", "survival *= conditional[min(position, len(conditional) - 1)]",
      "survival *= conditional[position % len(conditional)]",
      "the measured-curve ledger wraps past the curve (rate 1 again) instead of repeating the last rate"),
    M("summary-alpha-visits-floor", "exact.py", "visits = (length - slot + period - 1) // period",
      "visits = (length - slot) // period", "summary_alpha counts one visit too few for a slot the last cycle reaches"),
    M("exact-theory-cost-percent", "exact.py", '"theoreticalSpeedup": leviathan_speedup(alpha, lookahead, cost),',
      '"theoreticalSpeedup": leviathan_speedup(alpha, lookahead, params["draftCost"]),',
      "the theoretical speedup given the draft cost in percent, not as a fraction"),
    M("exact-tokens-per-call-overshoot", "exact.py", '"tokensPerTargetCall": n / trace.targetCalls,',
      '"tokensPerTargetCall": len(trace.tokens) / trace.targetCalls,',
      "tokens per target call counts the run's written tokens, not the length asked",
      benign="equivalent: the run writes exactly the length asked (lab.sampler.generate_trace drafts k = min(lookahead, "
             "remaining - 1), so no call commits past it): len(trace.tokens) is n"),
    M("sampler-ratio-inverted", "sampler.py", "return min(ONE, p_x / q_x)", "return min(ONE, q_x / p_x)",
      "the acceptance rule's ratio written q / p"),
    # lab/trees.py, lab/trees_depth.py
    M("rank-probabilities-no-survival", "trees.py", "probs.append(survive * passes)", "probs.append(passes)",
      "a lower-rank candidate's chance not multiplied by the chance the ones before it failed"),
    M("depth-level-reads-next-position", "trees.py",
      "return tuple(rank_probabilities(rates[min(level, len(rates) - 1)], decay, ranks) for level in range(depth))",
      "return tuple(rank_probabilities(rates[min(level + 1, len(rates) - 1)], decay, ranks) for level in range(depth))",
      "tree level i reads the curve's position i + 1"),
    M("tree-draft-pass-per-node", "trees.py", "draft_passes=depth - 1,", "draft_passes=nodes - 1,",
      "a tree's draft cost one pass per node, not per level"),
    M("chain-value-one-more", "trees.py", "return expected_tokens_per_call(top1, nodes - 1) if nodes > 0 else 0.0",
      "return expected_tokens_per_call(top1, nodes) if nodes > 0 else 0.0", "a chain of n nodes valued as k = n drafts"),
    M("tree-verify-over-nodes", "trees.py", "return _ledger_verify_ms(max(1, nodes - 1), target_ms, verify_tax)",
      "return _ledger_verify_ms(max(1, nodes), target_ms, verify_tax)", "a tree's verify taxed over every node, the root too"),
    # lab/policies.py
    M("policies-wasted-per-call", "policies.py", '"wastedPerToken": _non_negative(mean_drafts - accepted) / mean_tokens,',
      '"wastedPerToken": _non_negative(mean_drafts - accepted),', "wasted drafts per call shown as per token"),
    M("oracle-curve-tail-extra", "policies.py", "expected += survive * last / (1 - last)",
      "expected += survive / (1 - last)", "the oracle's tail past the curve counts one survivor too many"),
    M("depth-curve-rate-first", "policies.py", "(sum(curve) / len(curve),), ((),), depth_rates=curve,",
      "(curve[0],), ((),), depth_rates=curve,", "a depth curve's one rate is its first, not its mean",
      benign="equivalent: a depth curve's Process.rates is never read (alpha, max_alpha, tail_alpha, the oracle and the "
             "simulation read depth_rates; the widget's mean-rate sentence is the toy model's and the good/bad one the "
             "bursty model's)"),
    M("bursty-good-bad-swapped", "policies.py", "return alpha + contrast * (1 - alpha), alpha * (1 - contrast)",
      "return alpha * (1 - contrast), alpha + contrast * (1 - alpha)", "the good and bad stretches' rates swapped"),
    # lab/realtext*.py
    M("realtext-predicted-from-iid", "realtext.py", 'expected_tokens_per_call(analysis["alphaMle"], k)',
      'expected_tokens_per_call(analysis["alphaIid"], k)',
      "the run's predicted tokens per call from alphaIid (which reproduces the run), not alphaMle"),
    M("realtext-length-no-plus-one", "realtext.py", '"meanAcceptanceLength": 1 + accepted / calls if calls else 0.0,',
      '"meanAcceptanceLength": accepted / calls if calls else 0.0,', "a real-text run's mean acceptance length without its +1"),
    M("prompt-lookup-skips-start", "realtext_rule.py", "for start in range(0, length - n):",
      "for start in range(1, length - n):", "prompt lookup never matches at the text's first token"),
    M("bonus-from-last-draft-row", "realtext_rule.py", "committed.append(sample(p_rows[len(drafts)], rng))",
      "committed.append(sample(p_rows[len(drafts) - 1], rng))", "the bonus token drawn from the last draft's row, not the row after it"),
    M("buggy-output-from-p", "sampler.py", "return tuple(k + rejected * q_x for k, q_x in zip(kept, _probs(q)))",
      "return tuple(k + rejected * q_x for k, q_x in zip(kept, _probs(p)))",
      "the plausible bug's computed law redraws from p, not q (the exact lab's wrongTv and its ticks)"),
    M("rates-token-three-decimals", "acceptance_text.py", 'return "custom:" + ",".join(to_fixed(r, 4) for r in rates)',
      'return "custom:" + ",".join(to_fixed(r, 3) for r in rates)', "the trace reader's curve token rounded to 3 decimals"),
    M("nearest-half-takes-one-more", "acceptance_prior.py", "if total >= sum(weights) / 2 - 1e-12)]",
      "if total > sum(weights) / 2)]", "nearest_by takes one curve more when the nearest reach exactly half the votes"),
    M("depth-aware-levels-short", "trees_depth.py", "probs = trees.depth_rank_probabilities(rates, decay / 100, drafts, max(1, max_depth - 1))",
      "probs = trees.depth_rank_probabilities(rates, decay / 100, drafts, max(1, max_depth - 2))",
      "the depth-aware tree gets one level of the curve fewer than its depth allows"),
    M("sim-stderr-population", "policies_simulation.py", "/ (len(ratios) - 1)) if len(ratios) > 1 else math.inf",
      "/ len(ratios)) if len(ratios) > 1 else math.inf", "the simulation's batch-means error divides by n, not n - 1",
      benign="equivalent for a reader: no widget or CLI shows the simulation's standard error; only the check "
             "exact-agrees-with-simulation reads it, as its tolerance (about 2.5% narrower here, and still met)"),
    M("strip-heuristic-plus-one", "policies_simulation.py", "        k = k + 2 if full else max(1, k - 1)\n",
      "        k = k + 1 if full else max(1, k - 1)\n", "the heuristic's strip grows k by 1 after a full block, not 2"),
    M("sim-oracle-tokens-no-bonus", "policies_simulation.py", "        return j + 1, j, False\n",
      "        return j, j, False\n", "the simulated oracle's cycle commits its survivors without the verifier's token"),
    M("independence-df-all-positions", "traces/analysis.py", "df = max(0, used - 1)", "df = max(0, used)",
      "the independence test's degrees of freedom count every position (one rate is fitted, so one fewer)"),
)


class Refused(Exception):
    """A mutation whose snippet is not in its file exactly once (the list has rotted)."""


def validate(mutations, lab_dir: Path) -> None:
    """Every mutation's file exists and holds its snippet exactly once, names are unique and the replacement differs;
    else :class:`Refused`, naming every bad entry."""
    problems, seen = [], set()
    for m in mutations:
        if m.name in seen:
            problems.append(f"{m.name}: the name is used twice")
        seen.add(m.name)
        path = lab_dir / m.file
        if not path.is_file():
            problems.append(f"{m.name}: lab/{m.file} does not exist")
            continue
        count = path.read_text(encoding="utf-8").count(m.original)
        if count != 1:
            problems.append(f"{m.name}: its snippet occurs {count} times in lab/{m.file}, not once: {m.original[:70]!r}")
        if m.original == m.replacement:
            problems.append(f"{m.name}: the replacement equals the original")
    if problems:
        raise Refused("refused (fix the list in tools/mutation_sweep.py):\n  " + "\n  ".join(problems))


def run_suite(copy_root: Path, timeout: float = RUN_TIMEOUT_S) -> dict:
    """Run the instruments suite on the copy (its ``lab`` first on the path) and read its result."""
    env = dict(os.environ, PYTHONPATH=str(copy_root), PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
    started = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-B", "-m", "lab", "audit", "--suite", "instruments"], cwd=copy_root,
                              env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "failures": [], "counter": None, "seconds": time.monotonic() - started}
    counter = COUNTER.search(done.stdout)
    return {"status": "passed" if done.returncode == 0 else "failed", "returncode": done.returncode,
            "counter": counter.group(0) if counter else None, "failures": FAILED.findall(done.stdout),
            "stderr": done.stderr.strip().splitlines()[-1:] if done.returncode and not counter else [],
            "seconds": time.monotonic() - started}


def _copy_lab(destination: Path) -> Path:
    shutil.copytree(ROOT / "lab", destination / "lab", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return destination / "lab"


def sweep(mutations, log=print, timeout: float = RUN_TIMEOUT_S) -> list[dict]:
    """Run the suite once unmutated (it must pass, from the copy) and once per mutation; one dict per mutation:
    name, file, why, killed (bool), and the suite's counter and failing checks."""
    validate(mutations, ROOT / "lab")
    results = []
    with tempfile.TemporaryDirectory(prefix="mutation-sweep-") as tmp:
        root = Path(tmp)
        lab_dir = _copy_lab(root)
        where = subprocess.run([sys.executable, "-B", "-c", "import lab; print(lab.__file__)"], cwd=root,
                               env=dict(os.environ, PYTHONPATH=str(root)), capture_output=True, text=True)
        if not where.stdout.strip().startswith(str(root)):
            raise SystemExit(f"the copy's lab is not the one imported: {where.stdout.strip() or where.stderr.strip()}")
        baseline = run_suite(root, timeout)
        log(f"unmutated: {baseline['counter']} ({baseline['seconds']:.1f} s)")
        if baseline["status"] != "passed":
            raise SystemExit(f"the unmutated suite does not pass on the copy: {baseline}")
        for index, m in enumerate(mutations, start=1):
            path = lab_dir / m.file
            source = path.read_text(encoding="utf-8")
            path.write_text(source.replace(m.original, m.replacement, 1), encoding="utf-8")
            try:
                outcome = run_suite(root, timeout)
            finally:
                path.write_text(source, encoding="utf-8")
            killed = outcome["status"] != "passed"
            results.append({"name": m.name, "file": m.file, "why": m.why, "killed": killed, "benign": m.benign, **outcome})
            by = ", ".join(outcome["failures"][:3]) or outcome["status"]
            verdict = "killed  " if killed else "benign  " if m.benign else "SURVIVED"
            log(f"[{index}/{len(mutations)}] {verdict} {m.name} ({m.file}): "
                f"{by if killed else outcome['counter']} ({outcome['seconds']:.1f} s)"
                + (" -- killed though listed as benign: reread its reason" if killed and m.benign else ""))
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Mutation sweep of the instruments suite (docs/CHECKS.md).")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run these mutations only")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    parser.add_argument("--check", action="store_true", help="check every snippet occurs once and exit")
    parser.add_argument("--json", metavar="FILE", help="also write the results to FILE as JSON")
    args = parser.parse_args(argv)
    chosen = list(MUTATIONS)
    if args.only:
        names = {m.name for m in MUTATIONS}
        unknown = [name for name in args.only if name not in names]
        if unknown:
            print(f"unknown mutation {', '.join(unknown)}; valid: {', '.join(sorted(names))}", file=sys.stderr)
            return 2
        chosen = [m for m in MUTATIONS if m.name in args.only]
    if args.list:
        for m in chosen:
            print(f"{m.name:34} lab/{m.file:24} {m.why}" + (f" [benign: {m.benign}]" if m.benign else ""))
        return 0
    try:
        validate(chosen, ROOT / "lab")
    except Refused as error:
        print(error, file=sys.stderr)
        return 2
    if args.check:
        print(f"{len(chosen)} mutations, every snippet found once")
        return 0
    results = sweep(chosen)
    survivors = [r["name"] for r in results if not r["killed"] and not r["benign"]]
    benign = [r["name"] for r in results if not r["killed"] and r["benign"]]
    killed = sum(r["killed"] for r in results)
    print(f"{killed}/{len(results)} mutations killed; benign (equivalent) survivors: {', '.join(benign) or 'none'}; "
          f"survivors: {', '.join(survivors) or 'none'}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
