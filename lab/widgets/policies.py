"""The lookahead-policies widget (Part two): speedup bars per policy against the best static
lookahead, a seeded time strip of Hugging Face's heuristic through good and bad stretches, and
the numbers as a table. Every figure is a string of SVG or HTML drawn for its panel's width
(docs/PALETTE.md); every text goes through :func:`lab.figures.escape`; data colours are the
page's ``k-`` concepts (drafts, accepted drafts, and ``k-lull`` for a bad stretch).

Measured-curve mode: with ``polCurve`` (a traces preset name, or ``custom:a1,a2,...`` sent by the
traces widget) the policies run on that measured per-depth curve (:func:`lab.policies.depth_curve`)
instead of the acceptance and burstiness sliders, as the ledger's ``trcCurve`` mode does."""

import json
from functools import lru_cache

from ..figures import DEFAULT_WIDTH, svg, text_width, escape, fit_width, split_width
from ..jsformat import to_fixed, to_js_string
from ..urlstate import UNLINKABLE_CURVE_NOTE, Choice, Slider, format_query, read_controls, requested_curve
from .. import policies, policies_simulation

__all__ = ["SLIDERS", "view", "page_context", "bars_svg", "strip_svg", "table_html", "mode_html", "STRIP_CYCLES",
           "STRIP_SEED", "CURVE_KEY", "PROCESS_KEY", "PROCESSES"]

SLIDERS = (
    Slider("acceptance", "Per-token acceptance \u03b1 (mean)", 1, 99, 1, 74, "%", url_key="polAcceptance"),
    Slider("draftCost", "Draft pass cost", 0, 100, 1, 12, "% of target", url_key="polDraftCost"),
    Slider("burst", "Burstiness (0 = independent tokens)", 0, 95, 1, 80, "%", url_key="polBurst"),
    Slider("threshold", "Confidence threshold", 0, 100, 1, 40, "%", url_key="polThreshold"),
    Slider("lookahead", "Static lookahead k", 1, 20, 1, 5, "tokens", integer=True, url_key="polLookahead"),
    # the rest of the ledger's cycle (Part one's units); 0 by default: a draft pass is the only cost,
    # as in Leviathan et al. A deployment sent from the page's deployment panel sets all three.
    Slider("verifyTax", "Verify tax per extra token", 0, 50, 1, 0, "%", url_key="polVerifyTax"),
    Slider("overheadMs", "Overhead per cycle", 0, 200, 1, 0, "ms", url_key="polOverheadMs"),
    Slider("targetMs", "Target pass", 1, 500, 1, 80, "ms", url_key="polTargetMs"),
)
CURVE_KEY = "polCurve"  # measured-curve mode: a traces preset name or custom:a1,a2,...
PROCESS_KEY = "polProcess"  # the acceptance process (a select); the URL carries it when not the default
PROCESSES = {"bursty": "bursty (good, bad stretches)", "independent": "independent tokens",  # short: a phone
             "toy": "toy model (Part three)"}                                                   # shows them whole
DEFAULT_PROCESS = "bursty"
TOY_SETTING = (64, 72)  # part three's default target certainty and draft match (lab.urlstate.EXACT_SLIDERS)
STRIP_CYCLES = 72   # verifier calls in the time strip
STRIP_SEED = 9      # its random.Random seed
LABELS = {
    "static": "static k", "best-static": "best static", "heuristic": "HF heuristic (+2/\u22121)",
    "threshold": "confidence threshold", "oracle": "no-waste oracle", "state-aware": "best k per stretch",
}
SHORT_LABELS = {"heuristic": "HF heuristic", "threshold": "threshold", "oracle": "oracle",
                "state-aware": "k per stretch"}
CURVE_HIDDEN = ("state-aware",)  # a per-depth curve has no stretches: it equals the best static k
NARROW = 520  # below this figure width the bar labels sit above their bars


def _f(value, digits=2) -> str:
    return to_fixed(value, digits)


def _label(name: str, result: dict, lookahead: int, curve: bool = False, toy: bool = False) -> str:
    if name == "state-aware" and toy:
        return "k per position slot"
    if name == "static":
        return f"static k = {lookahead}"
    if name == "best-static":
        return f"best static (k = {result['k']})"
    if name == "threshold" and curve:
        return "confidence threshold (modelled)"
    return LABELS[name]


def _gain(speedup: float, best: float) -> str:
    """Signed percent against the best static speedup, e.g. ``+21.5%``."""
    change = (speedup / best - 1) * 100
    return ("+" if change >= 0.05 else "\u2212" if change <= -0.05 else "\u00b1") + _f(abs(change), 1) + "%"


def _shown(curve: bool) -> tuple[str, ...]:
    return tuple(n for n in policies.POLICY_NAMES if not (curve and n in CURVE_HIDDEN))


def bars_svg(results: dict, lookahead: int, width: int = DEFAULT_WIDTH, curve: bool = False, toy: bool = False) -> str:
    """One horizontal bar per policy (long-run speedup; the oracle, a bound, as an outline), a
    dashed line at the best static policy's speedup and a solid one at 1x (plain decoding).
    Wide: labels in a column left of the bars; narrow: each label above its bar."""
    width = fit_width(width)
    names = _shown(curve)
    best = results["best-static"]["speedup"]
    values = {n: f"{_f(results[n]['speedup'])}x" + ("" if n == "best-static" else f" ({_gain(results[n]['speedup'], best)})")
              for n in names}
    right = max(text_width(v) for v in values.values()) + 12
    narrow = width < NARROW
    if narrow:
        label_w, row, bar_h, top = 4, 42, 14, 38
    else:
        label_w = min(max(text_width(_label(n, results[n], lookahead, curve, toy)) for n in names) + 14, width * 0.42)
        row, bar_h, top = 30, 18, 26
    top_speed = max(results[n]["speedup"] for n in names)
    scale_max = max(1.0, top_speed) * 1.02
    span = width - label_w - right
    x_of = lambda s: label_w + span * s / scale_max
    title = "long-run speedup over plain decoding"
    body = [f'<text class="fig-axis" x="{4 if narrow else label_w:.1f}" y="15">'
            f'{title if text_width(title, 13) <= width - 8 else "speedup over plain decoding"}</text>']
    for index, name in enumerate(names):
        result = results[name]
        y = top + index * row
        w = max(1.0, x_of(result["speedup"]) - label_w)
        label = _label(name, result, lookahead, curve, toy)
        if narrow:
            body.append(f'<text class="fig-tick" x="{label_w}" y="{y - 5}">{escape(label)}</text>')
        else:
            if text_width(label) > label_w - 8:
                label = SHORT_LABELS.get(name, label)
            body.append(f'<text class="fig-tick" x="{label_w - 8:.1f}" y="{y + bar_h - 4}" text-anchor="end">'
                        f'{escape(label)}</text>')
        css = "pol-bound" if name == "oracle" else "pol-bar"
        inset = 1 if name == "oracle" else 0  # the outline's stroke sits inside the bar's box
        body.append(f'<rect class="{css}" x="{label_w + inset:.1f}" y="{y + inset}" width="{max(w - 2 * inset, 1):.2f}" '
                    f'height="{bar_h - 2 * inset}"><title>{escape(_label(name, result, lookahead, curve, toy))}: '
                    f'{escape(values[name])}</title></rect>')
        text_x = label_w + w + 6
        for line_x in sorted((x_of(1.0), x_of(best))):  # the value starts clear of a line it would cross
            if label_w + w - 1 <= line_x < text_x + text_width(values[name]):
                text_x = max(text_x, line_x + 6)
        body.append(f'<text class="fig-tick" x="{text_x:.2f}" y="{y + bar_h - 3}">{escape(values[name])}</text>')
    bottom = top + (len(names) - 1) * row + bar_h
    for value, css in ((1.0, "pol-one"), (best, "fig-baseline pol-best-line")):
        x = x_of(value)
        if narrow:  # one piece per bar, so that the lines never cross the labels above the bars
            pieces = "".join(f"M{x:.2f} {top + i * row - 3}v{bar_h + 6}" for i in range(len(names)))
            body.append(f'<path class="{css}" d="{pieces}"/>')
        else:
            body.append(f'<line class="{css}" x1="{x:.2f}" x2="{x:.2f}" y1="{top - 4}" y2="{bottom + 4}"/>')
    body.append(f'<text class="fig-small" x="{max(x_of(1.0), 10):.2f}" y="{bottom + 18}" text-anchor="middle">1x</text>')
    label = "Long-run speedup per policy: " + "; ".join(
        f"{_label(n, results[n], lookahead, curve, toy)} {_f(results[n]['speedup'])}x" for n in names) + "."
    return svg(width, bottom + 24, label, body, "pol-figure pol-bars")


def strip_svg(strip: list[dict], process, best_k: int, width: int = DEFAULT_WIDTH) -> str:
    """The heuristic's lookahead call by call: per call a bar as tall as the lookahead drafted,
    its accepted drafts at the bottom and the wasted ones above; a dashed line at the best static
    k; and, for bursty acceptance, a ribbon under the calls that began in a bad stretch."""
    width = fit_width(width)
    left, right, top, plot_h = 30, 8, 8, 120 if width >= NARROW else 100
    n = len(strip)
    column = (width - left - right) / n
    top_k = max(max(s["lookahead"] for s in strip), best_k, 6)
    y_of = lambda k: top + plot_h - plot_h * k / top_k
    body = [f'<line class="fig-axisline" x1="{left}" x2="{width - right}" y1="{top + plot_h + 0.5}" '
            f'y2="{top + plot_h + 0.5}"/>']
    bursty = process.size == 2
    ribbon_y = top + plot_h + 4
    if bursty:
        runs, start = [], 0
        for i in range(1, n + 1):
            if i == n or strip[i]["state"] != strip[start]["state"]:
                runs.append((start, i, strip[start]["state"]))
                start = i
        lulls = "".join(f"M{left + a * column:.2f} {ribbon_y}h{(b - a) * column:.2f}v8h-{(b - a) * column:.2f}z"
                        for a, b, state in runs if state == 1)
        if lulls:
            body.append(f'<path class="k-lull" d="{lulls}"/>')
    wasted, kept = [], []
    gap = 1.5 if column >= 5 else 1
    for i, call in enumerate(strip):
        x = left + i * column + column * 0.12
        w = column * 0.76
        accepted = min(call["accepted"], call["lookahead"])
        if accepted:
            kept.append(f"M{x:.2f} {y_of(accepted):.2f}V{top + plot_h}h{w:.2f}V{y_of(accepted):.2f}z")
        if call["lookahead"] > accepted:
            low = y_of(accepted) - (gap if accepted else 0)
            wasted.append(f"M{x:.2f} {y_of(call['lookahead']):.2f}V{low:.2f}h{w:.2f}V{y_of(call['lookahead']):.2f}z")
    if wasted:
        body.append(f'<path class="k-draft" d="{"".join(wasted)}"/>')
    if kept:
        body.append(f'<path class="k-accepted" d="{"".join(kept)}"/>')
    y_best = y_of(best_k)
    body.append(f'<line class="fig-baseline pol-best-line" x1="{left}" x2="{width - right}" y1="{y_best:.2f}" '
                f'y2="{y_best:.2f}"/>')
    for k in sorted({0, top_k // 2, top_k}):
        body.append(f'<text class="fig-small" x="{left - 6}" y="{y_of(k) + 4:.2f}" text-anchor="end">{k}</text>')
    label_y = top + plot_h + (30 if bursty else 20)
    body.append(f'<text class="fig-small" x="{left}" y="{label_y}">call 1</text>')
    body.append(f'<text class="fig-small" x="{width - right}" y="{label_y}" text-anchor="end">call {n}</text>')
    mean = sum(s["lookahead"] for s in strip) / n
    good = sum(1 for s in strip if s["state"] == 0) if bursty else n
    label = (f"Hugging Face's heuristic lookahead over {n} seeded verifier calls: from {min(s['lookahead'] for s in strip)} "
             f"to {max(s['lookahead'] for s in strip)}, mean {_f(mean, 1)} over these calls (a sample: the readout's "
             f"mean lookahead is the exact long-run one), against the best static k = {best_k}"
             + (f"; {good} calls start in a good stretch, {n - good} in a bad one." if bursty else "."))
    return svg(width, label_y + 6, label, body, "pol-figure pol-strip")


def table_html(results: dict, lookahead: int, curve: bool = False, toy: bool = False) -> str:
    """The policies' four numbers and their gain over the best static lookahead."""
    best = results["best-static"]["speedup"]
    rows = []
    for name in _shown(curve):
        r = results[name]
        gain = "\u2014" if name == "best-static" else _gain(r["speedup"], best)
        rows.append(f'<tr><th scope="row">{escape(_label(name, r, lookahead, curve, toy))}</th><td>{_f(r["speedup"], 3)}x</td>'
                    f"<td>{escape(gain)}</td><td>{_f(r['tokensPerCall'], 3)}</td><td>{_f(r['meanLookahead'], 2)}</td>"
                    f"<td>{_f(r['wastedPerToken'], 3)}</td></tr>")
    return ('<table class="pol-table"><caption>Exact long-run averages per policy</caption><thead><tr>'
            '<th scope="col">Policy</th><th scope="col">Speedup</th><th scope="col">vs best static</th>'
            '<th scope="col">Tokens per call</th><th scope="col">Mean lookahead</th>'
            '<th scope="col">Wasted drafts per token</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>")


def mode_html(label: str | None) -> str:
    """In measured-curve mode: which curve, and a button back to the sliders (the page's generic
    ``data-action="send"`` on this widget's own form); otherwise nothing."""
    if label is None:
        return ""
    values = escape(json.dumps({CURVE_KEY: ""}))
    return (f'<p class="pol-mode">Measured curve: {escape(label)}. '
            f'<button type="button" data-action="send" data-target="policies" data-values="{values}">'
            f'Use the sliders</button></p>')


PROCESS = Choice(PROCESS_KEY, PROCESS_KEY, "Acceptance process", PROCESSES, DEFAULT_PROCESS)
CONTROLS = (*SLIDERS, PROCESS)  # what the URL and the form carry (the curve token is read on its own)


def _params(raw) -> tuple[dict, list[str], int, str]:
    """Slider params, notes, the figure width and the process choice, from a URL query string
    or a mapping of form values (:func:`lab.urlstate.read_controls`)."""
    raw, width = split_width(raw)
    values, notes = read_controls(raw, CONTROLS)
    choice = values.pop(PROCESS_KEY)
    return values, notes, width, choice


def _past_measured(k: int, process) -> str:
    """A readout's note when lookahead ``k`` lies past a measured per-depth curve's measured depths,
    where the acceptance model extrapolates it; "" otherwise (and for every modelled process).

    >>> from lab import policies
    >>> _past_measured(5, policies.received_curve([0.8, 0.6])), _past_measured(2, policies.received_curve([0.8, 0.6]))
    (' (past the measured k = 2)', '')
    """
    measured_k = process.measured_depth
    return f" (past the measured k = {measured_k})" if measured_k and k > measured_k else ""


def _summary(params: dict, results: dict, process, curve_label: str | None = None) -> str:
    best = results["best-static"]
    aware = results["state-aware"]
    if process.name == "toy":
        setting = ("On the sampler's toy model of Part three (12 position slots, Part three's default p and q; "
                   f"drafts survive {_f(sum(process.rates) / len(process.rates) * 100, 1)}% of the time on average; "
                   "the acceptance and burstiness sliders are set aside; confidence is the draft's real probability)")
        aware_text = (f"drafting the best k per position slot {_f(aware['speedup'])}x "
                      f"({_gain(aware['speedup'], best['speedup'])})")
    elif curve_label is not None:
        setting = (f"In measured curve mode ({curve_label}; the acceptance and burstiness sliders are set aside), "
                   f"with drafts surviving depth by depth as measured")
        aware_text = None
    elif process.size == 2:
        good, bad = process.rates
        setting = (f"With mean acceptance {_f(params['acceptance'], 0)}% arriving in stretches (burstiness "
                   f"{_f(params['burst'], 0)}%: good stretches accept {_f(good * 100, 1)}% of drafts, bad ones "
                   f"{_f(bad * 100, 1)}%)")
        aware_text = (f"drafting the best k per stretch ({aware['ks'][0]} in good, {aware['ks'][1]} in bad) "
                      f"{_f(aware['speedup'])}x ({_gain(aware['speedup'], best['speedup'])})")
    else:
        setting = f"With every draft accepted independently at {_f(params['acceptance'], 0)}%"
        aware_text = "the best k per stretch is just the best static k (there are no stretches)"
    threshold = (f"a confidence threshold of {_f(params['threshold'], 0)}% "
                 + ("(on modelled confidences: a measured curve carries none) " if curve_label is not None else "")
                 + f"{_f(results['threshold']['speedup'])}x ({_gain(results['threshold']['speedup'], best['speedup'])})")
    costs = f"a draft pass at {_f(params['draftCost'], 0)}% of a target pass"
    if params["verifyTax"] or params["overheadMs"]:
        costs += (f" (verify tax {_f(params['verifyTax'], 0)}%, {_f(params['overheadMs'], 0)} ms of overhead on a "
                  f"{_f(params['targetMs'], 0)} ms target pass)")
    text = (f"{setting} and {costs}, the best static "
            f"lookahead is k = {best['k']} at {_f(best['speedup'])}x. Hugging Face's +2/\u22121 heuristic averages "
            f"{_f(results['heuristic']['speedup'])}x ({_gain(results['heuristic']['speedup'], best['speedup'])}, mean "
            f"lookahead {_f(results['heuristic']['meanLookahead'], 1)}), {threshold}, "
            + (f"{aware_text}, " if aware_text else "")
            + f"and the no-waste oracle bounds them all at {_f(results['oracle']['speedup'])}x. Static "
            f"k = {params['lookahead']}: {_f(results['static']['speedup'])}x.")
    if curve_label is not None:
        text += " A per-depth curve has no stretches, so the best k per stretch is the best static k and is not shown."
        measured_k = process.measured_depth
        if best.get("capped"):
            from ..acceptance import plateau_words
            # the one best-k rule (lab.acceptance.best_lookahead): never past the plateau's start plus one
            text += (f" The best static k stops where the curve {plateau_words(best['plateauStart'], process.depth_rates)} (the largest "
                     f"speedup lies at k = {best['uncappedK']}, by drafts that are nearly all waste).")
        if best["k"] > measured_k:
            # past the measured depth the acceptance model continues the curve (lab.policies.received_curve)
            text += (f" The best static k lies beyond the measured k = {measured_k}: it rests on the acceptance "
                     "model's extrapolation of the curve past its measured positions (the library's fall), not "
                     "on measurement.")
    return text


def _lead(params: dict, results: dict, process, curve_mode: bool) -> str:
    """The answer in one sentence: the best static lookahead, and the adaptive policy that beats it
    by the most (the oracle is a bound, not a policy)."""
    best = results["best-static"]
    rivals = [("Hugging Face's +2/\u22121 heuristic", results["heuristic"]["speedup"]),
              (f"a confidence threshold of {_f(params['threshold'], 0)}%", results["threshold"]["speedup"])]
    if not curve_mode and process.size != 1:  # with stretches (or the toy's slots), the best k per stretch is a policy
        rivals.append(("drafting the best k per " + ("position slot" if process.name == "toy" else "stretch"),
                       results["state-aware"]["speedup"]))
    name, speedup = max(rivals, key=lambda rival: rival[1])
    setting = "On the measured curve the" if curve_mode else "The"
    return (f"{setting} best static lookahead is k = {best['k']} at {_f(best['speedup'])}x; the best adaptive policy "
            f"here, {name}, runs {_f(speedup)}x ({_gain(speedup, best['speedup'])}).")


@lru_cache(maxsize=32)
def _process(choice: str, acceptance: float, burst: float) -> tuple:
    """(process, cache) for one acceptance process: the cache (:func:`lab.policies.evaluate_policies`)
    lives with its process, so moving the draft cost, the lookahead or the threshold reuses the
    chains' laws and the heuristic's seeded strip instead of solving them again."""
    if choice == "toy":
        return policies.toy(*TOY_SETTING), {}
    values = {"acceptance": acceptance, "burst": 0 if choice == "independent" else burst}
    return policies.setting_process(values), {}


def _strip(process, cache: dict) -> list[dict]:
    return policies.cached(cache, process, "strip", (STRIP_CYCLES, STRIP_SEED),
                           lambda: policies_simulation.heuristic_strip(process, STRIP_CYCLES, STRIP_SEED))


def view(raw=None) -> dict:
    """The widget for one setting (never raises on bad input: clamps with notes)."""
    params, notes, width, choice = _params(raw)
    found = requested_curve(split_width(raw)[0], CURVE_KEY, notes, fallback="the sliders")
    if found and found[1][0][-1] >= 1:  # lab.policies.Process.tail_alpha: no long-run law to show
        notes.append(f"{CURVE_KEY}: the curve's last rate is 1 (every draft past depth {len(found[1][0])} would be "
                     "accepted), so the heuristic's and the oracle's lookahead would grow without end and have "
                     "no long-run average; using the sliders")
        notes[:] = [note for note in notes if note != UNLINKABLE_CURVE_NOTE]  # nothing of it is kept
        found = None
    measured = found is not None
    if found:
        token, (curve, curve_label, linkable) = found
        from ..acceptance import token_measured_at, token_method  # the curve library: only a measured curve needs it

        process = policies.received_curve(curve, token_measured_at(token), token_method(token))
        results = policies.evaluate_policies(process, policies.setting_costs(params), int(params["lookahead"]),
                                             params["threshold"] / 100)
    else:
        token, curve_label, linkable = "", None, False
        # evaluate_setting's numbers (the same calls), with the process's cache
        process, cache = _process(choice, 0 if choice == "toy" else params["acceptance"],
                                  params["burst"] if choice == "bursty" else 0)
        results = policies.evaluate_policies(process, policies.setting_costs(params), int(params["lookahead"]),
                                             params["threshold"] / 100, cache)
    strip = policies_simulation.heuristic_strip(process, STRIP_CYCLES, STRIP_SEED) if measured else _strip(process, cache)
    best = results["best-static"]
    live = (("Measured curve: " if measured else "Toy model: " if process.name == "toy" else "") + f"best static k = {best['k']} at {_f(best['speedup'])}x; "
            f"heuristic {_f(results['heuristic']['speedup'])}x")
    return {
        "params": params,
        "shown": {**{name: to_js_string(value) for name, value in params.items()}, CURVE_KEY: token,
                  PROCESS_KEY: choice},
        "notes": notes,
        "query": (format_query(params, SLIDERS) + (f"&{PROCESS_KEY}={choice}" if choice != DEFAULT_PROCESS else "")
                  + (f"&{CURVE_KEY}={token}" if linkable else "")),
        "curveMode": bool(measured),
        "lead": _lead(params, results, process, measured),
        "summary": _summary(params, results, process, curve_label),
        "live": live,
        "width": width,
        "readouts": {
            "bestStatic": f"k = {best['k']}, {_f(best['speedup'])}x" + _past_measured(best["k"], process),
            "heuristicLookahead": _f(results["heuristic"]["meanLookahead"], 2),
            "oracle": f"{_f(results['oracle']['speedup'])}x",
        },
        "policies": {name: {key: results[name][key] for key in ("speedup", "tokensPerCall", "meanLookahead",
                                                                  "wastedPerToken")} for name in _shown(bool(measured))},
        "figures": {
            "bars": bars_svg(results, params["lookahead"], width, bool(measured), process.name == "toy"),
            "strip": strip_svg(strip, process, best["k"], width),
            "table": table_html(results, params["lookahead"], bool(measured), process.name == "toy"),
            "mode": mode_html(curve_label),
        },
    }


def differs(view: dict) -> str:
    """Under the lead when the deployment panel sent these settings: why the best static speedup
    differs from the panel's answer, by the acceptance process the reader keeps (one sentence)."""
    process = view["shown"][PROCESS_KEY]
    if view["curveMode"]:  # the panel sends its curve (a figure travels extended by its prior); a trace sends its own
        return ("It runs on the curve that was sent (the panel's own or a trace's), so at the panel's costs its best "
                "static k and speedup are the ledger's on that curve; it adds the adaptive policies.")
    if process == "toy":
        return ("The toy process is Part three's target and draft, not your acceptance figure, so these speedups "
                "are not your deployment's.")
    if process == "bursty":
        return ("Its bursty process (good and bad stretches with your mean acceptance) is not in the panel's "
                "model, which is why its static speedup differs from the panel's; choose independent tokens to "
                "see the ledger's.")
    return ("With independent tokens the best static k and speedup are the ledger's on your deployment's costs; "
            "what it adds is the adaptive policies.")


def page_context() -> dict:
    from ..urlstate import slider_specs

    return {"view": view(None), "sliders": slider_specs(SLIDERS),
            "processes": [{"name": name, "title": title} for name, title in PROCESSES.items()]}
