"""The serving instrument's checks of suffix decoding, the memory fit and the notes a setting prints: each holds the
model to a rule written out again here (the engines that run a draft, a proposer's price as quoted, an engine's memory
default as read in its code, the side of a threshold a note fires on, the number a note or lead quotes), so a mistake
made once in the model is not repeated in the check. Planted mistakes no earlier check saw (tools/mutation_sweep.py,
docs/CHECKS.md "The mutation sweep") are what they were written for. Apart from :mod:`lab.checks.serving` so that
module stays under the thousand lines a lab module may have; the family's CHECKS name them there.
"""

import re

from .. import serving, serving_calibration
from ..acceptance_text import MAX_POSITIONS
from ..errors import LabValueError
from ..serving_engine_memory import MIB, engine_memory_bytes, sgl_mem_fraction_static
from ..serving_moe import MOE_LAYER_US, moe_layer_us
from ..serving_mtp import mtp_step_extras
from ..serving_suffix import engine_running, plugin_batch_note, suffix_proposal_ms
from . import close

__all__ = ["suffix_as_read", "memory_as_read", "notes_as_read"]


# --- suffix decoding ----------------------------------------------------------------------------------------------

# As read (lab/serving_suffix.py's sources, restated): the engines whose code runs suffix decoding, each with the
# Python loops over the batch its code runs a cycle (vLLM V1's SuffixDecodingProposer.propose: one; Arctic Inference's
# plugin on vLLM 0.10.1: _update_suffix_cache, then propose_suffix_draft_token_ids, two); today's vLLM V1 the one a
# refused engine is priced on; the plugin's default disable_by_batch_size.
SUFFIX_RUNS_ON = {"vllm-v1": 1, "vllm-v1-0.10": 2}
SUFFIX_FALLBACK = "vllm-v1"
PLUGIN_ENGINE, PLUGIN_LIMIT = "vllm-v1-0.10", 64
# ArcticInference pull request 212's simulator row (ms a token, tokens a call): speculate 0.006288 ms x 3.260117
# speculated tokens; update 0.004126 ms x the 0.693407 accepted tokens plus the bonus token a step appends; and the
# 2 us of Python a request a loop the lab assumes.
SPECULATE_MS, SPECULATED = 0.006288, 3.260117
UPDATE_MS, ACCEPTED = 0.004126, 0.693407
LOOP_MS = 0.002


def _suffix_ms(engine: str, batch: int) -> float:
    """One cycle's proposal, ms, summed here: a request's speculate and update calls and its loops, times the batch."""
    return batch * (SPECULATE_MS * SPECULATED + UPDATE_MS * (ACCEPTED + 1) + SUFFIX_RUNS_ON[engine] * LOOP_MS)


def suffix_as_read(out):
    """Suffix decoding as read in the engines' code: its proposal, B (speculate + update + m loops) a cycle summed here
    from the quoted figures, runs on vLLM V1 (m = 1) and 0.10.1's plugin (m = 2) alone and is what the cycle pays;
    the plugin's past-64 note fires there alone, in the model and both widgets."""
    # Also: every other engine refuses suffix decoding (a LabValueError naming why) and a widget prices it on today's
    # vLLM V1 with a note naming that engine; every other draft runs on every engine; batches 1 to 512; the widgets at
    # batch 128.
    for engine in serving_calibration.ENGINES:
        out.visited += 1
        runs = engine in SUFFIX_RUNS_ON
        for draft in serving.DRAFT_NAMES:
            problem = serving.draft_engine_problem(draft, engine)
            if bool(problem) != (draft == serving.SUFFIX and not runs):
                out.fail(f"{draft} on {engine}: refused {bool(problem)}, but {engine} runs "
                         f"{'it' if draft != serving.SUFFIX or runs else 'no suffix proposer'}")
        if runs:
            for batch in (1, 3, 64, 65, 512):
                got = suffix_proposal_ms(engine, batch)
                if not close(got, _suffix_ms(engine, batch)):
                    out.fail(f"suffix decoding's proposal on {engine} at batch {batch}: {got!r} ms, summed here "
                             f"{_suffix_ms(engine, batch)!r} ms")
            settings = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, draft=serving.SUFFIX, engine=engine,
                                                      gpus=1, target="llama-3-8b")
            if not close(serving.model_free_cycle_ms(settings, 64, 8192), _suffix_ms(engine, 64)):
                out.fail(f"the calibrated cycle on {engine} pays {serving.model_free_cycle_ms(settings, 64, 8192)!r} ms "
                         f"for suffix decoding's proposal at batch 64, not {_suffix_ms(engine, 64)!r}")
            priced = engine_running(serving.SUFFIX, engine)
            if priced != (engine, ""):
                out.fail(f"suffix decoding on {engine}, which runs it, is priced as {priced}")
        else:
            try:
                suffix_proposal_ms(engine, 8)
                out.fail(f"suffix decoding's proposal priced on {engine}, which has no suffix proposer")
            except LabValueError:
                pass
            priced, note = engine_running(serving.SUFFIX, engine)
            label = serving_calibration.ENGINES[SUFFIX_FALLBACK].label
            if priced != SUFFIX_FALLBACK or not note.endswith(f"priced on {label} instead"):
                out.fail(f"suffix decoding asked of {engine} is priced on {priced} with the note {note[-60:]!r}, "
                         f"not on {SUFFIX_FALLBACK} ({label}) with a note naming it")
        for batch in (1, PLUGIN_LIMIT - 1, PLUGIN_LIMIT, PLUGIN_LIMIT + 1, 1024):
            note = plugin_batch_note(serving.SUFFIX, engine, batch)
            fires = engine == PLUGIN_ENGINE and batch > PLUGIN_LIMIT
            if bool(note) != fires or (fires and f"at batch {batch:,} " not in note):
                out.fail(f"the plugin's batch note on {engine} at batch {batch}: {note[:50]!r}, expected "
                         f"{'a note naming the batch' if fires else 'none'}")
            said = serving.setting_notes("llama-3-8b", serving.SUFFIX, engine, batch)
            if (note in said) != fires or plugin_batch_note(serving.NGRAM, engine, batch):
                out.fail(f"the setting's notes on {engine} at batch {batch} carry the plugin's note: {note in said}")
    _widgets_name_the_plugin(out)


def _widgets_name_the_plugin(out):
    """Both widgets at batch 128 with suffix decoding on vLLM 0.10.1 print the plugin's note for that batch, and the
    serving widget asked for suffix decoding on SGLang prices it on today's vLLM V1 and says so."""
    from ..widgets import deployment as panel, serving as widget

    expected = plugin_batch_note(serving.SUFFIX, PLUGIN_ENGINE, 128)
    for name, view in (("serving widget", widget.view({"draft": serving.SUFFIX, "engine": PLUGIN_ENGINE, "batchExp": "7"})),
                       ("deployment panel", panel.view({"draft": serving.SUFFIX, "engine": PLUGIN_ENGINE, "batchExp": "7"}))):
        out.visited += 1
        if expected not in view["notes"]:
            out.fail(f"the {name} at batch 128 with suffix decoding on vLLM 0.10.1 does not print the plugin's note: "
                     f"{view['notes']}")
    view = widget.view({"draft": serving.SUFFIX, "engine": "sglang"})
    out.visited += 1
    if view["params"]["engine"] != SUFFIX_FALLBACK or not any(note.startswith("Engine: sglang") for note in view["notes"]):
        out.fail(f"the serving widget asked for suffix decoding on SGLang prices it on {view['params']['engine']} "
                 f"with the notes {view['notes']}")


# --- the memory fit -----------------------------------------------------------------------------------------------

def _sglang_fraction(memory_bytes: float, tp: int, kind: str) -> float:
    """SGLang's default mem_fraction_static, written out again from server_args.py's _handle_gpu_memory_settings (sglang
    pull request 10975): by the GPU's memory in MiB a chunked-prefill size and a CUDA-graph batch (the larger from TP
    4), a reserve of 512 + 1.5 max(chunk, 2048) + 2 graphs + tp/8 GiB, at least 10 GiB above 60 GiB, plus 2 GiB for an
    EAGLE or MTP draft and 6 GiB for a draft model."""
    mib = memory_bytes / MIB
    buckets = ((20, 2048, 8, 8), (35, 2048, 24, 80), (60, 4096, 32, 160), (160, 8192, 256, 512))
    chunk, graphs = next(((c, big if tp >= 4 else small) for top, c, small, big in buckets if mib < top * 1024),
                         (16384, 512))
    reserved = 512 + 1.5 * max(chunk, 2048) + 2 * graphs + tp * 1024 / 8
    if mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    reserved += {"eagle": 2048, "model": 6144, "ngram": 0}[kind]
    return round((mib - reserved) / mib, 3)


def _reserve_kind(draft: str) -> str:
    """SGLang's reserve for a draft: a model-free proposer none, an EAGLE-style head an EAGLE draft's, else a model's."""
    if draft in (serving.NGRAM, serving.SUFFIX):
        return "ngram"
    return "eagle" if draft in (serving.EAGLE, serving.EAGLE3) else "model"


def memory_as_read(out):
    """The memory each engine's defaults give the model, as read in its code (vLLM 0.9 of each GPU, TensorRT-LLM the
    weights plus 0.9 of the rest, SGLang's mem_fraction_static rule), each model's weights in its own precision, k + 1
    state copies a sequence, and the notes' numbers: need, capacity, the sequences that fit (rounded down), the fewest GPUs."""
    # SGLang's rule by GPU memory (24, 48, 80, 192 GB), TP size (1, 2, 4, 8) and the draft's reserve (none for a
    # model-free proposer, an EAGLE draft's for EAGLE and EAGLE-3 heads, a model's for a draft model); a tree keeps its n
    # state copies; the serving widget's whole-sequence count, and its lead where not even the weights fit quoting the
    # weights alone.
    for memory in (24e9, 48e9, 80e9, 192e9):
        for gpus in (1, 2, 4, 8):
            out.visited += 1
            total, weights = memory * gpus, 0.3 * memory * gpus
            expected = {"vllm": 0.9 * total, "trtllm": weights + 0.9 * (total - weights)}
            for rule, value in expected.items():
                if not close(engine_memory_bytes(rule, memory, gpus, weights), value):
                    out.fail(f"{rule} gives {engine_memory_bytes(rule, memory, gpus, weights)!r} B of {gpus} x "
                             f"{memory / 1e9:.0f} GB, not {value!r}")
            for kind in ("eagle", "model", "ngram"):
                if sgl_mem_fraction_static(memory, gpus, kind) != _sglang_fraction(memory, gpus, kind):
                    out.fail(f"SGLang's mem_fraction_static on {gpus} x {memory / 1e9:.0f} GB ({kind}): "
                             f"{sgl_mem_fraction_static(memory, gpus, kind)}, the rule gives "
                             f"{_sglang_fraction(memory, gpus, kind)}")
    for gpu, gpus, draft in (("h100-sxm", 1, serving.EAGLE3), ("h100-sxm", 4, serving.EAGLE), ("l40s", 2, "llama-3.2-1b"),
                             ("rtx-4090", 8, serving.SUFFIX), ("b200", 8, "qwen3-0.6b")):
        out.visited += 1
        s = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, engine="sglang", gpu=gpu, gpus=gpus, draft=draft,
                                           target="qwen3-8b")
        memory = serving.GPUS[gpu].memory
        expected = memory * gpus * _sglang_fraction(memory, gpus, _reserve_kind(draft))
        if not close(serving.memory_available_bytes(s), expected):
            out.fail(f"SGLang's memory for {draft} on {gpus} x {gpu}: {serving.memory_available_bytes(s)!r} B, not "
                     f"{expected!r} (its reserve: {_reserve_kind(draft)})")
    _weights_in_their_precisions(out)
    _notes_quote_the_fit(out)


def _weights_in_their_precisions(out):
    """The weights held and a batch's caches, each model in its own precision; k + 1 state copies a sequence."""
    for precision, draft_precision in (("fp8", "bf16"), ("bf16", "fp8"), ("fp4", "bf16")):
        out.visited += 1
        s = serving.DEFAULT_SETTINGS.with_(target="llama-3-8b", draft="llama-3.2-1b", precision=precision,
                                           draftPrecision=draft_precision, gpus=1, stepModel=serving.MEASURED)
        target, draft = serving.TARGETS["llama-3-8b"], serving.DRAFTS["llama-3.2-1b"]
        held = (serving.weight_bytes(target, serving.PRECISIONS[precision])
                + serving.weight_bytes(draft, serving.PRECISIONS[draft_precision]))
        if not close(serving.memory_needed_bytes(s, batch=0), held):
            out.fail(f"{precision} target, {draft_precision} draft: the memory fit holds "
                     f"{serving.memory_needed_bytes(s, batch=0)!r} B of weights, not {held!r}")
        caches = (serving.kv_bytes_per_sequence(target, serving.PRECISIONS[precision], 4096, 5)
                  + serving.kv_bytes_per_sequence(draft, serving.PRECISIONS[draft_precision], 4096, 5))
        if not close(serving.memory_needed_bytes(s, batch=8, context=4096) - held, 8 * caches, 1e-9):
            out.fail(f"{precision} target, {draft_precision} draft: 8 caches at 4096 cost "
                     f"{serving.memory_needed_bytes(s, batch=8, context=4096) - held!r} B, not {8 * caches!r}")
    for k in (1, 4, 12):
        out.visited += 1
        s = serving.DEFAULT_SETTINGS.with_(target="qwen3-next-80b-a3b", lookahead=k)
        if serving.state_slots(s) != k + 1 or serving.state_slots(s.with_(treeTokens=k + 9)) != k + 9:
            out.fail(f"k = {k}: {serving.state_slots(s)} state copies a sequence (a tree of {k + 9}: "
                     f"{serving.state_slots(s.with_(treeTokens=k + 9))}), not k + 1 (the tree's tokens)")


def _notes_quote_the_fit(out):
    """The CLIs' memory note, fits_instead's GPU count, the serving widget's memory note and no-room lead."""
    for changes in (dict(target="llama-3-8b", gpu="rtx-4090", batch=64, context=32768),
                    dict(target="llama-3-8b", gpu="h100-sxm", batch=512, context=16384, draft="llama-3.2-1b"),
                    dict(target="llama-3-70b", gpu="h100-sxm", batch=8, context=4096),
                    dict(target="deepseek-v3", gpu="h200", gpus=8, batch=8)):
        out.visited += 1
        s = serving.DEFAULT_SETTINGS.with_(**{"gpus": 1, "stepModel": serving.MEASURED, **changes})
        need, have, room = (serving.memory_needed_bytes(s), serving.memory_available_bytes(s),
                            serving.max_batch_in_memory(s))
        note = serving.memory_note(s)
        quoted = (f"need {need / 1e9:,.0f} GB in {serving.PRECISIONS[s.precision].label}, more than {s.gpus} x "
                  f"{serving.GPUS[s.gpu].label} hold ({have / 1e9:,.0f} GB)")
        fits = (f"at most {int(room):,} of its {s.batch} sequences fit" if room >= 1 else "not even the weights fit")
        if quoted not in note or fits not in note:
            out.fail(f"{changes}: the memory note reads {note!r}; expected {quoted!r} and {fits!r}")
        more = [g for g in serving.GPU_COUNTS if g > s.gpus and serving.max_batch_in_memory(s.with_(gpus=g)) >= 1]
        offered = serving.fits_instead(s) if room < 1 else []
        named = [int(o.split()[1]) for o in offered if o.endswith(" GPUs")]
        if room < 1 and named != more[:1]:
            out.fail(f"{changes}: fits_instead names {named} GPUs; the fewest that hold it are {more[:1]}")
    from ..widgets import serving as widget
    from .serving_readouts import _widget_settings

    for values in ({"target": "llama-3-8b", "gpus": "1", "gpu": "rtx-4090", "batchExp": "8", "contextExp": "14"},
                   {"target": "deepseek-v3", "gpus": "8", "batchExp": "10", "contextExp": "17"}):
        out.visited += 1
        s = _widget_settings(widget, values)
        view, room = widget.view(values), serving.max_batch_in_memory(s)
        if room >= 1:
            whole = int(room)
            said = f"(at most {whole} sequence{'s' if whole != 1 else ''} fit)"
            if not any(said in note for note in view["notes"]):
                out.fail(f"form {values}: the memory note does not say {said!r} ({room:.2f} fit): {view['notes']}")
        else:
            weights = serving.held_weight_bytes(s)
            said = f"alone need {weights / 1e9:,.0f} GB in {serving.PRECISIONS[s.precision].label}"
            if said not in view["lead"]:
                out.fail(f"form {values}: the lead does not quote the weights alone ({said!r}): {view['lead'][:200]!r}")


def _plateau_words_name_the_cap(out):
    """On a plateauing curve (InferenceX's DeepSeek MTP lengths, plateau from k = 4) the sentence's "no k past K" is
    the k best_lookahead stops at when every further draft would pay (a speedup rising with k): the cap it applies."""
    from .. import acceptance

    curve = acceptance.from_lengths({1: 1.79, 2: 2.27, 3: 2.49, 4: 2.54, 5: 2.55, 6: 2.55})
    start = acceptance.plateau_start(curve)
    capped = acceptance.best_lookahead(lambda k: float(k), curve)["k"]
    for rates in (None, curve.rates(12)):
        out.visited += 1
        words = acceptance.plateau_words(start, rates)
        named = re.search(r"no k past (\d+)$", words)
        if named is None or int(named.group(1)) != capped:
            out.fail(f"the plateau from k = {start} is said as {words!r}; best_lookahead's cap stops at k = {capped}")
    # rates that fall from position 1 to 2 and rise from 2 on (a copying drafter's first draft is its own): the rise
    # is read from position 2, so they "still rise"
    if "its rates still rise" not in acceptance.plateau_words(2, [0.9, 0.3, 0.35, 0.4]):
        out.fail("rates rising from position 2 to 3 (0.3, 0.35) after a first 0.9 are not said to still rise")


# --- the notes and the presets they speak of ----------------------------------------------------------------------

# As read in each checkpoint's config (lab/serving_presets.py's sources): the targets that ship an MTP module.
MTP_SHIPPED = frozenset({"deepseek-v3", "glm-4.5", "glm-4.5-air", "qwen3-next-80b-a3b", "qwen3.8-27b"})
# MoE layer costs: TensorRT-LLM's Hopper value on every family but Blackwell's own; Triton's Ampere value everywhere.
BLACKWELL = ("b200", "b300")
MTP_LOGIT_BYTES = 2   # the MTP head's gathered logits are BF16 whatever the head's weights


def notes_as_read(out):
    """The notes a setting prints fire on the right side of their rule and quote the right number (the draft vocabulary,
    the longest lookahead, extrapolated positions, the plateau's "no k past K"), and the terms they speak of: MTP
    modules where the checkpoints ship one, BF16 MTP logits, each GPU's MoE layer cost."""
    # The vocabulary note exactly where a draft model's vocabulary differs (smaller or larger), naming both sizes; the
    # longest-lookahead sentence exactly at the slider's end, naming the 64 positions the CLI searches; the serving
    # widget's summary names positions m + 1 to k as extrapolated; the plateau's K is best_lookahead's cap. The targets
    # that ship an MTP module are priced with it (a MoE layer with the target's experts) and no other MoE target's EAGLE
    # head is; TensorRT-LLM's MoE layer cost is Blackwell's fitted value on Blackwell, Hopper's elsewhere, Triton's
    # Ampere's everywhere.
    for target, shape in serving.TARGETS.items():
        for draft, model in serving.DRAFTS.items():
            out.visited += 1
            note = serving.draft_vocabulary_note(target, draft)
            differs = model.vocab != shape.vocab
            if bool(note) != differs or (differs and not (f"{model.vocab:,}" in note and f"{shape.vocab:,}" in note)):
                out.fail(f"{draft} under {target} (vocabularies {model.vocab} and {shape.vocab}): note {note[:60]!r}")
    for best_k in (1, 11, 12):
        out.visited += 1
        words = serving.longest_lookahead_words(best_k, 12, "this widget tries")
        if bool(words) != (best_k >= 12) or (words and not words.endswith(f"searches k to {MAX_POSITIONS})")):
            out.fail(f"best k = {best_k} of 12: the longest-lookahead sentence reads {words!r}")
    from ..widgets import serving as widget

    out.visited += 1
    summary = widget.view({"srvCurve": "custom:0.9,0.7,0.5", "lookahead": "5"})["summary"]
    if "positions 4 to 5 extrapolated" not in summary:
        out.fail(f"three measured positions at k = 5: the summary does not say positions 4 to 5 are extrapolated: "
                 f"{summary[:240]!r}")
    _plateau_words_name_the_cap(out)
    if set(serving.MTP_TARGETS) != MTP_SHIPPED:
        out.fail(f"the targets priced with an MTP module are {sorted(serving.MTP_TARGETS)}, those that ship one "
                 f"{sorted(MTP_SHIPPED)}")
    for target, shape in serving.TARGETS.items():
        if not shape.experts:
            continue
        out.visited += 1
        head = serving.eagle_head(shape)
        dense_width = shape.active_experts * shape.expert_intermediate + shape.shared_intermediate
        if target in MTP_SHIPPED and head.experts != shape.experts:
            out.fail(f"{target}'s MTP head has {head.experts} experts, not the target's {shape.experts}")
        if target not in MTP_SHIPPED and (head.experts or head.intermediate != dense_width):
            out.fail(f"{target}'s EAGLE head: {head.experts} experts, width {head.intermediate}; the dense layer one "
                     f"token reads is {dense_width} wide")
        if shape.mtp:
            cal = serving_calibration.CALIBRATIONS["b200"]
            for head_bytes in (1, 2):
                extras = mtp_step_extras(shape, serving_calibration.ENGINES["vllm-v1"], cal, 8, head_bytes)
                if extras.gather_bytes != shape.vocab * MTP_LOGIT_BYTES:
                    out.fail(f"{target}'s MTP logits gathered as {extras.gather_bytes} B a sequence with the head at "
                             f"{head_bytes} B a weight, not {shape.vocab * MTP_LOGIT_BYTES}")
    for gpu, cal in serving_calibration.CALIBRATIONS.items():
        out.visited += 1
        trt = MOE_LAYER_US[("trtllm", "blackwell" if gpu in BLACKWELL else "hopper")]
        if moe_layer_us(cal, "trtllm") != trt or moe_layer_us(cal, "triton") != MOE_LAYER_US[("triton", "ampere")]:
            out.fail(f"{gpu}: MoE layer costs {cal.moeLayerUs}, expected TensorRT-LLM {trt} and Triton "
                     f"{MOE_LAYER_US[('triton', 'ampere')]}")

