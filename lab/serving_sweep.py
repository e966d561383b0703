"""One speculative cycle priced batch after batch, for the sweeps that visit every batch (the k schedule
of :mod:`lab.production`, :func:`lab.serving.batch_sweep`): the same cycle as
:func:`lab.serving_step._cycle_ms`,

    cycle(B, k) = k t_draft(B) + t_extend(B, n) + t_verify(B, n) + t_emitted(B, T)

(``n`` the verify tokens of lookahead ``k``, ``T`` the tokens it commits), with what does not change
with the batch built once (the first draft step's constants, the engine's host costs, SGLang's eager
extend cost) and, within a batch, what does not change with ``k`` priced once: the draft's one-token step
``t_draft(B)`` (which the proposal multiplies by ``k``, the extend pass subtracts and EAGLE-3's fc is
priced against), ``t_verify`` once for each distinct ``n`` and ``t_extend`` once for each distinct ``n`` and
tokens extended (:func:`lab.serving_sglang.extend_tokens`). Every value is the very float
:func:`lab.serving_step._cycle_ms` gives: the same operations on the same operands in the same order, only
fewer times (tests/test_serving_sweep.py holds them equal on every engine, draft and step model).

Standard library only.
"""

from .serving_calibration import ENGINES, cycle_eager_ms, inter_step_ms, eagle3_eager_ms
from .serving_specdecode import proposal_ms
from .serving_step import (EAGLE3, MEASURED, _MeasuredStep, _draft_steps, _eager_extend_ms, _eagle3_fc_free, _emitted_output_ms,
                           _first_step, _runs_extend, _time, model_free_cycle_ms)
from .serving_sglang import extend_tokens

__all__ = ["step_in_batch", "extend_in_batch", "draft_in_batch", "cycles_in_batch", "cycle_steps_in_batch"]


def step_in_batch(step, n, context):
    """``batch -> _time(step, B, n, L)``: one pass of ``n`` tokens a sequence at context ``L`` as a function of
    the batch. Under the per-operator model (:mod:`lab.serving`'s docstring) the sum of its operators with
    ``m = B n`` tokens in the pass, added in :func:`lab.serving_step._time`'s order,

        fixed + all-reduce(m) + gather(B) + B e + combine(weights(m), m f_gemm) + combine(head, m f_head) + attention

    with what does not depend on the batch taken out once: ``e = t_seq + t_serial + (n - 1) t_reject``
    (:func:`~lab.serving_step._engine_ms`), ``1 - overlap`` (:func:`~lab.serving_step._combine`), ``1 - a/E``
    (the experts a token misses, :func:`lab.serving_presets._distinct`), ``min(L, window)`` and ``1 + n`` (the
    linear-attention states moved, :func:`~lab.serving_step._state_copies`), and the helpers' bodies written
    in line (each the same expression). The roofline's step is :func:`~lab.serving_step._time` itself.

    >>> from lab import serving
    >>> s = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, target="qwen3-next-80b-a3b")
    >>> verify = serving._step(serving.TARGETS[s.target], s, "verify")
    >>> [step_in_batch(verify, 5, 8192)(b) for b in (1, 64)] == [serving._time(verify, b, 5, 8192) for b in (1, 64)]
    True
    """
    if not isinstance(step, _MeasuredStep):
        return lambda batch: _time(step, batch, n, context)
    rest = 1 - step.overlap
    engine = step.sequence_ms + step.serial_ms + step.draft_token_ms * (n - 1)
    experts = step.experts
    miss = 1 - step.active_experts / experts if experts else 0.0
    window, copies = min(context, step.window), 1 + n
    fixed, gemm, expert, gemm_flop, head, head_flop = (step.fixed_ms, step.gemm_ms, step.expert_ms, step.gemm_flop_ms,
                                                       step.head_ms, step.head_flop_ms)
    comm, comm_knee, comm_beyond = step.comm_ms, step.comm_knee, step.comm_beyond_ms
    gather, gather_knee, gather_beyond = step.gather_ms, step.gather_knee, step.gather_beyond_ms
    kv, reread, window_kv, state = step.kv_ms, step.kv_reread, step.window_ms, step.state_ms
    attention_flop, window_flop = step.attention_flop_ms, step.window_flop_ms

    def at(batch):   # the names above are the step's fields (kv: kv_ms, state: state_ms, ...) bound once
        tokens = batch * n
        allreduce = comm * tokens if tokens <= comm_knee else comm * comm_knee + comm_beyond * (tokens - comm_knee)
        gathered = gather * batch if batch <= gather_knee else gather * gather_knee + gather_beyond * (batch - gather_knee)
        weights = gemm + expert * (experts * (1 - miss ** tokens)) if experts else gemm
        compute = gemm_flop * tokens
        gemms = weights + rest * compute if weights >= compute else compute + rest * weights
        compute = head_flop * tokens
        lm_head = head + rest * compute if head >= compute else compute + rest * head
        reads = batch + reread * (tokens - batch)
        attention = max(kv * reads * context + reads * window * window_kv + batch * copies * state,
                        attention_flop * tokens * context + window_flop * tokens * window)
        return fixed + allreduce + gathered + batch * engine + gemms + lm_head + attention
    return at


def draft_in_batch(settings, draft, context):
    """``batch -> (t_draft, fc)``: the draft's one-token step ``_time(draft, B, 1, L)`` and, with an EAGLE-3
    head, what its fc adds to it (:func:`lab.serving_step._eagle3_fc_ms`: ``t_draft - t(step without the fc)``,
    the fc-free step built once); ``(None, None)`` for n-gram lookup, ``fc`` None without an EAGLE-3 head.

    >>> from lab import serving, serving_step
    >>> s = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, draft=serving.EAGLE3, gpus=1)
    >>> draft = serving._step(serving.draft_shape(s), s, "draft")
    >>> one, fc = draft_in_batch(s, draft, 1024)(8)
    >>> one == serving._time(draft, 8, 1, 1024), fc == serving_step._eagle3_fc_ms(s, draft, 8, 1024)
    (True, True)
    """
    if draft is None:
        return lambda batch: (None, None)
    one = step_in_batch(draft, 1, context)
    if settings.draft != EAGLE3:
        return lambda batch: (one(batch), None)
    without = step_in_batch(_eagle3_fc_free(settings, draft), 1, context)

    def at(batch):
        step = one(batch)
        return step, step - without(batch)
    return at


def extend_in_batch(settings, draft, n, context, k):
    """``(batch, t_draft, fc) -> t_extend``: :func:`lab.serving_step._extend_time` at ``n`` verified tokens
    a sequence and lookahead ``k`` (``k`` says whether ``n <= k + 1``, a chain, for SGLang's eager extend, and the
    ``e = min(n, k + 1)`` tokens its extend pass runs over), given the batch's one-token draft step and EAGLE-3 fc
    (:func:`draft_in_batch`). SGLang's extend pass, ``t(draft, B, e, L) + eager - steps fc - t_draft`` (``t_draft``
    where its logits give the first draft token; ``steps``, the ``e - 1`` tokens past the first less that replaced
    step, those an EAGLE-3 head's fc is taken off; ``ops``, the V1 worker's eager ops a cycle,
    :func:`lab.serving_calibration.cycle_eager_ms`), or the first step over the verified tokens,
    ``t(first, B, n, L) - t_draft + host ops - (s - 1) fc`` over its ``s = min(k, n - 1)`` draft steps: the branch, the first step's constants and the host
    ops (:func:`lab.serving_calibration.inter_step_ms`, :func:`~lab.serving_calibration.eagle3_eager_ms`,
    :func:`lab.serving_specdecode.proposal_ms`) chosen and built once, added in :func:`_extend_time`'s order.

    >>> from lab import serving
    >>> s = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, draft=serving.EAGLE3, engine="vllm-v1-0.10")
    >>> draft = serving._step(serving.draft_shape(s), s, "draft")
    >>> one, fc = draft_in_batch(s, draft, 4096)(64)
    >>> extend_in_batch(s, draft, 5, 4096, 4)(64, one, fc) == serving._extend_time(s, draft, 64, 5, 4096, 4)
    True
    >>> extend_in_batch(s, draft, 64, 4096, 4)(64, one, fc) == serving._extend_time(s, draft, 64, 64, 4096, 4)  # a tree
    True
    """
    engine, eagle3 = ENGINES[settings.engine], settings.draft == EAGLE3
    if _runs_extend(settings, draft):
        from_extend, eager = engine.firstDraftFromExtend, _eager_extend_ms(settings, n, k)
        ops = cycle_eager_ms(engine, k) if settings.stepModel == MEASURED else 0.0
        extended = extend_tokens(n, k)
        pass_over_extended = step_in_batch(draft, extended, context)

        def extend_pass(batch, one, fc):
            replaced = one if from_extend else 0.0
            steps = extended - 1 - (replaced > 0)
            fc = steps * fc if eagle3 else 0.0
            return pass_over_extended(batch) + eager - fc - replaced + ops
        return extend_pass
    first = _first_step(settings, draft, n)
    pass_over_verified = None if first is None else step_in_batch(first, n, context)
    host = draft is not None and settings.stepModel == MEASURED
    steps = _draft_steps(n, k)
    gaps = inter_step_ms(engine, steps - 1) if host else 0.0
    eager = eagle3_eager_ms(engine, steps) if host and eagle3 else 0.0
    proposal = proposal_ms(engine, settings.draft, steps) if host else 0.0

    def first_step(batch, one, fc):
        extra = 0.0 if first is None else pass_over_verified(batch) - one
        if host:
            extra += gaps
            if eagle3:
                extra += eager
            extra += proposal
        if first is not None and eagle3:
            extra -= (steps - 1) * fc
        return extra
    return first_step


def cycles_in_batch(settings, draft, verify, per_k, context):
    """``batch -> [cycle ms for each (k, n, T) of per_k]``: :func:`lab.serving_step._cycle_ms` at every
    lookahead of ``per_k`` (``k``, its verify tokens ``n``, the tokens ``T`` it commits a sequence): the cycle's
    steps (:func:`cycle_steps_in_batch`) plus the output processing of ``T`` tokens, its sum ``proposal + t_extend +
    t_verify + t_emitted`` in that order.

    >>> from lab import serving
    >>> s = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED)
    >>> _, verify, draft, _ = serving._cycle_steps(s)
    >>> per_k = [(k, k + 1, serving.tokens_per_cycle(0.7, k)) for k in (2, 5)]
    >>> cycles_in_batch(s, draft, verify, per_k, 1024)(32) == [
    ...     serving._cycle_ms(s, k, draft, verify, 32, n, 1024, t) for k, n, t in per_k]
    True
    """
    steps, tokens = cycle_steps_in_batch(settings, draft, verify, per_k, context), [t for _, _, t in per_k]

    def at(batch):
        return [before + _emitted_output_ms(verify, batch, t) for before, t in zip(steps(batch), tokens)]
    return at


def cycle_steps_in_batch(settings, draft, verify, per_k, context):
    """``batch -> [the cycle's steps, ms, for each (k, n, _) of per_k]``: :func:`lab.serving_step._cycle_steps_ms`
    (the cycle before its output processing, which the acceptance does not move) at every lookahead of ``per_k``
    (``k``, its verify tokens ``n``; the third field is not read), its sum ``proposal + t_extend + t_verify`` in that
    order, with the draft's one-token step priced once a batch (the proposal is ``k`` of it; a model-free proposer's is
    :func:`lab.serving_step.model_free_cycle_ms` of ``k`` tokens), ``t_verify`` once for each distinct ``n`` and
    ``t_extend`` once for each distinct ``n`` and extended tokens (:func:`lab.serving_sglang.extend_tokens`,
    ``min(n, k + 1)``, which is ``n`` just when the cycle is a chain: a tree's ``n`` verified by a k past its depth
    is one, :func:`lab.serving_step._eager_extend_ms`).

    >>> from lab import serving, serving_step
    >>> s = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, treeTokens=8, lookahead=3)
    >>> _, verify, draft, _ = serving._cycle_steps(s)
    >>> cycle_steps_in_batch(s, draft, verify, [(3, 8, None)], 4096)(64) == [
    ...     serving_step._cycle_steps_ms(s, 3, draft, verify, 64, 8, 4096)]
    True
    """
    ns, shapes = sorted({n for _, n, _ in per_k}), {}
    for k, n, _ in per_k:   # one extend pass a distinct (n, tokens extended), priced at the first k that gives it:
        shapes.setdefault((n, extend_tokens(n, k)), k)   # every k that gives the same pair prices the same pass
    extends = [extend_in_batch(settings, draft, n, context, k) for (n, _), k in shapes.items()]
    verifies = [step_in_batch(verify, n, context) for n in ns]
    extend_at = {shape: place for place, shape in enumerate(shapes)}
    rows = [(k, extend_at[(n, extend_tokens(n, k))], ns.index(n)) for k, n, _ in per_k]
    drafts = draft_in_batch(settings, draft, context)

    def at(batch):
        one, fc = drafts(batch)
        extend = [priced(batch, one, fc) for priced in extends]
        verified = [priced(batch) for priced in verifies]
        return [(k * one if draft is not None else model_free_cycle_ms(settings, batch, context, k)) + extend[e] + verified[i]
                for k, e, i in rows]
    return at
