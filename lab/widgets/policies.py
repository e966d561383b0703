"""The lookahead-policies widget (Part two): speedup bars per policy against the best static
lookahead, a seeded time strip of Hugging Face's heuristic through good and bad stretches, and
the numbers as a table. Every figure is a string of SVG or HTML; every text goes through
:func:`lab.figures.escape`; data colours are ``k-pol-*`` classes (styled in widgets.css)."""

from ..figures import DEFAULT_WIDTH, _svg, escape, split_width
from ..jsformat import to_fixed, to_js_string
from ..urlstate import Slider, clamp_params, format_query, parse_query
from .. import policies

__all__ = ["SLIDERS", "view", "page_context", "bars_svg", "strip_svg", "table_html", "STRIP_CYCLES", "STRIP_SEED"]

SLIDERS = (
    Slider("acceptance", "Mean acceptance \u03b1", 1, 99, 1, 74, "%", url_key="polAcceptance"),
    Slider("draftCost", "Draft pass cost", 0, 100, 1, 12, "% of target", url_key="polDraftCost"),
    Slider("burst", "Burstiness (0 = independent tokens)", 0, 95, 1, 80, "%", url_key="polBurst"),
    Slider("threshold", "Confidence threshold", 0, 100, 1, 40, "%", url_key="polThreshold"),
    Slider("lookahead", "Static lookahead k", 1, 20, 1, 5, "tokens", integer=True, url_key="polLookahead"),
)
STRIP_CYCLES = 72   # verifier calls in the time strip
STRIP_SEED = 9      # its random.Random seed
LABELS = {
    "static": "static k", "best-static": "best static", "heuristic": "HF heuristic (+2/\u22121)",
    "threshold": "confidence threshold", "oracle": "no-waste oracle", "state-aware": "best k per stretch",
}
KINDS = {"static": "static", "best-static": "best", "heuristic": "heuristic", "threshold": "threshold",
         "oracle": "oracle", "state-aware": "aware"}


def _f(value, digits=2) -> str:
    return to_fixed(value, digits)


def _label(name: str, result: dict, lookahead: int) -> str:
    if name == "static":
        return f"static k = {lookahead}"
    if name == "best-static":
        return f"best static (k = {result['k']})"
    return LABELS[name]


def _gain(speedup: float, best: float) -> str:
    """Signed percent against the best static speedup, e.g. ``+21.5%``."""
    change = (speedup / best - 1) * 100
    return ("+" if change >= 0.05 else "\u2212" if change <= -0.05 else "\u00b1") + _f(abs(change), 1) + "%"


def bars_svg(results: dict, lookahead: int, width: int = DEFAULT_WIDTH) -> str:
    """One horizontal bar per policy (long-run speedup), a dashed line at the best static
    policy's speedup and a solid one at 1x (plain decoding)."""
    label_w = min(210, max(130, width // 3))
    right = 118
    row, bar_h, top = 30, 18, 22
    top_speed = max(r["speedup"] for r in results.values())
    scale_max = max(1.0, top_speed) * 1.05
    span = width - label_w - right
    x_of = lambda s: label_w + span * s / scale_max
    best = results["best-static"]["speedup"]
    body = [f'<text class="pol-text pol-muted" x="{label_w}" y="14">long-run speedup over plain decoding</text>']
    for index, name in enumerate(policies.POLICY_NAMES):
        result = results[name]
        y = top + index * row
        w = max(1.0, x_of(result["speedup"]) - label_w)
        text = f"{_f(result['speedup'])}x" + ("" if name == "best-static" else f" ({_gain(result['speedup'], best)})")
        body.append(f'<text class="pol-text" x="{label_w - 8}" y="{y + bar_h - 4}" text-anchor="end">'
                    f'{escape(_label(name, result, lookahead))}</text>')
        body.append(f'<rect class="k-pol-{KINDS[name]}" x="{label_w}" y="{y}" width="{w:.2f}" height="{bar_h}">'
                    f'<title>{escape(_label(name, result, lookahead))}: {escape(text)}</title></rect>')
        body.append(f'<text class="pol-text" x="{label_w + w + 6:.2f}" y="{y + bar_h - 4}">{escape(text)}</text>')
    bottom = top + len(policies.POLICY_NAMES) * row
    for value, css in ((1.0, "pol-one"), (best, "pol-best-line")):
        x = x_of(value)
        body.append(f'<line class="{css}" x1="{x:.2f}" x2="{x:.2f}" y1="{top - 4}" y2="{bottom - 6}"/>')
    body.append(f'<text class="pol-text pol-muted" x="{x_of(1.0):.2f}" y="{bottom + 10}" text-anchor="middle">1x</text>')
    label = "Long-run speedup per policy: " + "; ".join(
        f"{_label(n, results[n], lookahead)} {_f(results[n]['speedup'])}x" for n in policies.POLICY_NAMES) + "."
    return _svg(width, bottom + 16, label, body, "pol-figure pol-bars")


def strip_svg(strip: list[dict], process, best_k: int, width: int = DEFAULT_WIDTH) -> str:
    """The heuristic's lookahead call by call (bars), over bands for the acceptance state at each
    call's start (good / bad stretches), with the drafts that survived in a darker inset and a
    dashed line at the best static k."""
    left, right, top, plot_h = 34, 8, 8, 120
    n = len(strip)
    column = (width - left - right) / n
    top_k = max(max(s["lookahead"] for s in strip), best_k, 6)
    y_of = lambda k: top + plot_h - plot_h * k / top_k
    body = []
    bursty = process.size == 2
    if bursty:
        runs, start = [], 0
        for i in range(1, n + 1):
            if i == n or strip[i]["state"] != strip[start]["state"]:
                runs.append((start, i, strip[start]["state"]))
                start = i
        for a, b, state in runs:
            kind = "good" if state == 0 else "bad"
            body.append(f'<rect class="k-pol-{kind}" x="{left + a * column:.2f}" y="{top}" '
                        f'width="{(b - a) * column:.2f}" height="{plot_h}"/>')
    bars, kept = [], []
    for i, call in enumerate(strip):
        x = left + i * column + column * 0.15
        w = column * 0.7
        bars.append(f"M{x:.2f} {y_of(call['lookahead']):.2f}V{top + plot_h}h{w:.2f}V{y_of(call['lookahead']):.2f}z")
        if call["accepted"]:
            kept.append(f"M{x:.2f} {y_of(call['accepted']):.2f}V{top + plot_h}h{w:.2f}V{y_of(call['accepted']):.2f}z")
    body.append(f'<path class="k-pol-heuristic" d="{"".join(bars)}"/>')
    if kept:
        body.append(f'<path class="k-pol-kept" d="{"".join(kept)}"/>')
    y_best = y_of(best_k)
    body.append(f'<line class="pol-best-line" x1="{left}" x2="{width - right}" y1="{y_best:.2f}" y2="{y_best:.2f}"/>')
    for k in sorted({0, top_k // 2, top_k}):
        body.append(f'<text class="pol-text pol-muted" x="{left - 6}" y="{y_of(k) + 4:.2f}" text-anchor="end">{k}</text>')
    body.append(f'<text class="pol-text pol-muted" x="{left}" y="{top + plot_h + 18}">call 1</text>')
    body.append(f'<text class="pol-text pol-muted" x="{width - right}" y="{top + plot_h + 18}" text-anchor="end">'
                f'call {n}</text>')
    mean = sum(s["lookahead"] for s in strip) / n
    good = sum(1 for s in strip if s["state"] == 0) if bursty else n
    label = (f"Hugging Face's heuristic lookahead over {n} seeded verifier calls: from {min(s['lookahead'] for s in strip)} "
             f"to {max(s['lookahead'] for s in strip)}, mean {_f(mean, 1)}, against the best static k = {best_k}"
             + (f"; {good} calls start in a good stretch, {n - good} in a bad one." if bursty else "."))
    return _svg(width, top + plot_h + 24, label, body, "pol-figure pol-strip")


def table_html(results: dict, lookahead: int) -> str:
    """The policies' four numbers and their gain over the best static lookahead."""
    best = results["best-static"]["speedup"]
    rows = []
    for name in policies.POLICY_NAMES:
        r = results[name]
        gain = "\u2014" if name == "best-static" else _gain(r["speedup"], best)
        rows.append(f'<tr><th scope="row">{escape(_label(name, r, lookahead))}</th><td>{_f(r["speedup"], 3)}x</td>'
                    f"<td>{escape(gain)}</td><td>{_f(r['tokensPerCall'], 3)}</td><td>{_f(r['meanLookahead'], 2)}</td>"
                    f"<td>{_f(r['wastedPerToken'], 3)}</td></tr>")
    return ('<table class="pol-table"><caption>Exact long-run averages per policy</caption><thead><tr>'
            '<th scope="col">Policy</th><th scope="col">Speedup</th><th scope="col">vs best static</th>'
            '<th scope="col">Tokens per call</th><th scope="col">Mean lookahead</th>'
            '<th scope="col">Wasted drafts per token</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>")


def _params(raw) -> tuple[dict, list[str], int]:
    """Slider params, notes and the figure width from a URL query string or a mapping of form values."""
    raw, width = split_width(raw)
    if isinstance(raw, str):
        params, notes = parse_query(raw, SLIDERS)
        return params, notes, width
    params, _, notes = clamp_params(SLIDERS, dict(raw) if isinstance(raw, dict) else {})
    return params, notes, width


def _summary(params: dict, results: dict, process) -> str:
    best = results["best-static"]
    aware = results["state-aware"]
    if process.size == 2:
        good, bad = process.rates
        setting = (f"With mean acceptance {_f(params['acceptance'], 0)}% arriving in stretches (burstiness "
                   f"{_f(params['burst'], 0)}%: good stretches accept {_f(good * 100, 1)}% of drafts, bad ones "
                   f"{_f(bad * 100, 1)}%)")
        aware_text = (f"drafting the best k per stretch ({aware['ks'][0]} in good, {aware['ks'][1]} in bad) "
                      f"{_f(aware['speedup'])}x ({_gain(aware['speedup'], best['speedup'])})")
    else:
        setting = f"With every draft accepted independently at {_f(params['acceptance'], 0)}%"
        aware_text = "the best k per stretch is just the best static k (there are no stretches)"
    return (f"{setting} and a draft pass at {_f(params['draftCost'], 0)}% of a target pass, the best static "
            f"lookahead is k = {best['k']} at {_f(best['speedup'])}x. Hugging Face's +2/\u22121 heuristic averages "
            f"{_f(results['heuristic']['speedup'])}x ({_gain(results['heuristic']['speedup'], best['speedup'])}, mean "
            f"lookahead {_f(results['heuristic']['meanLookahead'], 1)}), a confidence threshold of "
            f"{_f(params['threshold'], 0)}% {_f(results['threshold']['speedup'])}x "
            f"({_gain(results['threshold']['speedup'], best['speedup'])}), {aware_text}, and the no-waste oracle "
            f"bounds them all at {_f(results['oracle']['speedup'])}x. Static k = {params['lookahead']}: "
            f"{_f(results['static']['speedup'])}x.")


def view(raw=None) -> dict:
    """The widget for one setting (never raises on bad input: clamps with notes)."""
    params, notes, width = _params(raw)
    process = policies.setting_process(params)
    results = policies.evaluate_setting(params)
    strip = policies.heuristic_strip(process, STRIP_CYCLES, STRIP_SEED)
    best = results["best-static"]
    return {
        "params": params,
        "shown": {name: to_js_string(value) for name, value in params.items()},
        "notes": notes,
        "query": format_query(params, SLIDERS),
        "summary": _summary(params, results, process),
        "readouts": {
            "bestStatic": f"k = {best['k']}, {_f(best['speedup'])}x",
            "heuristicLookahead": _f(results["heuristic"]["meanLookahead"], 2),
            "oracle": f"{_f(results['oracle']['speedup'])}x",
        },
        "policies": {name: {key: results[name][key] for key in ("speedup", "tokensPerCall", "meanLookahead",
                                                                  "wastedPerToken")} for name in policies.POLICY_NAMES},
        "figures": {
            "bars": bars_svg(results, params["lookahead"], width),
            "strip": strip_svg(strip, process, best["k"], width),
            "table": table_html(results, params["lookahead"]),
        },
    }


def page_context() -> dict:
    from ..views import slider_specs

    return {"view": view(None), "sliders": slider_specs(SLIDERS)}
