"""One deployment for the whole page: the reader's model pair, GPUs, batch, context, lookahead and
acceptance (in whichever unit their engine printed), turned into what every instrument takes.

The acceptance comes in one of three units, each at the lookahead ``k_m`` it was measured at:

* ``alpha``: the per-token acceptance, in percent;
* ``rate``: the engines' acceptance rate, accepted / drafted tokens, in percent;
* ``length``: the mean acceptance length, tokens per verifier call, ``1 + accepted / calls``.

The rate and the length become alpha through :func:`lab.traces.translate` (the independent model
with full-length chain drafts: ``E = sum_{i=1..k_m} alpha^i``, ``rate = E / k_m``,
``length = 1 + E``); nothing here re-derives those formulas.

From alpha and the hardware, the serving model (:mod:`lab.serving`, its per-operator step model
calibrated on measured step times, the serving widget's default) gives the deployment's answer:
the speedup at the reader's lookahead ``k`` and the best lookahead. The latency ledger
(:mod:`lab.ledger`) has no batch, context or GPU: it takes a target pass ``T``, a draft pass as a
share of it, a verify tax per extra candidate and an overhead per cycle. They are fitted to the
serving model's step times at the reader's batch and context (:func:`ledger_costs`):

    targetMs   = t_plain                               one plain decode step
    draftCost  = 100 t_draft / t_plain                 one draft step, % of a plain step
    slope      = t_verify(k) - t_verify(k - 1)         what one more verified token costs at k
                 (at k = 1: t_verify(2) - t_verify(1))
    verifyTax  = 100 slope / t_plain
    overheadMs = t_verify(k) - t_plain - (k - 1) slope  the rest of the verify step (>= 0; when it
                 would be negative it is 0 and the tax takes the whole difference)
                 + t_emitted(alpha, k)                   the cycle's emitted-token output processing
                 + t_extend                              the draft's extend pass, on an engine that runs one

so that the ledger's cycle ``k T c + T (1 + (k - 1) tax) + overhead`` equals the serving model's
``k t_draft + t_verify(k) + t_emitted + t_extend`` at the reader's ``k`` and alpha (:func:`ledger_cycle_ms` checks it). Away from
``k`` the ledger's verify cost is a straight line while the serving model's follows the roofline,
so the two can name different best lookaheads; :func:`answer` says so with both numbers. Every
instrument's slider moves in whole units (whole percent, whole ms), so :func:`instrument_values`
rounds. The deployment's answer is computed at the reader's own alpha, unrounded (a mean acceptance
length of 2.8 at k = 4 is 70.51%, not the 71% the sliders receive); what the instruments then show, at
the rounded alpha, is ``servingSent`` beside it (N-4 of the December fact check).

>>> d = Deployment(target="llama-3-70b", draft="eagle-head", gpu="h100-sxm", gpus=4, batch=32,
...                context=1024, lookahead=4)
>>> round(alpha_from(2.8, "length", 4), 4)
0.7051
>>> costs = ledger_costs(d, 0.71)
>>> s = serving_settings(d, 71)
>>> cycle = (4 * serving.draft_step_ms(s, 32, 1024) + serving.draft_extend_ms(s, 32, 1024)
...          + serving.verify_step_ms(s, 32, 1024))
>>> abs(ledger_cycle_ms(costs, 4) - (cycle + serving.serving(s).emittedOutputMs)) < 1e-9
True

Standard library only.
"""

from typing import NamedTuple

from . import ledger, serving
from .errors import LabValueError
from .urlstate import LEDGER_SLIDERS, log_stop

__all__ = ["UNITS", "unit_ranges", "Deployment", "DEFAULT_DEPLOYMENT", "alpha_from", "units_at", "serving_settings", "curve_schedule_terms",
           "with_curve_token",
           "figure_curve", "step_times", "ledger_costs", "to_ledger_settings", "ledger_cycle_ms", "ledger_verify_ms", "clamped_costs", "round_to_step", "instrument_values", "answer",
           "MAX_LOOKAHEAD", "lookahead_edge_note", "STEP_MODEL", "realtext_max_lookahead"]

UNITS = {
    "alpha": "per-token acceptance \u03b1, %",
    "rate": "acceptance rate, %",        # accepted / drafted (short: a phone's select shows it whole)
    "length": "mean acceptance length",  # tokens per verifier call
}
# where the ledger's lookahead slider ends, read from it (the serving widget's ends there too: a test holds them
# equal), so a scan here never offers a lookahead the receiving slider cannot hold
MAX_LOOKAHEAD = next(slider.maximum for slider in LEDGER_SLIDERS if slider.name == "lookahead")
STEP_MODEL = serving.MEASURED  # the serving widget's default: per operator, calibrated on measured steps


def lookahead_edge_note(best_k: int) -> str:
    """A sentence when the best lookahead is the panel's longest (:data:`MAX_LOOKAHEAD`, the ledger's scan to 12 that
    the seed contract fixes), where a longer one may pay more (a copying drafter such as suffix decoding often runs
    24 to 32), else "".

    >>> lookahead_edge_note(5), lookahead_edge_note(MAX_LOOKAHEAD)[:49]
    ('', 'k = 12 is the longest lookahead this panel offers')
    """
    return serving.longest_lookahead_words(best_k, MAX_LOOKAHEAD, "this panel offers (the ledger's range)")


def unit_ranges(measured_k: int) -> dict:
    """Valid values of each unit at the lookahead ``k_m`` the number was measured at.

    >>> unit_ranges(4)["length"]
    (1, 5)
    """
    return {"alpha": (0, 100), "rate": (0, 100), "length": (1, measured_k + 1)}


class Deployment(NamedTuple):
    """The reader's deployment: model pair, hardware, load and lookahead (the acceptance apart)."""

    target: str = "llama-3-70b"
    draft: str = serving.EAGLE
    gpu: str = "h100-sxm"
    gpus: int = 4
    batch: int = 32
    context: int = 1024
    lookahead: int = 4
    precision: str = "bf16"
    engine: str = serving.DEFAULT_ENGINE  # how the engine runs a cycle (lab.serving_calibration.ENGINES)


DEFAULT_DEPLOYMENT = Deployment()


def alpha_from(value: float, unit: str, measured_k: int) -> float:
    """Per-token alpha (a fraction) from the reader's number in ``unit`` (see :data:`UNITS`; alpha and
    the rate in percent, the length in tokens) measured at lookahead ``measured_k``, through
    :func:`lab.traces.translate`. A value outside its unit's range raises :class:`LabValueError`
    naming it and the range.

    >>> round(alpha_from(74, "alpha", 5), 6), round(alpha_from(44.29, "rate", 5), 3)
    (0.74, 0.74)
    >>> alpha_from(6, "length", 4)
    Traceback (most recent call last):
    ...
    lab.errors.LabValueError: mean acceptance length 6 is outside 1 to k + 1 = 5 at k = 4
    """
    from .traces import MAX_LOOKAHEAD as TRACE_LOOKAHEAD, translate  # the longest lookahead a trace is read at

    if unit not in UNITS:
        raise LabValueError(f"unit {unit!r} is not one of {', '.join(UNITS)}")
    if not isinstance(measured_k, int) or isinstance(measured_k, bool) or not 1 <= measured_k <= TRACE_LOOKAHEAD:
        raise LabValueError(f"the lookahead the acceptance was measured at must be an integer from 1 to "
                            f"{TRACE_LOOKAHEAD}, got {measured_k!r}")
    low, high = unit_ranges(measured_k)[unit]
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not low <= value <= high:
        name = {"alpha": "alpha", "rate": "acceptance rate", "length": "mean acceptance length"}[unit]
        bound = f"{low} to k + 1 = {high} at k = {measured_k}" if unit == "length" else f"{low} to {high}%"
        raise LabValueError(f"{name} {value!r} is outside {bound}")
    if unit == "alpha":
        return translate(measured_k, alpha=value / 100)["alpha"]
    if unit == "rate":
        return translate(measured_k, acceptance_rate=value / 100)["alpha"]
    return translate(measured_k, mean_acceptance_length=value)["alpha"]


def units_at(alpha: float, lookahead: int) -> dict:
    """The same alpha in the engines' units at ``lookahead`` (:func:`lab.traces.translate`).

    >>> t = units_at(0.74, 5)
    >>> round(t["acceptanceRate"], 4), round(t["meanAcceptanceLength"], 4)
    (0.4429, 3.2146)
    """
    from .traces import translate

    return translate(lookahead, alpha=alpha)


def figure_curve(alpha: float, measured_k: int, draft: str, method: str | None = None, target: str | None = None):
    """The reader's one figure as a curve (:class:`lab.acceptance.Curve`): its mean acceptance length at the k it
    was measured at (:func:`units_at`), extended to other lookaheads by the decay prior of ``method`` (default: the
    family of ``draft`` on ``target``, :func:`lab.acceptance.family_of_draft`), which leave-one-out prefers to one
    alpha stretched (i.i.d.).

    >>> curve = figure_curve(0.7, 4, "llama-3.2-1b")
    >>> (curve.source, curve.family, curve.measuredAt, round(curve.length(4), 6) == round(units_at(0.7, 4)["meanAcceptanceLength"], 6))
    ('single', 'draft', 4, True)
    """
    from . import acceptance

    return acceptance.from_single(units_at(alpha, measured_k)["meanAcceptanceLength"], measured_k,
                                  method or acceptance.family_of_draft(draft, target))


def serving_settings(d: Deployment, acceptance_percent: float) -> serving.ServingSettings:
    """The serving model's settings for the deployment: its step model calibrated on measured step
    times, a chain draft (no tree), the reader's acceptance in percent."""
    return serving.DEFAULT_SETTINGS.with_(target=d.target, draft=d.draft, gpu=d.gpu, gpus=d.gpus,
                                          precision=d.precision, lookahead=d.lookahead,
                                          acceptance=acceptance_percent, batch=d.batch, context=d.context,
                                          stepModel=STEP_MODEL, treeTokens=0, engine=d.engine)


def step_times(d: Deployment, lookahead: int | None = None) -> dict:
    """The serving model's step times (ms) at the deployment's batch and context: ``plain`` (the
    target, one token a sequence), ``draft`` (one draft step) and ``verify`` (the target over
    ``k + 1`` tokens a sequence, with the cycle's bookkeeping) at ``lookahead`` (default: the
    deployment's). Acceptance does not enter a step time."""
    k = d.lookahead if lookahead is None else lookahead
    s = serving_settings(d, 0).with_(lookahead=k)
    target = serving.TARGETS[d.target]
    return {"plain": serving.step_time_ms(target, s, d.batch, 1, d.context),
            "draft": serving.draft_step_ms(s, d.batch, d.context),
            "verify": serving.verify_step_ms(s, d.batch, d.context)}


def ledger_costs(d: Deployment, alpha: float = 0.0) -> dict:
    """The ledger's four cost sliders fitted to the serving model at the deployment (module
    docstring), unrounded: ``targetMs``, ``draftCost`` (%), ``verifyTax`` (%), ``overheadMs``. The
    overhead also carries the cycle's emitted-token output processing at the reader's ``alpha``
    (:func:`lab.serving.emitted_output_ms`; zero at alpha 0), the one cycle cost that grows with acceptance,
    and the draft's extend pass on an engine that runs one (:func:`lab.serving.draft_extend_ms`)."""
    k = d.lookahead
    here = step_times(d, k)
    plain = here["plain"]
    low, high = (k - 1, k) if k >= 2 else (1, 2)
    slope = (here if high == k else step_times(d, high))["verify"] - step_times(d, low)["verify"]  # k's steps once
    overhead = here["verify"] - plain - (k - 1) * slope
    if overhead < 0:  # the verify line through k would start below a plain step: the tax takes it all
        overhead = 0.0
        if k > 1:  # at k = 1 the ledger's verify pass is one target pass whatever the tax
            slope = (here["verify"] - plain) / (k - 1)
    settings = serving_settings(d, 0)
    overhead += serving.emitted_output_ms(settings, d.batch, serving.tokens_per_cycle(alpha, k))
    overhead += serving.draft_extend_ms(settings, d.batch, d.context)  # zero unless the engine runs it
    draft = here["draft"]
    if overhead < 0:  # SGLang's extend share below zero (an EAGLE-3 head's fc, which its k - 1 one-token steps do not
        draft, overhead = draft + overhead / k, 0.0   # run): the draft steps carry it, the cycle unchanged
    return {"targetMs": plain, "draftCost": 100 * draft / plain, "verifyTax": 100 * slope / plain,
            "overheadMs": overhead}


def to_ledger_settings(values: dict, **given) -> ledger.LedgerSettings:
    """The ledger's settings from a mapping that holds its slider names (other keys are left out),
    with ``given`` in place of theirs: the one way this module builds them. A name in neither
    raises (KeyError), never falls back to a default.

    >>> costs = {"targetMs": 25.0, "draftCost": 4.0, "verifyTax": 2.0, "overheadMs": 1.5}
    >>> to_ledger_settings(costs, acceptance=0, lookahead=3)
    LedgerSettings(acceptance=0, draftCost=4.0, lookahead=3, overheadMs=1.5, targetMs=25.0, verifyTax=2.0)
    """
    return ledger.LedgerSettings(**{name: given[name] if name in given else values[name]
                                    for name in ledger.LedgerSettings._fields})


def _fitted_ledger(costs: dict, lookahead: int) -> ledger.Ledger:
    """The ledger of the fitted ``costs`` at ``lookahead`` (acceptance 0: it does not change the cycle)."""
    return ledger.ledger(to_ledger_settings(costs, acceptance=0, lookahead=lookahead))


def ledger_cycle_ms(costs: dict, lookahead: int) -> float:
    """One ledger cycle at ``lookahead`` for these costs: draft + verify + overhead, by
    :func:`lab.ledger.ledger`'s own formulas (its acceptance does not change the cycle)."""
    return _fitted_ledger(costs, lookahead).cycleMs


def round_to_step(value: float, low: float, high: float, step: float = 1) -> float:
    """``value`` clamped to ``low..high`` and rounded to the nearest ``step`` (halves up), as a
    slider holds it.

    >>> round_to_step(4.5, 0, 100), round_to_step(0.2, 1, 500), round_to_step(62.7, 0, 50)
    (5, 1, 50)
    """
    stepped = int((min(max(value, low), high) / step) + 0.5) * step
    return int(stepped) if float(step).is_integer() else stepped


def instrument_values(d: Deployment, alpha: float, curve=None) -> dict:
    """What each instrument's controls get, by widget name then control name (the values its
    form takes, so the page can set them generically): every slider in its own range and step.
    With ``curve`` (a :class:`lab.acceptance.Curve`) the ledger, serving and policies also get the
    curve itself as their measured-curve token (:func:`with_curve_token`)."""
    costs = ledger_costs(d, alpha)
    ranges = {s.name: (s.minimum, s.maximum) for s in LEDGER_SLIDERS}
    percent = round_to_step(100 * alpha, 0, 100)
    k = d.lookahead
    ledger_values = {"acceptance": percent, "lookahead": k, "trcCurve": "",
                     **{name: round_to_step(costs[name], *ranges[name])
                        for name in ("draftCost", "targetMs", "verifyTax", "overheadMs")}}
    values = {
        "ledger": ledger_values,
        "serving": {"target": d.target, "draft": d.draft, "gpu": d.gpu, "gpus": str(d.gpus),
                    "precision": d.precision, "stepModel": STEP_MODEL, "lookahead": k, "acceptance": percent,
                    "batchExp": log_stop(d.batch, 2), "batch": d.batch, "contextExp": log_stop(d.context, 2),
                    "context": d.context,
                    "treeTokens": 0, "srvCurve": "", "engine": d.engine},
        "policies": {"acceptance": round_to_step(100 * alpha, 1, 99), "draftCost": ledger_values["draftCost"],
                     "lookahead": k, "polCurve": "",
                     **{name: ledger_values[name] for name in ("verifyTax", "overheadMs", "targetMs")}},
        "trees": {"top1": round_to_step(100 * alpha, 0, 99), "verifyTax": round_to_step(costs["verifyTax"], 0, 20),
                  "verifyCost": "tax", "treCurve": ""},
        "exact": {"gamma": k, "draftCost": ledger_values["draftCost"]},
        "realtext": {"rtLookahead": min(k, realtext_max_lookahead())},
    }
    return values if curve is None else with_curve_token(values, curve)


def with_curve_token(values: dict, curve) -> dict:
    """:func:`instrument_values`' ``values`` (at the same deployment and alpha) with the curve itself, not one alpha
    stretched over every position, as the ledger's, serving's, policies' and trees' measured-curve token
    (:func:`lab.acceptance.curve_token`, 4 decimals); the rest as it was. A new mapping, each key where it was.

    >>> from lab import acceptance
    >>> curve = acceptance.iid(0.7)
    >>> with_curve_token(instrument_values(DEFAULT_DEPLOYMENT, 0.7), curve) == instrument_values(DEFAULT_DEPLOYMENT, 0.7, curve)
    True
    """
    from .acceptance import curve_token

    token = curve_token(curve)
    return {**values, "ledger": {**values["ledger"], "trcCurve": token},
            "serving": {**values["serving"], "srvCurve": token}, "policies": {**values["policies"], "polCurve": token},
            "trees": {**values["trees"], "treCurve": token}}


def realtext_max_lookahead() -> int:
    """The real-text widget's largest lookahead (:data:`lab.realtext.LIMITS`), read where it is defined."""
    from .realtext import LIMITS

    return LIMITS["lookahead"][1]


def answer(d: Deployment, alpha: float, curve=None) -> dict:
    """The deployment's one answer: the serving model's speedup at ``k`` and best lookahead at the
    reader's own ``alpha`` (``serving``); the same at the whole percent the instruments receive
    (``servingSent``: what the serving widget shows once sent); the ledger's at its fitted, rounded
    sliders (``ledger``), and ``agree`` when the sent serving model and the ledger name the same best
    lookahead. With ``curve`` (:class:`lab.acceptance.Curve`) both run on the curve instead
    (:func:`_curve_answer`)."""
    if curve is not None:
        return _curve_answer(d, alpha, curve)
    return _iid_answer(d, alpha)


def _iid_answer(d: Deployment, alpha: float, on_curve: bool = False) -> dict:
    """:func:`answer` at one alpha. ``on_curve``: the base :func:`_curve_answer` builds on, without the scans it
    replaces with its own on the curve (the serving model's best k at the reader's alpha and at the whole percent,
    the ledger's, and the verify costs compared at their best lookaheads): their fields are left None, or out,
    for it to fill, so nothing i.i.d. is computed there only to be thrown away."""
    values = instrument_values(d, alpha)
    percent = values["serving"]["acceptance"]
    s = serving_settings(d, 100 * alpha)
    result = serving.serving(s)
    fitted = ledger_costs(d, percent / 100)
    best_k, best = (None, None) if on_curve else serving.best_lookahead(s, MAX_LOOKAHEAD)
    answer_ = {
        "alpha": alpha, "acceptancePercent": percent, "values": values, "costs": fitted,
        "serving": {"speedup": result.speedup, "bestLookahead": best_k, "bestSpeedup": best,
                    "plainStepMs": result.plainStepMs, "draftStepMs": result.draftStepMs,
                    "verifyStepMs": result.verifyStepMs, "tokensPerCall": result.tokensPerCall,
                    "fits": serving.memory_needed_bytes(s) <= serving.memory_available_bytes(s),
                    "maxBatchInMemory": serving.max_batch_in_memory(s)},
        "servingSent": None, "agree": None, "ledger": None, "clamped": clamped_costs(fitted), "compare": None,
    }
    if on_curve:
        return answer_
    sent = serving_settings(d, percent)
    sent_best_k, sent_best = serving.best_lookahead(sent, MAX_LOOKAHEAD)
    ledger_settings = to_ledger_settings(values["ledger"])
    ledger_best_k, ledger_best = ledger.best_lookahead(ledger_settings, MAX_LOOKAHEAD)
    unrounded = ledger_settings.with_(acceptance=percent, **fitted)
    answer_.update({
        "servingSent": {"acceptance": percent, "speedup": serving.serving(sent).speedup,
                        "bestLookahead": sent_best_k, "bestSpeedup": sent_best},
        "agree": sent_best_k == ledger_best_k,
        "ledger": {"speedup": ledger.ledger(ledger_settings).speedup, "bestLookahead": ledger_best_k,
                   "bestSpeedup": ledger_best, "unroundedSpeedup": ledger.ledger(unrounded).speedup,
                   "unroundedBestLookahead": ledger.best_lookahead(unrounded, MAX_LOOKAHEAD)[0]},
        # where the ledger's straight verify line and the serving model's verify step part (unrounded
        # costs): at the ledger's best lookahead and at the serving model's
        "compare": _compare(d, fitted, (ledger_best_k, best_k)),
    })
    return answer_


def _compare(d: Deployment, costs: dict, lookaheads) -> list[dict]:
    """The serving model's verify step beside the ledger's verify pass and overhead on the fitted ``costs``, at
    each of ``lookaheads`` (the two models' best lookaheads), once each, in order."""
    return [{"lookahead": k, "servingVerifyMs": step_times(d, k)["verify"], "ledgerVerifyMs": ledger_verify_ms(costs, k)}
            for k in sorted(set(lookaheads))]


def clamped_costs(costs: dict) -> dict:
    """The fitted ledger costs its sliders cannot hold, by name: ``(fitted value, slider limit)``.

    >>> clamped_costs({"targetMs": 812.0, "draftCost": 3.1, "verifyTax": 9.8, "overheadMs": 3.4})
    {'targetMs': (812.0, 500)}
    """
    limits = {s.name: (s.minimum, s.maximum) for s in LEDGER_SLIDERS}
    return {name: (value, limits[name][0] if value < limits[name][0] else limits[name][1])
            for name, value in costs.items() if not limits[name][0] <= value <= limits[name][1]}


def ledger_verify_ms(costs: dict, lookahead: int) -> float:
    """What the ledger charges for verifying at ``lookahead``: its verify pass plus its overhead per
    cycle (the part of :func:`ledger_cycle_ms` that is not drafting), to set beside the serving
    model's verify step."""
    return _fitted_ledger(costs, lookahead).verifyMs + costs["overheadMs"]


DEFAULT_DOLLARS_PER_GPU_HOUR = 2.5   # the panel's default price; the reader sets theirs
DEFAULT_TPOT_TARGET_MS = 50.0        # the panel's default TPOT target (20 tokens/s a user)


def engine_answer(d: Deployment, acceptance_percent: float, engine: str = "vllm",
                  dollars_per_gpu_hour: float = DEFAULT_DOLLARS_PER_GPU_HOUR,
                  tpot_target_ms=DEFAULT_TPOT_TARGET_MS, log=None, ks=None, curve=None) -> dict:
    """From the deployment's answer to the engine's settings: the k schedule by batch
    (the serving model's best k at every batch, k = 0 past the crossover, :mod:`lab.production`, kept from
    rising back where that gains under :data:`lab.production.SCHEDULE_TOLERANCE`: ``held`` says where; where k
    still rises, ``rises`` says by how much and why, :func:`lab.production.schedule_rises`),
    the configuration for ``engine`` (:mod:`lab.engine_config`), the production terms and the
    diagnosis (with ``log``, a :func:`lab.traces.analyse` result, when the reader pasted one), at the
    acceptance the instruments receive (whole percent), or, given the answer's ``curve``
    (:class:`lab.acceptance.Curve`), on the curve's rates with k never past its plateau's start plus one:
    the schedule's k at the reader's batch is then the k :func:`answer` names. ``ks``: the best k by
    batch (:func:`lab.production.k_by_batch`) when already computed."""
    from . import engine_config, production

    settings = serving_settings(d, acceptance_percent)
    rates, cap = curve_schedule_terms(curve)
    ks = production.k_by_batch(settings, MAX_LOOKAHEAD, rates, cap) if ks is None else list(ks)
    steady, held = production.steady_schedule(settings, ks, rates)
    plan = engine_plan(d, ks, steady)
    ranges = plan["ranges"]
    return {"schedule": [{"from": low, "to": high, "lookahead": k} for low, high, k in ranges], "held": held,
            "rises": production.schedule_rises(settings, steady, rates),
            "kByBatch": ks, "scheduleByBatch": steady, "config": engine_config.configuration(engine, plan),
            "production": production.production(settings, d.lookahead, dollars_per_gpu_hour, tpot_target_ms, steady,
                                                rates),
            "diagnosis": production.diagnosis(settings, d.lookahead, ks, log, rates)}


def curve_schedule_terms(curve) -> tuple:
    """What the schedule takes of an answer's curve: its conditional rates at positions
    1..:data:`MAX_LOOKAHEAD` and the largest k it allows (its plateau's start plus one, the cap of
    :func:`lab.acceptance.best_lookahead`); ``(None, None)`` without a curve.

    >>> from lab import acceptance
    >>> rates, cap = curve_schedule_terms(acceptance.from_lengths({1: 1.79, 2: 2.27, 3: 2.49, 4: 2.54, 5: 2.55}))
    >>> len(rates), cap
    (12, 5)
    """
    if curve is None:
        return None, None
    from .acceptance import plateau_start

    plateau = plateau_start(curve, MAX_LOOKAHEAD)
    return tuple(curve.rates(MAX_LOOKAHEAD)), None if plateau is None else plateau + 1


def engine_plan(d: Deployment, ks, steady=None) -> dict:
    """What an engine configuration is built from (:func:`lab.engine_config.configuration`): the
    deployment's pair and GPUs, its lookahead, the schedule ``steady`` (:func:`lab.production.steady_schedule`;
    the best k by batch ``ks`` itself when not given) as ranges, and the best k and speedup at the deployment's
    batch."""
    from . import production

    ranges = production.schedule_ranges([k for k, _ in (ks if steady is None else steady)])
    here = min(d.batch, len(ks)) - 1
    return {"target": d.target, "draft": d.draft, "gpus": d.gpus, "lookahead": d.lookahead, "ranges": ranges,
            "batch": d.batch, "batchK": ks[here][0], "bestSpeedup": ks[here][1]}


def _curve_answer(d: Deployment, alpha: float, curve) -> dict:
    """:func:`answer` on an acceptance curve: tokens per cycle from the curve's conditional
    rates, the best lookahead from the curve (:func:`lab.acceptance.best_lookahead`: never past its
    plateau's start plus one, and saying when it rests on positions past the measured ones); the
    ledger takes the curve as its measured-curve token (4 decimals), so its numbers are the token's; the two verify
    costs are compared (``compare``) at the two best lookaheads on the curve."""
    from . import acceptance

    answer_ = _iid_answer(d, alpha, on_curve=True)
    values = with_curve_token(answer_["values"], curve)   # instrument_values(d, alpha, curve), its costs fitted once
    rates = curve.rates(MAX_LOOKAHEAD)
    percent = values["serving"]["acceptance"]
    s = serving_settings(d, percent)
    result = serving.serving(s, rates)
    speedups = serving.lookahead_speedups(s, MAX_LOOKAHEAD, rates)  # speedup_at at each k (s holds the batch, context)
    best = acceptance.best_lookahead(lambda k: speedups[k - 1], curve, MAX_LOOKAHEAD)
    token_rates = acceptance.token_rates(values["ledger"]["trcCurve"])
    ledger_settings = to_ledger_settings(values["ledger"])
    unrounded = ledger_settings.with_(**answer_["costs"])  # ledger_costs(d, percent / 100), fitted by _iid_answer
    ledger_best = acceptance.best_lookahead_on_curve(ledger_settings, token_rates, MAX_LOOKAHEAD, curve.measuredAt)
    sent_best_k, sent_best = serving.best_lookahead(s, MAX_LOOKAHEAD, curve=token_rates)
    answer_.update({
        "values": values,
        # the serving widget receives the curve's token (4 decimals) and the whole percent
        "servingSent": {"acceptance": percent, "speedup": serving.serving(s, token_rates).speedup,
                        "bestLookahead": sent_best_k, "bestSpeedup": sent_best},
        "curve": {"token": values["ledger"]["trcCurve"], "perPosition": curve.rates(d.lookahead),
                  "meanAcceptanceLength": curve.length(d.lookahead), "measuredAt": curve.measuredAt,
                  "plateauStart": best["plateauStart"], "method": curve.family, "source": curve.source},
        "serving": {**answer_["serving"], "speedup": result.speedup, "bestLookahead": best["k"],
                    "bestSpeedup": best["speedup"], "tokensPerCall": result.tokensPerCall,
                    "bestExtrapolatedFrom": best["extrapolatedFrom"], "cappedAtPlateau": best["capped"]},
        "ledger": {"speedup": ledger.ledger_from_curve(ledger_settings, token_rates).speedup,
                   "bestLookahead": ledger_best["k"], "bestSpeedup": ledger_best["speedup"],
                   # before the sliders round, on the same curve (not i.i.d.'s unrounded ledger)
                   "unroundedSpeedup": ledger.ledger_from_curve(unrounded, token_rates).speedup,
                   "unroundedBestLookahead": acceptance.best_lookahead_on_curve(unrounded, token_rates, MAX_LOOKAHEAD,
                                                                                curve.measuredAt)["k"]},
    })
    answer_["agree"] = best["k"] == ledger_best["k"]
    # where the two verify costs part, at the best lookaheads on the curve (not i.i.d.'s, which it replaced)
    answer_["compare"] = _compare(d, answer_["costs"], (ledger_best["k"], best["k"]))
    return answer_
