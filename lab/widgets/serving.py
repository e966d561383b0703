"""The serving widget (part two): speedup over batch and context, the load curves, and the tail.

Every figure is one function returning SVG (or an HTML table) drawn from :func:`lab.serving.answer`
(they live in :mod:`lab.serving_figures`, re-exported here);
every text passes through :func:`lab.figures.escape`; colours that carry data are presentation
attributes or ``k-<kind>`` classes (the page's CSP forbids inline style). ``view(raw)`` never
raises: unknown names and out-of-range numbers come back as notes and the defaults.

The tail re-runs the exact lab's seeded generation at the exact widget's settings: in a URL
they are the exact lab's own keys; from the live page they arrive as ``exact.<name>`` values
(the form carries ``data-with="exact"``, a generic client feature).

Page conventions (docs/PALETTE.md): each figure is drawn for the width the page sends (one SVG
unit per CSS px, through :func:`lab.figures.svg`), its text in the fig-* classes; speculative
decoding is the palette's ``k-speculative``, plain decoding the page's dashed baseline, the
speedup neutral ink. ``srvCurve`` switches to measured-curve mode (see :func:`view`).
"""

from functools import lru_cache

from .. import serving
from ..figures import escape, kept, plural, span, split_width
from ..jsformat import to_fixed, to_js_string
from ..stats import median
from ..serving import _heatmap_answer, _load_answer, heatmap_steps, tail_answer  # noqa: F401  (the model's memos: see _heatmap_figure)
from ..serving_figures import nofit_hatch  # noqa: F401  (the same: a memo of the heatmap's hatch)
from ..urlstate import EXACT_SLIDERS, Choice, Slider, format_query, read_controls, requested_curve
from ..serving_figures import (  # noqa: F401  (re-exported: the figures are this widget's)
    batch_svg, brackets_svg, calibration_table_html, _cell, _compact, _f, _fit, _heatmap_layout,
    heatmap_selection_svg, heatmap_svg, heatmap_table_html, _label_at, load_rows, load_svg, load_table_html,
    _log_x, NO_FIT, _numbered_sources, _one_x_label, ONE_X_WORDINGS, _polyline, rate_label, _ratio_tag,
    _speedup_ticks, svg, tail_svg, _text, TEXT, validation_svg, validation_table_html, WIDTH_DEFAULT,
    HIGH_RATE_COLUMN, NARROW_RATE_COLUMN, PLAIN_LINE, SPEC_LINE, SPEEDUP_LINE)

__all__ = ["SLIDERS", "SELECTS", "CONTROLS", "CURVE_KEY", "view", "page_context", "heatmap_svg", "heatmap_selection_svg",
           "batch_svg", "load_svg", "tail_svg", "heatmap_table_html", "load_table_html", "rate_label", "curve_switch_html",
           "trust_line"]

# The widget opens on a setting an engine measured (lab.serving_validation: Llama-3-8B with an EAGLE
# head on one H100, k = 2, batch 1, mean acceptance length 1.89 measured, 1.36x measured): acceptance
# 57% gives 1 + 0.57 + 0.57^2 = 1.895 tokens per call. The library default (ServingSettings()) stays
# the roofline's, which the trees instrument prices with.
DEFAULT = serving.DEFAULT_SETTINGS.with_(target="llama-3-8b", draft=serving.EAGLE, gpu="h100-sxm", gpus=1, lookahead=2,
                                         acceptance=57, batch=1, stepModel=serving.MEASURED)

SLIDERS = (
    # one unit for k
    Slider("lookahead", "Lookahead k", 1, 12, 1, DEFAULT.lookahead, "tokens", integer=True, url_key="srvK"),
    Slider("acceptance", "Per-token acceptance \u03b1", 0, 100, 1, DEFAULT.acceptance, "%", url_key="srvAlpha"),
    # log sliders: the value is the exponent; the page shows and announces 2 ** value ("8 sequences")
    Slider("batchExp", "Batch B", 0, 10, 1, 0, "sequences", integer=True, url_key="srvBatchLog2", base=2,
           typed_key="srvBatch"),
    Slider("contextExp", "Context L", 9, 17, 1, 10, "tokens", integer=True, url_key="srvContextLog2", base=2,
           typed_key="srvContext"),
    Slider("treeTokens", "Tree tokens verified per sequence (0: a chain, k + 1)", 0, 64, 1, 0, "tokens",
           integer=True, url_key="srvTree"),
    Slider("memEfficiency", "Bandwidth reached (roofline only)", 10, 100, 1, serving.DEFAULT_SETTINGS.memEfficiency,
           "% of peak", url_key="srvMemEff"),
    Slider("flopEfficiency", "FLOP/s reached (roofline only)", 10, 100, 1, serving.DEFAULT_SETTINGS.flopEfficiency,
           "% of peak", url_key="srvFlopEff"),
    Slider("overheadMs", "Fixed cost per pass (roofline only)", 0, 5, 0.1, serving.DEFAULT_SETTINGS.overheadMs, "ms",
           url_key="srvOverhead"),
    Slider("requestOutputTokens", "Output tokens per request", 16, 2048, 16, DEFAULT.requestOutputTokens, "tokens", integer=True,
           url_key="srvOutput"),
)


SELECTS = (
    Choice("stepModel", "srvModel", "Step-time model", dict(serving.STEP_MODELS), DEFAULT.stepModel),
    Choice("target", "srvTarget", "Target model", {n: t.label for n, t in serving.TARGETS.items()}, DEFAULT.target),
    Choice("draft", "srvDraft", "Draft", dict(serving.DRAFT_CHOICES), DEFAULT.draft),
    Choice("gpu", "srvGpu", "GPU", {n: g.label for n, g in serving.GPUS.items()}, DEFAULT.gpu),
    Choice("gpus", "srvGpus", "GPUs sharing the model", {"1": "1", "2": "2", "4": "4", "8": "8"}, str(DEFAULT.gpus)),
    Choice("precision", "srvPrecision", "Weights and KV cache", {n: p.label for n, p in serving.PRECISIONS.items()},
           DEFAULT.precision),
    Choice("attentionFlops", "srvAttention", "Attention FLOPs", {"0": "left out", "1": "counted"}, "0"),
    Choice("engine", "srvEngine", "Engine", {n: e.label for n, e in serving.ENGINES.items()}, DEFAULT.engine),
)

LOWEST = {slider.name: slider.minimum for slider in SLIDERS}  # each slider's minimum, read where a value is an index

EXACT_KEYS = ("certainty", "match", "gamma", "draftCost", "length", "seed")
TAIL_ORDER = ("certainty", "match", "gamma", "length", "draftCost", "seed")  # lab.serving.tail_answer's arguments
# --- input ----------------------------------------------------------------------------------

# the longest lookahead the widget's best k is searched over (lab.serving.best_lookahead's default, its k slider's end)
LONGEST_K = next(slider.maximum for slider in SLIDERS if slider.name == "lookahead")
CONTROLS = (*SLIDERS, *SELECTS)  # what the URL and the form carry (the curve token is read on its own)
EXACT_PREFIX = "exact."          # the exact widget's values on the live page's form (data-with="exact")


def _parse(raw) -> tuple[dict, dict, list[str]]:
    """(the widget's own settings, the exact lab's six values, notes) from a URL query string or a
    mapping of form values, both through :func:`lab.urlstate.read_controls`. The exact lab's values
    are its own URL keys in a link and ``exact.<name>`` on the live form; the exact widget reports
    their bad values itself, so here they are clamped quietly.

    >>> params, exact, notes = _parse("?srvK=3&srvGpus=3&exactDraftCost=20")
    >>> params["lookahead"], params["gpus"], exact["draftCost"], notes
    (3, '1', 20, ["GPUs sharing the model: '3' is not one of “1”, “2”, “4”, “8”; using 1"])
    """
    params, notes = read_controls(raw, CONTROLS)
    params["engine"], refused = serving.engine_running(params["draft"], params["engine"])
    notes += [refused] if refused else []  # suffix decoding on an engine without it: priced on one that runs it
    if 0 < params["treeTokens"] < params["lookahead"] + 1:  # a tree holds at least the chain it is priced against
        notes.append(f"Tree tokens verified per sequence: {params['treeTokens']} is fewer than k + 1 = {params['lookahead'] + 1} "
                     f"(the root and the k drafts); using {params['lookahead'] + 1}")
        params["treeTokens"] = params["lookahead"] + 1
    if isinstance(raw, dict):
        raw = {name[len(EXACT_PREFIX):]: value for name, value in raw.items()
               if isinstance(name, str) and name.startswith(EXACT_PREFIX)}
    exact, _ = read_controls(raw, EXACT_SLIDERS)
    return params, {k: int(exact[k]) for k in EXACT_KEYS}, notes


def _settings(params) -> serving.ServingSettings:
    return serving.ServingSettings(
        target=params["target"], draft=params["draft"], gpu=params["gpu"], precision=params["precision"],
        gpus=int(params["gpus"]), lookahead=params["lookahead"], acceptance=params["acceptance"],
        memEfficiency=params["memEfficiency"], flopEfficiency=params["flopEfficiency"],
        overheadMs=params["overheadMs"], batch=params["batch"], context=params["context"],
        attentionFlops=params["attentionFlops"] == "1", requestOutputTokens=params["requestOutputTokens"],
        stepModel=params["stepModel"], treeTokens=params["treeTokens"], engine=params["engine"])


def _query(params) -> str:
    sliders = format_query(params, SLIDERS)
    return sliders + "".join(f"&{s.key}={params[s.name]}" for s in SELECTS)


# --- the view ---------------------------------------------------------------------------------

LOAD_RATES = serving.LOAD_RATES        # 0.05 .. 5,000 requests/s
SWEEP_BATCHES = serving.SWEEP_BATCHES  # 1 .. 1024


CURVE_KEY = "srvCurve"  # measured-curve mode: a traces preset name or custom:a1,a2,... (as the ledger's trcCurve)


@lru_cache(maxsize=8)
def _answer(answer, settings, curve, exact, measured_k, method) -> dict:
    """``answer(settings, curve, exact, measured_k, method)`` (:func:`lab.serving.answer`, passed in so that it is
    part of the key), kept by everything it reads: the view passes its settings as the step model reads them
    (:func:`lab.serving.model_settings`), so a step of a roofline-only slider under a per-operator model, which
    changes nothing shown, reuses the answer instead of pricing every step again. The answer is read, never
    changed, by the view."""
    return answer(settings, curve, exact, measured_k, method)


# The figures of the parts that do not move with batch and context, memoised by what they draw; the model's
# own memos (_heatmap_answer, _load_answer, heatmap_steps, tail_answer) are named here too, so that emptying this widget's
# caches (tests/mutation.clear_caches) empties theirs
@lru_cache(maxsize=32)
def _heatmap_figure(grid, fits, width: int) -> str:
    return heatmap_svg(grid, fits, width)


@lru_cache(maxsize=16)
def _load_figures(plain, spec, cross, width: int, empty: str = "") -> tuple:
    return load_svg(LOAD_RATES, plain, spec, cross, width, empty), load_table_html(LOAD_RATES, plain, spec)


@lru_cache(maxsize=16)
def _tail_figure(exact: tuple, width: int) -> str:
    tail = tail_answer(*exact)
    return tail_svg(tail["runs"], tail["seed"], tail["seedSpeedup"], width)


def curve_switch_html(curve, label, measured_at: int | None = None, lookahead: int | None = None) -> str:
    """In measured-curve mode: which curve stands in for the acceptance slider (its measured rates,
    positions 1..``measured_at``, default all; and, when ``lookahead`` reaches past them, the
    acceptance model's continuation up to it, named as such), and a button that clears it (the page's
    generic ``data-action="send"`` on this widget's own form). Empty otherwise.

    >>> print(curve_switch_html((0.9, 0.8, 0.7, 0.65), "a trace", 2, 3).split(" <button")[0])
    <p class="srv-curve">Acceptance now comes from the measured curve of a trace: 90%, 80% by draft position; position 3 (70%) is the acceptance model's continuation of it, not measured.
    """
    if curve is None:
        return ""
    measured = len(curve) if measured_at is None else measured_at
    shown = max(measured, lookahead or 0)
    rates = ", ".join(f"{to_fixed(100 * rate, 0)}%" for rate in curve[:measured])
    beyond = ", ".join(f"{to_fixed(100 * rate, 0)}%" for rate in curve[measured:shown])
    continued = ("" if shown <= measured else
                 f"; {span('position', measured + 1, shown)} ({beyond}) {'is' if shown == measured + 1 else 'are'}")
    clear = escape('{"%s": ""}' % CURVE_KEY)
    return (f'<p class="srv-curve">Acceptance now comes from the measured curve of {escape(label)}: '
            f'{escape(rates)} by draft position'
            + (f"{continued} the acceptance model's continuation of it, not measured. " if continued else ". ")
            +
            f'<button type="button" data-action="send" data-target="serving" data-values="{clear}">'
            f'Use the acceptance slider</button></p>')


def view(raw=None) -> dict:
    """The serving widget for one setting (never raises; bad input comes back as notes).

    With ``srvCurve`` (form value or URL key: a traces preset name or ``custom:a1,a2,...``) it
    runs in measured-curve mode, as the ledger does with ``trcCurve``: the measured per-position
    conditional acceptance curve replaces the acceptance slider everywhere in the model (past the
    measured positions the acceptance model continues it, :func:`lab.serving.received_curve`, and
    the summary says which positions are extrapolated); only a preset goes into the link."""
    raw, width = split_width(raw)
    params, exact, notes = _parse(raw)
    settings = _settings(params)
    token, curve, curve_label, linkable, measured_k, method = _measured_curve(raw, notes)
    exact_setting = tuple(exact[k] for k in TAIL_ORDER)
    drawn = (serving.answer, serving.model_settings(settings), curve, measured_k, method)  # what the figures below are drawn from
    a = _answer(*drawn[:3], exact_setting, *drawn[3:])
    curve = a["curve"]  # continued past the measured positions by the acceptance model
    load_figures = _load_figures(a["load"]["plain"], a["load"]["spec"], a["load"]["cross"], width,
                                 "" if a["memory"]["room"] else f"does not fit in {settings.gpus} x {_gpu_label(settings)}")
    notes = notes + _memory_notes(settings, a) + serving.setting_notes(settings.target, settings.draft, settings.engine,
                                                                       settings.batch)
    lead, summary, live = _texts(settings, a, curve, curve_label, measured_k)
    return {
        "params": params,
        "exact": exact,
        "shown": _shown(params, token),
        "notes": notes,
        "query": _query(params) + (f"&{CURVE_KEY}={token}" if token and linkable else ""),
        "curveMode": curve is not None,
        "lead": lead,
        "summary": summary,
        "live": live,
        "width": width,
        "readouts": _readouts(settings, a, exact),
        "crossoverBatch": a["crossover"],
        "figures": _figures(a, drawn, settings, params, width, load_figures, exact_setting,
                            curve_switch_html(curve, curve_label, measured_k, settings.lookahead)),
    }


def _measured_curve(raw, notes: list) -> tuple:
    """(token, curve, its label, whether it goes into the link, the positions measured, its token method) of the
    measured-curve mode :func:`lab.urlstate.requested_curve` reads (a bad token adds a note), else all None and
    no label."""
    requested = requested_curve(raw, CURVE_KEY, notes)
    if not requested:
        return None, None, "", False, None, None
    token, (measured, curve_label, linkable) = requested
    curve = tuple(measured)
    from ..acceptance import token_measured_at, token_method  # the curve library: only a measured curve needs it

    return token, curve, curve_label, linkable, token_measured_at(token) or len(curve), token_method(token)


def _gpu_label(settings: serving.ServingSettings) -> str:
    return serving.GPUS[settings.gpu].label


def _memory_notes(settings: serving.ServingSettings, a: dict) -> list[str]:
    """A note when weights and KV caches need more memory than the GPUs hold (how many sequences would fit), else
    none: the times shown are then what the batch would cost if it fitted."""
    need, have, fits = (a["memory"][key] for key in ("need", "have", "maxBatch"))
    if need <= have:
        return []
    return [f"At batch {settings.batch:,} and context {settings.context:,}, weights and KV caches need "
            f"{need / 1e9:,.0f} GB but {settings.gpus} x {_gpu_label(settings)} hold {have / 1e9:,.0f} GB"
            + (f" (at most {plural(int(fits), 'sequence')} fit)" if fits >= 1 else " (not even the weights fit)")
            + ": no engine runs this batch; the times are what it would cost if it fitted."]


def _texts(settings: serving.ServingSettings, a: dict, curve, curve_label: str, measured_k) -> tuple:
    """(lead, summary, live announcement). Where not even the weights fit (``room`` false) the lead names the limit
    and what to change, and no speedup is claimed (reader audit N4-15)."""
    draft = _draft_words(settings)
    summary = _summary(settings, a, draft, _curve_opening(curve, curve_label, measured_k, settings.lookahead),
                       curve is not None and a["bestLookahead"] > measured_k, measured_k)
    if not a["memory"]["room"]:
        lead = _no_room(settings, a)
        return (lead, f"{lead} What follows is what it would cost if it fitted. {summary}",
                f"does not fit: {settings.gpus} x {_gpu_label(settings)} hold {a['memory']['have'] / 1e9:,.0f} GB, "
                f"less than the weights")
    r, crossover, limit = a["result"], a["crossover"], a["memory"]["limit"]
    lead = (("On the measured curve, at" if curve is not None else "At") + f" batch {settings.batch}, "
            f"{serving.TARGETS[settings.target].label} drafted by {draft} on {settings.gpus} x {_gpu_label(settings)} runs "
            f"{_f(r.speedup)}x, {_verdict(r.speedup)} than plain decoding"
            + ("" if a["memory"]["need"] <= a["memory"]["have"] else " (if it fitted in memory)") + "; "
            + (f"in this model it stops paying at batch {crossover}." if crossover is not None
               else f"it keeps paying at every batch that fits (up to {limit})."))
    live = (("measured curve: " if curve is not None else "")
            + f"{_f(r.speedup)}x {_verdict(r.speedup)} at batch {settings.batch}; "
            + (f"crossover batch {crossover}" if crossover is not None else f"no crossover ≤{limit}"))
    return lead, summary, live


def _verdict(speedup: float) -> str:
    """The speedup in a word.

    >>> _verdict(1.2), _verdict(0.9), _verdict(1)
    ('faster', 'slower', 'no faster')
    """
    return "faster" if speedup > 1 else "slower" if speedup < 1 else "no faster"


def _draft_words(settings: serving.ServingSettings) -> str:
    """The draft as the sentences name it: "an EAGLE or MTP head ...", a model or n-gram lookup bare."""
    draft = serving.DRAFT_LABELS[settings.draft]
    if "head" in draft:  # "drafted by an EAGLE or MTP head (1 layer)", as a model or n-gram lookup reads bare
        draft = "an " + draft
    return draft


def _curve_opening(curve, curve_label: str, measured_k, lookahead: int) -> str:
    """The summary's opening in measured curve mode (which curve, the positions the acceptance model extrapolates);
    empty otherwise."""
    if curve is None:
        return ""
    return (f"In measured curve mode ({curve_label}; the acceptance slider is set aside"
            + (f"; {span('position', measured_k + 1, lookahead)} extrapolated by the acceptance model past the "
               f"measured k = {measured_k}" if lookahead > measured_k else "") + "), ")


def _summary(settings: serving.ServingSettings, a: dict, draft: str, opening: str, best_extrapolated: bool,
             measured_k) -> str:
    """The summary paragraph: the step model, the setting, what a plain step and a cycle cost and commit, the
    speedup and its crossover, and the best lookahead here (``best_extrapolated``: it lies past the measured
    positions of the curve)."""
    r, crossover, best_k, best_speedup = a["result"], a["crossover"], a["bestLookahead"], a["bestSpeedup"]
    limit = a["memory"]["limit"]
    edge = serving.longest_lookahead_words(best_k, LONGEST_K, "this widget tries")
    cross_text = ("no batch fits in GPU memory (not even the weights), so there is no crossover to name"
                  if not a["memory"]["room"]
                  else f"in this model speculation stops paying at batch {crossover}" if crossover is not None else
                  f"in this model speculation keeps paying at every batch that fits (up to {limit})")
    model = {serving.MEASURED: "the per-operator model calibrated on measured steps",
             serving.ROOFLINE: "the roofline of the whole step (idealised)",
             serving.OPERATORS: "the per-operator model with no overheads or calibration (idealised)"}[
                 settings.stepModel]
    return (
        f"{opening}{'under' if opening else 'Under'} {model}, {serving.TARGETS[settings.target].label} drafted by {draft} on {settings.gpus} x {_gpu_label(settings)} "
        f"({serving.PRECISIONS[settings.precision].label}), as {serving.ENGINES[settings.engine].label} runs a cycle: "
        f"at batch {settings.batch:,} and {settings.context:,} tokens of context a plain "
        f"step takes {_f(r.plainStepMs)} ms ({r.plainRegime}); a cycle of {plural(settings.lookahead, 'draft step')} "
        f"({_f(r.draftStepMs)} ms each"
        + _extend_text(settings, r, a["verifyTokens"])
        + f") and one verify step ({_f(r.verifyStepMs)} ms, {r.verifyRegime}"
        + (f"; then {_f(r.emittedOutputMs)} ms detokenizing the extra tokens" if r.emittedOutputMs > 0 else "")
        + ") commits "
        + f"{_f(r.tokensPerCall)} tokens per sequence, so a token costs {_f(r.specMsPerToken)} ms instead of "
        f"{_f(r.plainMsPerToken)} ms: {_f(r.speedup)}x, {_verdict(r.speedup)}. At this context {cross_text}. "
        f"The best lookahead here is {best_k} ({_f(best_speedup)}x"
        + (f", {_f(best_speedup, 3)}x against k = {settings.lookahead}'s {_f(r.speedup, 3)}x"
           if best_k != settings.lookahead and _f(best_speedup) == _f(r.speedup) else "")
        + (f", resting on the acceptance model's continuation past the measured k = {measured_k}"
           if best_extrapolated else "") + ")"
        + (f"; {edge}" if edge else "") + ".")


def _readouts(settings: serving.ServingSettings, a: dict, exact: dict) -> dict:
    """The readouts' texts: the step times, tokens per call and speedup, throughputs, regimes, crossover and its
    trust line, memory, the load curves' crossing and the tail's spread."""
    r, crossover, runs = a["result"], a["crossover"], a["tail"]["runs"]
    need, have, limit, room = (a["memory"][key] for key in ("need", "have", "limit", "room"))
    cross = a["load"]["cross"]
    return {
        "batch": str(settings.batch), "context": str(settings.context),
        "plainStepMs": _f(r.plainStepMs, 3), "draftStepMs": _f(r.draftStepMs, 3), "verifyStepMs": _f(r.verifyStepMs, 3),
        "tokensPerCall": _f(r.tokensPerCall, 3), "speedup": _f(r.speedup, 3),
        "plainTokensPerSecond": f"{r.plainTokensPerSecond:,.0f}", "specTokensPerSecond": f"{r.specTokensPerSecond:,.0f}",
        "ridge": _f(r.effectiveRidgeFlopsPerByte, 1), "regime": f"plain {r.plainRegime}, verify {r.verifyRegime}",
        "crossover": ("no batch fits" if not room else f"none up to {limit}" if crossover is None
                      else str(crossover)),
        "crossoverTrust": trust_line(settings),
        "effectiveBatch": str(settings.batch * a["verifyTokens"]),
        "memory": f"{need / 1e9:,.0f} of {have / 1e9:,.0f} GB",
        "loadCross": "nowhere" if cross is None else f"{rate_label(cross)} req/s",
        "tailRange": f"{_f(runs['minimum'])}x to {_f(runs['maximum'])}x",
        "tailMiddle": f"{_f(runs['p05'])}x / {_f(runs['median'])}x / {_f(runs['p95'])}x",
        "tailPrediction": f"{_f(runs['prediction'])}x",
        "tailSeed": f"seed {exact['seed']}: {_f(a['tail']['seedSpeedup'])}x",
        "gapP50": f"{_f(runs['gapP50'])} (plain {_f(runs['plainGapP50'])})",
        "gapP99": f"{_f(runs['gapP99'])} (plain {_f(runs['plainGapP99'])})",
    }


def _shown(params: dict, token) -> dict:
    """What the form shows: each slider's value, a log slider's exact count in its typed twin, each select's
    choice, and the curve token (empty without one)."""
    shown = {slider.name: to_js_string(params[slider.name]) for slider in SLIDERS}
    # the exact counts
    shown.update({slider.typed_name: str(params[slider.typed_name]) for slider in SLIDERS if slider.typed_name})
    shown.update({select.name: params[select.name] for select in SELECTS})
    shown[CURVE_KEY] = token or ""
    return shown


def _figures(a: dict, drawn: tuple, settings: serving.ServingSettings, params: dict, width: int, load_figures: tuple,
             exact_setting: tuple, curve_switch: str) -> dict:
    """The figures, each drawn once for what it is drawn from (``drawn``: the model's settings and curve) and the
    width, or kept (:func:`lab.figures.kept`)."""
    grid, grid_fits = a["heatmap"]["grid"], a["heatmap"]["fits"]
    # the heatmap's cell: each log slider's value less its own minimum (the grid's first row and column
    # are 2 ** those minima, lab.serving.HEATMAP_CONTEXTS and HEATMAP_BATCHES; a test holds them equal)
    selected = tuple(params[name] - LOWEST[name] for name in ("contextExp", "batchExp"))
    rows, crossover, fits = a["sweep"], a["crossover"], a["memory"]["maxBatch"]
    load, load_table = load_figures
    return {
        "heatmap": _heatmap_figure(grid, grid_fits, width),
        # redrawn only when what they are drawn from moves (lab.figures.kept): the model's settings and width
        "heatmapSelection": kept("serving.heatmapSelection", (heatmap_selection_svg, *drawn, width),
                                 lambda: heatmap_selection_svg(grid, selected, width, grid_fits[selected[0]][selected[1]])),
        "table": kept("serving.table", (heatmap_table_html, *drawn),
                      lambda: heatmap_table_html(grid, selected, grid_fits)),
        "batch": kept("serving.batch", (batch_svg, *drawn, width), lambda: batch_svg(rows, settings.batch, crossover, width, fits)),
        "load": load,
        "loadTable": load_table,
        "tail": _tail_figure(exact_setting, width),
        "curveSwitch": curve_switch,
    }


def _no_room(settings: serving.ServingSettings, a: dict) -> str:
    """The lead when not even the weights fit (reader audit N4-15): one sentence naming the limit and what to
    change (:func:`lab.serving.fits_instead_text`), and no speedup: no batch of this setting runs."""
    gpu, memory = serving.GPUS[settings.gpu], a["memory"]
    models = "its weights" if serving.model_free(settings.draft) else "the weights of target and draft"
    return (f"{serving.TARGETS[settings.target].label} does not fit on {settings.gpus} x {gpu.label}: {models} alone "
            f"need {memory['weights'] / 1e9:,.0f} GB in {serving.PRECISIONS[settings.precision].label}, more than the "
            f"{memory['have'] / 1e9:,.0f} GB they hold, so no batch runs and no speedup is claimed; {memory['instead']}.")


def _extend_text(settings: serving.ServingSettings, r, verify_tokens: int) -> str:
    """The summary's words for what the draft costs beyond its one-token steps: SGLang's extend pass, which gives
    the first draft token in place of a one-token step (what it costs beyond that step, less with an EAGLE-3 head the
    fc the other steps skip: it can be below zero); vLLM V1's first step over the verified tokens, once it shows at
    two decimals (at small batch it costs nothing more). SGLang's V1 worker's eager ops a cycle are in that share
    (lab.serving_calibration.cycle_eager_ms) and named with it."""
    engine = serving.ENGINES[settings.engine]
    if engine.draftExtend and engine.firstDraftFromExtend and r.draftExtendMs != 0:
        more = "more" if r.draftExtendMs > 0 else "less"
        ops = " with the worker's eager ops around it" if engine.cycleOps and settings.stepModel == serving.MEASURED else ""
        return (f"; the first of them the draft's extend pass over the {verify_tokens} verified tokens{ops}, "
                f"{_f(abs(r.draftExtendMs))} ms {more}")
    if r.draftExtendMs <= 0:
        return ""
    if engine.draftExtend:
        return f", then the draft's extend pass, {_f(r.draftExtendMs)} ms"
    if _f(r.draftExtendMs) == _f(0):
        return ""
    return f"; the first over the {verify_tokens} verified tokens, {_f(r.draftExtendMs)} ms more"


def trust_line(settings: serving.ServingSettings) -> str:
    """How far to trust the answer, per engine and preset family: what the model was calibrated on for
    this GPU (or that it is assumed), and its measured error on the published end-to-end speedups of the same
    engine, GPU calibration, kind of target (dense or mixture of experts, with or without linear attention) and
    draft (computed); where no such row exists, "not validated", never an error band borrowed from another engine
    or family."""
    from .. import serving_calibration

    if settings.stepModel != serving.MEASURED:
        # not a bound: the fixed costs it leaves out dilute what verifying more tokens costs, so for a
        # mixture of experts (whose verify pass reads more experts) it sits below the calibrated model
        return "idealised: not a prediction, and not a bound on one (it leaves out fixed costs)"
    cal = serving_calibration.CALIBRATIONS[settings.gpu]
    engine = serving.ENGINES[settings.engine].label
    basis = ("calibrated on measured step times" if cal.measured else
             # MI300X: measured plain steps fit its fixed cost per pass alone; its efficiencies are still assumed
             "assumed: its efficiencies (only its fixed cost per pass is fitted on measured steps)"
             if any(m.gpu == settings.gpu for m in serving_calibration.PASS_STEP_MEASUREMENTS)
             else "assumed: no step time measured on this GPU")
    rows = _matching_validation(settings)
    if not rows:
        return (f"{basis}; not validated for {engine}" if not cal.measured else
                f"{basis}; not validated for {engine} with this target, draft and GPU "
                "(no published end-to-end speedup of that family)")
    middle_error = median(abs(row["ratio"] - 1) for row in rows)
    batches = sorted({row["batch"] for row in rows})
    at = "batch one" if batches == [1] else f"batch {_batch_range(batches)}"
    above = sum(row["ratio"] > 1 for row in rows)  # which way it errs, as the validation section says it
    lean = (f", {above} of {len(rows)} predicted above their measurement (optimistic)" if 2 * above > len(rows) else
            f", {len(rows) - above} of {len(rows)} predicted below their measurement" if 2 * above < len(rows) else
            ", half predicted above their measurement and half below")
    return (f"{basis}; off by {_f(100 * middle_error, 0)}% (median) on {len(rows)} published "
            f"speedups of {engine} at {at} for this family{lean}; beyond that, not validated")


def _matching_validation(settings: serving.ServingSettings) -> list:
    """The validation rows of the settings' engine, GPU calibration, kind of target and draft."""
    from .. import serving_calibration

    cal = serving_calibration.CALIBRATIONS[settings.gpu]
    kind = target_kind(settings.target)
    return [row for row in _validation_rows()
            if row["engine"] == settings.engine and serving_calibration.CALIBRATIONS[row["gpu"]] is cal
            and target_kind(row["target"]) == kind and row["draft"] == settings.draft]


def target_kind(target: str) -> tuple:
    """A target's family for the trust line: (mixture of experts, linear attention). A hybrid's verify pass keeps
    state copies a softmax-only model's does not, so its rows do not vouch for the other kind.

    >>> target_kind("llama-3-8b"), target_kind("qwen3.8-27b"), target_kind("qwen3-next-80b-a3b")
    ((False, False), (False, True), (True, True))
    """
    shape = serving.TARGETS[target]
    return bool(shape.experts), bool(shape.linear_layers)


@lru_cache(maxsize=1)
def _bracket_rows() -> tuple:
    """The published batch sweeps beside the model's crossovers, computed once per process
    (lab.serving_validation.crossover_comparison: nine crossover searches)."""
    from .. import serving_validation
    return tuple(serving_validation.crossover_comparison())


def _bracket_ratios() -> tuple:
    """The model's crossover (at each sweep's central acceptance length, the first of its three)
    over the batch by which that published sweep first lost: how far past batch one the crossover
    is to be trusted."""
    ratios = []
    for row in _bracket_rows():
        central = row["crossovers"][0]
        if central is not None:
            ratios.append(central / row["high"])
    return tuple(ratios)


@lru_cache(maxsize=1)
def _validation_rows() -> tuple:
    from .. import serving_validation
    return tuple(serving_validation.comparison())


@lru_cache(maxsize=8)
def _validation_figure(width: int) -> str:
    """The predicted-against-measured figure at ``width`` (independent of the settings)."""
    return validation_svg(list(_validation_rows()), width)


# The crossover brackets are drawn once, by the build, and the page scales them to its column: at 640 px their
# 12 px text came out at 6 px on a phone; at 400 px it is 10 px there and stays 12 px on a laptop, whose column
# holds the figure unscaled (its three rows and five batch ticks fit 400 px).
BRACKETS_WIDTH = 400


@lru_cache(maxsize=8)
def _brackets_figure(width: int) -> str:
    """The crossover-against-bracket figure at ``width`` (independent of the settings)."""
    return brackets_svg(list(_bracket_rows()), width)


def differs(view: dict) -> str:
    """Under the lead when the deployment panel sent these settings: where this widget's numbers are
    and are not the panel's answer (one sentence)."""
    if view["curveMode"]:  # the panel sends its curve (a figure travels extended by its prior); a trace sends its own
        return ("It runs on the curve that was sent (the panel's own, so its speedup is the panel's answer on it, or a "
                "trace's in place of your figure); its tail panel is the exact sampler's toy model.")
    return ("These are your deployment's settings and the panel's model, so the speedup is the panel's answer; only "
            "the tail panel below, one seeded run of the exact sampler's toy model, does not use your figure.")


def page_context() -> dict:
    from ..urlstate import slider_specs

    return {"view": view(None), "sliders": slider_specs(SLIDERS),
            "selects": [{"name": s.name, "key": s.key, "label": s.label, "options": list(s.options.items()),
                         "default": s.default} for s in SELECTS],
            "sources": {"gpus": {n: g.source for n, g in serving.GPUS.items()},
                        "models": {n: t.source for n, t in {**serving.TARGETS, **serving.DRAFTS}.items()}},
            "validation": _validation_context(), "presets": _presets_context(), "prose": _prose_context()}


def _prose_context() -> dict:
    """The numbers the article's roofline and engine paragraphs quote, computed so the prose cannot drift
    from the lab: the BF16 ridge point (FLOP/byte) of the H100 and the A100 80GB; the widget's default
    preset's largest batch in memory and its crossover batch charged vLLM V0's terms (None: it never
    crosses); and the GPUs whose calibration is assumed, all of them and the 2026 ones apart.

    >>> p = _prose_context()
    >>> p["ridgeH100"], p["ridgeA100"], p["defaultCrossover"]
    ('295', '153', None)
    """
    from .. import serving_calibration

    def ridge(name):
        return _f(serving.GPUS[name].bf16 / serving.GPUS[name].bandwidth, 0)

    default = _settings(_parse(None)[0])
    assumed = [name for name, cal in serving_calibration.CALIBRATIONS.items() if not cal.measured]
    new = ("b200", "b300", "mi300x", "mi355x")  # the 2026 presets
    return {"ridgeH100": ridge("h100-sxm"), "ridgeA100": ridge("a100-80g"),
            "defaultFits": int(serving.max_batch_in_memory(default, default.context)),
            "defaultCrossover": serving.crossover_batch(default),
            "v0Crossover": serving.crossover_batch(default._replace(engine="vllm-v0")),
            "assumedGpus": [serving.GPUS[n].label for n in assumed],
            "assumed2026": [serving.GPUS[n].label for n in new if n in assumed],
            "measured2026": [serving.GPUS[n].label for n in new if n not in assumed],
            "denseHybridLinear": serving.TARGETS["qwen3.8-27b"].linear_layers,
            "denseHybridLayers": serving.TARGETS["qwen3.8-27b"].layers,
            "v1Sweep": _v1_sweep_top(),
            "b200Measured": "b200" not in assumed, "b200Steps": _b200_held_out_direction(),
            "scoringGrowth": _scoring_growth()}


def _scoring_growth() -> dict:
    """The roofline paragraph's example of a measured step growing below the ridge: vLLM's MQA scoring
    times of pull request 5691 (lab.serving_calibration.STEP_MEASUREMENTS) at the smallest batch and at
    the largest whose pass (batch x tokens a sequence) stays below the GPU's BF16 ridge, each growth in
    percent, beside the roofline's own growth over the same two batches at the widget's default
    efficiencies (its KV-cache read is all that grows there).

    >>> g = _scoring_growth()
    >>> g["lowBatch"], g["lowMs"], g["highBatch"], g["highMs"], g["passTokens"], g["measuredGrowth"], g["rooflineGrowth"]
    (4, '13.7', 16, '18.4', 96, '34', '21')
    """
    from .. import serving_calibration as cal
    from ..serving_step import step_time_ms

    rows = [m for m in cal.STEP_MEASUREMENTS if m.source == cal._PR5691]
    gpu = serving.GPUS[rows[0].gpu]
    below = [m for m in rows if m.batch * m.newTokens < gpu.bf16 / gpu.bandwidth]
    low, high = below[0], below[-1]
    settings = serving.DEFAULT_SETTINGS.with_(stepModel=serving.ROOFLINE, target=low.target, gpu=low.gpu,
                                              gpus=low.gpus, precision=low.precision)
    low_ms, high_ms = (step_time_ms(serving.TARGETS[m.target], settings, m.batch, m.newTokens, m.context)
                       for m in (low, high))
    return {"lowBatch": low.batch, "lowMs": _f(low.ms, 1), "highBatch": high.batch, "highMs": _f(high.ms, 1),
            "tokens": low.newTokens, "passTokens": high.batch * high.newTokens, "gpu": gpu.label.split(" ")[0],
            "measuredGrowth": _f(100 * (high.ms / low.ms - 1), 0),
            "rooflineGrowth": _f(100 * (high_ms / low_ms - 1), 0)}


def _v1_sweep_top() -> dict:
    """Today's vLLM V1 in the validation table at its largest batch: ``batch``, the ``gpu`` and ``target``
    labels, and the measured speedups' range there (``low``, ``high``, as printed)."""
    from .. import serving_validation

    rows = [row for row in serving_validation.VALIDATION if row.engine == "vllm-v1"]
    top = max(row.batch for row in rows)
    at_top = [row for row in rows if row.batch == top]
    return {"batch": top, "gpus": sorted({f"{row.gpus} x {serving.GPUS[row.gpu].label}" for row in at_top}),
            "targets": sorted({serving.TARGETS[row.target].label.split(" (")[0] for row in at_top}),
            "low": _f(min(row.measured for row in at_top)), "high": _f(max(row.measured for row in at_top))}


def _b200_held_out_direction() -> str:
    """Which way the model misprices the validation sources' own B200 plain steps, the word after the
    article's "too" ("" without such a step).

    >>> _b200_held_out_direction() in ("fast", "slow", "fast on one prompt set and too slow on the other")
    True
    """
    from .. import serving_validation

    ways = sorted({"slow" if row["ratio"] > 1 else "fast" for row in serving_validation.held_out_steps()
                   if row["gpu"] == "b200"})
    return ways[0] if len(ways) == 1 else "fast on one prompt set and too slow on the other" if ways else ""


def _presets_context() -> dict:
    """The numbers the article's preset paragraph quotes, computed from the presets: FP4's bytes a
    weight, the hybrid preset's linear-attention state per copy (MB) and its slots at the widget's
    lookahead, the latent-attention verify intensity of DeepSeek-V3 per verified token on one GPU, and the
    EAGLE-3 head's draft vocabulary (thousands of tokens).

    >>> p = _presets_context()
    >>> p["fp4Bytes"], p["stateMb"], p["hybridLinear"], p["hybridSoftmax"], p["eagle3VocabK"]
    ('0.5625', '77', 36, 12, 32)
    """
    hybrid = serving.TARGETS["qwen3-next-80b-a3b"]
    latent, bf16 = serving.TARGETS["deepseek-v3"], serving.PRECISIONS["bf16"]
    return {"fp4Bytes": to_js_string(serving.PRECISIONS["fp4"].bytes),
            "stateMb": _f(serving.linear_state_bytes(hybrid) / 1e6, 0),
            "hybridLinear": hybrid.linear_layers, "hybridSoftmax": serving.softmax_layers(hybrid),
            "window": serving.TARGETS["gpt-oss-120b"].window,
            "mlaIntensity": _f(serving.attention_flops(latent) / serving.kv_bytes_per_token(latent, bf16), 0),
            "eagle3VocabK": round(serving.EAGLE3_DRAFT_VOCAB / 1000)}


def _validation_context() -> dict:
    """The predicted-against-measured figure, its table, the error summary and the calibration
    table, all computed by the build from lab.serving_validation and lab.serving_calibration."""
    from .. import serving_calibration, serving_validation

    rows = list(_validation_rows())
    summary = serving_validation.summary(rows)
    held = serving_validation.held_out_steps()   # the sources' own plain steps; those of a mixture of experts apart
    moe_held = [row for row in held if serving.TARGETS[row["target"]].experts]
    return {"table": validation_table_html(rows),
            "calibration": calibration_table_html(), "summary": {
                "points": summary["points"], "median": _f(summary["medianRatio"]), "worst": _f(summary["worstRatio"]),
                "medianError": _f(100 * summary["medianAbsError"], 0), "above": summary["above"]},
            "engines": [{"engine": serving.ENGINES[e["engine"]].label, "points": e["points"],
                         "medianError": _f(100 * e["medianAbsError"], 0), "above": e["above"],
                         "batches": " and ".join(str(b) for b in e["batches"]),
                         "batchRange": _batch_range(e["batches"])}
                        for e in serving_validation.summary_by_engine(rows)],
            "targets": _validation_by_target(rows),
            "unmeasured": [serving.GPUS[n].label for n, c in serving_calibration.CALIBRATIONS.items() if not c.measured],
            "assumed": _assumed_calibrations(),
            "brackets": _bracket_context(), "bracketRatios": _bracket_ratio_range(),
            # the article's section draws these (the widget keeps its decision figures): settings-independent
            "figure": _validation_figure(WIDTH_DEFAULT), "bracketsFigure": _brackets_figure(BRACKETS_WIDTH),
            "heldOutSteps": [{"gpu": serving.GPUS[row["gpu"]].label, "ms": _f(row["ms"]),
                              "percent": _f(100 * abs(row["ratio"] - 1), 0),
                              "direction": "slow" if row["ratio"] > 1 else "fast"}
                             for row in held],
            "moePlain": _moe_plain_steps(moe_held), "moeHeld": _moe_held_out(moe_held),
            "expansion": _expansion_example(), "eagle3Cycle": _eagle3_cycle()}


def _moe_plain_steps(rows) -> dict | None:
    """The validation sources' plain steps of a mixture of experts (``rows``: :func:`lab.serving_validation.held_out_steps`'
    rows whose target has experts): what they measured, what the model computes, how many times longer, and how much
    of the model's step is its MoE layers' fixed cost (``moe_layers x`` the row's engine's MoE kernel stack's cost on
    its GPU: :data:`lab.serving_moe.MOE_LAYER_US`, :func:`lab.serving_moe.moe_layer_us`). None when no such row exists."""
    from .. import serving_calibration, serving_validation
    from ..serving_moe import moe_layer_us, with_moe_layer_us
    from ..serving_presets import moe_layers

    if not rows:
        return None
    steps = [serving_calibration.StepMeasurement(**{k: row[k] for k in serving_calibration.StepMeasurement._fields})
             for row in rows]
    cals = [serving_calibration.CALIBRATIONS[m.gpu] for m in steps]
    fixed = [moe_layers(serving.TARGETS[m.target]) * moe_layer_us(cal, serving_validation.moe_kernels_of(m)) / 1000
             for m, cal in zip(steps, cals)]
    # the same steps with TensorRT-LLM's cost a MoE layer on the row's own stack, as every engine was charged before
    trt = [serving_validation.step_measurement_ms(m, with_moe_layer_us(cal, serving_validation.moe_kernels_of(m),
                                                                      moe_layer_us(cal, "trtllm"))) / m.ms
           for m, cal in zip(steps, cals)]
    return {"target": serving.TARGETS[rows[0]["target"]].label.split(" (")[0],
            "measured": " and ".join(_f(row["ms"]) for row in rows), "model": " and ".join(_f(row["model"]) for row in rows),
            "times": f"{_f(min(row['ratio'] for row in rows), 1)} to {_f(max(row['ratio'] for row in rows), 1)}",
            "direction": ("too long" if min(row["ratio"] for row in rows) > 1 else
                          "too short" if max(row["ratio"] for row in rows) < 1 else "off either way"),
            "moeMs": _f(median(fixed), 1), "trtTimes": f"{_f(min(trt), 1)} to {_f(max(trt), 1)}"}


def _moe_held_out(sources_own) -> dict:
    """Every plain step of a mixture of experts held out of the MoE fits (:func:`lab.serving_validation.moe_steps`'
    held-out rows and ``sources_own``, the validation sources' own, :func:`lab.serving_validation.held_out_steps`'
    rows whose target has experts): how many sources (``source_key``), as a word, and the lowest and highest ratio,
    model over measured."""
    from .. import serving_validation

    rows = [row for row in serving_validation.moe_steps() if row["role"] == "held out"] + list(sources_own)
    sources = len({serving_validation.source_key(row["source"]) for row in rows})
    words = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}
    return {"sources": words.get(sources, str(sources)), "lowest": _f(min(row["ratio"] for row in rows), 2),
            "highest": _f(max(row["ratio"] for row in rows), 2)}


def _batch_range(batches) -> str:
    """Sorted batches as the prose names them: "1 to 64", or the one batch.

    >>> _batch_range([1, 4, 64]), _batch_range([16])
    ('1 to 64', '16')
    """
    return f"{batches[0]} to {batches[-1]}" if len(batches) > 1 else str(batches[0])


def _validation_by_target(rows) -> dict:
    """Each engine's rows split by target, for the prose that names them apart: keyed "engine/target", each with its
    points, median error (%), rows above, batch range, the rows measured slower than plain decoding and the lowest
    and highest prediction."""
    from .. import serving_validation

    groups = {}
    for row in rows:
        groups.setdefault(f"{row['engine']}/{row['target']}", []).append(row)
    out = {}
    for key, mine in groups.items():
        summary = serving_validation.summary(mine)
        batches = sorted({row["batch"] for row in mine})
        out[key] = {"points": summary["points"], "medianError": _f(100 * summary["medianAbsError"], 0),
                    "above": summary["above"],
                    "batchRange": _batch_range(batches),
                    "slower": sum(row["measured"] < 1 for row in mine),
                    "lowest": _f(min(row["predicted"] for row in mine)),
                    "highest": _f(max(row["predicted"] for row in mine))}
    return out


def _eagle3_cycle() -> dict:
    """An EAGLE-3 cycle at batch one in plain steps, as the article writes them (two decimals):
    :func:`lab.serving_validation.eagle3_cycle_in_plain_steps`."""
    from .. import serving_validation

    return {key: value if key == "lookahead" else _f(value)
            for key, value in serving_validation.eagle3_cycle_in_plain_steps().items()}


def _assumed_calibrations() -> list[dict]:
    """The GPUs with no measured step time, grouped by what their calibration assumes (its source
    text), in preset order.

    >>> _assumed_calibrations()[0]["gpus"]
    'L40S, RTX 4090 and RTX 3090'
    """
    from .. import serving_calibration

    groups: dict[str, list[str]] = {}
    for name, cal in serving_calibration.CALIBRATIONS.items():
        if not cal.measured:
            groups.setdefault(cal.source, []).append(serving.GPUS[name].label)
    # the source opens with "no step-time measurement found: ", which the sentence before says already
    return [{"gpus": " and ".join([", ".join(labels[:-1]), labels[-1]] if len(labels) > 1 else labels),
             "how": how.split(": ", 1)[-1]} for how, labels in groups.items()]


EXPANSION_EXAMPLE = dict(target="llama-3-8b", draft=serving.EAGLE, gpu="rtx-3090", gpus=1, lookahead=2, batch=28,
                         context=1024, stepModel=serving.MEASURED)  # the vLLM sweep's setting, near its first loss


def _expansion_example() -> dict:
    """What batch expansion adds to a verify step at :data:`EXPANSION_EXAMPLE` (the article's
    example): ``total`` ms, and ``kv`` ms of it reading KV caches again (the rest is its bookkeeping)."""
    base = serving.DEFAULT_SETTINGS.with_(**EXPANSION_EXAMPLE)
    batch, context = base.batch, base.context
    expanded, once = (serving.step_breakdown(serving.TARGETS[base.target], base.with_(engine=engine), batch,
                                             serving.verify_tokens(base), context, "verify")
                      for engine in ("vllm-v0", "vllm-v1"))  # the verify step by operator, with and without
    total = sum(expanded.values()) - sum(once.values())
    kv = expanded["attention"] - once["attention"]
    return {"total": _f(total, 1), "kv": _f(kv, 1), "batch": batch, "context": f"{context:,}", "k": base.lookahead,
            "gpu": serving.GPUS[base.gpu].label}


def _bracket_ratio_range() -> dict:
    """The smallest and largest model crossover over measured first loss (:func:`_bracket_ratios`),
    as the page writes them (one decimal); empty strings when no central crossover exists."""
    ratios = _bracket_ratios()
    return {"low": _f(min(ratios), 1), "high": _f(max(ratios), 1)} if ratios else {"low": "", "high": ""}


def _smallest_batch(row: dict) -> dict | None:
    """A bracket's first quoted batch, its measured speedup and the model's (two decimals), or None."""
    from .. import serving_validation
    found = serving_validation.smallest_batch_speedups(serving_validation.CrossoverBracket(
        **{key: row[key] for key in serving_validation.CrossoverBracket._fields}))
    return None if found is None else {"batch": found["batch"], "measured": _f(found["measured"], 2),
                                       "model": _f(found["model"], 2)}


def _bracket_context() -> list[dict]:
    """The published batch sweeps' first losses beside the model's crossovers (the article's text),
    computed by the build from lab.serving_validation.crossover_comparison."""
    return [{"label": row["label"], "low": row["low"], "high": row["high"], "lookahead": row["lookahead"],
             "context": row["context"], "fits": row["fits"], "gpu": serving.GPUS[row["gpu"]].label,
             "engine": serving.ENGINES[row["engine"]].label,
             "inside": any(row["inside"]), "gpuBasis": row["gpuBasis"], "smallest": _smallest_batch(row),
             "runs": [{"length": _f(length), "crossover": "none" if found is None else str(found)}
                      for length, found in zip(row["acceptanceLengths"], row["crossovers"])]}
            for row in _bracket_rows()]
