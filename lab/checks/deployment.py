"""The deployment panel's family of the instruments suite: the unit conversions, the ledger's costs
fitted to the serving model, and that every instrument the panel sets answers what the panel says.

The grid walks every target with two drafts, two GPUs and a few batches, contexts and lookaheads;
the view checks feed the very values the panel's buttons send to the other widgets' own views.
"""

from functools import lru_cache

from .. import acceptance, deployment, ledger, serving, traces
from ..jsformat import to_fixed, to_js_string
from . import alpha_root, phrase_missing, readout_difference, views_at
from .deployment_acceptance import ALPHAS, LOOKAHEADS

__all__ = ["CHECKS", "signature_value", "SIGNATURE_NOTE", "SIGNATURE_SETTING"]

TOLERANCE = 1e-9
GRID = tuple(deployment.Deployment(target=target, draft=draft, gpu=gpu, gpus=gpus, batch=batch, context=context,
                                   lookahead=k)
             for target in serving.TARGETS for draft in (serving.EAGLE, "qwen2.5-0.5b")
             for gpu, gpus in (("h100-sxm", 4), ("a100-80g", 8)) for batch, context in ((1, 1024), (64, 8192))
             for k in (1, 4, 7)) + (
    # past every ledger slider: a plain step of seconds, which the sliders must clamp
    deployment.Deployment(target="deepseek-v3", draft=serving.EAGLE, gpu="l40s", gpus=1, batch=1024, context=131072,
                          lookahead=4),)
VIEW_GRID = ({}, {"unit": "rate", "value": "45", "measuredK": "5", "lookahead": "6", "batchExp": "0"},
             {"unit": "alpha", "value": "57", "target": "llama-3-8b", "gpus": "1", "lookahead": "2", "batchExp": "0"},
             {"target": "mixtral-8x7b", "draft": "ngram", "gpu": "a100-80g", "batchExp": "8", "contextExp": "14"},
             # the default figure on an n-gram draft at batch 1: its prior rises (a copying drafter's), no plateau, k = 12
             {"draft": "ngram", "batchExp": "0"},
             # 2.2 tokens per call at k = 4 on an n-gram draft at batch 1: its prior's plateau caps the best k (7, not 11)
             {"draft": "ngram", "batchExp": "0", "value": "2.2"})
SIGNATURE_SETTING = {"value": 2.8, "unit": "length", "measured_k": 4}
SIGNATURE_NOTE = (
    "deployment: alpha of the panel's default figure, a mean acceptance length of 2.8 at k = 4 (the root of "
    "a + a^2 + a^3 + a^4 = 1.8), 6 decimals; tests/test_deployment.py recomputes it with numpy.roots.")


def units_round_trip(out):
    """Every alpha on a grid of alphas and lookaheads, written as the engines' acceptance rate and as the
    mean acceptance length (lab.traces.translate), comes back from each unit as the same alpha."""
    for k in LOOKAHEADS:
        for alpha in ALPHAS:
            units = traces.translate(k, alpha=alpha)
            for unit, value in (("alpha", 100 * alpha), ("rate", 100 * units["acceptanceRate"]),
                                ("length", units["meanAcceptanceLength"])):
                out.visited += 1
                back = deployment.alpha_from(value, unit, k)
                if abs(back - alpha) > 1e-6:
                    out.fail(f"alpha {alpha} at k = {k} as {unit} {value} came back as {back}")
                    return


def unit_bounds_refused(out):
    """A figure outside its unit's range (alpha or rate outside 0..100%, a length outside 1..k + 1) is
    refused with a message that names the value, never converted."""
    for k in LOOKAHEADS:
        for unit, value in (("alpha", -1), ("alpha", 101), ("rate", 100.5), ("length", 0.99), ("length", k + 1.01)):
            out.visited += 1
            try:
                deployment.alpha_from(value, unit, k)
            except ValueError as error:
                if str(value) not in str(error):
                    out.fail(f"the message for {unit} {value} does not name it: {error}")
                    return
            else:
                out.fail(f"{unit} {value} at k = {k} was converted")
                return


FIT_ALPHA = 0.7   # the acceptance the fit is checked at (the emitted-token output grows with it)


@lru_cache(maxsize=None)
def _fit(d):
    return deployment.ledger_costs(d, FIT_ALPHA), deployment.step_times(d)


def ledger_fit_reproduces_serving(out):
    """The ledger's cycle on the fitted (unrounded) costs equals the serving model's k draft steps, one
    verify step, the draft's cost beyond its one-token steps (lab.serving.draft_extend_ms) and the cycle's
    emitted-token output processing at the reader's k (alpha 0.7), to 1e-9 relative, on every target, draft, GPU, batch, context and k of
    the grid; so the ledger's speedup there equals the serving model's."""
    for d in GRID:
        out.visited += 1
        costs, steps = _fit(d)
        emitted = serving.emitted_output_ms(deployment.serving_settings(d, 0), d.batch,
                                            serving.tokens_per_cycle(FIT_ALPHA, d.lookahead))
        extend = serving.draft_extend_ms(deployment.serving_settings(d, 0), d.batch, d.context)  # SGLang's, V1's first step
        serving_cycle = d.lookahead * steps["draft"] + extend + steps["verify"] + emitted
        cycle = deployment.ledger_cycle_ms(costs, d.lookahead)
        if abs(cycle - serving_cycle) > TOLERANCE * serving_cycle:
            out.fail(f"{d}: ledger cycle {cycle} ms, serving {serving_cycle} ms")
            return


def fitted_costs_are_sliders(out):
    """The fitted costs are ones a ledger can hold: a positive target pass, a non-negative draft share,
    tax and overhead; and the values sent to every instrument lie in its sliders' ranges."""
    from ..urlstate import LEDGER_SLIDERS

    ranges = {s.name: (s.minimum, s.maximum) for s in LEDGER_SLIDERS}
    for d in GRID:
        out.visited += 1
        costs, _ = _fit(d)
        if not costs["targetMs"] > 0 or min(costs["draftCost"], costs["verifyTax"], costs["overheadMs"]) < 0:
            out.fail(f"{d}: fitted costs {costs}")
            return
        sent = deployment.instrument_values(d, 0.7)["ledger"]
        for name, (low, high) in ranges.items():
            if not low <= sent[name] <= high:
                out.fail(f"{d}: the ledger's {name} gets {sent[name]}, outside {low}..{high}")
                return


def _sent(raw):
    from ..widgets import deployment as panel

    return panel.view(raw)


def serving_widget_shows_the_answer(out):
    """The serving widget, given what the panel sends it, shows the panel's speedup at k at the sent
    (whole-percent) alpha (its readout, 3 decimals) and its settings have that best lookahead."""
    from ..widgets import serving as widget

    for raw in VIEW_GRID:
        out.visited += 1
        panel = _sent(raw)
        answer = panel["answer"]
        shown = widget.view({name: str(value) for name, value in answer["values"]["serving"].items()})
        if shown["readouts"]["speedup"] != to_fixed(answer["servingSent"]["speedup"], 3):
            out.fail(f"{raw}: serving shows {shown['readouts']['speedup']}, the panel {answer['servingSent']['speedup']}")
            return
        token = answer["values"]["serving"].get("srvCurve") or None  # a figure travels as a curve (its prior)
        best = (serving.best_lookahead(widget._settings(shown["params"]), deployment.MAX_LOOKAHEAD)[0] if token is None
                else _sent_curve_best(widget._settings(shown["params"]), token))
        if best != answer["servingSent"]["bestLookahead"]:
            out.fail(f"{raw}: serving's best lookahead {best}, the panel's {answer['servingSent']['bestLookahead']}")
            return
        yield  # a pause: the browser answers a reader between two cases (lab.audit.run_check_steps)


def _sent_curve_best(settings, token: str) -> int:
    """The serving model's best lookahead on the curve a token carries, scanned here (k = 1 to MAX_LOOKAHEAD, the
    first of the largest), not read from the panel, by the one best-k rule (lab.acceptance.best_lookahead: never past
    the plateau's start plus one; 2.2 tokens per call at k = 4 with an n-gram draft at batch 1 plateaus from k = 6,
    where the bare scan says 11 and every instrument 7)."""
    from .. import acceptance

    rates, measured, method = (acceptance.token_rates(token), acceptance.token_measured_at(token),
                               acceptance.token_method(token))
    speedups = [serving.serving(settings.with_(lookahead=k), serving.received_curve(rates, measured, k, method)).speedup
                for k in range(1, deployment.MAX_LOOKAHEAD + 1)]
    received = acceptance.token_curve(serving.received_curve(rates, measured, deployment.MAX_LOOKAHEAD, method), measured)
    return acceptance.best_lookahead(lambda k: speedups[k - 1], received, deployment.MAX_LOOKAHEAD)["k"]


def ledger_widget_shows_the_ledger_answer(out):
    """The ledger widget, given what the panel sends it, has the speedup and best lookahead the panel
    reports for the ledger."""
    from ..widgets import ledger as widget

    for raw in VIEW_GRID:
        out.visited += 1
        answer = _sent(raw)["answer"]
        shown = widget.view({name: str(value) for name, value in answer["values"]["ledger"].items()})
        if (shown["bestLookahead"] != answer["ledger"]["bestLookahead"]
                or abs(shown["ledger"]["speedup"] - answer["ledger"]["speedup"]) > TOLERANCE):
            out.fail(f"{raw}: the ledger shows k = {shown['bestLookahead']}, {shown['ledger']['speedup']}; "
                     f"the panel says k = {answer['ledger']['bestLookahead']}, {answer['ledger']['speedup']}")
            return


def policies_independent_is_the_ledger(out):
    """With independent tokens, the lookahead policies given what the panel sends them find the ledger's
    best static lookahead and speedup (over the same k range): one cost model, not two; and on the curve the
    panel sends them (polCurve, as their measured-curve mode reads it), the ledger's best static lookahead and
    speedup on that curve (lab.acceptance.best_lookahead_on_curve), not one alpha's."""
    from .. import policies

    for raw in VIEW_GRID:
        out.visited += 1
        answer = _sent(raw)["answer"]
        values = answer["values"]["policies"]
        result = policies.evaluate_setting({**values, "burst": 0, "threshold": 40})["best-static"]
        # the ledger as the panel sets it, at the policies' acceptance (their slider stops at 1..99%)
        sent = answer["values"]["ledger"]
        settings = ledger.LedgerSettings(**{name: sent[name] for name in ledger.LedgerSettings._fields}).with_(
            acceptance=values["acceptance"])
        k, speedup = ledger.best_lookahead(settings, policies.MAX_STATIC)
        if abs(result["speedup"] - speedup) > 1e-9 * speedup:
            out.fail(f"{raw}: policies best static k = {result['k']} at {result['speedup']}, ledger k = {k} at {speedup}")
            return
        token = values.get("polCurve")
        if token:  # the curve the panel sends: both continue it past its measured positions as lab.acceptance does
            rates, measured, method = (acceptance.token_rates(token), acceptance.token_measured_at(token),
                                       acceptance.token_method(token))
            result = policies.best_static(policies.received_curve(rates, measured, method), policies.setting_costs(values))
            found = acceptance.best_lookahead_on_curve(settings, acceptance.extended_rates(
                rates, policies.MAX_STATIC, measured, method), policies.MAX_STATIC, measured)
            if result["k"] != found["k"] or abs(result["speedup"] - found["speedup"]) > 1e-9 * found["speedup"]:
                out.fail(f"{raw}: on the sent curve the policies' best static k = {result['k']} at "
                         f"{result['speedup']}, the ledger's k = {found['k']} at {found['speedup']}")
                return


def view_names_bad_values(out):
    """The panel's view never raises on hostile input, and each bad value's note names the control and
    what is valid; every slider answers hostile values (lab.checks.hostile_inputs_answered)."""
    # each named by its label on the page, in the page's units (lab.urlstate.reader_note)
    cases = (({"value": "abc"}, "Your acceptance figure", "valid"),
             ({"unit": "furlongs"}, "Its unit", "mean acceptance length"),
             ({"value": "9", "unit": "length", "measuredK": "4"}, "Your acceptance figure", "k + 1 = 5"),
             ({"gpus": "3"}, "GPU count", "\u201c8\u201d"), ({"batchExp": "1e400"}, "Batch B", "1,024 sequences"),
             ("?depValue=nan&depK=99", "Your acceptance figure", "valid"), ({"target": ["x"]}, "Target model", "Llama"))
    for raw, name, valid in cases:
        out.visited += 1
        notes = _sent(raw)["notes"]
        if not any(note.startswith(name) and valid in note for note in notes):
            out.fail(f"{raw}: no note names {name} and {valid!r}: {notes}")
            return
    for raw in (None, 5, [1], {"width": "x"}, "?" + "x" * 5000):
        out.visited += 1
        if "summary" not in _sent(raw):
            out.fail(f"{raw!r}: no summary")
            return
    # and every slider given NaN, infinities, an empty value, other scripts' digits, markup, 5,000 characters
    from ..widgets import deployment as widget
    from . import hostile_inputs_answered

    yield from hostile_inputs_answered(out, widget)


# --- the panel's readouts ----------------------------------------------------------------------

# Form values for the panel (lab.widgets.deployment): its defaults, each unit at both ends of its range
# and of the lookahead it was measured at, both ends of the lookahead, batch and context sliders, and
# the choices that change the serving model's step (draft kind, engine, GPU count).
READOUT_SETTINGS = (
    {},
    {"unit": "alpha", "value": "0", "lookahead": "1", "batchExp": "0", "contextExp": "9"},
    {"unit": "alpha", "value": "100", "lookahead": "12", "batchExp": "10", "contextExp": "17"},
    {"unit": "rate", "value": "45", "measuredK": "1", "lookahead": "3"},
    {"unit": "rate", "value": "20", "measuredK": "64", "lookahead": "8"},
    {"unit": "length", "value": "4.6", "measuredK": "7", "lookahead": "7", "draft": "ngram", "engine": "sglang"},
    {"unit": "length", "value": "13", "measuredK": "12", "lookahead": "5", "gpus": "8", "batchExp": "6"},
    # a mixture of experts whose schedule's k rises at batch 2 for its experts (the rise note's experts clause), and
    # a TPOT target only its batch 1 meets under the schedule (k = 4 there, 8 at batch 2)
    {"unit": "alpha", "value": "75", "target": "mixtral-8x7b", "gpus": "2", "tpotTarget": "5.5"},
    # suffix decoding's prior rises from position 1 to 2 and not from 2 to 3: the curve sentence says it falls
    {"unit": "length", "value": "1.7", "measuredK": "1", "lookahead": "2", "draft": "suffix", "batchExp": "3"},
)


def _list_rows(html_text: str) -> dict:
    """The instruments list's rows by target: (the values its button sends, what it receives, what its
    numbers use), as text."""
    from . import unescape
    import json
    import re

    rows = {}
    for item in re.findall(r"<li>(.*?)</li>", html_text, re.S):
        target = re.search(r'data-target="([^"]+)"', item).group(1)
        sent = json.loads(unescape(re.search(r'data-values="([^"]*)"', item).group(1)))
        gets, uses = (unescape(re.sub(r"<[^>]+>", "", re.search(rf'class="dep-{part}">(.*?)</p>', item, re.S).group(1)))
                      for part in ("gets", "uses"))
        rows[target] = (sent, gets, uses)
    return rows


def _ledger_at(settings, sent: dict, curve) -> tuple[float, int]:
    """The ledger's speedup at its sliders and its best lookahead: on the curve token it is sent, when one is."""
    if curve is None:
        return ledger.ledger(settings).speedup, ledger.best_lookahead(settings, deployment.MAX_LOOKAHEAD)[0]
    rates = acceptance.token_rates(sent["trcCurve"])
    return (ledger.ledger_from_curve(settings, rates).speedup,
            acceptance.best_lookahead_on_curve(settings, rates, deployment.MAX_LOOKAHEAD, curve.measuredAt)["k"])


def _rows_difference(where, html_text, d, p, alpha, k_m, speedup, curve=None) -> str | None:
    """Every row of the panel's instruments list: its button sends what lab.deployment.instrument_values
    gives (the reader's figure as text to the traces widget), and every number of what it says it receives
    and of what its numbers use is the model's (the ledger's speedup at the sliders it gets, unrounded,
    and its best k; the serving answer; the trees widget's own fixed costs) or a name's (a GPU's, a
    model's, an engine's)."""
    from ..widgets import trees as trees_widget
    from . import numbers_difference, numbers_in

    f = to_fixed
    rows = _list_rows(html_text)
    values = deployment.instrument_values(d, alpha, curve)
    k = d.lookahead
    if set(rows) != set(values) | {"traces"}:
        return f"{where}: the instruments list has rows {sorted(rows)}, the panel sets {sorted(values)} and traces"
    for target, sent in values.items():
        if rows[target][0] != sent:
            return f"{where}: the {target} row's button sends {rows[target][0]}, the model gives {sent}"
    typed = to_js_string(p["value"])
    if typed not in rows["traces"][0].get("trcText", "") or rows["traces"][0].get("trcLookahead") != str(k_m):
        return f"{where}: the traces row's button sends {rows['traces'][0]}, not the figure {typed} at k = {k_m}"
    led, pol, tree = values["ledger"], values["policies"], values["trees"]
    fitted = ledger.LedgerSettings(**{name: led[name] for name in ledger.LedgerSettings._fields})
    # before rounding: the fitted costs at the whole percent the instruments get
    unrounded = fitted.with_(**deployment.ledger_costs(d, led["acceptance"] / 100))
    label_numbers = [n for text in (serving.TARGETS[d.target].label, serving.DRAFT_LABELS[d.draft],
                                    serving.GPUS[d.gpu].label, serving.ENGINES[d.engine].label) for n in numbers_in(text)]
    expected = {  # target -> (receives, its numbers use, fixed)
        "ledger": ([led["acceptance"], k, led["targetMs"], led["draftCost"], led["verifyTax"], led["overheadMs"]],
                   [k, f(_ledger_at(fitted, led, curve)[0], 2), f(_ledger_at(unrounded, led, curve)[0], 2),
                    _ledger_at(fitted, led, curve)[1]], []),
        "traces": ([typed, k_m], [], []),
        "policies": ([pol["acceptance"], pol["draftCost"], k], [], []),
        "serving": ([d.gpus, d.batch, f"{d.context:,}", k, values["serving"]["acceptance"]], [f(speedup, 2), k],
                    label_numbers),
        "exact": ([values["exact"]["gamma"], values["exact"]["draftCost"]], [], []),
        "realtext": ([values["realtext"]["rtLookahead"]], [], []),
        "trees": ([tree["top1"], tree["verifyTax"]], [f(trees_widget.TARGET_MS, 0), f(trees_widget.DRAFT_COST, 0),
                                                      f(trees_widget.OVERHEAD_MS, 0)], ["1"])}  # "top-1"
    if (", its largest" in rows["realtext"][1]) != (values["realtext"]["rtLookahead"] < k):
        return f"{where}: the real-text row reads {rows['realtext'][1]!r} for k = {k}"
    for target, (gets, uses, fixed) in expected.items():
        for part, numbers, text in (("receives", gets, rows[target][1]), ("uses", uses, rows[target][2])):
            failure = numbers_difference(where, f"the instruments list's {target} row ({part})", numbers_in(text),
                                         [to_js_string(n) if isinstance(n, (int, float)) else n for n in numbers],
                                         fixed)
            if failure:
                return failure
    return None


def _production_difference(where, figures, extra, d) -> str | None:
    """The panel's engine tables against lab.deployment.engine_answer (lab.production): every cell of the
    k schedule (batch ranges and k, 0 where speculation is off) and of the production table (batch, k,
    TPOT, tokens/s per user and per GPU, $ per million tokens, for each row the model gives), the
    caption's price and TPOT target, the draft prefill's times, prompt and share (draft / target, computed
    here) and the diagnosis's sentences as the model words them."""
    from . import unescape
    import re

    from . import cells_difference, numbers_difference, numbers_in, table_cells

    f = to_fixed
    want = [cell for r in extra["schedule"] for cell in (f"{r['from']}&ndash;{r['to']}", str(r["lookahead"] or
                                                                                            "0 (speculation off)"))]
    failure = cells_difference(where, "schedule", table_cells(figures["schedule"]), want)
    if failure:
        return failure
    # where the schedule keeps k from rising back it says so, with the runs, the kept and best k, the speedup given
    # up and the tolerance (lab.production.SCHEDULE_TOLERANCE)
    note = re.search(r'<p class="dep-schedule-held">(.*?)</p>', figures["scheduleHeld"])
    from ..production import SCHEDULE_TOLERANCE

    held = extra["held"]
    if bool(note) != bool(held):
        return f"{where}: the schedule {'names' if note else 'does not name'} runs where it keeps k, the model " \
               f"keeps it at {len(held)}"
    if held:
        want = [n for r in held for n in (str(r["from"]), str(r["to"]), str(r["kept"]), str(r["best"]),
                                           f(100 * r["shortfall"], 1))] + [f(100 * SCHEDULE_TOLERANCE, 0)]
        failure = numbers_difference(where, "the schedule's kept runs", numbers_in(unescape(note.group(1))), want,
                                     ordered=True)
        if failure:
            return failure
    prod = extra["production"]
    rows = [prod["plain"], prod["speculative"], prod["scheduled"]] + [prod.get("target", {}).get(n)
                                                                      for n in ("plain", "scheduled")]
    want = [cell for t in rows for cell in (
        [str(t["batch"]), str(t["lookahead"]), f(t["tpotMs"], 2), f(t["tokensPerSecondPerUser"], 1),
         f(t["tokensPerSecondPerGpu"], 1), f"${f(t['costPerMillionTokens'], 3)}"] if t else ["no batch meets it"])]
    failure = cells_difference(where, "production", table_cells(figures["production"]), want)
    if failure:
        return failure
    caption = unescape(re.search(r"<caption>(.*?)</caption>", figures["production"]).group(1))
    failure = numbers_difference(where, "the production table's caption", numbers_in(caption),
                                 [to_js_string(prod["dollarsPerGpuHour"]), str(d.gpus), to_js_string(prod["tpotTargetMs"])])
    if failure:
        return failure
    pre = prod["prefill"]
    failure = numbers_difference(where, "the prefill line", numbers_in(unescape(figures["prefill"])),
                                 [f(pre["draftMs"], 2), f(pre["targetMs"], 2), f"{pre['promptTokens']:,}",
                                  f(100 * pre["draftMs"] / pre["targetMs"] if pre["targetMs"] else 0, 1)],
                                 ordered=True)  # the draft's ms first, then the target's: swapped they read the other way
    if failure:
        return failure
    said = [unescape(item) for item in re.findall(r"<li>(.*?)</li>", figures["diagnosis"], re.S)]
    if said != [item["sentence"] for item in extra["diagnosis"]]:
        return f"{where}: the diagnosis reads {said}, the model says {[i['sentence'] for i in extra['diagnosis']]}"
    return None


def _rises_difference(where, figures, extra, d, percent, curve) -> str | None:
    """The note under the schedule on where its k rises (lab.production.schedule_rises) against the schedule and the
    step model, recomputed here: it names exactly the batches where the schedule's k goes up, each with the k before
    and after, the gain over keeping the k before (the serving model's speedups), the verify step's ms per added draft
    there and at the batch before (lab.serving.verify_step_ms), and each cause with its numbers: the all-reduce's
    large-message start and this verify pass's message (batch x (k + 1) x hidden x 2 bytes), present exactly where
    the message is past the start; the share of a MoE layer's experts the pass's tokens reach and the experts one
    more token reads new, present exactly where that share is past lab.production.EXPERTS_REACHED."""
    from . import unescape
    import math
    import re

    from . import numbers_difference, numbers_in
    from .. import production
    from ..serving_allreduce import allreduce_beyond
    from ..serving_calibration import CALIBRATIONS

    f = to_fixed
    settings, rates = deployment.serving_settings(d, percent), deployment.curve_schedule_terms(curve)[0]
    ran = [k for k, _ in extra["scheduleByBatch"]]
    up = [b for b in range(2, len(ran) + 1) if ran[b - 1] > ran[b - 2]]
    note = re.search(r'<p class="dep-schedule-rises">(.*?)</p>', figures["scheduleRises"])
    if bool(note) != bool(up) or [r["batch"] for r in extra["rises"]] != up:
        return f"{where}: the schedule's k rises at batches {up}, the note names {[r['batch'] for r in extra['rises']]}" \
               f"{'' if note else ' and is not shown'}"
    if not up:
        return None
    target = serving.TARGETS[d.target]
    start = allreduce_beyond(CALIBRATIONS[d.gpu], d.gpus)[0] if d.gpus > 1 else math.inf

    def verify(k, b):
        return serving.verify_step_ms(settings.with_(lookahead=k), b, settings.context)

    def mib(n):
        return to_js_string(float(f(n / 2 ** 20, 2)))

    want = []
    for b in up:
        low, high = ran[b - 2], ran[b - 1]
        kept = 1.0 if low == 0 else serving.speedup_at(settings.with_(lookahead=low), b, settings.context, rates)
        gain = serving.speedup_at(settings.with_(lookahead=high), b, settings.context, rates) / kept - 1
        added = [(verify(high, n) - verify(low, n)) / (high - low) for n in (b, b - 1)]
        want += [str(b), str(low), str(high), f(100 * gain, 1), str(low), f(added[0], 2), f(added[1], 2), str(b - 1)]
        tokens = b * (high + 1)
        message = tokens * target.hidden * 2
        if message > start:
            want += [mib(start), mib(message)]
        if target.experts:
            share = 1 - (1 - target.active_experts / target.experts) ** tokens
            if share > production.EXPERTS_REACHED:
                want += [f(100 * share, 1), str(target.experts), f(target.active_experts * (1 - share), 2),
                         str(target.active_experts)]
    return numbers_difference(where, "the schedule's rises", numbers_in(unescape(note.group(1))), want,
                              ordered=True)


def panel_readouts_match_model(out):
    """Every readout of the deployment panel, and the numbers its lead and summary say, equal the models'
    through the page's formatter (lab.jsformat.to_fixed): the reader's figure becomes alpha at the
    lookahead it was measured at (solved here by bisection, for alpha, the acceptance rate and the mean
    acceptance length), alpha is written back in the engines' units at the lookahead to run, and the
    step times, speedup and best lookahead are the serving model's at that deployment, and the instruments
    list gives the ledger its own answer at the sliders the panel sends it; a mean acceptance length
    measured at the lookahead to run comes back as typed; where the summary sets the two models' verify costs side by
    side, it does so at the two best lookaheads it names (on the curve, when there is one)."""
    from ..widgets import deployment as widget
    from .deployment_rules import tpot_target_difference

    # "faster by less than X%" (two speedups equal to two decimals) must bound the true gap; no setting
    # below reaches it, so the phrase is asked for directly at a gap of 0.49%
    said = widget._best({"speedup": 1.806, "bestSpeedup": 1.8149, "bestLookahead": 3})
    if not said.endswith(f"less than {to_fixed(0.5, 1)}% (the same to two decimals)"):
        return out.fail(f"the summary says {said!r} where k = 3 is 0.49% faster")
    for values, where, view in views_at(out, widget, READOUT_SETTINGS):
        p = _panel_values(widget, values)
        k_m, k = int(p["measuredK"]), int(p["lookahead"])
        alpha, curve = _panel_alpha(p, k_m, k)
        d = _panel_deployment(p)
        answer = deployment.answer(d, alpha, curve)
        percent = answer["acceptancePercent"]
        if percent != round(100 * alpha):
            return out.fail(f"{where}: the instruments get {percent}%, alpha is {100 * alpha}%")
        r, speedup, best_k, best = _panel_serving(d, alpha, curve, percent)
        failure = readout_difference(where, view["readouts"], _panel_expected(p, alpha, r, speedup, best_k, best))
        if failure:
            return out.fail(failure)
        led_speedup, led_best = _panel_ledger(d, alpha, curve)
        failure = (_panel_phrase_missing(where, view, (k_m, k, percent, curve), (speedup, best_k),
                                         (led_speedup, led_best))
                   or _rows_difference(where, view["figures"]["instruments"], d, p, alpha, k_m, speedup, curve)
                   or _compared_difference(where, view["summary"], best_k, led_best)
                   or _sentences_difference(where, view, d, (k, curve), answer, led_best))
        if failure:
            return out.fail(failure)
        yield
        extra = deployment.engine_answer(d, percent, p["configEngine"], float(p["gpuHour"]), float(p["tpotTarget"]),
                                         curve=curve)
        failure = (_production_difference(where, view["figures"], extra, d)
                   or _rises_difference(where, view["figures"], extra, d, percent, curve)
                   or tpot_target_difference(where, extra, d, percent, curve)
                   or _schedule_here_difference(where, extra, d, curve, best_k, best))
        if failure:
            return out.fail(failure)
        yield  # a pause: the browser answers a reader between two settings


def _panel_values(widget, values: dict) -> dict:
    """The panel's values at a setting: every slider's and choice's default, the setting's values over them (a
    slider's as a number)."""
    return {**{s.name: s.default for s in widget.SLIDERS}, **{c.name: c.default for c in widget.CHOICES},
            **{k: (v if k in {c.name for c in widget.CHOICES} else float(v)) for k, v in values.items()}}


def _panel_deployment(p: dict) -> deployment.Deployment:
    """The deployment the panel's values name (batch and context from their log sliders)."""
    return deployment.Deployment(target=p["target"], draft=p["draft"], gpu=p["gpu"], gpus=int(p["gpus"]),
                                 batch=2 ** int(p["batchExp"]), context=2 ** int(p["contextExp"]),
                                 lookahead=int(p["lookahead"]), engine=p["engine"])


def _panel_ledger(d, alpha: float, curve) -> tuple:
    """(speedup, best k) of the ledger's row of the instruments list: its one-line cycle at the sliders the panel
    sends it."""
    sent = deployment.instrument_values(d, alpha, curve)["ledger"]
    led = ledger.LedgerSettings(**{name: sent[name] for name in ledger.LedgerSettings._fields})
    return _ledger_at(led, sent, curve)


def _panel_alpha(p: dict, k_m: int, k: int) -> tuple:
    """(alpha, curve or None) of the reader's figure: alpha at the lookahead it was measured at ``k_m`` (solved here
    by bisection for the acceptance rate and the mean acceptance length); a figure other than alpha is a length at
    ``k_m`` extended by the draft family's decay prior (lab.acceptance), and the sliders' one alpha is then
    i.i.d.'s at ``k`` on that curve."""
    unit, figure = p["unit"], float(p["value"])
    alpha = {"alpha": lambda: figure / 100, "rate": lambda: alpha_root(figure / 100 * k_m, k_m),
             "length": lambda: alpha_root(figure - 1, k_m)}[unit]()
    curve = None
    if unit != "alpha":  # a figure is a length at k_m, extended by the draft family's decay prior (lab.acceptance)
        curve = acceptance.from_single(1 + sum(alpha ** i for i in range(1, k_m + 1)), k_m,
                                       acceptance.family_of_draft(p["draft"], p["target"]))
        alpha = alpha_root(curve.length(k) - 1, k)  # the sliders' one alpha: i.i.d.'s at k on the curve
    return alpha, curve


def _panel_serving(d, alpha: float, curve, percent: int) -> tuple:
    """(the serving model's result, speedup, best k, its speedup) at the deployment: at the reader's own alpha,
    unrounded (the instruments receive the whole percent); on a curve, the tokens per cycle and the best k from the
    curve's own rates."""
    s = serving.DEFAULT_SETTINGS.with_(target=d.target, draft=d.draft, gpu=d.gpu, gpus=d.gpus, lookahead=d.lookahead,
                                       acceptance=100 * alpha, batch=d.batch, context=d.context,
                                       stepModel=serving.MEASURED, treeTokens=0, engine=d.engine)
    r = serving.serving(s)
    best_k, best = serving.best_lookahead(s, deployment.MAX_LOOKAHEAD)
    speedup = r.speedup
    if curve is not None:  # tokens per cycle and the best k from the curve's own rates
        rates, on_curve = curve.rates(deployment.MAX_LOOKAHEAD), s.with_(acceptance=percent)
        speedup = serving.serving(on_curve, rates).speedup
        found = acceptance.best_lookahead(lambda j: serving.speedup_at(on_curve.with_(lookahead=j), d.batch,
                                                                       d.context, rates),
                                          curve, deployment.MAX_LOOKAHEAD)
        best_k, best = found["k"], found["speedup"]
    return r, speedup, best_k, best


def _panel_expected(p: dict, alpha: float, r, speedup: float, best_k: int, best: float) -> dict:
    """The panel's readouts as the models give them: alpha in the engines' three units at the lookahead to run
    (a mean acceptance length measured there comes back as typed), the step times, the speedup and the best k."""
    f, k = to_fixed, int(p["lookahead"])
    drafted = sum(alpha ** i for i in range(1, k + 1))
    expected = {"alpha": f"{f(100 * alpha, 1)}%", "rate": f"{f(100 * drafted / k, 1)}%",
                "length": f(1 + drafted, 2), "plainStepMs": f(r.plainStepMs, 2), "draftStepMs": f(r.draftStepMs, 2),
                "verifyStepMs": f(r.verifyStepMs, 2), "speedup": f"{f(speedup, 2)}x",
                "best": f"k = {best_k}, {f(best, 2)}x"}
    if p["unit"] == "length" and int(p["measuredK"]) == k:
        expected["length"] = f(float(p["value"]), 2)  # the reader's own figure comes back as typed
    return expected


def _panel_phrase_missing(where, view: dict, given: tuple, answer: tuple, ledger_answer: tuple) -> str | None:
    """The lead's, live line's, summary's and instruments list's numbers: the speedup at the lookahead to run and the
    best k (``answer``), the instruments' percent, the curve's family, and the ledger's own speedup and best k
    (``ledger_answer``). ``given`` is (k measured at, k to run, percent, curve)."""
    f = to_fixed
    (k_m, k, percent, curve), (speedup, best_k), (led_speedup, led_best) = given, answer, ledger_answer
    phrases = {"lead": [f"{f(speedup, 2)}x at lookahead {k}"],
               "live": [f"{f(speedup, 2)}x at lookahead {k}; best lookahead {best_k}"],
               "summary": [f"{f(speedup, 2)}x at lookahead {k}", f"{percent}%"]
               + ([] if curve is None else [f"On your figure at k = {k_m}, extended to other lookaheads by the "
                                            f"{acceptance.FAMILY_NAMES[curve.family]} family's decay prior"])}
    phrases["instruments"] = [f"at k = {k}: {f(led_speedup, 2)}x (",
                              f"best k = {led_best}.", f"the answer above, {f(speedup, 2)}x at k = {k}"]
    return phrase_missing(where, {**view, "instruments": view["figures"]["instruments"]}, phrases)


def _compared_difference(where, summary: str, best_k: int, led_best: int) -> str | None:
    """Where the summary sets the two verify costs side by side, it does so at the two best lookaheads."""
    import re

    compared = sorted({int(j) for j in re.findall(r"ms at k = (\d+) \(serving:", summary)})
    if compared and compared != sorted({best_k, led_best}):
        return (f"{where}: the summary compares the verify costs at k = {compared}, the best lookaheads "
                f"are {best_k} (serving) and {led_best} (ledger)")
    return None


def _sentences_difference(where, view: dict, d, given: tuple, answer: dict, led_best: int) -> str | None:
    """The summary's agree/differ sentence, the live line and the curve sentence, recomputed: the clamped costs with
    their slider's nearer end, the verify costs compared (the ledger's at its fitted costs, the serving step's at each
    k), the rounding sentence's unrounded k, the ledger's k on the live line where the two differ, and the curve's
    length at the k to run. ``given`` is (k to run, curve)."""
    from ..urlstate import LEDGER_SLIDERS

    f = to_fixed
    (k, curve), summary = given, view["summary"]
    limits = {s.name: (s.minimum, s.maximum) for s in LEDGER_SLIDERS}
    units = {"targetMs": " ms", "draftCost": "%", "verifyTax": "%", "overheadMs": " ms"}
    costs = deployment.ledger_costs(d, answer["acceptancePercent"] / 100)
    phrases = [f"would be {f(value, 1)}{units[name]}, past its slider's "
               f"{to_js_string(limits[name][0] if value < limits[name][0] else limits[name][1])}{units[name]}"
               for name, value in costs.items() if not limits[name][0] <= value <= limits[name][1]]
    if not phrases and not answer["agree"]:
        unrounded_k = answer["ledger"]["unroundedBestLookahead"]
        phrases += ([f"on the unrounded costs it agrees, best k = {unrounded_k}."]
                    if unrounded_k == answer["servingSent"]["bestLookahead"] else
                    [f"{f(deployment.ledger_verify_ms(costs, j), 2)} ms at k = {j} (serving: "
                     f"{f(deployment.step_times(d, j)['verify'], 2)} ms)" for j in sorted({led_best, answer["serving"]["bestLookahead"]})])
    if curve is not None:
        phrases.append(f"the mean acceptance length at k = {k} is {f(curve.length(k), 2)},")
        if curve.source == "single":  # the prior's shape from position 2 on (position 1 is the measured figure)
            r = curve.rates(3)
            phrases.append("(acceptance rises with position toward a ceiling below 1)" if r[2] > r[1] else
                           "(acceptance falls with position)")
    failure = phrase_missing(where, {"summary": summary}, {"summary": phrases})
    if failure:
        return failure
    ledger_says = "" if answer["agree"] else f"; the ledger says {led_best}"
    if not view["live"].endswith(f"best lookahead {answer['serving']['bestLookahead']}{ledger_says}"):
        return f"{where}: the live line reads {view['live']!r}, the two models' best k are " \
               f"{answer['serving']['bestLookahead']} and {led_best}"
    return None


def _schedule_here_difference(where, extra: dict, d, curve, best_k: int, best: float) -> str | None:
    """The k schedule runs on the same curve: at the reader's batch it is the answer's best k (0 where none pays),
    or a k it keeps from rising back there, named as such."""
    here = min(d.batch, len(extra["kByBatch"]))
    scheduled = extra["kByBatch"][here - 1][0]
    if curve is not None and scheduled != (best_k if best > 1 else 0):
        return (f"{where}: the k schedule runs k = {scheduled} at batch {d.batch}, the answer's best k on "
                f"the curve is {best_k}")
    runs = [r for r in extra["held"] if r["from"] <= here <= r["to"]]
    if extra["scheduleByBatch"][here - 1][0] != (runs[0]["kept"] if runs else scheduled):
        return (f"{where}: the schedule runs k = {extra['scheduleByBatch'][here - 1][0]} at batch {here}, "
                f"neither the best k {scheduled} nor a k it names as kept")
    return None


SCHEDULE_GRID = (
    deployment.DEFAULT_DEPLOYMENT,
    # the EAGLE-3 head: TensorRT-LLM writes no configuration for the default's EAGLE-1 head (lab.engine_config), so its
    # schedule on a dense target is held here
    deployment.Deployment(target="llama-3-8b", draft=serving.EAGLE3, gpu="h100-sxm", gpus=1, batch=16, context=2048),
    deployment.Deployment(target="llama-3-70b", draft="llama-3.2-1b", gpu="h100-sxm", gpus=4, batch=32, context=4096),
    deployment.Deployment(target="deepseek-v3", draft=serving.EAGLE, gpu="h200", gpus=8, batch=32, context=4096,
                          lookahead=3, precision="fp8"),
)


def schedule_is_best_k(out):
    """vLLM's num_speculative_tokens_per_batch_size and TensorRT-LLM's draft_len_schedule, as printed and
    read by each engine's own rule (lab.engine_config.schedule_k_at), give the serving model's best k
    (lab.serving.best_lookahead, 0 where no k pays) at every batch that fits, except where the schedule keeps
    k from rising back (lab.production.steady_schedule): there the kept k is the batch before's, below the
    best, within SCHEDULE_TOLERANCE of the best speedup (recomputed here), and the schedule names the run;
    wherever the schedule's k rises, it is the best k. For the panel's default, a dense 8B with an EAGLE-3
    head on one H100, a 70B on four H100s and DeepSeek-V3 with its MTP head on eight H200s; TensorRT-LLM's
    only capped at batch 1's k (its validator), exactly where the configuration says (it writes none for the
    default's EAGLE-1 head, which its PyTorch backend does not run)."""
    from .. import engine_config, production

    for d in SCHEDULE_GRID:
        settings = deployment.serving_settings(d, 71)
        best = []
        for batch in range(1, production.schedule_limit(settings) + 1):
            k, speedup = serving.best_lookahead(settings.with_(batch=batch), deployment.MAX_LOOKAHEAD)
            best.append(k if speedup > 1 else 0)
            if batch % 8 == 0:
                yield  # a pause: the browser answers a reader between two (lab.audit.run_check_steps)
        ks = yield from production.k_by_batch_steps(settings, deployment.MAX_LOOKAHEAD, every=8)
        out.visited += 1
        if [k for k, _ in ks] != best:
            out.fail(f"{d}: the panel's best k by batch differs from serving.best_lookahead's")
            return
        steady, held = production.steady_schedule(settings, ks)
        runs = {b: r for r in held for b in range(r["from"], r["to"] + 1)}
        scheduled = [k for k, _ in steady]
        for batch, (k, (best_k, top)) in enumerate(zip(scheduled, ks), start=1):
            if k == best_k and batch not in runs:
                continue
            kept = 1.0 if k == 0 else serving.speedup_at(settings.with_(lookahead=k), batch, settings.context)
            if (batch not in runs or runs[batch]["kept"] != k or k >= best_k or k != scheduled[batch - 2]
                    or kept < top * (1 - production.SCHEDULE_TOLERANCE)):
                out.fail(f"{d}: at batch {batch} the schedule runs k = {k} ({kept:.4f}x), the best is k = {best_k} "
                         f"({top:.4f}x), {'named' if batch in runs else 'not named'} as kept")
                return
        for engine in ("vllm", "trtllm"):
            out.visited += 1
            config = engine_config.configuration(engine, deployment.engine_plan(d, ks, steady))
            if not config["supported"] or config["schedule"] is None:
                if config["supported"] and len(set(scheduled)) > 1:
                    out.fail(f"{d}: {engine} prints no schedule though the best k changes with the batch")
                    return
                continue
            # TensorRT-LLM caps every k at batch 1's (its validator) and names the batches it capped
            expected = scheduled if engine == "vllm" else [min(k, scheduled[0]) for k in scheduled]
            capped = {b for r in config["capped"] for b in range(r["from"], r["to"] + 1)}
            if capped != {b for b, k in enumerate(scheduled, start=1) if k > expected[b - 1]}:
                out.fail(f"{d}: {engine} says it capped batches {sorted(capped)[:5]}..., not where the best k exceeds "
                         "batch 1's")
                return
            for batch, k in enumerate(expected, start=1):
                got = engine_config.schedule_k_at(engine, config["schedule"], batch, max(scheduled))
                if got != k:
                    out.fail(f"{d}: {engine}'s schedule runs k = {got} at batch {batch}, the serving model's best is {k}")
                    return
            yield


def cost_arithmetic(out):
    """Tokens/s per user is 1000 / TPOT, tokens/s per GPU is B 1000 / (TPOT g), and dollars per million
    output tokens times 3600 tokens/s per GPU over 10^6 gives back the price per GPU-hour, plain, at the
    reader's k and under the schedule; the plain and speculative TPOT are the serving model's ms per token; the
    prompt's prefill, target and draft alike, is one pass of its L tokens at context L."""
    from .. import production

    for d in SCHEDULE_GRID:
        ks = yield from production.k_by_batch_steps(deployment.serving_settings(d, 71), deployment.MAX_LOOKAHEAD,
                                                    every=8)
        for price in (0.5, 2.5, 40.0):
            out.visited += 1
            prod = production.production(deployment.serving_settings(d, 71), d.lookahead, price, None, ks)
            result = serving.serving(deployment.serving_settings(d, 71))
            if not _prefill_is_one_pass(deployment.serving_settings(d, 71), prod["prefill"]):
                out.fail(f"{d}: the prefill {prod['prefill']} is not one pass of its prompt at that context")
                return
            if (prod["plain"]["tpotMs"] != result.plainMsPerToken
                    or abs(prod["speculative"]["tpotMs"] - result.specMsPerToken) > TOLERANCE * result.specMsPerToken):
                out.fail(f"{d}: TPOT {prod['plain']['tpotMs']}, {prod['speculative']['tpotMs']} against the serving "
                         f"model's {result.plainMsPerToken}, {result.specMsPerToken}")
                return
            for key in ("plain", "speculative", "scheduled"):
                t = prod[key]
                if (abs(t["tokensPerSecondPerUser"] * t["tpotMs"] - 1000) > 1e-9 * 1000
                        or abs(t["tokensPerSecondPerGpu"] * t["tpotMs"] * d.gpus - 1000 * t["batch"]) > 1e-9 * 1000 * t["batch"]
                        or abs(t["costPerMillionTokens"] * 3600 * t["tokensPerSecondPerGpu"] / 1e6 - price) > 1e-9 * price):
                    out.fail(f"{d} at ${price}/GPU-hour, {key}: {t}")
                    return
        yield


def _prefill_is_one_pass(settings, prefill: dict) -> bool:
    """The prompt's prefill, target and draft alike: one pass of its L tokens at context L (none for a model-free
    proposer), priced by the step model."""
    tokens, shape = prefill["promptTokens"], serving.draft_shape(settings)
    draft = 0.0 if shape is None else serving.step_time_ms(shape, settings, 1, tokens, tokens)
    target = serving.step_time_ms(serving.TARGETS[settings.target], settings, 1, tokens, tokens)
    return prefill["draftMs"] == draft and prefill["targetMs"] == target

CHECKS = (
    ("deployment-units-round-trip", units_round_trip),
    ("deployment-unit-bounds-refused", unit_bounds_refused),
    ("deployment-ledger-fit-reproduces-serving", ledger_fit_reproduces_serving),
    ("deployment-fitted-costs-are-sliders", fitted_costs_are_sliders),
    ("deployment-serving-shows-the-answer", serving_widget_shows_the_answer),
    ("deployment-ledger-shows-its-answer", ledger_widget_shows_the_ledger_answer),
    ("deployment-policies-independent-is-ledger", policies_independent_is_the_ledger),
    ("deployment-view-names-bad-values", view_names_bad_values),
    ("deployment-readouts-match-model", panel_readouts_match_model),
    ("deployment-schedule-is-best-k", schedule_is_best_k),
    ("deployment-cost-arithmetic", cost_arithmetic),
)


def signature_value() -> str:
    """Alpha of the panel's default figure (see :data:`SIGNATURE_NOTE`)."""
    return to_fixed(deployment.alpha_from(SIGNATURE_SETTING["value"], SIGNATURE_SETTING["unit"],
                                          SIGNATURE_SETTING["measured_k"]), 6)


# --- acceptance by position (lab.acceptance): its checks ride in this family, lab.checks.deployment_acceptance for size ---
from .deployment_acceptance import ACCEPTANCE_CHECKS  # noqa: E402  (after the family's own checks: the suite's order)

CHECKS = CHECKS + ACCEPTANCE_CHECKS


# --- the seed's two widgets (the panel's first targets): lab.checks.deployment_seed, apart for size -----------
from .deployment_seed import SEED_CHECKS  # noqa: E402  (after the family's own checks: the suite's order)

CHECKS = CHECKS + SEED_CHECKS

# --- the schedule's and the curve's rules, added after the mutation sweep: lab.checks.deployment_rules, apart for size ---
from .deployment_rules import RULE_CHECKS  # noqa: E402  (last: the suite's names and order before them are as they were)

CHECKS = CHECKS + RULE_CHECKS
