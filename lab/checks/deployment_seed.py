"""The seed's two widgets, the latency ledger and the exact sampler, checked as the deployment panel's first
targets: every number their views print read back against their models, and no input breaks them. Their checks
ride in the deployment family of the instruments suite (:data:`lab.checks.deployment.CHECKS` appends
:data:`SEED_CHECKS` after the family's own, so the suite's names and order are as before; the rules checks of
:mod:`lab.checks.deployment_rules` follow them); apart from it for size.
"""

import re

from .. import acceptance, ledger
from ..jsformat import to_fixed, to_js_string
from . import phrase_missing, readout_difference

__all__ = ["SEED_CHECKS", "LEDGER_SETTINGS", "EXACT_SETTINGS", "ledger_readouts_match_model", "exact_readouts_match_model",
           "seed_hostile_inputs_answered"]

# --- the seed's two widgets (the panel's first targets): their readouts, leads and figures ------------
# The seed audit (lab.audit) checks the models of the latency ledger and the exact sampler, not what their
# views print; these two checks read every number those views show (readouts, lead, summary, live line,
# table cells, and the figures' text, tooltips, labels and hover values) back against the models.

LEDGER_SETTINGS = ({}, {"acceptance": "0"}, {"acceptance": "100"}, {"lookahead": "1"}, {"lookahead": "12"},
                   {"draftCost": "0", "overheadMs": "0"}, {"draftCost": "100", "overheadMs": "200"},
                   {"targetMs": "1"}, {"targetMs": "500", "verifyTax": "50"}, {"verifyTax": "0", "acceptance": "93"},
                   {"trcCurve": "custom:0.9,0.8,0.7", "lookahead": "7"})
EXACT_SETTINGS = ({}, {"certainty": "0", "match": "0"}, {"certainty": "100", "match": "100"},
                  {"gamma": "1", "length": "1"}, {"gamma": "12", "length": "256", "seed": "9999"},
                  {"draftCost": "0", "seed": "0"}, {"draftCost": "100", "match": "37"})


def ledger_readouts_match_model(out):
    """Every number the latency ledger shows equals the ledger model's through the page's formatter
    (lab.jsformat.to_fixed), at the defaults, both ends of every slider and a measured curve: the lead,
    summary and live line (speedup, tokens per call, accepted and wasted drafts, the cycle and its parts,
    ms per token, best lookahead), the heatmap's table and hover values (speedup_grid), the selected
    cell's mark ("your setting: 1.79x") and the cycle breakdown's labels, tooltips and description
    (tokens x target ms for plain decoding; the cycle is draft + verify + overhead)."""
    from ..widgets import ledger as widget

    lookaheads, acceptances = ledger.heatmap_axes()
    for values in LEDGER_SETTINGS:
        out.visited += 1
        where = f"ledger form {values or 'defaults'}"
        view = widget.view(dict(values))
        if view.get("error") or "figures" not in view:
            return out.fail(f"{where}: no view ({view.get('error')})")
        settings = ledger.LedgerSettings(**{s.name: s.default for s in widget.SLIDERS} | {
            k: float(v) for k, v in values.items() if k != widget.CURVE_KEY} | (
            {"lookahead": int(values["lookahead"])} if "lookahead" in values else {}))
        token = values.get(widget.CURVE_KEY)
        if token is not None:
            curve = acceptance.extended_rates(acceptance.token_rates(token), acceptance.TOKEN_POSITIONS,
                                              acceptance.token_measured_at(token), acceptance.token_method(token))
            result, (best_k, best_speedup) = (ledger.ledger_from_curve(settings, curve),
                                              acceptance.best_lookahead_from_curve(settings, curve))
        else:
            result, (best_k, best_speedup) = ledger.ledger(settings), ledger.best_lookahead(settings)
        cycle = result.draftMs + result.verifyMs + settings.overheadMs
        if abs(cycle - result.cycleMs) > 1e-9 * max(1.0, cycle):
            return out.fail(f"{where}: the cycle {result.cycleMs} ms is not draft + verify + overhead = {cycle} ms")
        failure = phrase_missing(where, view, _ledger_phrases(settings, result, (best_k, best_speedup),
                                                              best_k == lookaheads[-1], token))
        if failure:
            return out.fail(failure)
        yield
        failure = _ledger_figures_difference(where, view, settings, result, (lookaheads, acceptances))
        if failure:
            return out.fail(failure)
        yield  # a pause: the browser answers a reader between two settings


def _ledger_phrases(settings, result, best: tuple, edge: bool, token) -> dict:
    """The lead's, summary's and live line's numbers as the ledger gives them: the speedup, tokens per call,
    accepted and wasted drafts, the cycle and its parts, ms per token and the best lookahead (``edge``: the scan's
    last, shown as "or more"); on a measured curve (``token``), the positions extrapolated past it."""
    f, (best_k, best_speedup) = to_fixed, best
    shown = f"\u2265 {best_k}" if edge else str(best_k)
    verdict = "faster" if result.speedup > 1 else "slower" if result.speedup < 1 else "no faster"
    phrases = {
        "lead": [f"at lookahead {settings.lookahead} runs {f(result.speedup, 2)}x, {verdict}",
                 f"best lookahead here is {shown} ({f(best_speedup, 2)}x"],
        "summary": [f"buys {f(result.outputTokens, 2)} tokens on average ({f(result.accepted, 2)} accepted drafts",
                    f"{f(result.wastedDrafts, 2)} drafts wasted", f"The cycle costs {f(result.cycleMs, 1)} ms (draft "
                    f"{f(result.draftMs, 1)}, verify {f(result.verifyMs, 1)}, overhead {f(settings.overheadMs, 1)})",
                    f"costs {f(result.msPerToken, 1)} ms instead of {f(settings.targetMs, 1)} ms: "
                    f"{f(result.speedup, 2)}x", f"best lookahead here is {shown} ({f(best_speedup, 2)}x"],
        "live": [f"{f(result.speedup, 2)}x {verdict}; best lookahead {best_k}" + (" or more" if edge else "")]}
    measured_k = None
    if token is not None:  # past the measured positions the acceptance model continues the curve
        measured_k = acceptance.token_measured_at(token) or len(acceptance.token_rates(token))
    if measured_k is not None and settings.lookahead > measured_k:
        first = measured_k + 1
        phrases["summary"].append((f"position {first}" if first == settings.lookahead else
                                   f"positions {first} to {settings.lookahead}") + " extrapolated")
    return phrases


def _ledger_figures_difference(where, view: dict, settings, result, axes: tuple) -> str | None:
    """The heatmap's hover values and table (speedup_grid), its ticks, the selected cell's mark (on a measured
    curve, saying the curve has no row in the map) and the cycle breakdown's numbers against the model's. ``axes``
    is the heatmap's (lookaheads, acceptances)."""
    from . import figure_difference, table_cells, tip_values

    f, (lookaheads, acceptances) = to_fixed, axes
    ticks = [f(a, 0) for a in acceptances if a % 10 == 0] + [str(k) for k in lookaheads] + ["1", "3"]
    grid = ledger.speedup_grid(settings, lookaheads, acceptances)
    cells = [f(grid[r][c], 2) for r in range(len(acceptances) - 1, -1, -1) for c in range(len(lookaheads))]
    figures = view["figures"]
    for name, got in (("heatmap hover", tip_values(figures["heatmap"])), ("table", table_cells(figures["table"]))):
        if got != cells:
            first = next((i for i, (a, b) in enumerate(zip(got, cells)) if a != b), min(len(got), len(cells)))
            return (f"{where}: the {name} value {first} reads {got[first:first + 1]}, the model gives "
                    f"{cells[first:first + 1]} (of {len(cells)})")
    row = round(settings.acceptance / 5)
    expected = {
        "heatmap": ([], ticks + [f(acceptances[0], 0), f(acceptances[-1], 0)]),
        # the reader's acceptance as the slider has it (74) beside the grid row it falls in (75)
        "heatmapSelection": ([f(result.speedup, 2), f(acceptances[row], 0), str(settings.lookahead),
                              *([] if view.get("curveMode") else [to_js_string(settings.acceptance)])], []),
        "breakdown": ([f(result.draftMs, 1), f(result.verifyMs, 1), f(settings.overheadMs, 1), f(result.cycleMs, 1),
                       f(result.outputTokens, 2), f(result.outputTokens * settings.targetMs, 1)], [])}
    for name, (numbers, fixed) in expected.items():
        failure = figure_difference(where, name, figures[name], numbers, fixed)
        if failure:
            return failure
    if view.get("curveMode") and "your measured curve has no row in it" not in figures["heatmapSelection"]:
        return (f"{where}: the outlined cell is one acceptance's, and its label does not say the curve's "
                f"speedup has no row in the map")
    return _ledger_rows_difference(where, figures, settings, axes)


# The heatmap's rows run bottom-up (the highest acceptance on top): the table's row headers, the hover target's
# row names, the acceptance labels and the outlined cell must all follow the cells' own rows, which the cells'
# group places (translate(left top) scale(cell_w cell_h), row 0 on top). Without this a label, a hover name or the
# outline one row off, or the axis drawn upside down, showed the wrong acceptance with every number right.
_CELLS_GROUP = re.compile(r'translate\(([0-9.]+) ([0-9.]+)\) scale\(([0-9.]+) ([0-9.]+)\)')
_TICK = re.compile(r'<text class="fig-tick" x="[0-9.]+" y="([0-9.]+)" text-anchor="end">([0-9]+)%</text>')
_OUTLINE = re.compile(r'<rect class="fig-selected" x="([0-9.]+)" y="([0-9.]+)"')


def _ledger_rows_difference(where, figures: dict, settings, axes: tuple) -> str | None:
    """The heatmap's row names (table headers, hover rows), acceptance labels and outlined cell against the
    cells' rows (see above); ``axes`` is (lookaheads, acceptances), acceptances rising."""
    from . import row_headers, tip_axis

    lookaheads, acceptances = axes
    names = [to_fixed(a, 0) for a in reversed(acceptances)]  # top row first
    if row_headers(figures["table"]) != [name + "%" for name in names]:
        return f"{where}: the heatmap table's rows are named {row_headers(figures['table'])[:3]}..., not {names[:3]}..."
    if tip_axis(figures["heatmap"], "rows") != names or tip_axis(figures["heatmap"], "cols") != [str(k) for k in lookaheads]:
        return f"{where}: the heatmap's hover target names its rows or columns out of the grid's order"
    left, top, cell_w, cell_h = (float(v) for v in _CELLS_GROUP.search(figures["heatmap"]).groups())
    band = lambda acceptance_value: top + names.index(to_fixed(acceptance_value, 0)) * cell_h  # noqa: E731
    for y, label in _TICK.findall(figures["heatmap"]):
        if not band(float(label)) <= float(y) <= band(float(label)) + cell_h:
            return f"{where}: the heatmap's {label}% label sits at y = {y}, outside the {label}% row"
    x, y = (float(v) for v in _OUTLINE.search(figures["heatmapSelection"]).groups())
    row, column = acceptances[round(settings.acceptance / 5)], lookaheads.index(settings.lookahead)
    if not (left + column * cell_w < x < left + (column + 1) * cell_w and band(row) < y < band(row) + cell_h):
        return f"{where}: the outline sits at ({x}, {y}), not on the cell of acceptance {row}% and lookahead {settings.lookahead}"
    return None


def exact_readouts_match_model(out):
    """Every number the exact sampler shows equals lab.exact's through the page's formatter, at the
    defaults and both ends of every slider: the readouts, the lead, summary and live line, the p and q
    bars' tooltips (overlap min(p, q), residual p - q, rejected excess q - p) and description, the output
    bars' (target p, the sampled frequencies) and the trace's description, whose tokens are accepted
    drafts + corrections + bonus tokens with one correction or bonus per verifier call."""
    from .. import exact
    from ..widgets import exact as widget

    for values in EXACT_SETTINGS:
        out.visited += 1
        where = f"exact form {values or 'defaults'}"
        view = widget.view(dict(values))
        if view.get("error") or "figures" not in view:
            return out.fail(f"{where}: no view ({view.get('error')})")
        params = {s.name: int(s.default) for s in widget.SLIDERS} | {k: int(v) for k, v in values.items()}
        result = exact.evaluate(**params)
        t = result["trace"]
        expected = _exact_expected(result)
        failure = _exact_rules_difference(where, params, result)
        if failure:
            return out.fail(failure)
        failure = readout_difference(where, view["readouts"], expected)
        if failure:
            return out.fail(failure)
        tokens = t["acceptedDraft"] + t["rejectedDraft"] + t["bonusTokens"]
        if t["rejectedDraft"] + t["bonusTokens"] != t["targetCalls"] or tokens < params["length"]:
            return out.fail(f"{where}: {t['rejectedDraft']} corrections + {t['bonusTokens']} bonus tokens for "
                            f"{t['targetCalls']} calls, {tokens} tokens for {params['length']} asked")
        failure = phrase_missing(where, view, _exact_phrases(expected, params["length"], t, result["samples"]["count"]))
        if failure:
            return out.fail(failure)
        yield
        failure = _exact_figures_difference(where, view, params, result)
        if failure:
            return out.fail(failure)
        yield  # a pause: the browser answers a reader between two settings


def _exact_rules_difference(where, params: dict, result: dict) -> str | None:
    """The exact lab's figures by their rules, written out (docs/CONTRACT.md section 2), or None: the bug's distance
    from p (wrongTv) is its law's, min(p, q) + (1 - alpha) q on the reference pair; the mean alpha
    is the plain mean of the per-position alphas over positions 0..length-1 (lab.sampler.position_alpha), tokens per
    target call the length asked over the calls (not the tokens the last call wrote past it), and the run's speedup
    length / (target calls + draft calls x draftCost / 100)."""
    from fractions import Fraction

    from .. import sampler

    n, t = params["length"], result["trace"]
    # the plausible bug's law on the reference pair: what survives, min(p, q), plus a fresh draw from the DRAFT q after
    # each rejection (1 - alpha, alpha = sum min(p, q)); its distance from p is the wrongTv the lab shows
    p, q = (row.probs for row in sampler.reference_pair(params["certainty"], params["match"]))
    alpha = sum((min(a, b) for a, b in zip(p, q)), Fraction(0))
    buggy = [min(a, b) + (1 - alpha) * b for a, b in zip(p, q)]
    wrong_tv = sum((abs(a - b) for a, b in zip(p, buggy)), Fraction(0)) / 2
    if abs(result["contract"]["wrongTv"] - float(wrong_tv)) > 1e-12:
        return f"{where}: wrongTv is {result['contract']['wrongTv']}, the bug's law min(p, q) + (1 - alpha) q gives {float(wrong_tv)}"
    mean = sum((sampler.position_alpha(params["certainty"], params["match"], i) for i in range(n)), Fraction(0)) / n
    want = {"summaryAlpha": float(mean), "tokensPerTargetCall": n / t["targetCalls"],
            "speedup": n / (t["targetCalls"] + t["draftCalls"] * params["draftCost"] / 100)}
    got = {"summaryAlpha": result["summaryAlpha"], "tokensPerTargetCall": t["tokensPerTargetCall"], "speedup": t["speedup"]}
    for name, value in want.items():
        if abs(got[name] - value) > 1e-12 * max(1.0, value):
            return f"{where}: {name} is {got[name]}, its rule gives {value}"
    return None


def _exact_expected(result: dict) -> dict:
    """The exact sampler's readouts as lab.exact gives them, through the page's formatters."""
    from ..figures import tv_text

    f, (c, t, s) = to_fixed, (result["contract"], result["trace"], result["samples"])
    return {"alpha": f(c["alpha"], 3), "draftTv": f(c["draftTv"], 3), "exactTv": tv_text(c["exactTv"], 12),
            "wrongTv": f(c["wrongTv"], 3), "summaryAlpha": f(result["summaryAlpha"], 3),
            "theoreticalSpeedup": f(result["theoreticalSpeedup"], 2), "traceSpeedup": f(t["speedup"], 2),
            "tokensPerTargetCall": f(t["tokensPerTargetCall"], 2),
            "specEmpiricalTv": f(s["specEmpiricalTv"], 3), "targetEmpiricalTv": f(s["targetEmpiricalTv"], 3),
            "wrongEmpiricalTv": f(s["wrongEmpiricalTv"], 3)}


def _exact_phrases(expected: dict, length: int, t: dict, count: int) -> dict:
    """The lead's, summary's and live line's numbers: the readouts expected, the run's calls and tokens, the
    samples' count."""
    return {
        "lead": [f"off by TV {expected['wrongTv']}", f"made {expected['tokensPerTargetCall']} tokens per target call "
                 f"({expected['traceSpeedup']}x)"],
        "summary": [f"\u03b1 = {expected['alpha']} (TV(p, q) = {expected['draftTv']})",
                    f"Generating {length} tokens took {t['targetCalls']} target calls and "
                    f"{t['draftCalls']} draft passes ({t['acceptedDraft']} accepted, {t['rejectedDraft']} rejected "
                    f"and corrected, {t['bonusTokens']} bonus)",
                    f"against {expected['theoreticalSpeedup']}x predicted from the mean \u03b1 of "
                    f"{expected['summaryAlpha']}", f"From {count} samples each",
                    f"is {expected['specEmpiricalTv']} for the speculative sampler, {expected['targetEmpiricalTv']} "
                    f"for direct sampling and {expected['wrongEmpiricalTv']} for the bug"],
        "live": [f"\u03b1 {expected['alpha']}; {expected['traceSpeedup']}x in this run",
                 f"off by TV {expected['wrongTv']}"]}


def _exact_figures_difference(where, view: dict, params: dict, result: dict) -> str | None:
    """The p and q bars' tooltips and description, the output bars' and the trace's description against the
    reference pair and the run."""
    from .. import sampler
    from . import figure_difference

    f, t, s = to_fixed, result["trace"], result["samples"]
    tokens = t["acceptedDraft"] + t["rejectedDraft"] + t["bonusTokens"]
    p, q = (tuple(float(x) for x in row.probs) for row in sampler.reference_pair(params["certainty"], params["match"]))
    spec = [n / s["count"] for n in s["specCounts"]]
    wrong = [n / s["count"] for n in s["wrongCounts"]]
    # in the figures' order: the description (per token), then each token's tooltips
    bars = [value for a, b in zip(p, q) for value in (min(a, b), max(0.0, a - b), min(a, b), max(0.0, b - a))
            if value > 0]
    figures = {
        "distributions": [f(v, 3) for pair in zip(p, q) for v in pair] + [f(v, 4) for v in bars],
        "outputs": [f(v, digits) for digits in (3, 4) for triple in zip(p, spec, wrong) for v in triple],
        "trace": [str(tokens), str(t["targetCalls"]), str(t["acceptedDraft"]), str(t["rejectedDraft"]),
                  str(t["bonusTokens"])]}
    fixed = {"trace": [str(n) for n in range(1, t["targetCalls"] + 1)]}
    for name, numbers in figures.items():
        failure = figure_difference(where, name, view["figures"][name], numbers, fixed.get(name, ()),
                                    ordered=name != "trace")
        if failure:
            return failure
    return _exact_ticks_difference(where, view["figures"]["outputs"], params, (spec, wrong))


# Each sampler's bar carries a tick at its computed output probability (lab.exact.output_distributions): the
# speculative sampler's at the target p, the buggy one's at its biased law. The tick has no number of its own, so
# the numbers above do not see it drawn at the other sampler's value: each tick must cross its own bar (same x,
# in the bars' order, speculative then buggy per token) at its own sampler's value, on the scale the bars set.
_SAMPLER_BAR = re.compile(r'<rect x="([0-9.]+)" y="([0-9.]+)" width="[0-9.]+" height="([0-9.]+)" '
                          r'class="k-(?:speculative|buggy)">')
_EXACT_TICKS = re.compile(r'<path class="fig-exact" d="([^"]*)"')


def _exact_ticks_difference(where, svg: str, params: dict, sampled: tuple) -> str | None:
    """The output figure's computed-output ticks against lab.exact's laws (see above); ``sampled`` is the
    speculative and buggy samplers' frequencies per token."""
    from .. import exact

    laws = exact.output_distributions(params["certainty"], params["match"])
    computed = [float(v) for pair in zip(*laws) for v in pair]  # per token: speculative, buggy
    frequencies = [v for pair in zip(*sampled) for v in pair]
    bars = [(float(x), float(y) + float(h), float(h)) for x, y, h in _SAMPLER_BAR.findall(svg)]
    ticks = [(float(x) + 2, float(y)) for x, y in re.findall(r"M([0-9.]+) ([0-9.]+)h", _EXACT_TICKS.search(svg).group(1))]
    tallest = max(range(len(bars)), key=lambda i: bars[i][2])
    scale = bars[tallest][2] / frequencies[tallest]  # px per unit of probability
    if len(ticks) != len(bars) or len(bars) != len(computed):
        return f"{where}: the outputs figure has {len(ticks)} ticks for {len(bars)} sampler bars"
    for (bar_x, base, _), (tick_x, tick_y), value in zip(bars, ticks, computed):
        if abs(tick_x - bar_x) > 0.02 or abs(tick_y - (base - value * scale)) > 0.3:
            return f"{where}: a computed-output tick at ({tick_x}, {tick_y}) is not on its bar at {to_fixed(value, 4)}"
    return None


def seed_hostile_inputs_answered(out):
    """No input breaks the latency ledger or the exact sampler: every slider of each given NaN,
    infinities, an empty value, other scripts' digits, hex, underscores, markup or 5,000 characters (as
    a form value and in a link) is answered with a note naming it and the slider in range, never an
    error, a NaN or a long echo (lab.checks.hostile_inputs_answered); so are the ledger's measured curves
    with a rate of 1, NaN, a rate above 1, 80 rates or an unknown preset; a widget's link reads back as its settings."""
    from ..widgets import exact as exact_widget
    from ..widgets import ledger as ledger_widget
    from . import hostile_inputs_answered

    yield from hostile_inputs_answered(out, ledger_widget, cases=(
        ({"trcCurve": "custom:1,1,1"}, None), ({"trcCurve": "custom:nan"}, "trcCurve"),
        ({"trcCurve": "custom:1.5"}, "trcCurve"), ("?trcCurve=custom:" + ",".join(["0.5"] * 80), "trcCurve"),
        ({"trcCurve": "no-such-preset" * 400}, "trcCurve"), ({"trcCurve": "custom:0.9,0.5@3"}, "trcCurve")))
    if out.failure is None:
        yield from hostile_inputs_answered(out, exact_widget)
    if out.failure is None:
        out.visited += 1
        failure = url_state_difference()
        if failure:
            out.fail(failure)


def url_state_difference() -> str | None:
    """The URL state's rules on hand-worked cases (lab.urlstate), or None: a link a widget writes (its ``query``)
    gives back the settings it was made from, each slider under its own URL key (the exact sampler's draft cost is
    exactDraftCost: the ledger's draftCost is another slider); an integer slider takes the nearest whole number
    (4.6 is 5, 4.4 is 4); a value past the range is "more than the largest", below it "less than the smallest"; a
    log slider's typed count (the serving widget's batch) sets the nearest power's stop (48 is 2^6: log2 48 = 5.58)
    and is dropped for the stop when the link's slider sits elsewhere (2^7 = 128); and a link made after the
    panel's "Use in every instrument" with the panel's default k (4, no depMeasuredK) gives the trace reader the
    panel's figure (its mean acceptance length 2.60)."""
    from ..widgets import exact as exact_widget
    from ..widgets import ledger as ledger_widget
    from ..widgets import serving as serving_widget
    from ..widgets import traces as traces_widget

    for widget, values in ((exact_widget, {"draftCost": "37", "gamma": "7", "seed": "41"}),
                           (ledger_widget, {"draftCost": "21", "lookahead": "9", "acceptance": "63"}),
                           (serving_widget, {"batch": "48", "srvK": "3"})):
        view = widget.view(dict(values))
        again = widget.view("?" + view["query"])
        if again["params"] != view["params"]:
            changed = sorted(k for k in view["params"] if again["params"].get(k) != view["params"][k])
            return f"{widget.__name__}: its link {view['query'][:80]!r} reads back other settings ({', '.join(changed)})"
    for raw, whole in (("4.6", 5), ("4.4", 4), ("7.5", 8)):
        got = exact_widget.view({"gamma": raw})["params"]["gamma"]
        if got != whole:
            return f"exact: a lookahead of {raw} became {got}, not the nearest whole number {whole}"
    for raw, words in (("1e400", "more than the largest"), ("-5", "less than the smallest"), ("250", "more than the largest")):
        notes = ledger_widget.view({"acceptance": raw}).get("notes", [])
        if not any(words in note for note in notes):
            return f"ledger: acceptance {raw} is noted as {notes[:1]}, not as {words!r}"
    for query, batch, stop in (("?srvBatch=48", 48, 6), ("?srvBatch=40", 40, 5), ("?srvBatchLog2=7&srvBatch=48", 128, 7)):
        params = serving_widget.view(query)["params"]
        if (params["batch"], params["batchExp"]) != (batch, stop):
            return (f"serving {query}: batch {params['batch']} at the stop 2^{params['batchExp']}, not {batch} at "
                    f"2^{stop}")
    shown = traces_widget.view("?depValue=2.6&trcLookahead=4")["readouts"]
    if (shown.get("meanAcceptanceLength"), shown.get("lookahead")) != ("2.60", "4"):
        return f"traces: a panel link at the default k reads {shown.get('meanAcceptanceLength')}, not the figure 2.60"
    return None


SEED_CHECKS = (
    ("ledger-readouts-match-model", ledger_readouts_match_model),
    ("exact-readouts-match-model", exact_readouts_match_model),
    ("seed-hostile-inputs-answered", seed_hostile_inputs_answered),
)
