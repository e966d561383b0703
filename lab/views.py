"""What each region of the page shows, as JSON-able dicts: the one seam between the lab and
the page. The build calls these with the defaults (CPython); the Pyodide worker calls them
with the reader's URL query or slider values. Every function here clamps instead of
raising: bad input comes back as ``notes`` and the other settings survive.
"""

from functools import lru_cache

from . import figures, instruments
from .figures import split_width
from .jsformat import to_fixed, to_js_string
from .ledger import (LedgerSettings, best_lookahead, best_lookahead_from_curve, heatmap_axes, ledger, ledger_from_curve,
                     speedup_grid)
from .urlstate import EXACT_SLIDERS, LEDGER_SLIDERS, clamp_params, format_query, parse_query, requested_curve

__all__ = ["heatmap_axes", "ledger_view", "exact_view", "audit_view", "instrument_audit_view", "page_context",
           "slider_specs", "handle", "split_width"]


def _audit():
    """lab.audit, imported on first use: the worker boots on ``import lab.views`` and the page
    goes live then, so the audit's 20 checks load with the first exact render or audit run,
    after the reader can already move a slider."""
    from . import audit

    return audit


def _exact():
    """(lab.exact, lab.sampler), imported on first use like the audit: the exact sampler and
    its Fractions load with the exact widget's first render (sent right after the page goes
    live), not before the ledger can answer."""
    from . import exact, sampler

    return exact, sampler


def _params(raw, sliders) -> tuple[dict, list[str]]:
    """Slider params from a URL query string or from a mapping of raw slider values."""
    if isinstance(raw, str):
        return parse_query(raw, sliders)
    params, _, notes = clamp_params(sliders, dict(raw or {}))
    return params, notes


@lru_cache(maxsize=32)
def _heatmap(draft_cost, overhead_ms, target_ms, verify_tax, width) -> tuple[list[list[float]], str]:
    """The grid and its figure depend on four sliders only; acceptance and lookahead just
    move the selection overlay, so dragging them reuses this (and the page skips the swap)."""
    settings = LedgerSettings(draftCost=draft_cost, overheadMs=overhead_ms, targetMs=target_ms, verifyTax=verify_tax)
    lookaheads, acceptances = heatmap_axes()
    grid = speedup_grid(settings, lookaheads, acceptances)
    return grid, figures.heatmap_svg(grid, lookaheads, acceptances, width)


def _f(value, digits=2) -> str:
    return to_fixed(value, digits)


CURVE_KEY = "trcCurve"  # the ledger's measured-curve mode: a traces preset name or custom:a1,a2,...


def ledger_view(raw=None) -> dict:
    """Part one for one slider setting: heatmap, its table, breakdown bar, summary sentence.
    With ``trcCurve`` it runs in measured-curve mode: a measured per-position curve replaces the
    acceptance slider in the ledger, the best lookahead and the breakdown (the heatmap stays the
    map of one alpha)."""
    raw, width = split_width(raw)
    params, notes = _params(raw, LEDGER_SLIDERS)
    settings = LedgerSettings(**params)
    result = ledger(settings)
    best_m, best_speedup = best_lookahead(settings)
    found = requested_curve(raw, CURVE_KEY, notes)
    curve_value, measured = found if found else ("", None)
    lead = f"At {_f(settings.acceptance, 0)}% acceptance and lookahead {settings.lookahead}"
    if measured:
        curve, label, _ = measured  # unlinkable data: requested_curve has said so
        result = ledger_from_curve(settings, curve)
        best_m, best_speedup = best_lookahead_from_curve(settings, curve)
        beyond = max(0, settings.lookahead - len(curve))
        lead = (f"In measured curve mode ({label}; the acceptance slider is set aside"
                + (f"; positions {len(curve) + 1} to {settings.lookahead} extrapolated at the last measured rate"
                   if beyond else "") + f"), at lookahead {settings.lookahead}")
    lookaheads, acceptances = heatmap_axes()
    grid, heatmap = _heatmap(settings.draftCost, settings.overheadMs, settings.targetMs, settings.verifyTax,
                           width)
    selected = (round(settings.acceptance / 5), settings.lookahead - 1)
    verdict = "faster" if result.speedup > 1 else "slower" if result.speedup < 1 else "no faster"
    # The scan stops at the last lookahead: a best lookahead there may really be larger.
    edge = best_m == lookaheads[-1]
    best_text = f"{best_m} or more" if edge else str(best_m)
    best_shown = f"\u2265 {best_m}" if edge else str(best_m)
    edge_note = ", the edge of the scan" if edge else ""
    summary = (
        f"{lead}, one verifier call buys "
        f"{_f(result.outputTokens)} tokens on average ({_f(result.accepted)} accepted drafts plus the verifier's own; "
        f"{_f(result.wastedDrafts)} drafts wasted). The cycle costs {_f(result.cycleMs, 1)} ms (draft "
        f"{_f(result.draftMs, 1)}, verify {_f(result.verifyMs, 1)}, overhead {_f(settings.overheadMs, 1)}), so a token "
        f"costs {_f(result.msPerToken, 1)} ms instead of {_f(settings.targetMs, 1)} ms: {_f(result.speedup)}x, "
        f"{verdict} than plain decoding. The best lookahead here is {best_shown} ({_f(best_speedup)}x{edge_note}).")
    live = f"{_f(result.speedup)}x {verdict}; best lookahead {best_text}"
    return {
        "params": params,
        "shown": {**{name: to_js_string(value) for name, value in params.items()}, CURVE_KEY: curve_value},
        "notes": notes,
        "query": format_query(params, LEDGER_SLIDERS) + (f"&{CURVE_KEY}={curve_value}" if measured and measured[2] else ""),
        "curveMode": bool(measured),
        "ledger": result._asdict(),
        "bestLookahead": best_m,
        "bestSpeedup": best_speedup,
        "summary": summary,
        "live": live,
        "width": width,
        "figures": {
            "heatmap": heatmap,
            "heatmapSelection": figures.heatmap_selection_svg(grid, lookaheads, acceptances, selected, width,
                                                              result.speedup),
            "table": figures.heatmap_table_html(grid, lookaheads, acceptances, selected),
            "breakdown": figures.breakdown_svg(result.draftMs, result.verifyMs, settings.overheadMs,
                                               result.outputTokens * settings.targetMs, result.outputTokens, width),
        },
    }


def exact_view(raw=None) -> dict:
    """Part three for one slider setting: p/q bars, outputs, trace strip, readouts, summary."""
    raw, width = split_width(raw)
    params, notes = _params(raw, EXACT_SLIDERS)
    exact, sampler = _exact()
    result = exact.evaluate(**params)
    notes = notes or result["notes"]
    p, q = sampler.reference_pair(params["certainty"], params["match"])
    c, t, s = result["contract"], result["trace"], result["samples"]
    count = s["count"]
    p_float, q_float = [float(x) for x in p.probs], [float(x) for x in q.probs]
    readouts = {
        "alpha": _f(c["alpha"], 3), "draftTv": _f(c["draftTv"], 3), "exactTv": "0 (exact)" if c["exactTv"] == 0 else _f(c["exactTv"], 12),
        "wrongTv": _f(c["wrongTv"], 3), "summaryAlpha": _f(result["summaryAlpha"], 3),
        "theoreticalSpeedup": _f(result["theoreticalSpeedup"]), "traceSpeedup": _f(t["speedup"]),
        "tokensPerTargetCall": _f(t["tokensPerTargetCall"]), "specEmpiricalTv": _f(s["specEmpiricalTv"], 3),
        "targetEmpiricalTv": _f(s["targetEmpiricalTv"], 3), "wrongEmpiricalTv": _f(s["wrongEmpiricalTv"], 3),
    }
    summary = (
        f"A draft token survives with probability \u03b1 = {readouts['alpha']} (TV(p, q) = {readouts['draftTv']}). "
        f"The speculative sampler's output is exactly the target (TV {_f(c['exactTv'], 3)}); the draft-resampling bug "
        f"is off by TV {readouts['wrongTv']}. Generating {params['length']} tokens took {t['targetCalls']} target "
        f"calls and {t['draftCalls']} draft passes ({t['acceptedDraft']} accepted, {t['rejectedDraft']} rejected and "
        f"corrected, {t['bonusTokens']} bonus): {readouts['tokensPerTargetCall']} tokens per call and "
        f"{readouts['traceSpeedup']}x in this run, against {readouts['theoreticalSpeedup']}x predicted from the mean "
        f"\u03b1 of {readouts['summaryAlpha']}. From {count} samples each, the empirical TV to the target is "
        f"{readouts['specEmpiricalTv']} for the speculative sampler, {readouts['targetEmpiricalTv']} for direct "
        f"sampling and {readouts['wrongEmpiricalTv']} for the bug.")
    vocabulary = sampler.VOCABULARY
    exact_output, buggy_output = exact.output_distributions(params["certainty"], params["match"])  # cached with the contract
    return {
        "params": params,
        "shown": {name: to_js_string(value) for name, value in params.items()},
        "notes": notes,
        "query": format_query(params, EXACT_SLIDERS),
        "readouts": readouts,
        "signature": _audit().exact_signature(result),
        "summary": summary,
        "live": (f"\u03b1 {readouts['alpha']}; {readouts['traceSpeedup']}x in this run; "
                 f"buggy sampler off by TV {readouts['wrongTv']}"),
        "width": width,
        "figures": {
            "distributions": figures.distributions_svg(p_float, q_float, vocabulary, width),
            "outputs": figures.outputs_svg(
                p_float, [n / count for n in s["specCounts"]], [n / count for n in s["wrongCounts"]], vocabulary,
                exact=[float(x) for x in exact_output], exact_buggy=[float(x) for x in buggy_output], width=width),
            "trace": figures.trace_svg(t["calls"], vocabulary, width),
        },
    }


def audit_view() -> dict:
    """Run the 20 checks: counter text, per-check results and the three signatures."""
    audit = _audit()
    result = audit.run_audit()
    return {
        "counter": audit.counter_text(result),
        "allPassed": not result["failures"],
        "checks": result["checks"],
        "checksHtml": figures.audit_checks_html(result["checks"]),
        "signatures": audit.signatures(result),
        "summary": {key: result[key] for key in ("checked", "passed", "failures", "settings", "maxExactTv", "maxAlphaGap")},
    }


def slider_specs(sliders) -> list[dict]:
    return [{"name": s.name, "label": s.label, "min": s.minimum, "max": s.maximum, "step": s.step,
             "default": s.default, "unit": s.unit, "control": s.control, "base": s.base} for s in sliders]


def page_context() -> dict:
    """Everything the build needs to pre-render the article in its default state: the seed
    widgets, the audit, and each instrument's own ``page_context()`` under ``instruments``."""
    audit = _audit()
    exact, sampler = _exact()
    return {
        "ledger": ledger_view(),
        "exact": exact_view(),
        "audit": audit_view(),
        "ledgerSliders": slider_specs(LEDGER_SLIDERS),
        "exactSliders": slider_specs(EXACT_SLIDERS),
        "model": {
            "vocabulary": sampler.VOCABULARY,
            "favourites": [sampler.VOCABULARY[f] for f in sampler.FAVOURITES],
            "contexts": sampler.CONTEXTS,
            "sampleCount": exact.SAMPLE_COUNT,
            "auditSettings": len(audit.SETTINGS),
            "auditGrid": audit.GRID,
        },
        "instruments": {name: instruments.part("widgets", name).page_context() for name in instruments.NAMES},
        "instrumentAudit": instrument_audit_view() if instruments.NAMES else None,
    }


def instrument_audit_view() -> dict:
    """The instruments suite (the second counter), run on every registered instrument."""
    from .checks import suite_view

    return suite_view()


SEED_VIEWS = {"ledger": ledger_view, "exact": exact_view}


def _respond(request: dict) -> dict:
    """One request of :func:`handle`, as a dict. Kinds: ``audit`` (``suite``: ``seed``, the
    default, or ``instruments``), a seed widget, or an instrument; ``op`` is ``view`` (the
    default) or ``warm`` (import the widget's module now, before the reader reaches it)."""
    kind, op = request.get("kind"), request.get("op", "view")
    if kind == "audit":
        suite = request.get("suite", "seed")
        if suite == "seed":
            return audit_view()
        if suite == "instruments":
            return instrument_audit_view()
        return {"error": f"unknown audit suite {suite!r}; valid: seed, instruments"}
    if kind in SEED_VIEWS:
        return {"warm": True} if op == "warm" else SEED_VIEWS[kind](request.get("input"))
    if instruments.is_instrument(kind):
        widget = instruments.part("widgets", kind)
        if op == "warm":
            return {"warm": True}
        if op == "view":
            return widget.view(request.get("input"))
        operation = getattr(widget, "OPERATIONS", {}).get(op) if isinstance(op, str) else None
        if operation is None:
            return {"error": f"unknown operation {op!r} for {kind}; valid: view, warm"
                             + "".join(f", {name}" for name in getattr(widget, "OPERATIONS", {}))}
        return operation(request)
    valid = ", ".join(("audit", *SEED_VIEWS, *instruments.NAMES))
    return {"error": f"unknown request kind {kind!r}; valid: {valid}"}


def handle(message: str) -> str:
    """The worker's single entry point: a JSON request in, a JSON response out.

    ``{"kind": K, "input": query-string-or-form-values, "op": "view" | "warm" | ...}`` (see
    :func:`_respond`). JSON both ways keeps the JavaScript free of Python objects. A failure
    comes back as ``{"error": ...}`` rather than an exception, so one bad request cannot take
    the worker down. An instrument may offer more operations in its ``OPERATIONS`` table
    (for example, a file fed in chunks)."""
    import json

    try:
        request = json.loads(message)
        if not isinstance(request, dict):
            return json.dumps({"error": "a request is a JSON object with a kind"})
        view = _respond(request)
        if "error" in view:
            return json.dumps({"error": view["error"]})
        return json.dumps({"kind": request.get("kind"), **view})
    except Exception as error:  # reported to the page as a notice, never a dead worker
        return json.dumps({"error": f"{type(error).__name__}: {error}"})
