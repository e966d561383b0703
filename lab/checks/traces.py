"""The traces instrument's checks: parsers, per-position statistics, the translator and the
ledger's measured-curve mode. Every case is deterministic (built from small integer grids), so
a failure names a case that can be rerun by hand.
"""

import json
import math
import re

from .. import acceptance, ledger, stats, traces
from ..audit import GRID
from ..jsformat import to_fixed
from . import alpha_root, close, unescape

SIGNATURE_NOTE = (
    "alphaIid of the default preset (club-3090 #105, two vLLM log lines summed: k = 6, 527 drafts, 944 accepted): "
    "the root of sum_{i=1..6} a^i = 944/527, to 6 decimals. Cross-checked in tests/test_traces.py against "
    "numpy.roots of the same polynomial.")

# Histograms {accepted drafts in one call: calls} for the count identities: shallow and deep,
# independent-looking and strongly position-dependent, with empty positions.
HISTOGRAMS = (
    ({0: 5, 1: 3, 2: 2}, 2), ({0: 1, 3: 9}, 3), ({0: 7}, 4), ({5: 4}, 5), ({0: 10, 1: 9, 2: 7, 4: 1, 6: 3}, 6),
    ({0: 40, 1: 20, 2: 10, 3: 5, 4: 3}, 4), ({1: 1}, 1), ({0: 2, 7: 2}, 7), ({2: 1, 3: 1, 8: 1}, 12),
)


def _cases(out):
    for histogram, k in HISTOGRAMS:
        out.visited += 1
        yield histogram, k, traces.analyse(traces.cycles_to_trace(histogram, k))


def per_position_survival(out):
    """Unconditional per-position rates never rise with position, and each equals the product of
    the conditional rates up to it (surviving to position i means surviving every step before)."""
    for histogram, k, result in _cases(out):
        rates, conditional = result["perPosition"], result["conditional"]
        product = 1.0
        for i, rate in enumerate(rates):
            if i and rate > rates[i - 1]:
                out.fail(f"rate rises at position {i + 1} for {histogram} (k={k})")
                return
            product *= conditional[i] if conditional[i] is not None else 0.0
            if not close(product, rate, floor=1.0):
                out.fail(f"prod of conditionals {product} != {rate} at position {i + 1} for {histogram} (k={k})")
                return


def counts_add_up(out):
    """The accounting adds up: per-position accepted counts sum to the accepted total, and the mean
    acceptance length is 1 + accepted / drafts (it counts the verifier's own token)."""
    for histogram, _k, result in _cases(out):
        calls = sum(histogram.values())
        accepted = sum(value * n for value, n in histogram.items())
        from_rates = sum(result["perPosition"]) * calls
        if result["acceptedTokens"] != accepted or not close(from_rates, accepted, floor=1.0):
            out.fail(f"accepted {result['acceptedTokens']} (per-position sum {from_rates}) != {accepted} for {histogram}")
            return
        if not close(result["meanAcceptanceLength"], 1 + accepted / calls, floor=1.0):
            out.fail(f"mean acceptance length {result['meanAcceptanceLength']} != {1 + accepted / calls} for {histogram}")
            return


ALPHAS = tuple(i / 20 for i in range(21))
LOOKAHEADS = tuple(range(1, 13))


def translator_round_trips(out):
    """alpha -> engine acceptance rate -> alpha, and alpha -> mean acceptance length -> alpha, come
    back to the same alpha over alpha 0..1 (step 0.05) and k 1..12; the rate is E/k and the
    length 1 + E for E = sum alpha^i."""
    for k in LOOKAHEADS:
        for alpha in ALPHAS:
            out.visited += 1
            forward = traces.translate(k, alpha=alpha)
            expected = ledger.expected_accepted_drafts(alpha, k)
            if not (close(forward["acceptanceRate"], expected / k, floor=1.0) and close(forward["meanAcceptanceLength"], 1 + expected, floor=1.0)):
                out.fail(f"translate(k={k}, alpha={alpha}) gave rate {forward['acceptanceRate']}, "
                         f"length {forward['meanAcceptanceLength']}")
                return
            for name, value in (("acceptance_rate", forward["acceptanceRate"]),
                                ("mean_acceptance_length", forward["meanAcceptanceLength"])):
                back = traces.translate(k, **{name: value})["alpha"]
                if abs(back - alpha) > 1e-6:
                    out.fail(f"k={k}: alpha {alpha} -> {name} {value} -> alpha {back}")
                    return
            # the engines' other ratios in the translator's table: llama.cpp's draft acceptance rate is E / k (accepted
            # over drafted, no verifier token), SGLang's accept length 1 + E and its older accept rate (1 + E) / (k + 1)
            others = (forward["llamacppDraftAcceptanceRate"], forward["sglangAcceptLen"], forward["sglangAcceptRateOld"])
            if not all(close(a, b, floor=1.0) for a, b in zip(others, (expected / k, 1 + expected, (1 + expected) / (k + 1)))):
                out.fail(f"translate(k={k}, alpha={alpha}): llama.cpp rate, SGLang length and old rate {others}")
                return


def alpha_iid_solves_its_equation(out):
    """alphaIid is the root of sum_{i=1..k} alpha^i = L - 1 to within 1e-9, for every k 1..12 and
    mean acceptance length L from 1 to k + 1 in steps of a tenth of the range (the ends give alpha 0 and 1)."""
    for k in LOOKAHEADS:
        for step in range(11):
            out.visited += 1
            target = k * step / 10
            alpha = traces.alpha_iid(target, k)
            if not 0 <= alpha <= 1 or abs(ledger.expected_accepted_drafts(alpha, k) - target) > traces.ALPHA_TOLERANCE:
                out.fail(f"k={k}, mean length - 1 = {target}: alpha {alpha} gives {ledger.expected_accepted_drafts(alpha, k)}")
                return


def curve_ledger_equals_scalar_ledger(out):
    """On a constant curve (every conditional rate = acceptance/100) the measured-curve ledger equals
    the scalar ledger field for field, and finds the same best lookahead, over the seed audit grid
    (acceptance from its certainty and match values, its lookaheads and draft costs)."""
    acceptances = sorted(set(GRID["certainty"]) | set(GRID["match"]))
    for percent in acceptances:
        for lookahead in GRID["lookahead"]:
            for draft_cost in GRID["draftCost"]:
                out.visited += 1
                settings = ledger.LedgerSettings(acceptance=percent, lookahead=lookahead, draftCost=draft_cost)
                curve = [percent / 100] * min(lookahead, 3)  # short curves exercise the extrapolation
                scalar, measured = ledger.ledger(settings), ledger.ledger_from_curve(settings, curve)
                if any(not close(a, b, floor=1.0) for a, b in zip(scalar, measured)):
                    out.fail(f"curve ledger {measured} != {scalar} at acceptance={percent} k={lookahead} "
                             f"draftCost={draft_cost}")
                    return
                if ledger.best_lookahead(settings) != acceptance.best_lookahead_from_curve(settings, curve):
                    out.fail(f"best lookahead differs at acceptance={percent} draftCost={draft_cost}")
                    return
    # past a curve that is not constant the ledger repeats its last rate (the docstring of
    # lab.ledger.expected_accepted_from_curve), written out: 0.9, 0.9 x 0.5, 0.9 x 0.5^2, ... (0.9 never comes back)
    for lookahead in (3, 6, 12):
        out.visited += 1
        settings = ledger.LedgerSettings(lookahead=lookahead)
        want = sum(0.9 * 0.5 ** (i - 1) for i in range(1, lookahead + 1))
        got = ledger.ledger_from_curve(settings, [0.9, 0.5]).accepted
        if not close(got, want, floor=1.0):
            out.fail(f"the curve 0.9, 0.5 at k = {lookahead}: {got} accepted drafts, the last rate repeated gives {want}")
            return


LABEL_SPLITS = (
    ((("engine", "0"),),),
    ((("engine", "0"), ("model_name", "m")), (("engine", "1"), ("model_name", "m"))),
    tuple((("engine", str(e)), ("model_name", 'a \\"quoted\\", name')) for e in range(3)),
    tuple((("engine", str(e)),) for e in range(8)),
)


def exposition_round_trip(out):
    """Rendering vLLM's four counters as Prometheus text (split over 1, 2, 3 or 8 label sets, other
    metrics around them) and parsing the text back gives the same drafts, draft tokens, accepted
    total and per-position counts."""
    for histogram, k in HISTOGRAMS:
        original = traces.cycles_to_trace(histogram, k)
        for split in LABEL_SPLITS:
            out.visited += 1
            text = ("# HELP python_gc_objects_collected_total Objects collected.\n"
                    'python_gc_objects_collected_total{generation="0"} 312.0\n'
                    + traces.render_exposition(original.drafts, original.draftTokens, original.accepted,
                                               original.perPosition, split)
                    + 'vllm:num_requests_running{engine="0"} 1.0\n')
            back = traces.parse(text)
            if (back.format, back.drafts, back.draftTokens, back.accepted, back.perPosition) != (
                    "prometheus", original.drafts, original.draftTokens, original.accepted, original.perPosition):
                out.fail(f"{histogram} over {len(split)} label sets came back as {back}")
                return


def formats_agree(out):
    """One trace written in every format with exact counts (cycles, Prometheus exposition, vLLM's
    spec_decode summary, TensorRT-LLM iteration JSON) parses to the same drafts and accepted total."""
    for histogram, k in HISTOGRAMS:
        out.visited += 1
        t = traces.cycles_to_trace(histogram, k)
        cycles = "\n".join(str(value) for value, n in sorted(histogram.items()) for _ in range(n))
        summary = (f"num_drafts: {t.drafts}\nnum_draft_tokens: {t.draftTokens}\nnum_accepted_tokens: {t.accepted}\n")
        trtllm = ('[{"iter": 1, "specDecodingStats": {"numDraftTokens": %d, "numAcceptedTokens": %d, '
                  '"numRequestsWithDraftTokens": %d, "acceptanceLength": 1.0}}]' % (t.draftTokens, t.accepted, t.drafts))
        texts = {"cycles": (cycles, k), "prometheus": (traces.render_exposition(
            t.drafts, t.draftTokens, t.accepted, t.perPosition), None), "vllm-log": (summary, None),
            "trtllm-json": (trtllm, None)}
        for fmt, (text, lookahead) in texts.items():
            got = traces.parse(text, "auto", lookahead)
            if (got.format, got.lookahead, got.drafts, got.accepted) != (fmt, k, t.drafts, t.accepted):
                out.fail(f"{fmt} read {histogram} as {got.format} k={got.lookahead} drafts={got.drafts} "
                         f"accepted={got.accepted}")
                return


def independence_statistic_is_zero_exactly_on_iid_counts(out):
    """The likelihood-ratio statistic is 0 (p = 1) on counts that follow one constant conditional rate
    exactly (c_i = N r^i), and large (p < 0.001) when a curve falls steeply with position."""
    for k in range(2, 9):
        for ratio_numerator in (1, 2, 3):
            out.visited += 1
            n = 4 ** k  # divisible by 4^i, so the counts are exact for r = 1/4, 2/4, 3/4
            counts = tuple(n * ratio_numerator ** i // 4 ** i for i in range(1, k + 1))
            test = traces.independence_test(n, counts)
            if test["statistic"] != 0 or test["pValue"] != 1:
                out.fail(f"k={k} r={ratio_numerator}/4: statistic {test['statistic']} p {test['pValue']}")
                return
        out.visited += 1
        falling = [1000]
        for i in range(k):
            falling.append(falling[-1] * (9 - i) // 10)  # conditional rate 0.9, 0.8, 0.7, ...
        test = traces.independence_test(1000, tuple(falling[1:]))
        if not test["pValue"] < 0.001:
            out.fail(f"k={k}: falling curve {falling[1:]} gave p {test['pValue']}")
            return


def chi_square_tail_matches_closed_forms(out):
    """The chi-square tail the independence test uses (lab.stats.chi_square_survival) equals the
    regularized incomplete gamma function Q(df/2, x/2) and, for even df and df = 1, the textbook
    closed forms exp(-x/2) sum_{j<df/2} (x/2)^j / j! and erfc(sqrt(x/2)); over x in 0.1..60."""
    xs = (0.1, 0.5, 1.0, 2.0, 3.841458820694124, 5.0, 10.0, 20.0, 35.0, 60.0)
    for x in xs:
        for df in (1, 2, 3, 4, 5, 6, 10, 16):
            out.visited += 1
            got = traces.chi_square_survival(x, df)
            by_gamma = stats.regularized_gamma_q(df / 2, x / 2)
            if abs(got - by_gamma) > 1e-10 * max(1.0, by_gamma) and abs(got - by_gamma) > 1e-15:
                out.fail(f"chi-square tail at x={x}, df={df}: {got} != Q(df/2, x/2) = {by_gamma}")
                return
            if df == 1 or df % 2 == 0:
                if df == 1:
                    expected = math.erfc(math.sqrt(x / 2))
                else:
                    expected = math.exp(-x / 2) * sum((x / 2) ** j / math.factorial(j) for j in range(df // 2))
                if abs(got - expected) > 1e-10 * max(1.0, expected) and abs(got - expected) > 1e-15:
                    out.fail(f"chi-square tail at x={x}, df={df}: {got} != {expected}")
                    return


def _golden_mismatch(name, lookahead, model, expected):
    trace = traces.parse(traces.sample_text(name), "auto", lookahead, model)
    for field, value in expected.items():
        got = getattr(trace, field)
        if field == "meanAcceptanceLength" and got is not None and abs(got - value) <= 1e-9:
            continue
        if got != value:
            return f"{name}: {field} {got!r}, expected {value!r}"
    result = traces.analyse(trace)
    if trace.accepted is not None:
        if result["acceptanceRate"] != trace.accepted / trace.draftTokens:
            return f"{name}: acceptance rate {result['acceptanceRate']} is not accepted / drafted tokens"
        if result["meanAcceptanceLength"] != 1 + trace.accepted / trace.drafts:
            return f"{name}: mean acceptance length {result['meanAcceptanceLength']} is not 1 + accepted / calls"
    return None


def golden_files_read_right(out):
    """Every golden file (a public paste where one exists, else written from the engine's format
    string) goes through the format detector and comes out with the counts worked by hand: the
    format, k, verifier calls (each engine's own rule: llama.cpp's from n_predict - n_accept, the
    printed mean where vLLM's drafts were short, the last value of a repeated Prometheus series,
    the spec_decode summary without its periodic lines), drafted and accepted tokens, per-position
    counts rebuilt by rounding, the acceptance rate as accepted / drafted tokens; and an input of
    two models is refused, naming both, until one is chosen."""
    for name, lookahead, model, expected in GOLDEN_EXPECTED:
        out.visited += 1
        try:
            problem = _golden_mismatch(name, lookahead, model, expected)
        except traces.TraceError as error:
            problem = f"{name}: refused: {error}"
        if problem:
            out.fail(problem)
            return
    out.visited += 1
    try:
        traces.parse(traces.sample_text("prometheus_two_models.prom"))
        out.fail("prometheus_two_models.prom: two models were read as one")
    except traces.ModelChoiceError as error:
        if error.models != ["a", "b"]:
            out.fail(f"prometheus_two_models.prom: refused naming {error.models}, not ['a', 'b']")


# --- the readout family: every number the traces widget shows is the model's, through the page's formatter ---

# The page formats every number with lab.jsformat.to_fixed (JavaScript's toFixed); the expected strings
# below are built from the parsed counts with the formulas written out again here, not read back from
# lab.traces.analyse, so a readout that shows the wrong quantity, or a wrong analysis, fails.
def _normal_quantile(probability: float) -> float:
    """The standard normal's quantile by bisection on its cdf, 0.5 (1 + erf(z / sqrt 2)): written
    here, independent of lab.stats (importing statistics would add to the page's start-up).

    >>> round(_normal_quantile(0.975), 9)
    1.959963985
    """
    low, high = -10.0, 10.0
    for _ in range(200):
        middle = (low + high) / 2
        if 0.5 * (1 + math.erf(middle / math.sqrt(2))) < probability:
            low = middle
        else:
            high = middle
    return (low + high) / 2


Z_95 = _normal_quantile(0.975)   # the two-sided 95% point, computed here, not lab.stats.Z95
_UNESCAPE = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#x27;": "'", "&#39;": "'"}

READOUT_CASES = (
    ("default preset", None),
    ("MTP preset", {"trcPreset": "club3090-mtp"}),
    ("EAGLE-3 counts without curve", {"trcPreset": "vllm-26191-eagle3"}),
    ("llama.cpp 2026 line", {"trcPreset": "llamacpp-24536-eagle3"}),
    ("cycles, every position", {"trcText": "0\n3\n3\n1\n2\n3\n0\n3\n", "trcLookahead": "3"}),
    ("cycles, a position nobody reached", {"trcText": "0\n1\n0\n1\n", "trcLookahead": "4"}),
    # p = 0.027, between the two verdicts' thresholds (0.01, 0.05): the lead must say neither
    ("cycles, between the verdicts", {"trcText": "3\n3\n3\n2\n2\n0\n3\n2\n3\n2\n3\n", "trcLookahead": "3"}),
    ("single figure", {"trcText": "Mean acceptance length: 2.8", "trcLookahead": "4"}),
    ("llama.cpp lower bound", {"trcText": "slot print_timing: id  0 | task 0 | draft acceptance rate = 0.57576 "
                                          "(  133 accepted /   231 generated)\n", "trcLookahead": "7"}),
    ("two models, one chosen", {"trcText": None, "trcModel": "b", "golden": "prometheus_two_models.prom"}),
    ("llama.cpp cumulative statistics", {"trcText": None, "golden": "llamacpp_2026_stats.log"}),
)


def _readout_input(raw):
    """(form values for the widget, the trace the widget should have read)."""
    if raw is None:
        return None, traces.preset_trace(traces.DEFAULT_PRESET)
    raw = dict(raw)
    golden = raw.pop("golden", None)
    if golden is not None:
        raw["trcText"] = traces.sample_text(golden)
    if raw.get("trcText"):
        lookahead = int(raw["trcLookahead"]) if raw.get("trcLookahead") else None
        return raw, traces.parse(raw["trcText"], "auto", lookahead, raw.get("trcModel") or None)
    return raw, traces.preset_trace(raw["trcPreset"])


def _wilson_95(successes, trials):
    if trials <= 0:
        return 0.0, 1.0
    p, z2 = successes / trials, Z_95 * Z_95
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z_95 * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def _expected(trace) -> dict:
    """What the widget must show for ``trace``, from its counts (formulas in lab/traces/analysis.py's
    docstrings): mean_length = 1 + S / N, rate = S / draft tokens, alphaIid the root of
    sum alpha^i = mean_length - 1, alphaMle = S / (S + R), per-position c_i / N with Wilson 95% intervals,
    conditional c_i / c_{i-1}, the ledger on the measured curve at Part one's default costs."""
    k, n, c = trace.lookahead, trace.drafts, trace.perPosition
    if trace.meanAcceptanceLength is not None:  # formats without counts: the rate under full-length drafts, (mean_length - 1) / k
        mean_length = trace.meanAcceptanceLength
        rate = (mean_length - 1) / k
    else:
        mean_length, rate = 1 + trace.accepted / n, (trace.accepted / trace.draftTokens if trace.draftTokens else None)
    alpha = alpha_root(mean_length - 1, k)
    expected = {"k": k, "mean_length": mean_length, "rate": rate, "alpha": alpha, "bound": trace.callsBound, "drafts": n, "test": None,
                "accepted": trace.accepted, "mle": None, "curve": [alpha] * k, "positions": None}
    if c is not None and trace.draftsPerPosition is None:
        trials = [n] + list(c[:-1])
        conditional = [ci / t if t else None for ci, t in zip(c, trials)]
        curve, last = [], 0.0
        for rate_i in conditional:
            last = rate_i if rate_i is not None else last
            curve.append(last)
        expected.update(test=_likelihood_ratio(n, c))
        expected.update(mle=sum(c) / (sum(c) + n - c[-1]), curve=curve, positions=[
            (ci, ci / n, _wilson_95(ci, n), conditional[i], _wilson_95(ci, trials[i]) if trials[i] else None)
            for i, ci in enumerate(c)])
    settings = ledger.LedgerSettings()
    expected["speedup"] = ledger.ledger_from_curve(settings.with_(lookahead=k), expected["curve"]).speedup
    # past the measured k the curve continues as lab.acceptance continues it (not its last rate repeated), by the
    # prior of the drafter family the trace names (a log's configuration line or a preset's method), else the pooled one
    continued = (acceptance.from_single(mean_length, k, trace.method) if c is None or trace.draftsPerPosition is not None
                 else acceptance.from_conditional(expected["curve"], trace.method))
    expected["best"] = acceptance.best_lookahead_from_curve(settings, continued.rates(max(k, 12)), 12)
    expected["bestIid"] = acceptance.best_lookahead_from_curve(settings, [alpha], 12)
    expected["naive"] = ledger.ledger(settings.with_(lookahead=k, acceptance=100 * rate)).speedup if rate is not None else None
    expected["iid"] = ledger.ledger(settings.with_(lookahead=k, acceptance=100 * alpha)).speedup
    return expected


def _likelihood_ratio(n, counts):
    """(G, df, p, trend) of one constant conditional rate against one per position, written out
    again: at position i, c_{i-1} trials and c_i survivals; the constant rate S / (S + R); G = 2
    (log L_positions - log L_constant); p = Q(df/2, G/2), the chi-square tail; the trend compares
    the last conditional rate with the first."""
    trials = [n] + list(counts[:-1])
    accepted, rejected = sum(counts), n - counts[-1]
    constant = accepted / (accepted + rejected)

    def log_likelihood(s, t, rate):
        return (s * math.log(rate) if s else 0.0) + ((t - s) * math.log(1 - rate) if t - s else 0.0)

    used = [(t, s) for t, s in zip(trials, counts) if t > 0]
    g = 2 * sum(log_likelihood(s, t, s / t) - log_likelihood(s, t, constant) for t, s in used)
    g = 0.0 if g < 1e-9 * max(1.0, accepted) else g
    df = len(used) - 1
    p = stats.regularized_gamma_q(df / 2, g / 2) if df > 0 and g > 0 else 1.0
    first, last = counts[0] / trials[0], (counts[-1] / trials[-1] if trials[-1] else 0)
    return g, df, p, "falls" if last < first else "rises"


def _pct(value, digits=1):
    return "n/a" if value is None else to_fixed(100 * value, digits) + "%"


def _readout_views(out):
    from ..widgets import traces as widget

    for name, raw in READOUT_CASES:
        out.visited += 1
        form, trace = _readout_input(raw)
        yield name, widget.view(form), _expected(trace)


def readouts_match_model(out):
    """Every readout of the traces widget, and each model number in its lead and its working, is
    the number the counts give (formulas in :func:`_expected`), formatted as the page formats it
    (to_fixed: 1 decimal for percentages, 2 for lengths and speedups, 3 for alphas), over the
    presets, pasted cycles, a single figure, a lower bound and a chosen model. The engines'
    acceptance rate is accepted / drafted tokens, never alpha (the article's warning)."""
    for name, view, e in _readout_views(out):
        low, high = ("\u2265 ", "\u2264 ") if e["bound"] else ("", "")
        wanted = {
            "lookahead": str(e["k"]),
            "meanAcceptanceLength": high + to_fixed(e["mean_length"], 2),
            "acceptanceRate": _pct(e["rate"]),
            "alphaIid": high + to_fixed(e["alpha"], 3),
            "alphaMle": "n/a" if e["mle"] is None else to_fixed(e["mle"], 3),
            "acceptedTokens": "n/a" if e["accepted"] is None else str(e["accepted"]),
            "drafts": "n/a" if e["drafts"] is None else low + to_fixed(
                e["drafts"], 0 if float(e["drafts"]).is_integer() else 1),
            "speedup": high + to_fixed(e["speedup"], 2) + "x",
        }
        if e["test"] is not None:
            g, df, p, trend = e["test"]
            wanted["pValue"] = "< 0.0001" if p < 1e-4 else to_fixed(p, 4)
        for key, value in wanted.items():
            if view["readouts"].get(key) != value:
                out.fail(f"{name}: readout {key} shows {view['readouts'].get(key)!r}, the model gives {value!r}")
                return
        at_most = "at most " if e["bound"] else ""
        phrases = {"lead": [f"alpha = {at_most}{to_fixed(e['alpha'], 3)} a token",
                            f"mean acceptance length {at_most}{to_fixed(e['mean_length'], 2)} at k = {e['k']}",
                            f"its best k is {e['best'][0]}"],
                   "summary": [f"acceptance rate {_pct(e['rate'])}", f"alpha = {at_most}{to_fixed(e['alpha'], 3)}, "
                               f"not {'n/a' if e['rate'] is None else to_fixed(e['rate'], 2)}",
                               f"k = {e['best'][0]} ({to_fixed(e['best'][1], 2)}x in the ledger)"]}
        if e["test"] is not None and e["test"][1] > 0:
            g, df, p, trend = e["test"]
            phrases["summary"].append(f"G = {to_fixed(g, 2)} on {df} degrees of freedom")
            if p < 0.01:
                phrases["lead"].append(f"survival {trend} with position")
            elif p >= 0.05:
                phrases["lead"].append("one constant rate fits its counts")
            # and neither verdict on the wrong side of its threshold (between 0.01 and 0.05 the lead says none)
            said = [words for words, wrong in ((", but survival ", p >= 0.01), ("one constant rate fits", p < 0.05))
                    if wrong and words in view["lead"]]
            if said:
                out.fail(f"{name}: the lead says {said[0]!r} at p = {to_fixed(p, 4)}")
                return
        for field, texts in phrases.items():
            for text in texts:
                if text not in view[field]:
                    out.fail(f"{name}: the {field} does not say {text!r}: {view[field][:160]!r}")
                    return


def _cells(table_html: str) -> list[list[str]]:
    """The rows of an HTML table as lists of cell texts (th and td)."""
    bodies = re.findall(r"<tbody>(.*?)</tbody>", table_html, re.S)
    rows = [row for body in bodies for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]
    return [[re.sub(r"&(?:amp|lt|gt|quot|#x27|#39);", lambda m: _UNESCAPE[m[0]], cell)
             for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)] for row in rows]


def tables_match_model(out):
    """The translator's two tables and the per-position table show the model's numbers: the same
    trace in each engine's unit (alpha, accepted / drafted, 1 + accepted / calls, SGLang's two
    accept rates), the ledger's speedup from each reading and the best lookahead, per position the
    calls, the unconditional and conditional rates with Wilson 95% intervals and alpha^i (the table
    and the figure's marks), and Spec-Bench's speedup per token."""
    from ..widgets import traces as widget

    for name, view, e in _readout_views(out):
        k, mean_length, alpha, rate = e["k"], e["mean_length"], e["alpha"], e["rate"]
        units = {row[0]: row[1] for row in _cells(view["figures"]["translator"]) if len(row) == 3}
        wanted = {"per-token acceptance alpha (independent model)": to_fixed(alpha, 3),
                  "acceptance rate = accepted / drafted tokens": _pct(rate),
                  "mean acceptance length = 1 + accepted / calls": to_fixed(mean_length, 2),
                  "SGLang 'accept rate', newer versions = (accept len - 1) / k": to_fixed((mean_length - 1) / k, 2),
                  "SGLang 'accept rate', older versions = accept len / (k + 1)": to_fixed(mean_length / (k + 1), 2)}
        for label, value in wanted.items():
            if units.get(label) != value:
                out.fail(f"{name}: translator row {label!r} shows {units.get(label)!r}, the model gives {value!r}")
                return
        predictions = [row for row in _cells(view["figures"]["translator"]) if len(row) == 2]
        values = [row[1] for row in predictions]
        wanted_predictions = ([to_fixed(e["naive"], 2) + "x"] if e["naive"] is not None else []) + [
            to_fixed(e["iid"], 2) + "x", to_fixed(e["speedup"], 2) + "x",
            f"k = {e['bestIid'][0]}: {to_fixed(e['bestIid'][1], 2)}x", f"k = {e['best'][0]}: {to_fixed(e['best'][1], 2)}x"]
        if values != wanted_predictions:
            out.fail(f"{name}: the ledger's predictions show {values}, the model gives {wanted_predictions}")
            return
        if e["positions"] is None:
            continue
        rows = _cells(widget.positions_html(traces.analyse(_readout_input(dict(READOUT_CASES)[name])[1])))
        rows_on_page = _cells(view["figures"]["positions"])
        if rows != rows_on_page:
            out.fail(f"{name}: the per-position table on the page differs from the one for the same trace")
            return
        tips = re.findall(r'data-tip="([^"]*)"', view["figures"]["curve"])
        wanted_tips = []
        for i, (row, (count, u, ui, cond, ci)) in enumerate(zip(rows, e["positions"]), 1):
            wanted_row = [str(i), to_fixed(count, 0), f"{to_fixed(u, 3)} ({to_fixed(ui[0], 3)} to {to_fixed(ui[1], 3)})",
                          "n/a" if cond is None else f"{to_fixed(cond, 3)} ({to_fixed(ci[0], 3)} to {to_fixed(ci[1], 3)})",
                          to_fixed(alpha ** i, 3)]
            if row != wanted_row:
                out.fail(f"{name}: per-position row {i} shows {row}, the model gives {wanted_row}")
                return
            wanted_tips.append((i, "unconditional", u, ui))
            if cond is not None:
                wanted_tips.append((i, "conditional", cond, ci))
        wanted_tips = sorted(f"position {i}, {kind}: {to_fixed(r, 3)} (95% interval {to_fixed(iv[0], 3)} to "
                             f"{to_fixed(iv[1], 3)})" for i, kind, r, iv in wanted_tips)
        if sorted(tips) != wanted_tips:
            out.fail(f"{name}: the figure's marks read {sorted(tips)[:2]}..., the model gives {wanted_tips[:2]}...")
            return
        failure = _marks_placement_difference(name, view["figures"]["curve"])
        if failure:
            out.fail(failure)
            return
    out.visited += 1
    from ..widgets import traces as widget

    for row, (method, mean_length, speedup) in zip(_cells(widget.spec_bench_html()), traces.SPEC_BENCH):
        wanted = [method, to_fixed(mean_length, 2), to_fixed(speedup, 2) + "x", to_fixed(speedup / mean_length, 2)]
        if row != wanted:
            out.fail(f"Spec-Bench row {row} is not the quoted figures and speedup / tokens {wanted}")
            return


# Where the curve figure's marks sit, which the tooltips above do not say (the second outsider's mutation sweep,
# docs/CHECKS.md): the chance axis is labelled 0.00 to 1.00 in quarters, each mark's centre is at its own rate on
# that axis, and at each position the unconditional circle sits left of the conditional square.
_CHANCE_TICK = re.compile(r'<text class="fig-tick" x="[0-9.]+" y="([0-9.]+)" text-anchor="end">([^<]*)</text>')
_MARK = re.compile(r'<(circle|rect) class="k-(?:accepted|conditional)" (?:cx|x)="([0-9.]+)" (?:cy|y)="([0-9.]+)"'
                   r'(?: r="[0-9.]+"| width="([0-9.]+)" height="[0-9.]+") data-tip="position ([0-9]+), [a-z]+: ([0-9.]+)')


def _marks_placement_difference(name: str, svg: str) -> str | None:
    """The curve figure's chance ticks and marks against the chance axis (see above), or None."""
    ticks = _CHANCE_TICK.findall(svg)
    if [label for _, label in ticks] != ["0.00", "0.25", "0.50", "0.75", "1.00"]:
        return f"{name}: the chance axis is labelled {[label for _, label in ticks]}, not 0.00 to 1.00 in quarters"
    zero, one = float(ticks[0][0]) - 4, float(ticks[-1][0]) - 4
    centres = {}
    for shape, x, y, width, position, rate in _MARK.findall(svg):
        half = float(width) / 2 if shape == "rect" else 0.0
        cx, cy = float(x) + half, float(y) + half
        if abs(cy - (zero + float(rate) * (one - zero))) > 0.35:
            return f"{name}: position {position}'s {rate} is drawn at y = {cy:.1f}, not at {rate} on the chance axis"
        centres.setdefault(int(position), []).append((shape, cx))
    for position, marks in centres.items():
        if len(marks) == 2 and not marks[0][1] < marks[1][1]:
            return f"{name}: at position {position} the conditional square is not right of the unconditional circle"
    return None


def intervals_are_95_percent(out):
    """The Wilson intervals the reader reports (and its table, figure and CLI label '95%') are 95%
    intervals: z is the standard normal's 97.5% point, computed here by bisection on erf,
    over successes 0..n for n in 1, 2, 5, 20, 137, 1000; and per-position intervals of a trace are
    those of c_i out of N (unconditional) and out of c_{i-1} (conditional)."""
    for n in (1, 2, 5, 20, 137, 1000):
        for s in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            out.visited += 1
            got, want = traces.wilson_interval(s, n), _wilson_95(s, n)
            if any(abs(a - b) > 1e-12 for a, b in zip(got, want)):
                out.fail(f"Wilson interval of {s} in {n} is {got}; at 95% (z = {Z_95:.6f}) it is {want}")
                return
    for histogram, k in HISTOGRAMS:
        out.visited += 1
        result = traces.analyse(traces.cycles_to_trace(histogram, k))
        n = sum(histogram.values())
        counts = [sum(v for j, v in histogram.items() if j >= i) for i in range(1, k + 1)]
        trials = [n] + counts[:-1]
        for i, (ci, t) in enumerate(zip(counts, trials)):
            want_u, want_c = _wilson_95(ci, n), (_wilson_95(ci, t) if t else None)
            got_u, got_c = result["perPositionIntervals"][i], result["conditionalIntervals"][i]
            if any(abs(a - b) > 1e-12 for a, b in zip(got_u, want_u)) or (want_c is None) != (got_c is None) or (
                    want_c is not None and any(abs(a - b) > 1e-12 for a, b in zip(got_c, want_c))):
                out.fail(f"{histogram} (k={k}) position {i + 1}: intervals {got_u}, {got_c}; at 95% {want_u}, {want_c}")
                return


# Cumulative lines: each engine's line holds the run so far, so the last line of a run counts and a drop
# (a restart) starts a run that is added. (engine text, what must be read, why)
_LLAMA_STAT = ("0.06.{n:03d}.057 I statistics     draft-eagle3: #calls(b,g,a) =    1     {d:3d}     {d:3d}, #gen drafts "
               "=   {d:3d}, #acc drafts =   {a:3d}, #gen tokens =   {g:3d}, #acc tokens =   {t:3d}\n")
_V0_LINE = ("INFO 10-21 13:0{n}:00 metrics.py:396] Speculative metrics: Draft acceptance rate: 0.600, System "
            "efficiency: 0.500, Number of speculative tokens: 3, Number of accepted tokens: {a}, Number of draft "
            "tokens: {d}, Number of emitted tokens: {e}.\n")
CUMULATIVE_CASES = (
    ("llama.cpp statistics, one run", "".join(_LLAMA_STAT.format(n=i, d=d, a=a, g=g, t=t) for i, (d, a, g, t) in
                                                enumerate([(10, 8, 30, 15), (25, 20, 75, 40), (40, 31, 120, 62)])),
     3, {"drafts": 40, "draftTokens": 120, "accepted": 62}),
    ("llama.cpp statistics, a restart", "".join(_LLAMA_STAT.format(n=i, d=d, a=a, g=g, t=t) for i, (d, a, g, t) in
                                                  enumerate([(10, 8, 30, 15), (25, 20, 75, 40), (6, 5, 18, 9),
                                                             (12, 9, 36, 20)])),
     3, {"drafts": 37, "draftTokens": 111, "accepted": 60}),
    ("vLLM V0 Speculative metrics, one run", "".join(_V0_LINE.format(n=i, a=a, d=d, e=e) for i, (a, d, e) in
                                                       enumerate([(6, 12, 10), (20, 30, 28), (41, 60, 55)])),
     None, {"drafts": 20, "draftTokens": 60, "accepted": 35}),
)


def cumulative_lines_not_added(out):
    """Lines that are cumulative are never added: llama.cpp's ``statistics <impl>:`` lines and vLLM
    V0's ``Speculative metrics:`` lines each hold the run so far, so a run is its last line (three
    lines of one run read as the third), and a drop in the counters is a restart whose run is
    added (the last line before the drop plus the last line after it); interval lines are added, coverage too."""
    for name, text, lookahead, expected in CUMULATIVE_CASES:
        out.visited += 1
        trace = traces.parse(text, "auto", lookahead)
        got = {field: getattr(trace, field) for field in expected}
        if got != expected:
            out.fail(f"{name}: read {got}, the cumulative lines give {expected}")
            return
    out.visited += 1
    failure = _interval_lines_difference()
    if failure:
        out.fail(failure)


# A 2026 vLLM SpecDecoding line (one logging interval, not cumulative) with its per-position verification coverage
# (drafted at position i / calls), written from the format string tests/test_traces_real.py quotes: 4 calls drafting
# 4, 2 and 0 tokens at positions 1 to 3, 3 of the 4 and 1 of the 2 accepted, position 3 never drafted.
_COVERED_LINE = ("INFO 09-04 11:47:26 [metrics.py:125] SpecDecoding metrics: Mean acceptance length: 2.00, Mean "
                 "verification depth: 1.50/3, Accepted throughput: 0.10 tokens/s, Drafted throughput: 0.30 tokens/s, "
                 "Accepted: 4 tokens, Drafted: 6 tokens, Per-position acceptance rate: 0.750, 0.500, -----, "
                 "Per-position verification coverage: 1.000, 0.500, 0.000, Avg Draft acceptance rate: 66.7%")


def _interval_lines_difference() -> str | None:
    """Interval lines are added, their per-position coverage too: two copies of :data:`_COVERED_LINE` read as 8
    calls drafting 8, 4 and 0 tokens at the three positions, 6 and 2 accepted; and the curve the reader sends
    (lab.traces.measured_curve) gives a position no draft reached the conditional rate before it: 6 of 8, then 2 of
    the 6 x 4 / 8 = 3 survivors that had a second draft, then 2/3 again (the counts say nothing about position 3, so
    it is continued, not read as never accepted); or None."""
    trace = traces.parse(_COVERED_LINE + "\n" + _COVERED_LINE, "auto", None)
    got = (trace.drafts, trace.draftTokens, trace.accepted, trace.perPosition, trace.draftsPerPosition)
    if got != (8, 12, 8, (6, 2, 0), (8, 4, 0)):
        return f"two covered interval lines: read (calls, drafted, accepted, per position, drafted per position) {got}"
    sent = traces.measured_curve(traces.analyse(trace))
    if [round(rate, 12) for rate in sent] != [0.75, round(2 / 3, 12), round(2 / 3, 12)]:
        return f"two covered interval lines: the curve sent is {sent}, not 0.75, 2/3 and 2/3 (position 3 continued)"
    # the widget's send buttons carry that curve to the ledger and the serving model as a token of 4 decimals
    from ..widgets import traces as widget

    buttons = widget.view({"trcText": _COVERED_LINE + "\n" + _COVERED_LINE})["figures"]["send"]
    tokens = {}
    for target, values in _SEND_VALUES.findall(buttons):   # each widget's first button: the curve's
        sent_values = json.loads(unescape(values))
        tokens.setdefault(target, sent_values.get("trcCurve", sent_values.get("srvCurve")))
    for target in ("ledger", "serving"):
        if tokens.get(target) != "custom:0.7500,0.6667,0.6667":
            return f"the {target} send button carries {tokens.get(target)!r}, not custom:0.7500,0.6667,0.6667"
    return None


_SEND_VALUES = re.compile(r'data-target="([a-z]+)" disabled data-values="([^"]*)"')


CHECKS = (
    ("trace-per-position-survival", per_position_survival),
    ("trace-counts-add-up", counts_add_up),
    ("trace-translator-round-trips", translator_round_trips),
    ("trace-alpha-iid-solves-equation", alpha_iid_solves_its_equation),
    ("trace-curve-ledger-equals-scalar", curve_ledger_equals_scalar_ledger),
    ("trace-exposition-round-trip", exposition_round_trip),
    ("trace-formats-agree", formats_agree),
    ("trace-independence-zero-on-iid", independence_statistic_is_zero_exactly_on_iid_counts),
    ("trace-chi-square-closed-forms", chi_square_tail_matches_closed_forms),
    ("trace-golden-files", golden_files_read_right),
    ("trace-readouts-match-model", readouts_match_model),
    ("trace-tables-match-model", tables_match_model),
    ("trace-intervals-are-95-percent", intervals_are_95_percent),
    ("trace-cumulative-lines-not-added", cumulative_lines_not_added),
)


def signature_value() -> str:
    """alphaIid of the default preset, 6 decimals (see :data:`SIGNATURE_NOTE`)."""
    result = traces.analyse(traces.preset_trace(traces.DEFAULT_PRESET))
    return to_fixed(result["alphaIid"], 6)


# --- golden files: lab/traces/samples, one place for the suite (in the browser too) and the tests -------------

# (file, lookahead given, model chosen, what it must read as): counts worked by hand from each file's own
# figures, declared beside each format in its family module; tests/test_traces_formats.py shows the arithmetic.
GOLDEN_EXPECTED = tuple((sample.file, sample.lookahead, sample.model, sample.expected)
                        for row in traces.REGISTRY for sample in row.samples)
