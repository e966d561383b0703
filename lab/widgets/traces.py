"""The traces widget (Part two): a preset, pasted text or a local file in; the detected format,
the per-position curve, the translator table and a hand-off to the ledger out.

Text and files never leave the page: the text travels with the form values to this module in
the page's own worker, and a file arrives in slices through :data:`OPERATIONS` (``chunk``), each
fed to a streaming :class:`lab.traces.TraceParser`, so only the running counts are kept.
"""

import json

from .. import acceptance, traces
from ..figures import svg, text_width, escape, fit_width, line_path, plural, split_width
from ..jsformat import to_fixed, to_js_string
from ..acceptance import FAMILY_MARK, best_lookahead_from_curve, rates_token, token_method
from ..ledger import LedgerSettings, ledger, ledger_from_curve
from ..urlstate import Choice, OptionalInteger, Text, panel_figure_from_link, read_controls
from . import ledger_lookahead

__all__ = ["view", "page_context", "curve_svg", "translator_html", "positions_html", "spec_bench_html",
           "send_html", "policies_curve_token", "POLICIES_MAX_RATE", "OPERATIONS", "SLIDERS", "CONTROLS"]

SLIDERS = ()  # no range sliders: a select, a textarea, a number box and a file input
PRESET_KEY, FORMAT_KEY, LOOKAHEAD_KEY, TEXT_KEY = "trcPreset", "trcFormat", "trcLookahead", "trcText"
MODEL_KEY = "trcModel"   # the model, implementation or run to read when the reader's input holds several
MAX_TEXT = 5_000_000      # characters of pasted text; a bigger trace goes through the file input
MAX_FILE_BYTES = 50 * 1024 * 1024
LEDGER_DEFAULTS = LedgerSettings()


def _count(value) -> str:
    """A count with thousands separators, as the page prints every number ("3,162"); anything not
    whole as it came.

    >>> _count(3162), _count(3162.0), _count(2.5)
    ('3,162', '3,162', '2.5')
    """
    return f"{int(value):,}" if float(value).is_integer() else to_js_string(value)


def _f(value, digits=2) -> str:
    return "n/a" if value is None else to_fixed(value, digits)


def _pct(value, digits=1) -> str:
    return "n/a" if value is None else to_fixed(100 * value, digits) + "%"


# --- input -------------------------------------------------------------------------------------

PRESET = Choice(PRESET_KEY, PRESET_KEY, "Public trace", {name: p["label"] for name, p in traces.PRESETS.items()},
                traces.DEFAULT_PRESET)
FORMAT = Choice(FORMAT_KEY, FORMAT_KEY, "Format", {"auto": "detect it", **traces.FORMAT_NAMES}, "auto")
LOOKAHEAD = OptionalInteger(LOOKAHEAD_KEY, LOOKAHEAD_KEY, "Lookahead k", 1, traces.MAX_LOOKAHEAD,
                            "reading it from the trace")
TEXT = Text(TEXT_KEY, "Pasted trace")          # a refusal past MAX_TEXT is the view's, not a cut
MODEL = Text(MODEL_KEY, "Model", max_length=200, strip=True)
# The address carries the preset, the format and the lookahead; the text and its model come
# from the form only (a Text is not linkable).
CONTROLS = (PRESET, FORMAT, LOOKAHEAD, TEXT, MODEL)


def _settings(raw) -> tuple[dict, list[str]]:
    """Valid control values and notes for anything that had to change (never raises): the
    controls above read by :func:`lab.urlstate.read_controls`."""
    values, notes = read_controls(raw, CONTROLS)
    linked = "" if values[TEXT_KEY].strip() else panel_figure_from_link(raw)  # the panel's figure, sent (N4-20)
    return {"preset": values[PRESET_KEY], "format": values[FORMAT_KEY], "lookahead": values[LOOKAHEAD_KEY],
            "text": linked or values[TEXT_KEY], "model": values[MODEL_KEY], "linked": bool(linked)}, notes


def _query(settings: dict) -> str:
    query = f"{PRESET_KEY}={settings['preset']}&{FORMAT_KEY}={settings['format']}"
    if settings["lookahead"] is not None:
        query += f"&{LOOKAHEAD_KEY}={settings['lookahead']}"
    return query


def _shown(settings: dict) -> dict:
    """Control name -> display value. The textarea and the model box are never in here: the page
    must not overwrite what the reader typed."""
    return {PRESET_KEY: settings["preset"], FORMAT_KEY: settings["format"],
            LOOKAHEAD_KEY: "" if settings["lookahead"] is None else str(settings["lookahead"])}


# --- figures -----------------------------------------------------------------------------------

def curve_svg(analysis: dict, width: int = 640) -> str:
    """Per-position survival, drawn for ``width`` CSS pixels: measured unconditional rates
    (``k-accepted`` circles: the first i drafts were all kept) and conditional rates
    (``k-conditional`` squares) with Wilson 95% intervals, and the independent model fitted to
    the same mean in neutral ink (dashed: alpha^i; dotted: the flat alpha it assumes at every
    position). Each measured mark carries ``data-tip`` for the page's hover and tap readout."""
    width = fit_width(width)
    k = analysis["lookahead"]
    alpha = analysis["alphaIid"]
    narrow = width < 480
    height, left, right, top, bottom = (250 if narrow else 270), 54, 14, 14, 50
    plot_w, plot_h = width - left - right, height - top - bottom
    step = plot_w / k

    def x(i, shift=0.0):
        return left + (i - 0.5) * step + shift

    def y(value):
        return top + (1 - value) * plot_h

    body = _curve_axes(k, x, y, (left, right, width, plot_w, step), (top, plot_h, height))
    iid_unconditional = [alpha ** i for i in range(1, k + 1)]
    body.append('<path class="trc-model trc-line" fill="none" stroke-width="2" stroke-dasharray="6 4" d="'
                + line_path((x(i), y(v)) for i, v in enumerate(iid_unconditional, 1)) + '"/>')
    body.append(f'<line class="trc-model trc-line" stroke-width="2" stroke-dasharray="2 4" x1="{x(1) - step * 0.4:.1f}" '
                f'x2="{x(k) + step * 0.4:.1f}" y1="{y(alpha):.1f}" y2="{y(alpha):.1f}"/>')
    if analysis["perPosition"] is not None:
        body += _measured_marks(analysis, x, y, step)
        label = (f"Per-position survival for k = {k}. Measured unconditional rates "
                 + ", ".join(to_fixed(r, 2) for r in analysis["perPosition"])
                 + "; measured conditional rates "
                 + ", ".join("n/a" if r is None else to_fixed(r, 2) for r in analysis["conditional"])
                 + f"; the independent model with alpha {to_fixed(alpha, 3)} predicts "
                 + ", ".join(to_fixed(v, 2) for v in iid_unconditional) + ".")
    else:
        body += _no_counts_note(left, top, plot_w)
        label = (f"No per-position counts. The independent model with alpha {to_fixed(alpha, 3)} fitted to the mean "
                 f"acceptance length predicts " + ", ".join(to_fixed(v, 2) for v in iid_unconditional) + ".")
    return svg(width, height, label, body, "trc-curve")


def _no_counts_note(left: float, top: float, plot_w: float) -> list:
    """The chart's note where the format gives no per-position counts, on one line or two as the width allows."""
    options = (("no per-position counts in this format: only the independent model can be drawn",),
               ("no per-position counts in this format:", "only the independent model can be drawn"),
               ("no per-position counts here:", "independent model only"))
    lines = next((o for o in options if all(text_width(t, 13) <= plot_w - 8 for t in o)), options[-1])
    return [f'<text class="fig-axis" x="{left + plot_w / 2:.1f}" y="{top + 18 + 17 * line_number}" '
            f'text-anchor="middle">{escape(text)}</text>' for line_number, text in enumerate(lines)]


def _curve_axes(k: int, x, y, across: tuple, down: tuple) -> list:
    """The survival chart's axes: the value grid (0 to 1 by quarters), the positions' labels (every one while they
    fit, else every 2nd, 4th, ...) and both axis titles. ``across`` is (left, right, width, plot width, step),
    ``down`` (top, plot height, height)."""
    (left, right, width, plot_w, step), (top, plot_h, height) = across, down
    body = []
    for tick in (0, 0.25, 0.5, 0.75, 1):
        # the zero line is the axis (--muted ink); the others are guides for reading values, in the
        # lighter grid ink that still clears 3:1 (docs/PALETTE.md, "Gridlines"). Crisp edges (widgets.css, for
        # every figure's <line>): a line on a whole pixel is one pixel of its colour, not two rows of half of it.
        kind = "fig-axisline" if tick == 0 else "fig-grid"
        body.append(f'<line class="{kind}" x1="{left}" x2="{width - right}" '
                    f'y1="{y(tick):.1f}" y2="{y(tick):.1f}"/>')
        body.append(f'<text class="fig-tick" x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{to_fixed(tick, 2)}</text>')
    # label every position while the numbers fit, else every 2nd, 4th, ...: never touching
    label_every = next(n for n in (1, 2, 4, 5, 8, 10, 16, 32, 64) if step * n >= text_width(str(k)) + 10)
    for i in range(1, k + 1):
        if (i - 1) % label_every == 0:
            body.append(f'<text class="fig-tick" x="{x(i):.1f}" y="{top + plot_h + 18}" text-anchor="middle">{i}</text>')
    title = f"draft position i (k = {k})"
    if text_width(title, 13) > plot_w:
        title = f"position i (k = {k})"
    body.append(f'<text class="fig-axis" x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">'
                f'{escape(title)}</text>')
    body.append(f'<text class="fig-axis" transform="rotate(-90)" x="{-(top + plot_h / 2):.1f}" y="16" '
                f'text-anchor="middle">chance of surviving</text>')
    return body


def _measured_marks(analysis: dict, x, y, step: float) -> list:
    """The measured rates, unconditional (circles, a little left of each position) and conditional (squares, a
    little right), each series a line, each mark with its Wilson 95% interval and a ``data-tip``."""
    shift = min(6.0, step / 6)
    series = (("accepted", analysis["perPosition"], analysis["perPositionIntervals"], -shift, "unconditional"),
              ("conditional", analysis["conditional"], analysis["conditionalIntervals"], shift, "conditional"))
    marks = max(2.5, min(5.0, step / 5))
    body = []
    for kind, rates, intervals, dx, name in series:
        points = [(i, r) for i, r in enumerate(rates, 1) if r is not None]
        body.append(f'<path class="k-{kind} trc-line" fill="none" stroke-width="2" d="'
                    + line_path((x(i, dx), y(r)) for i, r in points) + '"/>')
        for i, r in points:
            low, high = intervals[i - 1]
            tip = escape(f"position {i}, {name}: {to_fixed(r, 3)} (95% interval {to_fixed(low, 3)} to "
                         f"{to_fixed(high, 3)})")
            body.append(f'<line class="k-{kind} trc-line" stroke-width="1.5" x1="{x(i, dx):.1f}" x2="{x(i, dx):.1f}" '
                        f'y1="{y(low):.1f}" y2="{y(high):.1f}"/>')
            if kind == "accepted":
                body.append(f'<circle class="k-{kind}" cx="{x(i, dx):.1f}" cy="{y(r):.1f}" r="{marks:.1f}" '
                            f'data-tip="{tip}"><title>{tip}</title></circle>')
            else:
                body.append(f'<rect class="k-{kind}" x="{x(i, dx) - marks:.1f}" y="{y(r) - marks:.1f}" '
                            f'width="{2 * marks:.1f}" height="{2 * marks:.1f}" data-tip="{tip}"><title>{tip}</title></rect>')
    return body


BEST_K_MAX = 12  # the best lookahead is searched over k = 1..12, the ledger's lookahead slider


def extended_curve(analysis: dict, lookahead: int) -> tuple[list[float], int | None]:
    """The trace's conditional curve at positions 1..``lookahead`` and the last measured position
    when ``lookahead`` reaches past it (else None). Up to the measured k the rates are the trace's
    (:func:`lab.traces.measured_curve`); past it they continue as lab.acceptance continues a measured
    curve (:func:`lab.acceptance.from_conditional`: the fall fitted on the trace's own rates when it
    has three or more, else the library prior's: the family's when the log names its drafter,
    ``analysis["method"]``), not the last rate repeated. A trace without
    per-position counts is one figure at its k: :func:`lab.acceptance.from_single` fits the
    library's shape to its mean acceptance length there.

    >>> rates, since = extended_curve(traces.analyse(traces.cycles_to_trace({0: 4, 1: 3, 2: 2, 3: 1}, 3)), 5)
    >>> [round(r, 4) for r in rates[:3]], since, rates[4] < rates[3] < rates[2]
    ([0.6, 0.5, 0.3333], 3, True)
    """
    k, method = analysis["lookahead"], analysis.get("method")  # the drafter the log names, if it names one
    if analysis["conditional"] is None:
        curve = acceptance.from_single(analysis["meanAcceptanceLength"], k, method)
    else:
        curve = acceptance.from_conditional(traces.measured_curve(analysis), method)
    return curve.rates(lookahead), curve.extrapolated_from(lookahead)


def _ledger_speedups(analysis: dict) -> dict:
    k = analysis["lookahead"]
    settings = LEDGER_DEFAULTS.with_(lookahead=k)
    rate = analysis["acceptanceRate"]
    curve = traces.measured_curve(analysis)
    extended, _ = extended_curve(analysis, max(k, BEST_K_MAX))
    return {
        "naive": ledger(settings.with_(acceptance=100 * rate)).speedup if rate is not None else None,
        "iid": ledger(settings.with_(acceptance=100 * analysis["alphaIid"])).speedup,
        "curve": ledger_from_curve(settings, curve).speedup,
        "best": best_lookahead_from_curve(LEDGER_DEFAULTS, extended, BEST_K_MAX),
        "bestIid": best_lookahead_from_curve(LEDGER_DEFAULTS, [analysis["alphaIid"]], 12),
    }


def translator_html(analysis: dict) -> str:
    """The same trace in every engine's units, and what the ledger predicts from each reading."""
    k = analysis["lookahead"]
    rate, mean_length, alpha = analysis["acceptanceRate"], analysis["meanAcceptanceLength"], analysis["alphaIid"]
    speed = _ledger_speedups(analysis)
    rows = [
        ("per-token acceptance alpha (independent model)", _f(alpha, 3), "the ledger's acceptance slider / 100"),
        ("acceptance rate = accepted / drafted tokens", _pct(rate), "vLLM 'Avg Draft acceptance rate'; llama.cpp "
         "'draft acceptance' ('draft acceptance rate' before its pull request 24536), as a fraction"),
        ("mean acceptance length = 1 + accepted / calls", _f(mean_length, 2), "vLLM 'Mean acceptance length'; SGLang "
         "'accept len'; llama.cpp 'mean acceptance length'; TensorRT-LLM acceptanceLength"),
        ("SGLang 'accept rate', newer versions = (accept len - 1) / k", _f((mean_length - 1) / k, 2),
         "the engines' acceptance rate, as a fraction"),
        ("SGLang 'accept rate', older versions = accept len / (k + 1)", _f(mean_length / (k + 1), 2),
         "counts the verifier's own token among k + 1 per call"),
    ]
    body = "".join(f'<tr><th scope="row">{escape(a)}</th><td>{escape(b)}</td><td>{escape(c)}</td></tr>' for a, b, c in rows)
    (best_k, best), (iid_k, iid_best) = speed["best"], speed["bestIid"]
    predictions = [
        (f"the engine's rate, {_pct(rate, 0)}, typed into the slider (wrong)", f"{_f(speed['naive'])}x"
         if speed["naive"] is not None else None),
        (f"alpha = {_pct(alpha, 0)} (the same mean at k = {k})", f"{_f(speed['iid'])}x"),
        (f"the measured curve at k = {k}", f"{_f(speed['curve'])}x"),
        ("best lookahead, one alpha", f"k = {iid_k}: {_f(iid_best)}x"),
        ("best lookahead, measured curve" + (f" (extrapolated past the measured k = {k} by the curve's fitted fall)"
                                             if best_k > k else ""),
         f"k = {best_k}: {_f(best)}x"),
    ]
    prediction_rows = "".join(f'<tr><th scope="row">{escape(a)}</th><td>{escape(v)}</td></tr>'
                              for a, v in predictions if v is not None)
    return (f'<p class="trc-source">These conversions assume full-length chain drafts of k tokens; n-gram and '
            f'suffix drafts, adaptive lookahead, llama.cpp\'s early stop and trees break them (see the text '
            f'above).</p>'
            f'<table class="trc-table"><caption>This trace in each engine\'s units (k&nbsp;=&nbsp;{k})</caption>'
            f'<thead><tr><th scope="col">quantity</th><th scope="col">value</th><th scope="col">where you see it</th>'
            f'</tr></thead><tbody>{body}</tbody></table>'
            f'<table class="trc-table"><caption>What the ledger predicts at lookahead {k} (its default costs)</caption>'
            f'<thead><tr><th scope="col">fed with</th><th scope="col">speedup</th></tr></thead>'
            f'<tbody>{prediction_rows}</tbody></table>')


def positions_html(analysis: dict) -> str:
    """The curve as a table: counts, rates and intervals per position."""
    if analysis["perPosition"] is None:
        return '<p class="trc-missing">This format has no per-position counts.</p>'
    rows = []
    drafts = analysis["drafts"]
    alpha = analysis["alphaIid"]
    for i, (u, ui, c, ci) in enumerate(zip(analysis["perPosition"], analysis["perPositionIntervals"],
                                           analysis["conditional"], analysis["conditionalIntervals"]), 1):
        cond = "n/a" if c is None else f"{to_fixed(c, 3)} ({to_fixed(ci[0], 3)} to {to_fixed(ci[1], 3)})"
        rows.append(f'<tr><th scope="row">{i}</th><td>{to_fixed(u * drafts, 0)}</td>'
                    f'<td>{to_fixed(u, 3)} ({to_fixed(ui[0], 3)} to {to_fixed(ui[1], 3)})</td><td>{escape(cond)}</td>'
                    f'<td>{to_fixed(alpha ** i, 3)}</td></tr>')
    return ('<table class="trc-table"><caption>Per position: calls whose first i drafts all survived, the rates with '
            'Wilson 95% intervals, and the independent model</caption><thead><tr><th scope="col">i</th>'
            '<th scope="col">calls</th><th scope="col">unconditional</th><th scope="col">conditional</th>'
            f'<th scope="col">independent model, <span class="sym">\u03b1<sup>i</sup></span></th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def spec_bench_html() -> str:
    """Spec-Bench's method comparison (mean accepted tokens per step, overall speedup)."""
    rows = "".join(f'<tr><th scope="row">{escape(name)}</th><td>{to_fixed(length, 2)}</td><td>{to_fixed(speedup, 2)}x</td>'
                   f'<td>{to_fixed(speedup / length, 2)}</td></tr>' for name, length, speedup in traces.SPEC_BENCH)
    return ('<table class="trc-table"><caption>Spec-Bench, Vicuna-7B on one A100, greedy: mean accepted tokens per '
            'step and overall speedup</caption><thead><tr><th scope="col">method</th><th scope="col">tokens per step'
            '</th><th scope="col">speedup</th><th scope="col">speedup / tokens</th></tr></thead>'
            f'<tbody>{rows}</tbody></table>')


POLICIES_MAX_RATE = 0.99  # the highest conditional rate sent to the lookahead policies (see policies_curve_token)


def policies_curve_token(token: str, curve) -> tuple[str, list[str]]:
    """The ``polCurve`` token for the lookahead policies, and which measured rates were lowered.
    Their heuristic schedule has a stationary law only when every position can reject a draft
    (``lab.policies.heuristic_truncation`` refuses a rate of 1), and a measured rate of 1.000 is
    common on short logs (every surviving draft kept at a position). Such a rate is sent as
    :data:`POLICIES_MAX_RATE` (0.99: the heuristic's truncated chain still converges there, and
    it already gave NaN at 0.999 on a flat curve; a 1.000 read from a short log has a Wilson
    interval reaching well below 0.99 anyway); ``token`` is kept when no rate exceeds it.

    >>> policies_curve_token("custom:0.8000,1.0000", [0.8, 1.0])
    ('custom:0.8000,0.9900', ['position 2 (1.000)'])
    >>> policies_curve_token("custom:0.8000,1.0000~ngram", [0.8, 1.0])[0]   # the drafter family stays
    'custom:0.8000,0.9900~ngram'
    >>> policies_curve_token("club3090-mtp", [0.74, 0.64])
    ('club3090-mtp', [])
    """
    clamped = [f"position {i} ({to_fixed(rate, 3)})" for i, rate in enumerate(curve, 1) if rate > POLICIES_MAX_RATE]
    if not clamped:
        return token, []
    return rates_token([min(rate, POLICIES_MAX_RATE) for rate in curve], token_method(token)), clamped


def send_html(analysis: dict, preset: str | None) -> str:
    """Buttons that hand the measured curve (or one alpha) to the other widgets: plain markup that
    the page's generic ``data-action="send"`` handler reads. The curve travels as one token (a
    preset name, or ``custom:a1,a2,...`` for the reader's own data, ``~family`` after either when the log or the
    preset's method names its drafter: :func:`lab.acceptance_text.rates_token`, :func:`lab.traces.preset_family`) that
    :func:`lab.traces.ledger_curve` turns back into the curve: the ledger's ``trcCurve``, the
    serving model's ``srvCurve`` and the lookahead policies' ``polCurve``; the deployment panel gets the
    alpha, in its own unit. Shipped disabled like every
    control (with JavaScript off they could do nothing); the page enables them."""
    curve = traces.measured_curve(analysis)
    if preset is not None:  # the preset's family (lab.traces.preset_trace) continues it past k, as a log's does
        curve_value, linkable = preset + ("" if analysis.get("method") is None else FAMILY_MARK + analysis["method"]), True
    else:
        curve_value = rates_token(curve, analysis.get("method"))  # the family continues it past k
        linkable = False
    policies_value, clamped = policies_curve_token(curve_value, curve)
    acceptance = to_fixed(100 * analysis["alphaIid"], 0)
    lookahead = ledger_lookahead(analysis["lookahead"])
    buttons = (
        ("ledger", {"trcCurve": curve_value, "lookahead": lookahead}, "Send the measured curve to the ledger"),
        ("ledger", {"trcCurve": "", "acceptance": acceptance, "lookahead": lookahead},
         f"Send alpha = {acceptance}% to the ledger"),
        ("serving", {"srvCurve": curve_value}, "Use this curve in the serving model"),
        ("policies", {"polCurve": policies_value}, "Use this curve in the lookahead policies"),
        # the deployment panel takes the alpha (one number, in its own unit) and answers for the reader's hardware
        ("deployment", {"unit": "alpha", "value": to_fixed(100 * analysis["alphaIid"], 2),
                        "measuredK": str(analysis["lookahead"])}, f"Use alpha = {acceptance}% in your deployment"),
    )
    note = ("" if linkable else
            '<span class="trc-send-note">A curve from your own data works in the other widgets but cannot be put '
            'in a link.</span>')
    if clamped:
        note += (f'<span class="trc-send-note">The lookahead policies get {", ".join(clamped)} as '
                 f'{to_fixed(POLICIES_MAX_RATE, 3)}: their adaptive schedules need a chance of rejection at every '
                 f'position (a rate of 1 means a draft there is never refused).</span>')
    return ("".join(f'<button type="button" data-action="send" data-target="{target}" disabled '
                    f'data-values="{escape(json.dumps(values))}">{escape(text)}</button>'
                    for target, values, text in buttons)
            + f'<a href="#ledger-lab">Go to the ledger</a>{note}')


# --- the view ----------------------------------------------------------------------------------

def _for_page(error) -> str:
    """A model error in the page's words (the CLI's flags are the page's boxes)."""
    return (str(error).replace("give it with --lookahead K",
                               "give it in 'Lookahead k' under More settings, below the paste box")
            .replace("choose one with --model NAME", "choose one in the model box"))


def _summary(analysis: dict, source: str, best: tuple | None = None) -> str:
    k, mean_length, rate = analysis["lookahead"], analysis["meanAcceptanceLength"], analysis["acceptanceRate"]
    counts = ""
    if analysis["drafts"] is not None:
        drafts = analysis["drafts"]
        drafts_text = _count(drafts) if float(drafts).is_integer() else "about " + to_fixed(drafts, 1)
        counts = (f"{drafts_text} verifier calls, {_count(analysis['draftTokens'])} draft tokens and "
                  f"{_count(analysis['acceptedTokens'])} accepted: ")
    model = f", {analysis['model']}" if analysis.get("model") else ""
    if analysis.get("callsBound"):
        counts = (f"at least {to_fixed(analysis['drafts'], 1)} verifier calls (a lower bound: drafts can stop "
                  f"short of k), {_count(analysis['draftTokens'])} draft tokens and {_count(analysis['acceptedTokens'])} accepted: ")
    at_most = "at most " if analysis.get("callsBound") else ""
    text = (f"{source}: read as {analysis['formatName']}{model}, lookahead k = {k}. {counts}mean acceptance length "
            f"{at_most}{_f(mean_length)} and acceptance rate {_pct(rate)}. The ledger needs alpha = {at_most}"
            f"{_f(analysis['alphaIid'], 3)}, not {_f(rate, 2)}.")
    if analysis["alphaMle"] is not None:
        text += f" The maximum-likelihood alpha of the independent model is {_f(analysis['alphaMle'], 3)}."
    independence = analysis["independence"]
    if independence is not None:
        p = independence["pValue"]
        p_text = "below 0.0001" if p < 1e-4 else to_fixed(p, 4)
        text += (f" Test of one constant conditional rate (likelihood ratio): G = {_f(independence['statistic'])} on "
                 f"{independence['df']} degrees of freedom, p {'' if p < 1e-4 else '= '}{p_text}; "
                 f"{independence['verdict']}.")
    if best is not None:
        best_k, best_speedup = best
        text += (f" Best lookahead on the measured curve at Part one's default costs: k = {best_k} "
                 f"({_f(best_speedup)}x in the ledger)")
        text += (f", past the measured k = {k}: it rests on positions extrapolated by the curve's fitted fall, not "
                 f"measured." if best_k > k else ".")
        text += " Send the curve to your deployment for your hardware's costs."
    if analysis["notes"]:
        text += " How it was read: " + "; ".join(analysis["notes"]) + "."
    return text


def _lead(analysis: dict, source: str, best: tuple | None = None) -> str:
    """The answer: the per-token acceptance the ledger needs, whether one such rate describes the
    trace, and (``best`` = (k, speedup) from the measured curve) the best lookahead at Part one's
    default costs."""
    at_most = "at most " if analysis.get("callsBound") else ""
    whose = "Your" if source.startswith("Your") else "This trace's"
    text = (f"{whose} drafts survive at alpha = {at_most}{_f(analysis['alphaIid'], 3)} a token (mean acceptance length "
            f"{at_most}{_f(analysis['meanAcceptanceLength'])} at k = {analysis['lookahead']})")
    independence = analysis["independence"]
    if independence is not None and independence["df"] > 0:
        if independence["pValue"] < 0.01:
            trend = "rises" if " rises " in independence["verdict"] else "falls"  # as lab.traces' verdict found
            text += f", but survival {trend} with position, unlike one alpha"
        elif independence["pValue"] >= 0.05:
            text += ", and one constant rate fits its counts"
    if best is not None:  # the question readers bring: which k (N4-5); the working says where it comes from
        best_k = best[0]
        text += f"; at Part one's costs its best k is {best_k}"
        if best_k > analysis["lookahead"]:
            text += ", extrapolated"
    return text + "."


def _live(analysis: dict, speed: dict) -> str:
    """The one sentence a screen reader hears after a change (under a dozen words)."""
    return (f"k = {analysis['lookahead']}: alpha {_f(analysis['alphaIid'], 3)}; "
            f"measured curve {_f(speed['curve'])}x in the ledger")


def _render(analysis: dict, settings: dict, notes: list[str], source: str, preset: str | None,
            width: int) -> dict:
    speed = _ledger_speedups(analysis)
    independence = analysis["independence"]
    low, high = ("\u2265 ", "\u2264 ") if analysis.get("callsBound") else ("", "")
    readouts = {
        "format": analysis["format"] + (f" ({analysis['model']})" if analysis.get("model") else ""),
        "lookahead": str(analysis["lookahead"]),
        "drafts": "n/a" if analysis["drafts"] is None else
        low + _f(analysis["drafts"], 0 if float(analysis["drafts"]).is_integer() else 1),
        "acceptedTokens": "n/a" if analysis["acceptedTokens"] is None else str(analysis["acceptedTokens"]),
        "meanAcceptanceLength": high + _f(analysis["meanAcceptanceLength"]),
        "acceptanceRate": _pct(analysis["acceptanceRate"]),
        "alphaIid": high + _f(analysis["alphaIid"], 3), "alphaMle": _f(analysis["alphaMle"], 3),
        "pValue": "n/a" if independence is None else ("< 0.0001" if independence["pValue"] < 1e-4
                                                      else to_fixed(independence["pValue"], 4)),
        "speedup": high + _f(speed["curve"]) + "x",
    }
    return {
        "params": {"preset": settings["preset"], "format": settings["format"], "lookahead": settings["lookahead"]},
        "shown": _shown(settings),
        "notes": notes,
        "query": _query(settings),
        "lead": _lead(analysis, source, speed["best"]),
        "summary": _summary(analysis, source, speed["best"]),
        "live": _live(analysis, speed),
        "width": width,
        "readouts": readouts,
        "analysis": {key: analysis[key] for key in ("format", "lookahead", "drafts", "draftTokens", "acceptedTokens",
                                                    "meanAcceptanceLength", "acceptanceRate", "alphaIid", "alphaMle")},
        "figures": {
            "curve": curve_svg(analysis, width),
            "translator": translator_html(analysis),
            "positions": positions_html(analysis),
            "send": send_html(analysis, preset),
            "missing": "".join(f"<p>{escape(line)}</p>" for line in analysis["missing"]),
            "bounds": bounds_html(analysis),
            "models": models_html(()),
        },
    }


def bounds_html(analysis: dict) -> str:
    """The caveats that change how the readouts above read: a lower bound on the calls (and so
    upper bounds on the mean acceptance length, alpha and the speedup), short drafts, the model
    read. Empty when there is none."""
    items = []
    if analysis.get("callsBound"):
        items.append("Lower bound: the engine counts tokens, not verifier calls, and its drafts can stop short of "
                     "k, so the calls shown are the fewest possible; " + "; ".join(analysis["bounds"][1:]) + ".")
    items += [note[0].upper() + note[1:] + "." for note in analysis["notes"]
              if note.startswith(("short drafts", "no num_drafts", "drafts averaged"))]
    if analysis.get("model"):
        items.append(f"Read: {analysis['model']} (the input holds several; choose another in the model box).")
    return "".join(f'<p class="trc-bound">{escape(item)}</p>' for item in items)


def models_html(models) -> str:
    """The choices for the model box: one option per model (or implementation, or run) found."""
    return ('<datalist id="traces-models">' + "".join(f'<option value="{escape(str(m)[:200])}"></option>'
                                                      for m in list(models)[:100]) + "</datalist>")


def _refused(settings: dict, notes: list[str], width: int, reason: str, models=()) -> dict:
    """What the widget shows when the reader's own text or file is refused: the reason and nothing
    else, so no preset's numbers sit under a refusal."""
    width = fit_width(width)
    label = "Nothing was read: the reason is in the note above."
    placeholder = svg(width, 120, label, [f'<text class="fig-axis" x="{width / 2:.1f}" y="60" text-anchor="middle">'
                                           f'{escape("nothing read: see the note above")}</text>'], "trc-curve")
    empty = '<p class="trc-missing">Nothing was read.</p>'
    readouts = {name: "n/a" for name in ("format", "lookahead", "drafts", "acceptedTokens", "meanAcceptanceLength",
                                         "acceptanceRate", "alphaIid", "alphaMle", "pValue", "speedup")}
    choice = (f" It holds several: {', '.join(traces.shortened(str(m)) for m in list(models)[:8])}; type one in the model box."
              if models else "")
    return {
        "params": {"preset": settings["preset"], "format": settings["format"], "lookahead": settings["lookahead"]},
        "shown": _shown(settings), "notes": notes, "query": _query(settings),
        "lead": "Your input was not read; the note below the settings says why and what can be read.",
        "summary": f"Your input was not read: {reason}.{choice}",
        "live": "your input was not read", "width": width, "readouts": readouts, "analysis": None,
        "figures": {"curve": placeholder, "translator": empty, "positions": empty, "send": "", "missing": "",
                    "bounds": "", "models": models_html(models)},
    }


def _preset_view(settings: dict, notes: list[str], width: int, prefix: str = "") -> dict:
    preset = traces.PRESETS[settings["preset"]]
    analysis = traces.analyse(traces.preset_trace(settings["preset"]))
    source = f"{prefix}Preset: {preset['title']}"
    return _render(analysis, settings, notes, source, settings["preset"], width)


def view(raw=None) -> dict:
    """The widget for a URL query or form values (``trcPreset``, ``trcFormat``, ``trcLookahead``,
    ``trcModel``, ``trcText``; ``width``, the figure panel's width, is presentation only). Pasted
    text wins over the preset; text that cannot be read gives a refusal naming why (and, when it
    holds several models, the models to choose from), with no preset numbers under it. A bug is
    not caught here: :func:`lab.views.handle` reports any widget's as that widget's error."""
    raw, width = split_width(raw)
    settings, notes = _settings(raw)
    text = settings["text"]
    if not text.strip():
        return _preset_view(settings, notes, width)
    if len(text) > MAX_TEXT:
        reason = (f"the pasted text is {len(text)} characters; at most {MAX_TEXT} are read from the box (use the file "
                  f"input for a bigger trace)")
        notes.append(reason[0].upper() + reason[1:] + ".")
        return _refused(settings, notes, width, reason)
    try:
        analysis = traces.analyse(traces.parse(text, settings["format"], settings["lookahead"],
                                               settings["model"] or None))
    except traces.ModelChoiceError as error:
        notes.append(f"Your text holds several: {_for_page(error)}.")
        return _refused(settings, notes, width, _for_page(error), error.models)
    except traces.TraceError as error:
        notes.append(f"Your text could not be read: {_for_page(error)}. It stays in the box; clear it to see the "
                     f"public traces again.")
        return _refused(settings, notes, width, _for_page(error))
    if not settings["linked"]:
        notes.append("Pasted data stays in this page and cannot be put in a link; clear the box to see the preset again.")
    view = _render(analysis, settings, notes, f"Your pasted text ({len(text)} characters)", None, width)
    return {**view, "shown": {**view["shown"], TEXT_KEY: text}} if settings["linked"] else view


# --- files in slices ---------------------------------------------------------------------------

_UPLOADS: dict[str, traces.TraceParser] = {}


def chunk(request: dict) -> dict:
    """One slice of a local file: ``{name, index, count, text, input}``. Slice 0 starts a new
    parse (with the form's format and lookahead); the last one returns the full view. A slice
    that cannot be read ends the parse with a note, like pasted text."""
    name = str(request.get("name", "file"))[:200]
    index, count = request.get("index"), request.get("count")
    text = request.get("text")
    if not (isinstance(index, int) and isinstance(count, int) and 0 <= index < count and isinstance(text, str)):
        return {"done": True, "progress": 1, "notes": ["A file slice arrived malformed; choose the file again."]}
    raw, width = split_width(request.get("input"))
    settings, notes = _settings(raw)
    try:
        if index == 0:
            _UPLOADS.clear()  # one file at a time: a new choice cancels the old one
            _UPLOADS[name] = traces.TraceParser(settings["format"], settings["lookahead"], settings["model"] or None)
        parser = _UPLOADS.get(name)
        if parser is None:
            return {"done": True, "progress": 1, "notes": ["The file's first slice is missing; choose the file again."]}
        parser.feed(text)
        if index < count - 1:
            return {"done": False, "progress": (index + 1) / count}
        del _UPLOADS[name]
        analysis = traces.analyse(parser.finish())
    except traces.TraceError as error:
        _UPLOADS.pop(name, None)
        notes.append(f"The file {traces.shortened(name)} could not be read: {_for_page(error)}.")
        models = error.models if isinstance(error, traces.ModelChoiceError) else ()
        return {"done": True, "progress": 1, **_refused(settings, notes, width, _for_page(error), models)}
    except BaseException:  # a bug: the half-read file is dropped, and lab.views.handle reports the error
        _UPLOADS.pop(name, None)
        raise
    notes.append(f"The file {traces.shortened(name)} was read in this page ({plural(count, 'slice')}) and was sent nowhere; it cannot be put in a link. "
                 f"To read it with another format or lookahead, change those first and choose it again.")
    size = parser.bytes
    source = f"Your file {traces.shortened(name)} ({to_fixed(size / 1e6, 1)} million characters)"
    return {"done": True, "progress": 1, **_render(analysis, settings, notes, source, None, width)}


OPERATIONS = {"chunk": chunk}


def page_context() -> dict:
    """What the build pre-renders: the default preset's view, the choices and the static tables."""
    return {
        "view": view(None),
        "sliders": [],
        "presets": [{"name": name, "title": preset["title"], "label": preset["label"]}
                    for name, preset in traces.PRESETS.items()],
        "presetNotes": [{"name": name, **preset} for name, preset in traces.PRESETS.items()],
        "formats": [{"name": name, "title": title} for name, title in traces.FORMAT_NAMES.items()],
        "specBench": spec_bench_html(),
        "specBenchSource": traces.SPEC_BENCH_SOURCE,
        "maxFileBytes": MAX_FILE_BYTES,
        "maxLookahead": traces.MAX_LOOKAHEAD,
        "example": _worked_example(),
    }


def _worked_example() -> dict:
    """The '44% is not 0.44' example at the article's defaults (alpha 0.74, lookahead 5)."""
    settings = LedgerSettings()
    translated = traces.translate(settings.lookahead, alpha=settings.acceptance / 100)
    shown_rate = translated["acceptanceRate"]
    wrong = ledger(settings.with_(acceptance=round(100 * shown_rate))).speedup
    right = ledger(settings).speedup
    return {"alpha": _f(settings.acceptance / 100, 2), "lookahead": settings.lookahead, "rate": _pct(shown_rate, 1),
            "ratePercent": to_fixed(100 * shown_rate, 0),
            "meanAcceptanceLength": _f(translated["meanAcceptanceLength"], 2),
            "wrongSpeedup": _f(wrong), "rightSpeedup": _f(right)}
