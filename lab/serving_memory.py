"""What fits in GPU memory under the serving model: the weights the GPUs hold (target and draft, each in its own
precision), the KV caches and linear-attention states a batch needs at a context, the memory the engine gives them,
the largest batch that fits, and, for a setting that does not fit, what would (the widget's lead and the CLIs' note).

    needed(B, L) = sum over target and draft of weights + B kv_bytes_per_sequence(L, state slots)
    max batch    = (available - weights) / sum of kv_bytes_per_sequence(L, state slots), capped at MAX_BATCH

Apart from :mod:`lab.serving_step` (whose byte counts it reads) so that module stays under the thousand lines a lab
module may have; :mod:`lab.serving` re-exports every name here. Standard library only.
"""

from .serving_calibration import ENGINES
from .serving_engine_memory import engine_memory_bytes
from .serving_presets import DRAFTS, EAGLE, EAGLE3, GPUS, PRECISIONS  # noqa: F401 (DRAFTS: a doctest)
from .serving_suffix import model_free
from .serving_step import DEFAULT_SETTINGS  # noqa: F401 (the doctests' settings)
from .serving_step import (MAX_BATCH, MEASURED, ServingSettings, _models, kv_bytes_per_sequence, pass_precision,
                           verify_tokens, weight_bytes)

__all__ = ["held_weight_bytes", "memory_needed_bytes", "memory_needed_grid", "state_slots", "memory_available_bytes", "max_batch_in_memory",
           "memory_note", "GPU_COUNTS", "fits_instead", "fits_instead_text"]


def _models_in_precision(settings: ServingSettings):
    """(shape, precision) of the target and of the draft, each held in memory in its own (:func:`pass_precision`)."""
    return [(shape, PRECISIONS[pass_precision(settings, role)])
            for shape, role in zip(_models(settings), ("target", "draft"))]


def held_weight_bytes(settings: ServingSettings) -> int:
    """The weights the GPUs hold: target and draft, each in its own precision (:func:`pass_precision`).

    >>> s = DEFAULT_SETTINGS.with_(target="llama-3-8b", draft="llama-3.2-1b", precision="fp8")
    >>> held_weight_bytes(s.with_(draftPrecision="bf16")) - held_weight_bytes(s) == DRAFTS["llama-3.2-1b"].params
    True
    """
    return sum(weight_bytes(shape, precision) for shape, precision in _models_in_precision(settings))


def memory_needed_bytes(settings: ServingSettings, batch=None, context=None) -> float:
    """Weights of target and draft plus both KV caches at ``batch`` and ``context`` (default: the
    settings' own). The EAGLE head shares the target's LM head, counted here twice: a small
    overstatement, on the safe side.

    >>> s = DEFAULT_SETTINGS.with_(target="llama-3-8b", draft="llama-3.2-1b", gpus=1, batch=8, context=4096)
    >>> memory_needed_bytes(s, batch=0) == held_weight_bytes(s), round(memory_needed_bytes(s) / 1e9, 2)
    (True, 23.9)
    """
    batch = settings.batch if batch is None else batch
    context = settings.context if context is None else context
    return _needed(*_memory_terms(settings), batch, context)


def memory_needed_grid(settings: ServingSettings, batches, contexts) -> tuple:
    """:func:`memory_needed_bytes` at every context (a row each) and batch (a column each): the models, their
    weights and the state slots found once for the grid, each cell the same sum (:func:`_needed`).

    >>> s = DEFAULT_SETTINGS.with_(target="llama-3-8b", draft="llama-3.2-1b", gpus=1)
    >>> memory_needed_grid(s, (1, 8), (512, 4096)) == tuple(tuple(memory_needed_bytes(s, b, l) for b in (1, 8))
    ...                                                      for l in (512, 4096))
    True
    """
    terms = _memory_terms(settings)
    return tuple(tuple(_needed(*terms, batch, context) for batch in batches) for context in contexts)


def _memory_terms(settings: ServingSettings) -> tuple:
    """``(models, weights, slots)``: target and draft each with its precision (:func:`_models_in_precision`), the
    weights each holds (:func:`weight_bytes`) and the state slots of a sequence (:func:`state_slots`)."""
    models = _models_in_precision(settings)
    return models, [weight_bytes(shape, precision) for shape, precision in models], state_slots(settings)


def _needed(models, weights, slots, batch, context) -> float:
    """Each model's weights plus ``batch`` KV caches at ``context``, summed over the models in order."""
    return sum(held + batch * kv_bytes_per_sequence(shape, precision, context, slots)
               for held, (shape, precision) in zip(weights, models))


def state_slots(settings: ServingSettings) -> int:
    """Copies of each sequence's linear-attention state the engine keeps: one per token a verify pass
    scores (:func:`verify_tokens`), as vLLM allocates ``num_spec + 1`` for a speculating sequence
    (:func:`_state_copies`). The memory limit is the speculating deployment's, for plain decoding too.

    >>> state_slots(DEFAULT_SETTINGS.with_(lookahead=3))
    4
    """
    return verify_tokens(settings)


def memory_available_bytes(settings: ServingSettings) -> float:
    """GPU memory of all the GPUs that share the model: the datasheet capacity under the
    roofline; under the per-operator model the share the setting's engine gives to weights and KV cache
    by default (:func:`lab.serving_calibration.engine_memory_bytes`: vLLM's gpu_memory_utilization 0.9,
    SGLang's mem_fraction_static by GPU memory and TP size, for its draft kind).

    >>> s = DEFAULT_SETTINGS.with_(stepModel=MEASURED, gpu="h100-sxm", gpus=1)
    >>> round(memory_available_bytes(s) / 1e9, 1), round(memory_available_bytes(s.with_(engine="sglang")) / 1e9, 1)  # a draft model: 6 GiB kept
    (72.0, 59.4)
    """
    if settings.stepModel == MEASURED:
        # a model-free proposer (n-gram lookup, suffix decoding) holds no draft weights: SGLang's "ngram" reserve
        draft = "ngram" if model_free(settings.draft) else "eagle" if settings.draft in (EAGLE, EAGLE3) else "model"
        weights = held_weight_bytes(settings)
        return engine_memory_bytes(ENGINES[settings.engine].memoryRule, GPUS[settings.gpu].memory, settings.gpus,
                                   weights, draft)
    return GPUS[settings.gpu].memory * settings.gpus


def max_batch_in_memory(settings: ServingSettings, context=None) -> float:
    """The largest batch whose weights and KV caches fit in GPU memory at ``context``, capped at
    :data:`MAX_BATCH` (0 when the weights alone do not fit): ``(available - weights) / caches a sequence``, a
    fraction (the searches round it down).

    >>> s = DEFAULT_SETTINGS.with_(target="llama-3-8b", draft="llama-3.2-1b", gpu="h100-sxm", gpus=1, stepModel=MEASURED)
    >>> round(max_batch_in_memory(s, 4096), 2), round(max_batch_in_memory(s, 131072), 2)
    (79.67, 2.49)
    """
    context = settings.context if context is None else context
    weights = held_weight_bytes(settings)
    per_sequence = sum(kv_bytes_per_sequence(shape, precision, context, state_slots(settings))
                       for shape, precision in _models_in_precision(settings))
    spare = memory_available_bytes(settings) - weights
    if spare <= 0:
        return 0.0
    return min(float(MAX_BATCH), spare / per_sequence) if per_sequence else float(MAX_BATCH)


GPU_COUNTS = (1, 2, 4, 8)  # the GPU counts the widgets offer


def fits_instead(settings: ServingSettings) -> list[str]:
    """For a setting whose weights alone do not fit (:func:`max_batch_in_memory` below one
    sequence): the one-control changes that would let a sequence run at its context, as the widget
    words them: the fewest GPUs of :data:`GPU_COUNTS` that hold it, the narrower precisions that do,
    and the GPU preset with the least memory that does at the same GPU count.

    >>> fits_instead(DEFAULT_SETTINGS.with_(target="deepseek-v3", gpu="h100-sxm", gpus=8, stepModel=MEASURED))
    ['in FP4', 'on 8 x B200 (HGX)']
    >>> fits_instead(DEFAULT_SETTINGS.with_(target="llama-3-70b", gpu="h100-sxm", gpus=1, stepModel=MEASURED))
    ['on 2 GPUs', 'in FP8 or FP4', 'on 1 x B200 (HGX)']
    """
    runs = lambda changed: max_batch_in_memory(changed) >= 1  # noqa: E731
    options = []
    more = [g for g in GPU_COUNTS if g > settings.gpus and runs(settings.with_(gpus=g))]
    if more:
        options.append(f"on {more[0]} GPUs")
    own = PRECISIONS[settings.precision].bytes
    narrower = [p.label.split(" (")[0] for name, p in PRECISIONS.items()
                if p.bytes < own and runs(settings.with_(precision=name))]
    if narrower:
        options.append("in " + " or ".join(narrower))
    bigger = sorted((g.memory, g.label) for name, g in GPUS.items()
                    if g.memory > GPUS[settings.gpu].memory and runs(settings.with_(gpu=name)))
    if bigger:
        options.append(f"on {settings.gpus} x {bigger[0][1]}")
    return options


def fits_instead_text(settings: ServingSettings) -> str:
    """:func:`fits_instead` as the widget's lead and the CLI's note say it: "it fits on 4 GPUs, in FP4 or
    on 1 x B200 (HGX)", or that no GPU count, precision or GPU preset holds it.

    >>> fits_instead_text(DEFAULT_SETTINGS.with_(target="deepseek-v3", gpu="h100-sxm", gpus=8, stepModel=MEASURED))
    'it fits in FP4 or on 8 x B200 (HGX)'
    """
    options = fits_instead(settings)
    if not options:
        return "no GPU count, precision or GPU preset of this panel holds it"
    if len(options) == 1:
        return f"it fits {options[0]}"
    comma = "," if len(options) > 2 or " or " in options[0] else ""  # "in FP8 or FP4, or on 8 x B200 (HGX)"
    return f"it fits {', '.join(options[:-1])}{comma} or {options[-1]}"


def memory_note(settings: ServingSettings) -> str:
    """One line for a reader whose setting does not fit: what the weights and KV caches need, what
    the GPUs hold, how many sequences would fit, and that the times are what it would cost if it did
    (the CLIs print it; their JSON keeps the fit as a boolean). The sequences that fit are whole ones, rounded down
    (19.6 fit: 19), as every search rounds :func:`max_batch_in_memory`.

    >>> print(memory_note(DEFAULT_SETTINGS.with_(target="deepseek-v3", gpu="h200", gpus=8, stepModel=MEASURED)))
    note: does not fit: weights and KV caches need 1,344 GB in BF16, more than 8 x H200 SXM hold (1,015 GB); not even the weights fit (it fits in FP8 or FP4, or on 8 x B200 (HGX)), so no engine runs this setting and the times are what it would cost if it fitted
    """
    need, have = memory_needed_bytes(settings), memory_available_bytes(settings)
    room = max_batch_in_memory(settings)
    gpu, precision = GPUS[settings.gpu], PRECISIONS[settings.precision]
    fits = (f"at most {int(room):,} of its {settings.batch} sequences fit at context {settings.context:,}" if room >= 1
            else f"not even the weights fit ({fits_instead_text(settings)})")
    return (f"note: does not fit: weights and KV caches need {need / 1e9:,.0f} GB in {precision.label}, more than "
            f"{settings.gpus} x {gpu.label} hold ({have / 1e9:,.0f} GB); {fits}, so no engine runs this setting and "
            "the times are what it would cost if it fitted")
