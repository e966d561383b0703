"""The exact rejection sampler widget (part three): p and q token by token, what the speculative
and the buggy sampler emit against the target, and one seeded generation call by call, with
the readouts of the exact-lab contract (:func:`lab.exact.evaluate`, docs/CONTRACT.md).

The models are :mod:`lab.exact` and :mod:`lab.sampler` (exact fractions); the sliders are the
seed contract's (:data:`SLIDERS`, in :mod:`lab.urlstate`). Every figure is a string of SVG drawn
for its panel's width (docs/PALETTE.md), its text through :func:`lab.figures.escape`.
"""

from ..figures import DEFAULT_WIDTH, kept, svg, text_width, escape, fit_width, split_width, tv_text
from ..jsformat import to_fixed, to_js_string
from ..urlstate import EXACT_SLIDERS, format_query, read_controls

__all__ = ["SLIDERS", "view", "page_context", "distributions_svg", "outputs_svg", "trace_svg"]

SLIDERS = EXACT_SLIDERS


def _fmt(value: float, digits: int = 2) -> str:
    return to_fixed(value, digits)


def _models():
    """(lab.exact, lab.sampler, lab.audit), imported on first use: the worker boots on
    ``import lab.views`` and goes live then, so the exact sampler, its Fractions and the audit's
    signature code load with this widget's first render, not before the ledger can answer."""
    from .. import audit, exact, sampler

    return exact, sampler, audit


def _token_axis(vocabulary, left, column, baseline) -> tuple[list[str], float]:
    """Words centred under their columns; when they would touch, every other word drops a
    line. Returns the text elements and the height they take below ``baseline``."""
    widest = max(text_width(word) for word in vocabulary)
    staggered = widest + 6 > column
    parts = [f'<text class="fig-tick" x="{left + i * column + column / 2:.1f}" '
             f'y="{baseline + (15 if staggered and i % 2 else 0)}" text-anchor="middle">{escape(word)}</text>'
             for i, word in enumerate(vocabulary)]
    return parts, 15 if staggered else 0


def distributions_svg(p, q, vocabulary, width: int = DEFAULT_WIDTH) -> str:
    """p and q token by token. The p bar splits into the overlap min(p, q), which surviving
    drafts deliver, and the residual max(0, p - q), which corrections deliver; beside it
    the q bar shows the excess q - p that the verifier rejects."""
    width = fit_width(width)
    left, top = 4, 8
    plot_h = 120 if width < 480 else 150
    column = (width - 2 * left) / len(p)
    peak = max(max(p), max(q), 1e-12)
    body = [f'<line class="fig-axisline" x1="{left}" x2="{width - left}" y1="{top + plot_h}" y2="{top + plot_h}"/>']
    for i, (p_x, q_x) in enumerate(zip(p, q)):
        overlap, residual, excess = min(p_x, q_x), max(0.0, p_x - q_x), max(0.0, q_x - p_x)
        bar = column * 0.34
        x = left + i * column + (column - 2 * bar - 2) / 2
        for offset, parts in ((0, (("accepted", overlap, "overlap min(p, q)"), ("correction", residual, "residual p - q"))),
                              (bar + 2, (("accepted", overlap, "overlap min(p, q)"), ("rejected", excess, "rejected excess q - p")))):
            y = top + plot_h
            for key, value, name in parts:
                h = value / peak * plot_h
                if h > 0:
                    y -= h
                    body.append(f'<rect x="{x + offset:.2f}" y="{y:.2f}" width="{bar:.2f}" height="{h:.2f}" '
                                f'class="k-{key}"><title>{escape(vocabulary[i])}: {name} {_fmt(value, 4)}</title></rect>')
        body.append(f'<text class="fig-small" x="{x + bar / 2:.2f}" y="{top + plot_h + 14}" text-anchor="middle">p</text>')
        body.append(f'<text class="fig-small" x="{x + bar * 1.5 + 2:.2f}" y="{top + plot_h + 14}" text-anchor="middle">q</text>')
    words, extra = _token_axis(vocabulary, left, column, top + plot_h + 31)
    body += words
    label = "Target p and draft q per token: " + "; ".join(
        f"{w} p {_fmt(a, 3)} q {_fmt(b, 3)}" for w, a, b in zip(vocabulary, p, q))
    return svg(width, top + plot_h + 36 + extra, label, body, "distributions")


def outputs_svg(p, speculative, buggy, vocabulary, exact=None, exact_buggy=None, width: int = DEFAULT_WIDTH) -> str:
    """Target p (outlined) against the empirical output of the speculative sampler and of the
    buggy sampler (fractions of their samples). ``exact`` and ``exact_buggy``, the computed
    output distributions, are drawn as a tick across each sampler's bar: sampling noise is the
    gap between bar and tick, bias the gap between tick and target."""
    width = fit_width(width)
    left, top = 4, 8
    plot_h = 110 if width < 480 else 136
    column = (width - 2 * left) / len(p)
    exact = exact if exact is not None else p
    exact_buggy = exact_buggy if exact_buggy is not None else buggy
    peak = max(max(p), max(speculative), max(buggy), max(exact_buggy), 1e-12)
    body = [f'<line class="fig-axisline" x1="{left}" x2="{width - left}" y1="{top + plot_h}" y2="{top + plot_h}"/>']
    ticks = []
    for i, values in enumerate(zip(p, speculative, buggy)):
        bar = column * 0.26
        x0 = left + i * column + (column - 3 * bar - 2) / 2
        for j, (key, value, name) in enumerate(zip(("target", "speculative", "buggy"), values,
                                                   ("target p", "speculative sampler", "buggy sampler"))):
            h = value / peak * plot_h
            x = x0 + j * (bar + 1)
            if key == "target":
                body.append(f'<rect x="{x + 1:.2f}" y="{top + plot_h - h + 1:.2f}" width="{max(bar - 2, 0):.2f}" '
                            f'height="{max(h - 1, 0):.2f}" class="fig-target" fill="none" stroke-width="2">'
                            f'<title>{escape(vocabulary[i])}: {name} {_fmt(value, 4)}</title></rect>')
                continue
            body.append(f'<rect x="{x:.2f}" y="{top + plot_h - h:.2f}" width="{bar:.2f}" height="{h:.2f}" class="k-{key}">'
                        f'<title>{escape(vocabulary[i])}: {name} {_fmt(value, 4)}</title></rect>')
            computed = (exact if key == "speculative" else exact_buggy)[i]
            y = top + plot_h - computed / peak * plot_h
            ticks.append(f"M{x - 2:.2f} {y:.2f}h{bar + 4:.2f}")
    # the tick crosses bars of any colour: a halo of the surface colour keeps it apart from them
    body.append(f'<path class="fig-halo" d="{"".join(ticks)}" fill="none" stroke-width="6"/>')
    body.append(f'<path class="fig-exact" d="{"".join(ticks)}" fill="none" stroke-width="2.5"/>')
    words, extra = _token_axis(vocabulary, left, column, top + plot_h + 17)
    body += words
    label = "Output frequencies per token (target, speculative, buggy): " + "; ".join(
        f"{w} {_fmt(a, 3)}, {_fmt(b, 3)}, {_fmt(c, 3)}" for w, a, b, c in zip(vocabulary, p, speculative, buggy))
    return svg(width, top + plot_h + 22 + extra, label, body, "outputs")


def trace_svg(calls, vocabulary, width: int = DEFAULT_WIDTH) -> str:
    """The seeded generation call by call: accepted drafts, then the verifier's own token,
    a correction after a rejection or a bonus token when a whole block survived.

    Squares of one kind share one path; each call has one hover target whose tooltip reads
    out what the call committed (one tooltip per token would triple the figure's bytes)."""
    width = fit_width(width)
    cell = 12 if width >= 480 else 11
    gap, call_gap, row_h, left = 1, 5, cell + 7, 2
    x, y = left, 2
    squares = {"accepted": [], "correction": [], "bonus": []}
    targets = []
    for number, call in enumerate(calls, 1):
        committed = call["committed"]
        span = len(committed) * (cell + gap) - gap
        if x + span > width - left and x > left:
            x, y = left, y + row_h
        for index in range(len(committed)):
            last = index == len(committed) - 1
            kind = ("correction" if call["rejected"] else "bonus") if last else "accepted"
            squares[kind].append(f"M{x + index * (cell + gap)} {y}h{cell}v{cell}h-{cell}z")
        words = " ".join(vocabulary[token] for token in committed)
        ending = (f"draft \u2018{vocabulary[call['drafts'][len(committed) - 1]]}\u2019 rejected, corrected"
                  if call["rejected"] else "every draft accepted, plus a bonus token")
        targets.append(f'<rect x="{x}" y="{y}" width="{span}" height="{cell}" fill="none" pointer-events="all">'
                       f'<title>call {number}: {escape(words)} ({escape(ending)})</title></rect>')
        x += span + gap + call_gap
    body = [f'<path class="k-{kind}" d="{"".join(parts)}"/>' for kind, parts in squares.items() if parts] + targets
    height = y + cell + 2
    tokens = sum(len(c["committed"]) for c in calls)
    label = (f"Trace of {tokens} tokens in {len(calls)} verifier calls: {len(squares['accepted'])} accepted drafts, "
             f"{len(squares['correction'])} corrections after a rejection, {len(squares['bonus'])} bonus tokens.")
    return svg(width, height, label, body, "trace")


def view(raw=None) -> dict:
    """Part three for one slider setting: p/q bars, outputs, trace strip, readouts, summary."""
    raw, width = split_width(raw)
    params, notes = read_controls(raw, SLIDERS)
    exact, sampler, audit = _models()
    result = exact.evaluate(**params)
    notes = notes or result["notes"]
    c, t = result["contract"], result["trace"]
    readouts = _readouts(result)
    # The verifier's output law is computed in fractions, so it is the target's exactly (TV 0) or,
    # were the sampler broken, off by a TV the page must then show rather than round away.
    exact_words = ("is exactly the target distribution (TV 0)" if c["exactTv"] == 0
                   else f"is off the target distribution by TV {readouts['exactTv']}")
    return {
        "params": params,
        "shown": {name: to_js_string(value) for name, value in params.items()},
        "notes": notes,
        "query": format_query(params, SLIDERS),
        "readouts": readouts,
        "signature": audit.exact_signature(result),
        "lead": (f"The speculative sampler's output {exact_words}, "
                 f"where the draft-resampling bug is off by TV {readouts['wrongTv']}; this run made "
                 f"{readouts['tokensPerTargetCall']} tokens per target call ({readouts['traceSpeedup']}x)."),
        "summary": _summary(readouts, exact_words, params["length"], t, result["samples"]["count"]),
        "live": (f"\u03b1 {readouts['alpha']}; {readouts['traceSpeedup']}x in this run; "
                 f"buggy sampler off by TV {readouts['wrongTv']}"),
        "width": width,
        "figures": _figures(exact, sampler, params, result, width),
    }


def _readouts(result: dict) -> dict:
    """The readouts: the contract's alpha and TVs, the run's speedups and tokens per call, the samples' TVs."""
    c, t, s = result["contract"], result["trace"], result["samples"]
    return {
        "alpha": _fmt(c["alpha"], 3), "draftTv": _fmt(c["draftTv"], 3),
        "exactTv": tv_text(c["exactTv"], 12),
        "wrongTv": _fmt(c["wrongTv"], 3), "summaryAlpha": _fmt(result["summaryAlpha"], 3),
        "theoreticalSpeedup": _fmt(result["theoreticalSpeedup"]), "traceSpeedup": _fmt(t["speedup"]),
        "tokensPerTargetCall": _fmt(t["tokensPerTargetCall"]), "specEmpiricalTv": _fmt(s["specEmpiricalTv"], 3),
        "targetEmpiricalTv": _fmt(s["targetEmpiricalTv"], 3), "wrongEmpiricalTv": _fmt(s["wrongEmpiricalTv"], 3),
    }


def _summary(readouts: dict, exact_words: str, length: int, t: dict, count: int) -> str:
    """The summary: alpha, the output's exactness against the bug's, the run's calls and speedup against the
    prediction, and the samples' empirical TVs."""
    return (
        f"A draft token survives with probability \u03b1 = {readouts['alpha']} (TV(p, q) = {readouts['draftTv']}). "
        f"The speculative sampler's output {exact_words}; the draft-resampling bug "
        f"is off by TV {readouts['wrongTv']}. Generating {length} tokens took {t['targetCalls']} target "
        f"calls and {t['draftCalls']} draft passes ({t['acceptedDraft']} accepted, {t['rejectedDraft']} rejected and "
        f"corrected, {t['bonusTokens']} bonus): {readouts['tokensPerTargetCall']} tokens per call and "
        f"{readouts['traceSpeedup']}x in this run, against {readouts['theoreticalSpeedup']}x predicted from the mean "
        f"\u03b1 of {readouts['summaryAlpha']}. From {count} samples each, the empirical TV to the target is "
        f"{readouts['specEmpiricalTv']} for the speculative sampler, {readouts['targetEmpiricalTv']} for direct "
        f"sampling and {readouts['wrongEmpiricalTv']} for the bug.")


def _figures(exact, sampler, params: dict, result: dict, width: int) -> dict:
    """The p/q bars, the outputs and the trace strip. A step redraws only the figures its slider feeds
    (lab.figures.kept): the p/q bars read certainty and match, the outputs those and the seed, the trace all but
    the draft cost; each key holds the function that draws it, so a function replaced in the worker (the audit's
    figure mutations do it) draws afresh."""
    t, s = result["trace"], result["samples"]
    count = s["count"]
    p, q = sampler.reference_pair(params["certainty"], params["match"])
    p_float, q_float = [float(x) for x in p.probs], [float(x) for x in q.probs]
    vocabulary = sampler.VOCABULARY
    certainty, match = params["certainty"], params["match"]

    def outputs():
        exact_output, buggy_output = exact.output_distributions(certainty, match)  # cached with the contract
        return outputs_svg(
            p_float, [n / count for n in s["specCounts"]], [n / count for n in s["wrongCounts"]], vocabulary,
            exact=[float(x) for x in exact_output], exact_buggy=[float(x) for x in buggy_output], width=width)

    trace_key = (trace_svg, certainty, match, params["gamma"], params["length"], params["seed"], width)
    return {
        "distributions": kept("exact.distributions", (distributions_svg, certainty, match, width),
                              lambda: distributions_svg(p_float, q_float, vocabulary, width)),
        "outputs": kept("exact.outputs", (outputs_svg, certainty, match, params["seed"], width), outputs),
        "trace": kept("exact.trace", trace_key, lambda: trace_svg(t["calls"], vocabulary, width)),
    }


def differs(view: dict) -> str:
    """Under the lead when the deployment panel sent these settings: why its speedup is not the
    panel's (one sentence)."""
    return ("It takes only your k and draft cost: its acceptance comes from its own toy target and draft, so its "
            "speedup shows exact sampling at work, not your deployment.")


def page_context() -> dict:
    """What the build pre-renders: the default view, the slider specs, and the facts of the toy
    model that the article's "how the lab works" section quotes (``model``)."""
    from ..urlstate import slider_specs

    exact, sampler, audit = _models()
    return {
        "view": view(None),
        "sliders": slider_specs(SLIDERS),
        "model": {
            "vocabulary": sampler.VOCABULARY,
            "favourites": [sampler.VOCABULARY[f] for f in sampler.FAVOURITES],
            "contexts": sampler.CONTEXTS,
            "samplesEach": exact.SAMPLE_COUNT,
            "auditSettings": len(audit.SETTINGS),
            "auditGrid": audit.GRID,
        },
    }
