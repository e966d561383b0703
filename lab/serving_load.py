"""Speculative decoding under load: the running batch a request rate settles at (Little's law) and each
request's decode latency there, plain and speculative, from the step times of :mod:`lab.serving_step`;
and the published measurements the page draws beside them (:data:`VLLM_REFERENCE`). :mod:`lab.serving`
re-exports every name here. Standard library only.
"""

from .serving_calibration import ENGINES
from .serving_step import DEFAULT_SETTINGS  # noqa: F401 (the doctests' settings)
from .serving_step import (ServingSettings, model_free_cycle_ms,
                           _affine, _combine, _cycle_ms, _cycle_steps, _eager_extend_ms, _emitted_output_ms,
                           _first_step, _runs_extend, _terms, _time, tokens_per_cycle)
from .serving_memory import max_batch_in_memory
__all__ = ["ms_per_token", "steady_batch", "latency_curve", "curves_cross", "load_curves", "VLLM_REFERENCE", "NUMERIC"]


# --- load: Little's law -------------------------------------------------------------------------

def _per_token_terms(settings: ServingSettings, speculative: bool, curve=None):
    """ms per token per sequence as ``constant + slope B + sum_i w_i combine(p_i + q_i B, r_i B, o_i)``
    (:func:`_terms`, :func:`_combine`): every operator is the larger of an affine memory time and
    a linear compute time, plus the part of the smaller that does not overlap it."""
    context, k = settings.context, settings.lookahead
    target, verify, draft, n = _cycle_steps(settings)
    if not _affine(settings):  # a mixture of experts: the function itself, solved numerically
        if not speculative:
            return NUMERIC, lambda batch: _time(target, batch, 1, context)
        tokens = tokens_per_cycle(settings.acceptance / 100, k, curve)
        return NUMERIC, lambda batch: _cycle_ms(settings, k, draft, verify, batch, n, context, tokens) / tokens

    def weighted(step, new_tokens, weight):
        terms, constant, slope = _terms(step, new_tokens, context)
        return [(weight, *term) for term in terms], weight * constant, weight * slope

    if not speculative:
        return weighted(target, 1, 1.0)
    tokens = tokens_per_cycle(settings.acceptance / 100, k, curve)
    terms, constant, slope = weighted(verify, n, 1 / tokens)
    slope += _emitted_output_ms(verify, 1, tokens) / tokens   # B (T - 1) t_token over the cycle's T tokens
    if draft is not None:
        first = _first_step(settings, draft, n)   # V1: one of the k steps runs over the verified tokens
        # SGLang: its extend pass gives the first draft token, so k - 1 one-token steps run
        replaced = _runs_extend(settings, draft) and ENGINES[settings.engine].firstDraftFromExtend
        more, c, s = weighted(draft, 1, (k - (first is not None) - replaced) / tokens)
        terms, constant, slope = terms + more, constant + c, slope + s
        if first is not None:
            more, c, s = weighted(first, n, 1 / tokens)
            terms, constant, slope = terms + more, constant + c, slope + s
        if _runs_extend(settings, draft):  # the draft's extend pass, once a cycle
            more, c, s = weighted(draft, n, 1 / tokens)
            terms, constant, slope = terms + more, constant + c + _eager_extend_ms(settings, n, k) / tokens, slope + s
    else:  # a model-free proposer on the host, once a cycle: affine in the batch on every engine that runs it
        fixed = model_free_cycle_ms(settings, 0, context, k)
        constant += fixed / tokens
        slope += (model_free_cycle_ms(settings, 1, context, k) - fixed) / tokens
    return terms, constant, slope


def _per_token_function(settings: ServingSettings, speculative: bool, curve=None):
    """``batch -> ms per token per sequence`` at the settings' context (constants built once)."""
    terms = _per_token_terms(settings, speculative, curve)
    if terms[0] is NUMERIC:
        return terms[1]
    terms, constant, slope = terms
    return lambda batch: constant + slope * batch + sum(w * _combine(p + q * batch, r * batch, o)
                                                        for w, p, q, r, o in terms)


def ms_per_token(settings: ServingSettings, batch: float, speculative: bool, curve=None) -> float:
    """Milliseconds per token per sequence at ``batch`` (a real number): a plain step, or a cycle over
    its tokens; the demand the load search (:func:`steady_batch`) solves, the readout's own numbers at a
    whole batch."""
    return _per_token_function(settings, speculative, curve)(batch)


def steady_batch(settings: ServingSettings, rate: float, speculative: bool, curve=None,
                 max_batch: float | None = None) -> float | None:
    """The running batch ``B`` that satisfies Little's law,
    ``B = rate x requestOutputTokens x msPerToken(B) / 1000`` (rate in requests per second), or None
    when no ``B <= max_batch`` does: the server is overloaded. ``max_batch`` defaults to the
    largest batch that fits in GPU memory (:func:`max_batch_in_memory`).

    ``msPerToken(B)`` is piecewise affine (each operator is affine between its ridge batches), so
    the first fixed point is solved exactly, piece by affine piece, with B a real number.

    >>> s = DEFAULT_SETTINGS
    >>> b = steady_batch(s, 1.0, False)
    >>> abs(b - 1.0 * s.requestOutputTokens * ms_per_token(s, b, False) / 1000) < 1e-6
    True
    """
    return _steady_batch(settings, rate, _per_token_terms(settings, speculative, curve), max_batch)


def _steady_batch(settings: ServingSettings, rate: float, terms_constant, max_batch=None) -> float | None:
    """Solve ``B = s m(B)`` with ``s = rate x requestOutputTokens / 1000`` exactly: between the batches
    where an operator turns compute-bound, ``m(B) = P + Q B`` is affine, so on that piece
    ``B = s P / (1 - s Q)``; pieces are visited in order and the first whose solution lies inside
    it holds the first fixed point (``B - s m(B)`` is negative at 0, so the first crossing of
    zero is the stable one)."""
    if rate <= 0:
        return 0.0
    max_batch = max_batch_in_memory(settings) if max_batch is None else max_batch
    if max_batch <= 0:
        return None
    if terms_constant[0] is NUMERIC:
        return _steady_batch_numeric(rate * settings.requestOutputTokens / 1000, terms_constant[1], max_batch)
    terms, constant, linear = terms_constant
    scale = rate * settings.requestOutputTokens / 1000
    breaks = sorted(p / (r - q) for _, p, q, r, _ in terms if r > q and 0 < p / (r - q) < max_batch)
    low = 0.0
    for high in breaks + [max_batch]:
        middle = (low + high) / 2  # which side of each ridge this piece is on
        slope, offset = linear, constant
        for w, p, q, r, o in terms:
            if p + q * middle >= r * middle:   # memory-bound: memory + (1 - o) compute
                offset, slope = offset + w * p, slope + w * (q + (1 - o) * r)
            else:                              # compute-bound: compute + (1 - o) memory
                offset, slope = offset + w * (1 - o) * p, slope + w * (r + (1 - o) * q)
        if scale * slope < 1:
            batch = scale * offset / (1 - scale * slope)
            if batch <= high * (1 + 1e-12):
                return max(batch, low)
        low = high
    return None


NUMERIC = "numeric"  # marks a ms-per-token function that is not piecewise affine (a mixture of experts)


def _steady_batch_numeric(scale: float, per_token, max_batch: float) -> float | None:
    """The first ``B`` in ``(0, max_batch]`` with ``B = scale x per_token(B)``, for a per-token
    time that is not piecewise affine: ``B - scale per_token(B)`` is negative near 0; a geometric
    scan finds the first batch where it is not, bisection the crossing (relative 1e-12)."""
    gap = lambda b: b - scale * per_token(b)  # noqa: E731
    low = 0.0
    for i in range(80, -1, -1):
        high = max_batch * 0.8 ** i
        if gap(high) >= 0:
            for _ in range(100):
                middle = (low + high) / 2
                low, high = (middle, high) if gap(middle) < 0 else (low, middle)
                if high - low <= 1e-12 * high:
                    break
            return high
        low = high
    return None


def latency_curve(settings: ServingSettings, rates, speculative: bool, curve=None) -> list[float | None]:
    """Per-request decode latency in seconds (requestOutputTokens x msPerToken at the steady batch)
    at each request rate; None where the server is overloaded."""
    model, ceiling = _load_model(settings, speculative, curve), max_batch_in_memory(settings)
    return [_latency(settings, rate, model, ceiling) for rate in rates]


def _load_model(settings: ServingSettings, speculative: bool, curve=None) -> tuple:
    """``(terms, per_token)``: the per-token time as the steady batch solves it (:func:`_per_token_terms`) and as a
    function of the batch (:func:`_per_token_function`)."""
    return _per_token_terms(settings, speculative, curve), _per_token_function(settings, speculative, curve)


def _latency(settings: ServingSettings, rate: float, model: tuple, ceiling) -> float | None:
    """One request's decode latency in seconds at ``rate`` (None where overloaded): the one formula of
    :func:`latency_curve` and :func:`curves_cross`."""
    terms, per_token = model
    batch = _steady_batch(settings, rate, terms, ceiling)
    return None if batch is None else settings.requestOutputTokens * per_token(max(batch, 1e-12)) / 1000


def load_curves(settings: ServingSettings, rates, curve=None) -> tuple:
    """``(plain, spec, cross)``: :func:`latency_curve` plain and speculative and :func:`curves_cross` over ``rates``,
    each per-token model built once and the crossing's grid rates read off the two curves (the same floats: one
    formula, :func:`_latency`), so only its bisection prices new rates.

    >>> s = DEFAULT_SETTINGS.with_(batch=1)
    >>> rates = (0.5, 2.0, 8.0, 32.0)
    >>> load_curves(s, rates) == (latency_curve(s, rates, False), latency_curve(s, rates, True), curves_cross(s, rates))
    True
    """
    ceiling = max_batch_in_memory(settings)
    models = {kind: _load_model(settings, kind, curve) for kind in (False, True)}
    plain, spec = ([_latency(settings, rate, models[kind], ceiling) for rate in rates] for kind in (False, True))
    known = {rate: (s, p) for rate, s, p in zip(rates, spec, plain)}
    return plain, spec, _cross(settings, rates, models, ceiling, known)


def curves_cross(settings: ServingSettings, rates, curve=None) -> float | None:
    """The lowest request rate among ``rates`` (ascending) at which speculative decoding's
    latency is no better than plain decoding's (or speculation alone is overloaded), refined by
    bisection between the grid rate before it and it; None if speculation never loses while
    plain decoding keeps up."""
    return _cross(settings, rates, {kind: _load_model(settings, kind, curve) for kind in (False, True)},
                  max_batch_in_memory(settings), {})


def _cross(settings: ServingSettings, rates, models: dict, ceiling, known: dict) -> float | None:
    """:func:`curves_cross` from both per-token models (``models[speculative]``, :func:`_load_model`) and the
    ``(spec, plain)`` latencies ``known`` already at some rates (:func:`load_curves`: the grid's)."""
    def spec_loses(rate):
        spec, plain = known[rate] if rate in known else (_latency(settings, rate, models[True], ceiling),
                                                         _latency(settings, rate, models[False], ceiling))
        if spec is None:  # speculation overloaded: it lost if plain decoding still keeps up
            return plain is not None
        return plain is not None and spec >= plain
    previous = None
    for rate in rates:
        if spec_loses(rate):
            if previous is None:
                return rate
            low, high = previous, rate
            for _ in range(20):  # the rate to about 1e-6 of the grid step: ample for 3 digits
                middle = (low + high) / 2
                low, high = (low, middle) if spec_loses(middle) else (middle, high)
            return high
        previous = rate
    return None


# vLLM's blog (Oct 2024), Llama-3-70B on 4xH100: measured, not fitted. "speedup" is plain latency
# over speculative latency; the high-rate points are slowdowns (1/1.4, 1/1.8) at a rate the text
# does not state, so the page draws them at the right edge, labelled "high QPS".
VLLM_REFERENCE = (
    {"label": "draft model (Qwama-0.5B), ShareGPT, 1 req/s", "rate": 1.0, "speedup": 1.5},
    {"label": "n-gram, CNN/DailyMail, 1 req/s", "rate": 1.0, "speedup": 2.8},
    {"label": "draft model, ShareGPT, high QPS", "rate": None, "speedup": 1 / 1.4},
    {"label": "n-gram, CNN/DailyMail, high QPS", "rate": None, "speedup": 1 / 1.8},
)
