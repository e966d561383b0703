"""The deployment panel (before Part one): the reader's deployment once, one answer for it, and the
values every instrument takes, behind generic "send" buttons.

The model is :mod:`lab.deployment`. The view gives one answer (the serving model's speedup at the
reader's lookahead and its best lookahead), the ledger's answer on costs fitted to the same step
times and, when the two differ, why; then one row per instrument: what it receives, which cost
model its numbers use, and a button that sets its controls (the page's ``data-action="send"``),
with one button that sends them all (``data-action="send-all"``). In ``view(raw)`` a bad value
comes back as a note naming it and what is valid, and the defaults stand in; a bug is reported by
:func:`lab.views.handle`, as every widget's is.
"""

import json
import math
from functools import lru_cache
from urllib.parse import quote as url_quote

from .. import deployment, engine_config, serving
from . import trees
from ..figures import escape, plural, split_width
from ..jsformat import to_fixed, to_js_string
from ..urlstate import (PANEL_FIGURE_TEXT, Choice, Slider, Text, format_query, quote, raw_value,
                        read_controls)

__all__ = ["SLIDERS", "CONTROLS", "view", "page_context", "instruments_html", "send_all_html", "INSTRUMENTS",
           "config_html", "schedule_html", "held_html", "held_words", "rises_html",
           "rises_words", "rise_cause_words", "production_html", "prefill_html", "trust_html",
           "diagnosis_html"]

DEFAULT = deployment.DEFAULT_DEPLOYMENT
# The default is a reader's question: vLLM printed "Mean acceptance length: 2.8" at
# num_speculative_tokens 4, for Llama-3-70B with an EAGLE head on 4 H100s at batch 32.
DEFAULT_UNIT, DEFAULT_VALUE, DEFAULT_MEASURED_K = "length", 2.8, 4

SLIDERS = (
    Slider("value", "Your acceptance figure", 0, 100, 0.01, DEFAULT_VALUE, "", url_key="depValue", control="number"),
    # 64 is lab.traces.MAX_LOOKAHEAD (a test holds them equal): the trace reader is imported only when text is pasted
    Slider("measuredK", "measured at lookahead k", 1, 64, 1, DEFAULT_MEASURED_K, "", integer=True,
           url_key="depMeasuredK", control="number"),
    Slider("lookahead", "Lookahead k to run", 1, deployment.MAX_LOOKAHEAD, 1, DEFAULT.lookahead, "tokens", integer=True,
           url_key="depK"),
    # log sliders, as the serving widget's: the value is the exponent, the page shows 2 ** value; the typed
    # twin beside each holds the exact count (a batch of 48), which the model computes at (urlstate.read_typed)
    Slider("batchExp", "Batch B", 0, 10, 1, DEFAULT.batch.bit_length() - 1, "sequences", integer=True,
           url_key="depBatchLog2", base=2, typed_key="depBatch"),
    Slider("contextExp", "Context L", 9, 17, 1, DEFAULT.context.bit_length() - 1, "tokens", integer=True,
           url_key="depContextLog2", base=2, typed_key="depContext"),
    # the production terms' inputs: the link carries them (dep... keys)
    Slider("gpuHour", "Price per GPU-hour ($)", 0.01, 1000, 0.01, deployment.DEFAULT_DOLLARS_PER_GPU_HOUR, "$",
           url_key="depGpuHour", control="number"),
    Slider("tpotTarget", "TPOT target (ms)", 0.1, 10000, 0.1, deployment.DEFAULT_TPOT_TARGET_MS, "ms",
           url_key="depTpotMs", control="number"),
)
CHOICES = (
    Choice("unit", "depUnit", "Its unit", dict(deployment.UNITS), DEFAULT_UNIT),
    Choice("target", "depTarget", "Target model", {n: t.label for n, t in serving.TARGETS.items()}, DEFAULT.target),
    Choice("draft", "depDraft", "Draft", dict(serving.DRAFT_CHOICES), DEFAULT.draft),
    Choice("gpu", "depGpu", "GPU", {n: g.label for n, g in serving.GPUS.items()}, DEFAULT.gpu),
    Choice("gpus", "depGpus", "GPU count", {"1": "1", "2": "2", "4": "4", "8": "8"}, str(DEFAULT.gpus)),
    Choice("engine", "depEngine", "Engine", {n: e.label for n, e in serving.ENGINES.items()}, DEFAULT.engine),
    Choice("configEngine", "depConfig", "Configuration for",
           {name: table.label for name, table in engine_config.ENGINES.items()}, "vllm"),
)
# An acceptance curve (lab.acceptance), optional: lengths K:L,... or the per-position rates an engine printed.
CURVE = Text("curve", "Your per-position curve (optional)", max_length=600, strip=True, url_key="depCurve",
             linkable=True)
CONTROLS = (*SLIDERS, *CHOICES, CURVE)

# Every instrument the panel sets, in page order: (widget name, its title on the page, its name in a sentence).
INSTRUMENTS = (("ledger", "The latency ledger", "the latency ledger"),
               ("traces", "Bring your own trace", "the trace translator"),
               ("policies", "Lookahead policies", "the lookahead policies"),
               ("serving", "Serving under load", "the serving model"),
               ("exact", "The exact rejection sampler", "the exact sampler"),
               ("realtext", "Speculative decoding on real text", "the real-text widget"),
               ("trees", "Token trees", "the token trees"))
SINGLE_FIGURE_TEXT = PANEL_FIGURE_TEXT  # what lab.traces reads as one figure; a link rebuilds it (urlstate)


def _f(value, digits=2) -> str:
    return to_fixed(value, digits)


def pasted_log(text) -> tuple[dict | None, str | None]:
    """What the acceptance figure field makes of pasted text that is not one number: a log line or a
    /metrics dump read through the trace reader's code (:mod:`lab.traces`), as the field values it
    gives (its mean acceptance length at its k) and a note saying so, or no values and a note saying
    where such text is read whole; ``(None, None)`` for a number or a short typo (the field's own
    note says what is valid).

    >>> values, note = pasted_log("INFO SpecDecoding metrics: Mean acceptance length: 2.79, Accepted: 1000 tokens, "
    ...     "Drafted: 2000 tokens, Per-position acceptance rate: 0.734, 0.459, 0.292, 0.169, 0.087, 0.049")
    >>> values
    {'value': '2.79', 'unit': 'length', 'measuredK': '6'}
    >>> pasted_log("2.8"), pasted_log("abc")
    ((None, None), (None, None))
    >>> pasted_log("INFO nothing to see here at all")[1][:58]
    'Your acceptance figure: this text is not one number, and n'
    """
    if not isinstance(text, str) or not text.strip():
        return None, None
    try:
        float(text.strip())
        return None, None
    except ValueError:
        pass
    if len(text.strip()) < 12 and not any(mark in text for mark in ":=\n"):
        return None, None  # a typo, not a paste
    from .. import traces  # imported only when text is pasted

    label = SLIDERS[0].label
    try:
        analysis = traces.analyse(traces.parse(text))
    except traces.TraceError:  # text the trace reader cannot read: say where it is read whole
        return None, (f"{label}: this text is not one number, and no acceptance figure could be read from it "
                      "here; paste a log, /metrics or bench output into \u201cBring your own trace\u201d below, "
                      "which reads it whole and says what it needs")
    k = analysis["lookahead"]
    length = analysis["meanAcceptanceLength"]
    if not k or length is None or not 1 <= k <= traces.MAX_LOOKAHEAD:
        return None, (f"{label}: this {analysis['formatName']} gives no mean "
                      "acceptance length at a lookahead; paste it into \u201cBring your own trace\u201d below")
    value = to_js_string(float(to_fixed(length, 2)))
    source = traces.SHORT_NAMES.get(analysis["format"], analysis["formatName"])
    curve = " and its per-position curve" if analysis.get("perPosition") else ""
    return ({"value": value, "unit": "length", "measuredK": str(k)},
            f"{label}: read from {source} you pasted: mean acceptance length {value} at k = {k}; "
            f"\u201cBring your own trace\u201d below reads the whole log{curve}")


def percent_sign_dropped(raw):
    """The form values with a percent sign after the acceptance figure dropped when its unit is a percentage
    (the unit's menu says "%", so "80%" or "80 %" is the 80 the field takes); anything else as it came.

    >>> percent_sign_dropped({"value": "80%", "unit": "alpha"}), percent_sign_dropped({"value": "2.8%", "unit": "length"})
    ({'value': '80', 'unit': 'alpha'}, {'value': '2.8%', 'unit': 'length'})
    >>> percent_sign_dropped({"value": "rate: 29.9%", "unit": "rate"})
    {'value': 'rate: 29.9%', 'unit': 'rate'}
    """
    text = raw.get("value") if isinstance(raw, dict) else None
    if not isinstance(text, str) or not text.strip().endswith("%") or len(text) > 64:
        return raw
    number = text.strip()[:-1].strip()
    unit = raw.get("unit", DEFAULT_UNIT)
    try:  # one number before the sign, nothing else (a pasted log that ends in "29.9%" is read as a log)
        float(number if number.isascii() and "_" not in number else "nan")
    except ValueError:
        return raw
    if unit not in deployment.UNITS or not deployment.UNITS[unit].endswith("%"):
        return raw
    return {**raw, "value": number}


def _params(raw) -> tuple[dict, list[str], int]:
    """Control values, notes and the figure width; the acceptance figure checked against its unit
    (a value outside the unit's range is clamped into it, with a note naming both)."""
    raw, width = split_width(raw)
    raw = percent_sign_dropped(raw)
    pasted, pasted_note = pasted_log(raw.get("value")) if isinstance(raw, dict) else (None, None)
    if pasted_note and not pasted:  # not read: the field keeps its default, and the note says where to paste
        raw = {**raw, "value": str(DEFAULT_VALUE)}
    params, notes = read_controls({**raw, **pasted} if pasted else raw, CONTROLS)
    if pasted_note:
        notes.insert(0, pasted_note)
        params["pasted"] = bool(pasted)
    params["engine"], refused = serving.engine_running(params["draft"], params["engine"])
    notes += [refused] if refused else []  # suffix decoding on an engine without it: priced on one that runs it
    unit, k_m = params["unit"], params["measuredK"]
    low, high = deployment.unit_ranges(k_m)[unit]
    # the field's own note on text that is no number gives the field's range, 0 to 100; the unit's is the one
    # that holds (a mean acceptance length at k = 4 is 1 to 5)
    field_range = f"(valid: {to_js_string(SLIDERS[0].minimum)} to {to_js_string(SLIDERS[0].maximum)})"
    unit_range = f"(valid: {low} to k + 1 = {high})" if unit == "length" else f"(valid: {low} to {high})"
    notes = [n.replace(field_range, unit_range) if n.startswith(SLIDERS[0].label + ":") else n for n in notes]
    if not low <= params["value"] <= high:
        clamped = min(max(params["value"], low), high)
        name = deployment.UNITS[unit]
        # one note per field: this one replaces the field's own (a -1 first clamped to 0, then to 1)
        label = SLIDERS[0].label
        asked = next((n for n in notes if n.startswith(label + ":")), None)
        notes = [n for n in notes if n is not asked]
        typed = raw_value(raw, SLIDERS[0].key if isinstance(raw, str) else "value") if asked else ""
        shown = quote(typed) if typed else to_js_string(params["value"])
        notes.append(f"{label}: {shown} is not a {name} "
                     + (f"at k = {k_m} (valid: {low} to k + 1 = {high})" if unit == "length" else
                        f"(valid: {low} to {high})") + f"; using {to_js_string(clamped)}")
        params["value"] = clamped
    return params, notes, width


def _deployment(params) -> deployment.Deployment:
    return DEFAULT._replace(target=params["target"], draft=params["draft"], gpu=params["gpu"], gpus=int(params["gpus"]),
                            engine=params["engine"],
                            batch=params["batch"], context=params["context"], lookahead=params["lookahead"])


def _button(target: str, title: str, values: dict) -> str:
    return (f'<button type="button" data-action="send" data-target="{target}" disabled '
            f'aria-label="Send to {escape(title)}" data-values="{escape(json.dumps(values))}">Send</button>')


def _rows(d: deployment.Deployment, params: dict, result: dict) -> list[tuple[str, str, str, dict]]:
    """(widget, what it receives, which cost model its numbers use and why they may differ, values)."""
    values = result["values"]
    led, srv, pol, tree = values["ledger"], values["serving"], values["policies"], values["trees"]
    k, percent = d.lookahead, result["acceptancePercent"]
    ledger_says = result["ledger"]
    on_curve = "curve" in result  # the ledger, serving and the policies run on the curve itself, the trees' depth profile too

    def acceptance(slider_percent) -> str:
        """What an instrument's acceptance is: the curve (its one slider set aside) or one alpha."""
        return f"your curve (its slider's \u03b1 {slider_percent}% set aside)" if on_curve else f"\u03b1 {slider_percent}%"

    traces_values = {"trcText": SINGLE_FIGURE_TEXT[params["unit"]].format(value=to_js_string(params["value"])),
                     "trcLookahead": str(params["measuredK"]), "trcFormat": "auto"}
    return [
        ("ledger", f"{acceptance(percent)}, k = {k}, target pass {led['targetMs']} ms, draft pass {led['draftCost']}%, "
                   f"verify tax {led['verifyTax']}%, overhead {led['overheadMs']} ms",
         f"Its one-line cycle, fitted to the serving model's step times at k = {k}: "
         f"{_f(ledger_says['speedup'])}x ({_f(ledger_says['unroundedSpeedup'])}x before its sliders round to whole "
         f"percent and ms), best k = {ledger_says['bestLookahead']}.", led),
        ("traces", f"your figure as text: \u201c{traces_values['trcText']}\u201d at k = {params['measuredK']}",
         "No cost model: the same figure in every engine's unit; its ledger table uses Part one's default costs.",
         traces_values),
        ("policies", f"{acceptance(pol['acceptance'])}, draft pass {pol['draftCost']}%, static k = {k}, and the "
                     f"ledger's tax, overhead and target pass",
         "The ledger's cycle over your curve in place of an acceptance process: its best static k is the ledger's "
         "on the curve; what it adds is the adaptive policies." if on_curve else
         "The ledger's cycle over an acceptance process it studies: with independent tokens its best static k is "
         "the ledger's; its default bursty process (good and bad stretches, same mean) moves it.",
         pol),
        ("serving", f"everything: {serving.TARGETS[d.target].label}, {serving.DRAFT_LABELS[d.draft]}, {d.gpus} x "
                    f"{serving.GPUS[d.gpu].label}, batch {d.batch}, context {d.context:,}, k = {k}, {acceptance(percent)}, "
                    f"engine {serving.ENGINES[d.engine].label}",
         f"The per-operator step model calibrated on measured steps: the answer above, {_f(result['serving']['speedup'])}x "
         f"at k = {k}. Its tail panel follows the exact sampler's toy model, not your figure.", srv),
        ("exact", f"k = {k}, draft pass {values['exact']['draftCost']}%",
         "Studies exactness: its acceptance comes from its own toy target and draft (Part three), not your figure.",
         values["exact"]),
        ("realtext", f"k = {values['realtext']['rtLookahead']}" + (", its largest" if values["realtext"]["rtLookahead"] < k
                                                                       else ""), "Its own small models trained on Python source: it reports their acceptance and "
                                 "tokens per verifier call, not yours, and prices no cost.", values["realtext"]),
        ("trees", f"\u03b1 {tree['top1']}% for its top-1 candidates"
                  + (", your curve for its depth profile" if on_curve else "")
                  + f", verify tax {tree['verifyTax']}% per extra node",
         f"Prices the rest of a cycle at Part one's defaults ({to_js_string(trees.TARGET_MS)} ms target, "
         f"{to_js_string(trees.DRAFT_COST)}% draft, {to_js_string(trees.OVERHEAD_MS)} ms overhead): read its "
         "tree-against-chain gain, not its speedup.", tree),
    ]


def instruments_html(d: deployment.Deployment, params: dict, result: dict) -> str:
    """One entry per instrument: what it receives, what its numbers use, and a button that sets it
    (a list, not a table: it stays one column on a phone)."""
    titles = {name: title for name, title, _ in INSTRUMENTS}
    spoken = {name: words for name, _, words in INSTRUMENTS}
    items = "".join(
        f'<li><p class="dep-head"><a href="#{name}-lab">{escape(titles[name])}</a> '
        f'{_button(name, spoken[name], values)}</p>'
        f'<p class="dep-gets">Receives {escape(gets)}.</p><p class="dep-uses">{escape(uses)}</p></li>'
        for name, gets, uses, values in _rows(d, params, result))
    return f'<ul class="dep-list" aria-label="What each instrument receives, and which cost model its numbers use">{items}</ul>'


def send_all_html(d: deployment.Deployment, params: dict, result: dict) -> str:
    """The one button that sets every instrument (the page's generic ``data-action="send-all"``:
    a JSON list of ``{target, values}``)."""
    sends = [{"target": name, "values": values} for name, _, _, values in _rows(d, params, result)]
    return (f'<button type="button" class="dep-send-all" data-action="send-all" disabled '
            f'data-sends="{escape(json.dumps(sends))}">Use in every instrument</button>')


def _summary(d: deployment.Deployment, params: dict, result: dict) -> str:
    """The one answer first (the serving model's), then the ledger's and why it differs, then the
    reader's figure as alpha."""
    srv, led = result["serving"], result["ledger"]
    k = d.lookahead
    verdict = "pays" if srv["speedup"] > 1 else "does not pay"
    model = "per the serving model (per operator, calibrated on measured steps)"
    if srv["bestLookahead"] == k:
        text = f"Speculation {verdict} {_f(srv['speedup'])}x at lookahead {k}, the best lookahead, {model}. "
    else:
        text = f"Speculation {verdict} {_f(srv['speedup'])}x at lookahead {k}; {_best(srv)}, {model}. "
    names = {"targetMs": "target pass", "draftCost": "draft pass", "verifyTax": "verify tax", "overheadMs": "overhead"}
    units = {"targetMs": " ms", "draftCost": "%", "verifyTax": "%", "overheadMs": " ms"}
    if result["clamped"]:
        text += ("The ledger cannot hold this deployment: "
                 + ", ".join(f"its {names[name]} would be {_f(value, 1)}{units[name]}, past its slider's "
                             f"{to_js_string(limit)}{units[name]}" for name, (value, limit) in result["clamped"].items())
                 + f", so its numbers (best k = {led['bestLookahead']}, {_f(led['speedup'])}x at k = {k}) are not "
                   f"this deployment's. ")
    elif result["agree"]:
        text += (f"The ledger's simpler model is fitted to reproduce the serving model's cycle at k = {k}; away from "
                 f"k the two can differ, and here they name the same best k: best k = {led['bestLookahead']}, "
                 f"{_f(led['speedup'])}x at k = {k}. ")
    elif led["unroundedBestLookahead"] == result["servingSent"]["bestLookahead"]:
        rounded = result["values"]["ledger"]
        text += (f"The ledger's simpler model says best k = {led['bestLookahead']} ({_f(led['bestSpeedup'])}x) only "
                 f"because its sliders hold whole units: "
                 + ", ".join(f"{names[name]} {to_js_string(rounded[name])}{units[name]} for "
                             f"{_f(result['costs'][name])}{units[name]}" for name in names)
                 + f"; on the unrounded costs it agrees, best k = {result['servingSent']['bestLookahead']}. ")
    else:
        text += (f"The ledger's simpler model says best k = {led['bestLookahead']} ({_f(led['bestSpeedup'])}x), because "
                 f"it prices each extra verified token at one tax fitted at k = {k}, a straight line where the serving "
                 f"model's verify step is not: its verify pass and overhead cost "
                 + " and ".join(f"{_f(row['ledgerVerifyMs'], 2)} ms at k = {row['lookahead']} (serving: "
                                f"{_f(row['servingVerifyMs'], 2)} ms)" for row in result["compare"]) + ". ")
    sent = result["servingSent"]
    # a figure in rate or length units always travels as a curve (view: figure_curve), so alpha is the one without
    if "curve" in result:  # the curve stands in for the figure: the sliders' alpha is i.i.d.'s at k on it
        text += (f"Instruments with one acceptance slider get α = {result['acceptancePercent']}%, the independent "
                 f"model's equivalent of your curve at k = {k}")
    else:
        text += f"Every instrument gets \u03b1 = {result['acceptancePercent']}%"
    if _f(sent["speedup"]) != _f(srv["speedup"]):
        why = "the curve travels to them at four decimals" if "curve" in result else "the sliders hold whole percents"
        text += (f" ({why}), where the serving model gives {_f(sent['speedup'])}x at "
                 f"lookahead {k} instead of {_f(srv['speedup'])}x.")
    else:
        text += "."
    if not srv["fits"]:
        text += (f" At this batch and context the weights and KV caches do not fit in {d.gpus} x "
                 f"{serving.GPUS[d.gpu].label} (at most {int(srv['maxBatchInMemory'])} sequences do).")
    return text


def _best(srv: dict) -> str:
    """The best lookahead when it is not the reader's, its speedup said once: when the two round to the
    same two decimals the sentence says so instead of printing the number twice.

    >>> _best({"speedup": 1.806, "bestSpeedup": 1.814, "bestLookahead": 3})
    'the best lookahead is 3, faster by less than 0.5% (the same to two decimals)'
    >>> _best({"speedup": 1.64, "bestLookahead": 3, "bestSpeedup": 1.70})
    'the best lookahead is 3 (1.70x)'
    """
    if _f(srv["bestSpeedup"]) != _f(srv["speedup"]):
        return f"the best lookahead is {srv['bestLookahead']} ({_f(srv['bestSpeedup'])}x)"
    gap = max(0.1, math.ceil(1000 * (srv["bestSpeedup"] / srv["speedup"] - 1)) / 10)  # percent, rounded up
    return f"the best lookahead is {srv['bestLookahead']}, faster by less than {_f(gap, 1)}% (the same to two decimals)"


def _lead(d: deployment.Deployment, result: dict) -> str:
    """The answer in one sentence: the serving model's verdict at the reader's lookahead and its best."""
    srv = result["serving"]
    verdict = "pays" if srv["speedup"] > 1 else "does not pay"
    best = "the best lookahead" if srv["bestLookahead"] == d.lookahead else _best(srv)
    fits = "" if srv["fits"] else f"; this batch does not fit in {d.gpus} x {serving.GPUS[d.gpu].label}"
    return f"For this deployment speculation {verdict}: {_f(srv['speedup'])}x at lookahead {d.lookahead}, {best}{fits}."


def _curve(params, d, notes):
    """The reader's curve (lab.acceptance.Curve), or None; a bad one is a note and the figure stands."""
    if not params.get("curve"):
        return None
    from .. import acceptance
    from ..errors import LabValueError

    try:
        return acceptance.parse_curve_text(params["curve"], acceptance.family_of_draft(d.draft, d.target))
    except LabValueError as error:
        message = str(error)
        notes.append((message if message.startswith("curve") else f"curve: {message}") + "; using your single figure")
        return None


def _curve_sentence(d: deployment.Deployment, result: dict) -> str:
    """What the curve changed: its length at k, the best k from it, a plateau and an extrapolation."""
    curve, srv = result["curve"], result["serving"]
    from ..acceptance import FAMILY_NAMES, token_rates

    rates = token_rates(curve["token"])  # a copying drafter's prior may rise past position 2 (lab.acceptance.COPYING)
    way = "rises with position toward a ceiling below 1" if len(rates) > 2 and rates[2] > rates[1] else "falls with position"
    mine = (f"your figure at k = {curve['measuredAt']}, extended to other lookaheads by the {FAMILY_NAMES[curve['method']]} family's "
            f"decay prior (acceptance {way})" if curve["source"] == "single" else
            f"your curve (measured to k = {curve['measuredAt']})")
    text = (f" On {mine}, the mean acceptance length at k = {d.lookahead} is "
            f"{_f(curve['meanAcceptanceLength'])}, and the ledger, serving and the policies get the curve itself (the token "
            f"trees value their tree on it level by level)")
    if curve["plateauStart"] is not None:
        from ..acceptance import plateau_words

        text += f"; it {plateau_words(curve['plateauStart'], rates)} is chosen"
    if srv["bestExtrapolatedFrom"] is not None:
        text += (f"; the best k = {srv['bestLookahead']} rests on positions past the measured "
                 f"{srv['bestExtrapolatedFrom']}, extrapolated by the method's decay prior")
    return text + "."


@lru_cache(maxsize=16)
def _figure_curve(figure_curve, units_at, alpha: float, measured_k: int, draft: str, target: str):
    """``figure_curve(alpha, measured_k, draft, target=target)`` (:func:`lab.deployment.figure_curve`, which reads
    :func:`lab.deployment.units_at`; both passed in so that they are part of the key, and a function replaced in the
    worker computes afresh), kept: the reader's figure, its k and the pair do not move with the lookahead, batch
    and context sliders, so their steps reuse the curve (a :class:`lab.acceptance.Curve`, immutable) instead of
    solving for it again."""
    return figure_curve(alpha, measured_k, draft, target=target)


def view(raw=None) -> dict:
    """The panel for one deployment: bad input becomes notes naming it and what is valid, with the defaults
    standing in. A bug is not caught here: :func:`lab.views.handle` reports any widget's as its error."""
    params, notes, width = _params(raw)
    pasted = params.pop("pasted", False)
    d = _deployment(params)
    alpha = deployment.alpha_from(params["value"], params["unit"], params["measuredK"])
    curve = _curve(params, d, notes)
    if curve is None and params["unit"] != "alpha":  # one figure: the draft family's decay prior extends it
        curve = _figure_curve(deployment.figure_curve, deployment.units_at, alpha, params["measuredK"], d.draft, d.target)
    if curve is not None:  # the sliders' one alpha: i.i.d.'s at the reader's k on the curve
        alpha = deployment.alpha_from(curve.length(d.lookahead), "length", d.lookahead)
    result = deployment.answer(d, alpha, curve)
    units = deployment.units_at(alpha, d.lookahead)
    extra = deployment.engine_answer(d, result["acceptancePercent"], params["configEngine"], params["gpuHour"],
                                     params["tpotTarget"], curve=curve)
    srv = result["serving"]
    edge = deployment.lookahead_edge_note(srv["bestLookahead"])
    notes = notes + serving.setting_notes(d.target, d.draft, d.engine, d.batch) + ([edge] if edge else [])
    live = (f"{_f(srv['speedup'])}x at lookahead {d.lookahead}; best lookahead {srv['bestLookahead']}"
            + ("" if result["agree"] else f"; the ledger says {result['ledger']['bestLookahead']}"))
    return {
        "params": params,
        "shown": {name: (to_js_string(value) if not isinstance(value, str) else value) for name, value in params.items()},
        "notes": notes,
        # a pasted log read into the figure, its unit and its k: the page sets those fields to them
        "restore": ["value", "unit", "measuredK"] if pasted else [],
        "query": format_query(params, SLIDERS) + "".join(f"&{c.key}={params[c.name]}" for c in CHOICES)
                 + (f"&{CURVE.key}={url_quote(params['curve'], safe=',:.')}" if params.get("curve") and curve is not None
                    and curve.source != "single" else ""),
        "lead": _lead(d, result),
        "summary": _summary(d, params, result) + (_curve_sentence(d, result) if curve is not None else ""),
        "live": live,
        "answer": {key: result[key] for key in ("alpha", "acceptancePercent", "serving", "servingSent", "ledger",
                                               "agree", "values", "costs", "clamped", "compare", "curve")
                   if key in result},
        "readouts": {
            "alpha": f"{_f(100 * alpha, 1)}%",
            "rate": f"{_f(100 * units['acceptanceRate'], 1)}%",
            "length": _f(units["meanAcceptanceLength"], 2),
            "plainStepMs": _f(srv["plainStepMs"], 2),
            "draftStepMs": _f(srv["draftStepMs"], 2),
            "verifyStepMs": _f(srv["verifyStepMs"], 2),
            "speedup": f"{_f(srv['speedup'])}x",
            "best": f"k = {srv['bestLookahead']}, {_f(srv['bestSpeedup'])}x",
        },
        "figures": {
            "instruments": instruments_html(d, params, result),
            "sendAll": send_all_html(d, params, result),
            "engineConfig": config_html(extra["config"]),
            "schedule": schedule_html(extra["schedule"], curve is not None),
            "scheduleHeld": held_html(extra["held"]),
            "scheduleRises": rises_html(extra["rises"]),
            "production": production_html(extra["production"], d),
            "prefill": prefill_html(extra["production"]),
            "trust": trust_html(deployment.serving_settings(d, result["acceptancePercent"])),
            "diagnosis": diagnosis_html(extra["diagnosis"]),
        },
        "engineAnswer": {key: extra[key] for key in ("config", "schedule", "production", "diagnosis")},
    }


def page_context() -> dict:
    """What the build pre-renders: the default view, the controls, the units."""
    from ..urlstate import slider_specs

    return {"view": view(None), "sliders": slider_specs(SLIDERS),
            "choices": [{"name": c.name, "label": c.label, "options": list(c.options.items())} for c in CHOICES]}


def config_html(config: dict) -> str:
    """The engine's configuration in a <pre> the reader copies in one click (the page's generic
    ``data-action="copy"``), then each line's number from the answer."""
    if not config["supported"]:
        return f'<p class="dep-config-none">{escape(config["label"])}: {escape(config["reason"])}.</p>'
    why = "".join(f"<li><code>{escape(line['text'][:60])}{'...' if len(line['text']) > 60 else ''}</code>: "
                  f"{escape(line['why'])}</li>" for line in config["lines"] if line["why"])
    return (f'<pre class="dep-config" id="deployment-config-text" tabindex="0" aria-label="Engine configuration">{escape(config["text"])}</pre>'
            f'<p class="lab-actions"><button type="button" data-action="copy" data-for="deployment-config-text" disabled>'
            f'Copy the configuration</button> <span class="copy-status" data-copy-status role="status"></span></p>'
            f'<ul class="dep-config-why" aria-label="Where each line comes from">{why}</ul>'
            f'<p class="dep-config-schedule">Schedule by batch: {escape(config["scheduleSupport"])}.</p>'
            f'{_sources_html(config)}')


def _sources_html(config: dict) -> str:
    """Where each name the configuration prints is defined in the engine's source, as read
    (:data:`lab.engine_config.ENGINES`)."""
    table = engine_config.ENGINES[config["engine"]].names
    items = "".join(f"<li><code>{escape(name)}</code>: {_source_html(table[name])}</li>"
                    for name in dict.fromkeys(config["names"]))
    return (f'<p class="dep-config-sources-title">Where each name is defined:</p>'
            f'<ul class="dep-config-sources">{items}</ul>')


def _source_html(source) -> str:
    """One name's source in words a reader can follow: the repository and file at the commit read; where the
    code index gave no commit, that the copy (read in December 2026) has none recorded, and the line that defines
    the name there (its opening, up to 90 characters); then any note. The code index's record of the copy
    (``locator``: its length, id and offsets) stays in lab.engine_config and docs/READING.md.

    >>> from lab.engine_config import ENGINES
    >>> _source_html(ENGINES["vllm"].names["method"])
    'vllm-project/vllm vllm/config/speculative.py at commit 002e77c1f0'
    >>> text = _source_html(ENGINES["vllm"].names["--speculative-config"])
    >>> text.split(", where")[0]
    'vllm-project/vllm vllm/engine/arg_utils.py, a copy read in December 2026 whose commit was not recorded'
    >>> "code index" in text, text.endswith("; the value is parsed with json.loads")
    (False, True)
    """
    where = f"{escape(source.repo)} {escape(source.path)}"
    if source.commit:
        where += f" at commit {escape(source.commit[:10])}"
    else:
        line = source.definition if len(source.definition) <= 90 else source.definition[:87] + "..."
        where += (", a copy read in December 2026 whose commit was not recorded, where the name is defined in "
                  f"<code>{escape(line)}</code>")
    return where + (f"; {escape(source.note)}" if source.note else "")


def schedule_html(schedule: list, on_curve: bool = False) -> str:
    """The k schedule by batch as a table: each batch range with the serving model's best k (0: off), on the
    answer's acceptance curve when it has one (k never past its plateau's start plus one)."""
    rows = "".join(f'<tr><td>{r["from"]}&ndash;{r["to"]}</td><td>{r["lookahead"] or "0 (speculation off)"}</td></tr>'
                   for r in schedule)
    caption = "The serving model's best lookahead k at every batch that fits" + (
        ", on your acceptance curve (never past its plateau's start plus one)" if on_curve else "")
    return (f'<table><caption>{escape(caption)}</caption>'
            f'<thead><tr><th scope="col">batch</th><th scope="col">k</th></tr></thead><tbody>{rows}</tbody></table>')


def held_html(held) -> str:
    """Below the schedule, outside its sideways scroll: where it keeps k from rising back
    (:func:`lab.production.steady_schedule`, :func:`held_words`), or nothing."""
    return f'<p class="dep-schedule-held">{escape(held_words(held))}</p>' if held else ""


def held_words(held) -> str:
    """Where the schedule keeps k from rising back, in words: each run with the k kept, the best k and the
    most speedup it gives up (one decimal of a percent), and :data:`lab.production.SCHEDULE_TOLERANCE`.

    >>> held_words([{"from": 11, "to": 17, "kept": 5, "best": 6, "shortfall": 0.008}])
    "At batch 11 to 17 the schedule keeps k = 5 where k = 6 is at most 0.8% faster: it lets k rise again as the batch grows only for a gain of at least 2%, since smaller gains are within the step model's error on measured step times (the calibration table)."
    """
    from ..production import SCHEDULE_TOLERANCE

    runs = "; ".join(f"at batch {r['from']} to {r['to']} the schedule keeps k = {r['kept']} where k = {r['best']} is "
                     f"at most {_f(100 * r['shortfall'], 1)}% faster" for r in held)
    return (runs[0].upper() + runs[1:] + f": it lets k rise again as the batch grows only for a gain of at least "
            f"{_f(100 * SCHEDULE_TOLERANCE, 0)}%, since smaller gains are within the step model's error on measured "
            "step times (the calibration table).")


def rises_html(rises) -> str:
    """Below the schedule, beside :func:`held_html`: where its k rises as the batch grows and why
    (:func:`lab.production.schedule_rises`, :func:`rises_words`), or nothing."""
    return f'<p class="dep-schedule-rises">{escape(rises_words(rises))}</p>' if rises else ""


def _mib(n) -> str:
    """Bytes in MiB, to two decimals without trailing zeros (1048576 -> '1', 1310720 -> '1.25')."""
    return to_js_string(float(_f(n / 2 ** 20, 2)))


def rise_cause_words(rise: dict) -> str:
    """Why k rises at one batch, as :func:`lab.production.schedule_rises` decided it, each cause naming its source."""
    clauses = {
        "allreduce": lambda: (f"the tensor-parallel all-reduce's measured price per byte falls for messages past "
                              f"{_mib(rise['allreduceFrom'])} MiB (lab.serving_allreduce), and this verify pass's is "
                              f"{_mib(rise['messageBytes'])} MiB"),
        "experts": lambda: (f"the verify pass's tokens already reach {_f(100 * rise['expertsRead'] / rise['experts'], 1)}% of the "
                            f"{rise['experts']} experts of each MoE layer, so one more token reads "
                            f"{_f(rise['newExpertsPerToken'])} of its {rise['activeExperts']} experts new (uniform "
                            "routing, lab.serving_presets.distinct_experts)"),
        "none": lambda: "the verify step's cost per added draft falls there"}
    return "; and ".join(clauses[cause]() for cause in rise["causes"])


def rises_words(rises) -> str:
    """Where the schedule's k rises as the batch grows, in words: the batch, the k before and after, how much faster
    the new k is than keeping the old (one decimal of a percent), what one more draft adds to the verify step there
    and at the batch before, and the causes :func:`lab.production.schedule_rises` found.

    >>> rises_words([{"batch": 16, "from": 3, "to": 4, "gain": 0.0271, "addedMs": 0.78, "addedMsBefore": 0.988,
    ...               "messageBytes": 1310720, "allreduceFrom": 1048576, "experts": 0, "expertsRead": 0.0,
    ...               "causes": ["allreduce"]}])
    "At batch 16 k rises from 3 to 4, 2.7% faster than keeping 3: one more draft costs the verify step 0.78 ms there, 0.99 ms at batch 15, because the tensor-parallel all-reduce's measured price per byte falls for messages past 1 MiB (lab.serving_allreduce), and this verify pass's is 1.25 MiB."
    """
    runs = "; ".join(f"at batch {r['batch']} k rises from {r['from']} to {r['to']}, {_f(100 * r['gain'], 1)}% faster "
                     f"than keeping {r['from']}: one more draft costs the verify step {_f(r['addedMs'])} ms there, "
                     f"{_f(r['addedMsBefore'])} ms at batch {r['batch'] - 1}, because {rise_cause_words(r)}"
                     for r in rises)
    return runs[0].upper() + runs[1:] + "."


def production_html(prod: dict, d) -> str:
    """TPOT, tokens/s per user and per GPU and $ per million output tokens, without speculation, at
    the reader's k and under the schedule; the TPOT target's largest batches."""
    def row(title, t):
        return (f'<tr><th scope="row">{escape(title)}</th><td>{t["batch"]}</td><td>{t["lookahead"]}</td>'
                f'<td>{_f(t["tpotMs"])}</td><td>{_f(t["tokensPerSecondPerUser"], 1)}</td>'
                f'<td>{_f(t["tokensPerSecondPerGpu"], 1)}</td><td>${_f(t["costPerMillionTokens"], 3)}</td></tr>')

    rows = row("without speculation", prod["plain"]) + row("at your k", prod["speculative"]) + \
        row("the schedule", prod["scheduled"])
    for name, title in (("plain", "TPOT target, without"), ("scheduled", "TPOT target, the schedule")):
        t = prod.get("target", {}).get(name)
        rows += row(title, t) if t else f'<tr><th scope="row">{title}</th><td colspan="6">no batch meets it</td></tr>'
    return (f'<table><caption>At ${to_js_string(prod["dollarsPerGpuHour"])} per GPU-hour on {plural(d.gpus, "GPU")}; '
            f'TPOT target {to_js_string(prod["tpotTargetMs"])} ms (time per output token)</caption><thead><tr><th scope="col">decoding</th>'
            '<th scope="col">batch</th><th scope="col">k</th><th scope="col">TPOT (ms)</th>'
            '<th scope="col">tok/s per user</th><th scope="col">tok/s per GPU</th><th scope="col">$ per 1M tokens</th>'
            f'</tr></thead><tbody>{rows}</tbody></table>')


def prefill_html(prod: dict) -> str:
    """What the draft adds to the time to first token: its prefill of the prompt (a draft model, or an
    EAGLE or MTP head over the prompt's hidden states; n-gram lookup has no model and adds none)."""
    pre = prod["prefill"]
    share = 100 * pre["draftMs"] / pre["targetMs"] if pre["targetMs"] else 0
    who = "the draft prefills the prompt too" if pre["draftMs"] else "n-gram lookup has no model to prefill"
    return (f'<p class="dep-prefill">Time to first token: {who}, '
            f'{_f(pre["draftMs"])} ms on the target\'s {_f(pre["targetMs"])} ms for {pre["promptTokens"]:,} tokens '
            f'({_f(share, 1)}% more; the step model\'s estimate, calibrated on decode steps, not on prefill).</p>')


def trust_html(settings: "serving.ServingSettings") -> str:
    """How far to trust the panel's times, tokens per second and costs, as the production fold's last paragraph: they
    are the serving model's, so the serving instrument's trust line for the same engine, GPU, target and draft
    (:func:`lab.widgets.serving.trust_line`: its error on published speedups of that family, or "not validated"),
    one rule for both.

    >>> s = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, engine="trtllm", target="llama-3-70b")
    >>> trust_html(s).endswith("not validated for TensorRT-LLM 2025 (MTP) with this target, draft and GPU (no "
    ...                        "published end-to-end speedup of that family).</p>")
    True
    """
    from .serving import trust_line  # the serving widget's rule, imported where it is used (its chunk, not the core)

    return (f'<p class="dep-trust">How far to trust these times and costs (the serving model at your engine, GPU, '
            f'target and draft): {escape(trust_line(settings))}.</p>')


def diagnosis_html(items: list) -> str:
    """One sentence per limiting factor, with the number that shows it."""
    return ('<ul class="dep-diagnosis" aria-label="Diagnosis">'
            + "".join(f"<li>{escape(item['sentence'])}</li>" for item in items) + "</ul>")
