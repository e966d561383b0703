"""The traces instrument's checks: parsers, per-position statistics, the translator and the
ledger's measured-curve mode. Every case is deterministic (built from small integer grids), so
a failure names a case that can be rerun by hand.
"""

import math
import re

from .. import ledger, stats, traces
from ..audit import GRID
from ..jsformat import to_fixed
from . import alpha_root

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


def _close(a, b, tolerance=1e-12):
    return abs(a - b) <= tolerance * max(1.0, abs(a), abs(b))


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
            if not _close(product, rate):
                out.fail(f"prod of conditionals {product} != {rate} at position {i + 1} for {histogram} (k={k})")
                return


def counts_add_up(out):
    """The accounting adds up: per-position accepted counts sum to the accepted total, and the mean
    acceptance length is 1 + accepted / drafts (it counts the verifier's own token)."""
    for histogram, k, result in _cases(out):
        calls = sum(histogram.values())
        accepted = sum(value * n for value, n in histogram.items())
        from_rates = sum(result["perPosition"]) * calls
        if result["acceptedTokens"] != accepted or not _close(from_rates, accepted):
            out.fail(f"accepted {result['acceptedTokens']} (per-position sum {from_rates}) != {accepted} for {histogram}")
            return
        if not _close(result["meanAcceptanceLength"], 1 + accepted / calls):
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
            expected = traces.expected_accepted_iid(alpha, k)
            if not (_close(forward["acceptanceRate"], expected / k) and _close(forward["meanAcceptanceLength"], 1 + expected)):
                out.fail(f"translate(k={k}, alpha={alpha}) gave rate {forward['acceptanceRate']}, "
                         f"length {forward['meanAcceptanceLength']}")
                return
            for name, value in (("acceptance_rate", forward["acceptanceRate"]),
                                ("mean_acceptance_length", forward["meanAcceptanceLength"])):
                back = traces.translate(k, **{name: value})["alpha"]
                if abs(back - alpha) > 1e-6:
                    out.fail(f"k={k}: alpha {alpha} -> {name} {value} -> alpha {back}")
                    return


def alpha_iid_solves_its_equation(out):
    """alphaIid is the root of sum_{i=1..k} alpha^i = tau - 1 to within 1e-9, for every k 1..12 and
    tau from 1 to k + 1 in steps of a tenth of the range (the ends give alpha 0 and 1)."""
    for k in LOOKAHEADS:
        for step in range(11):
            out.visited += 1
            target = k * step / 10
            alpha = traces.alpha_iid(target, k)
            if not 0 <= alpha <= 1 or abs(traces.expected_accepted_iid(alpha, k) - target) > traces.ALPHA_TOLERANCE:
                out.fail(f"k={k}, tau-1={target}: alpha {alpha} gives {traces.expected_accepted_iid(alpha, k)}")
                return


def curve_ledger_equals_scalar_ledger(out):
    """On a constant curve (every conditional rate = acceptance/100) the measured-curve ledger equals
    the scalar ledger field for field, and finds the same best lookahead, over the seed audit grid
    (acceptance from its certainty and match values, its lookaheads and draft costs)."""
    acceptances = sorted(set(GRID["certainty"]) | set(GRID["match"]))
    for acceptance in acceptances:
        for lookahead in GRID["lookahead"]:
            for draft_cost in GRID["draftCost"]:
                out.visited += 1
                settings = ledger.LedgerSettings(acceptance=acceptance, lookahead=lookahead, draftCost=draft_cost)
                curve = [acceptance / 100] * min(lookahead, 3)  # short curves exercise the extrapolation
                scalar, measured = ledger.ledger(settings), ledger.ledger_from_curve(settings, curve)
                if any(not _close(a, b) for a, b in zip(scalar, measured)):
                    out.fail(f"curve ledger {measured} != {scalar} at acceptance={acceptance} m={lookahead} "
                             f"draftCost={draft_cost}")
                    return
                if ledger.best_lookahead(settings) != ledger.best_lookahead_from_curve(settings, curve):
                    out.fail(f"best lookahead differs at acceptance={acceptance} draftCost={draft_cost}")
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
            got = traces.chi_square_sf(x, df)
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
    trace = traces.parse(GOLDEN_FILES[name], "auto", lookahead, model)
    for field, value in expected.items():
        got = getattr(trace, field)
        if field == "meanLength" and got is not None and abs(got - value) <= 1e-9:
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
        traces.parse(GOLDEN_FILES["prometheus_two_models.prom"])
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
        raw["trcText"] = GOLDEN_FILES[golden]
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
    docstrings): tau = 1 + S / N, rate = S / draft tokens, alphaIid the root of
    sum alpha^i = tau - 1, alphaMle = S / (S + R), per-position c_i / N with Wilson 95% intervals,
    conditional c_i / c_{i-1}, the ledger on the measured curve at Part one's default costs."""
    k, n, c = trace.lookahead, trace.drafts, trace.perPosition
    if trace.meanLength is not None:  # formats without counts: the rate under full-length drafts, (tau - 1) / k
        tau = trace.meanLength
        rate = (tau - 1) / k
    else:
        tau, rate = 1 + trace.accepted / n, (trace.accepted / trace.draftTokens if trace.draftTokens else None)
    alpha = alpha_root(tau - 1, k)
    expected = {"k": k, "tau": tau, "rate": rate, "alpha": alpha, "bound": trace.callsBound, "drafts": n, "test": None,
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
    expected["best"] = ledger.best_lookahead_from_curve(settings, expected["curve"], 12)
    expected["bestIid"] = ledger.best_lookahead_from_curve(settings, [alpha], 12)
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
            "meanAcceptanceLength": high + to_fixed(e["tau"], 2),
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
                            f"mean acceptance length {at_most}{to_fixed(e['tau'], 2)} at k = {e['k']}",
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
        k, tau, alpha, rate = e["k"], e["tau"], e["alpha"], e["rate"]
        units = {row[0]: row[1] for row in _cells(view["figures"]["translator"]) if len(row) == 3}
        wanted = {"per-token acceptance alpha (independent model)": to_fixed(alpha, 3),
                  "acceptance rate = accepted / drafted tokens": _pct(rate),
                  "mean acceptance length = 1 + accepted / calls": to_fixed(tau, 2),
                  "SGLang 'accept rate', newer versions = (accept len - 1) / k": to_fixed((tau - 1) / k, 2),
                  "SGLang 'accept rate', older versions = accept len / (k + 1)": to_fixed(tau / (k + 1), 2)}
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
    out.visited += 1
    from ..widgets import traces as widget

    for row, (method, tau, speedup) in zip(_cells(widget.spec_bench_html()), traces.SPEC_BENCH):
        wanted = [method, to_fixed(tau, 2), to_fixed(speedup, 2) + "x", to_fixed(speedup / tau, 2)]
        if row != wanted:
            out.fail(f"Spec-Bench row {row} is not the quoted figures and speedup / tokens {wanted}")
            return


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
    added (the last line before the drop plus the last line after it)."""
    for name, text, lookahead, expected in CUMULATIVE_CASES:
        out.visited += 1
        trace = traces.parse(text, "auto", lookahead)
        got = {field: getattr(trace, field) for field in expected}
        if got != expected:
            out.fail(f"{name}: read {got}, the cumulative lines give {expected}")
            return


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


# --- golden files: copies of tests/data/traces (the suite also runs in the browser, where the test
# files are not at hand); tests/test_traces_formats.py checks that each copy equals its file. ------------

GOLDEN_FILES = {
    'cycles.txt': (
        "# Golden file: the plain per-cycle format of this project (the trace reader's own): one integer per verifier call,\n"
        '# the drafts it accepted (0..k). Defined by lab/traces.py (_Cycles); used with --lookahead 3.\n'
        '0\n'
        '1\n'
        '2\n'
        '3\n'
        '3\n'
        '1\n'
        '0\n'
        '2\n'
    ),
    'llamacpp_2026.log': (
        '0.06.895.980 I slot print_timing: id  1 | task 0 | prompt eval time =     300.11 ms /    20 tokens (   15.01 ms per token,    66.64 tokens per second)\n'
        '0.06.895.998 I slot print_timing: id  1 | task 0 |        eval time =    2296.72 ms /   256 tokens (    8.97 ms per token,   111.46 tokens per second)\n'
        '0.06.895.999 I slot print_timing: id  1 | task 0 |       total time =    2596.83 ms /   276 tokens\n'
        '0.06.896.009 I slot print_timing: id  1 | task 0 |    graphs reused =         85\n'
        '0.06.896.015 I slot print_timing: id  1 | task 0 | draft acceptance = 0.64479 (  167 accepted /   259 generated), mean acceptance length =  2.92, acceptance rate per position = (0.805, 0.632, 0.483)\n'
        '0.06.896.125 I slot      release: id  1 | task 0 | stop processing: n_tokens = 275, truncated = 0\n'
    ),
    'llamacpp_2026_stats.log': (
        '0.06.896.015 I slot print_timing: id  1 | task 0 | draft acceptance = 0.64479 (  167 accepted /   259 generated), mean acceptance length =  2.92, acceptance rate per position = (0.805, 0.632, 0.483)\n'
        '0.06.896.057 I statistics     draft-eagle3: #calls(b,g,a) =    1     87     87, #gen drafts =     87, #acc drafts =    70, #gen tokens =    259, #acc tokens =   167, #mean acc len = 2.92, #acc rate/pos = (0.805, 0.632, 0.483), dur(b,g,a) = 0.005, 325.555, 0.114 ms\n'
        '0.06.896.125 I slot      release: id  1 | task 0 | stop processing: n_tokens = 275, truncated = 0\n'
    ),
    'llamacpp_server.log': (
        '# Golden file: llama.cpp server log. Format defined by ggml-org/llama.cpp tools/server/server.cpp\n'
        '# (server_slot::print_timings, the line giving the draft acceptance ratio, then accepted and generated counts).\n'
        '# The figures are illustrative (no public paste of this older line was found).\n'
        'slot print_timing: id  0 | task 0 | prompt eval time =      35.10 ms /    12 tokens (    2.93 ms per token,   341.88 tokens per second)\n'
        'slot print_timing: id  0 | task 0 |        eval time =    1234.00 ms /   164 tokens (    7.52 ms per token,   132.90 tokens per second)\n'
        'slot print_timing: id  0 | task 0 | draft acceptance rate = 0.57576 (  133 accepted /   231 generated)\n'
        'srv  update_slots: all slots are idle\n'
    ),
    'llamacpp_speculative.log': (
        '# Golden file: llama.cpp speculative example. Format defined by ggml-org/llama.cpp\n'
        '# examples/speculative/speculative.cpp (LOG_INF of n_draft, n_predict, n_drafted, n_accept, accept).\n'
        '# Values are synthetic.\n'
        'encoded   12 tokens in    0.100 seconds, speed:  120.000 t/s\n'
        'decoded  128 tokens in    2.000 seconds, speed:   64.000 t/s\n'
        '\n'
        'n_draft   = 8\n'
        'n_predict = 128\n'
        'n_drafted = 96\n'
        'n_accept  = 60\n'
        'accept    = 62.500%\n'
    ),
    'llamacpp_stats_two.log': (
        'draft acceptance rate = 0.57576 (  171 accepted /   297 generated)\n'
        'statistics ngram_simple: #calls = 15, #gen drafts = 5, #acc drafts = 5, #gen tokens = 187, #acc tokens = 73\n'
        'statistics draft: #calls = 10, #gen drafts = 10, #acc drafts = 10, #gen tokens = 110, #acc tokens = 98\n'
    ),
    'prometheus.prom': (
        '# Golden file: vLLM /metrics (Prometheus text exposition), two engines, k = 3.\n'
        '# Format defined by vllm-project/vllm vllm/v1/spec_decode/metrics.py (class SpecDecodingProm:\n'
        '# counters vllm:spec_decode_num_drafts, _num_draft_tokens, _num_accepted_tokens and\n'
        '# _num_accepted_tokens_per_pos with a "position" label), written by prometheus_client as\n'
        '# counters: "_total" samples plus "_created" timestamps. Values are synthetic.\n'
        '# HELP python_gc_objects_collected_total Objects collected during gc\n'
        '# TYPE python_gc_objects_collected_total counter\n'
        'python_gc_objects_collected_total{generation="0"} 12345.0\n'
        '# HELP vllm:num_requests_running Number of requests in model execution batches.\n'
        '# TYPE vllm:num_requests_running gauge\n'
        'vllm:num_requests_running{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.0\n'
        '# HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.\n'
        '# TYPE vllm:spec_decode_num_drafts_total counter\n'
        'vllm:spec_decode_num_drafts_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 100.0\n'
        'vllm:spec_decode_num_drafts_total{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 60.0\n'
        'vllm:spec_decode_num_drafts_created{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.7567367987338755e+09\n'
        'vllm:spec_decode_num_drafts_created{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.7567367987338755e+09\n'
        '# HELP vllm:spec_decode_num_draft_tokens_total Number of draft tokens.\n'
        '# TYPE vllm:spec_decode_num_draft_tokens_total counter\n'
        'vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 300.0\n'
        'vllm:spec_decode_num_draft_tokens_total{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 180.0\n'
        '# HELP vllm:spec_decode_num_accepted_tokens_total Number of accepted tokens.\n'
        '# TYPE vllm:spec_decode_num_accepted_tokens_total counter\n'
        'vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 150.0\n'
        'vllm:spec_decode_num_accepted_tokens_total{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 75.0\n'
        '# HELP vllm:spec_decode_num_accepted_tokens_per_pos_total Accepted tokens per draft position.\n'
        '# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct",position="0"} 70.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct",position="1"} 50.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct",position="2"} 30.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct",position="0"} 40.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct",position="1"} 25.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct",position="2"} 10.0\n'
    ),
    'prometheus_two_models.prom': (
        '# Golden file: vLLM /metrics of two models (model_name label) pasted from two scrapes: the second scrape repeats\n'
        '# every series with larger cumulative values, so the last value of each series counts. Written from\n'
        '# vllm-project/vllm vllm/v1/spec_decode/metrics.py (SpecDecodingProm). Model a: k = 2 over two engines;\n'
        '# model b: k = 3.\n'
        'vllm:spec_decode_num_drafts_total{engine="0",model_name="a"} 10.0\n'
        'vllm:spec_decode_num_drafts_total{engine="1",model_name="a"} 10.0\n'
        'vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="a"} 20.0\n'
        'vllm:spec_decode_num_draft_tokens_total{engine="1",model_name="a"} 20.0\n'
        'vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="a"} 10.0\n'
        'vllm:spec_decode_num_accepted_tokens_total{engine="1",model_name="a"} 10.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="a",position="0"} 6.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="a",position="1"} 4.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="a",position="0"} 6.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="a",position="1"} 4.0\n'
        'vllm:spec_decode_num_drafts_total{engine="0",model_name="b"} 50.0\n'
        'vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="b"} 150.0\n'
        'vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="b"} 60.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="b",position="0"} 30.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="b",position="1"} 20.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="b",position="2"} 10.0\n'
        '# the next scrape\n'
        'vllm:spec_decode_num_drafts_total{engine="0",model_name="a"} 100.0\n'
        'vllm:spec_decode_num_drafts_total{engine="1",model_name="a"} 60.0\n'
        'vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="a"} 200.0\n'
        'vllm:spec_decode_num_draft_tokens_total{engine="1",model_name="a"} 120.0\n'
        'vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="a"} 120.0\n'
        'vllm:spec_decode_num_accepted_tokens_total{engine="1",model_name="a"} 50.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="a",position="0"} 70.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="a",position="1"} 50.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="a",position="0"} 30.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="a",position="1"} 20.0\n'
        'vllm:spec_decode_num_drafts_total{engine="0",model_name="b"} 80.0\n'
        'vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="b"} 240.0\n'
        'vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="b"} 96.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="b",position="0"} 48.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="b",position="1"} 32.0\n'
        'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="b",position="2"} 16.0\n'
    ),
    'prometheus_v08.prom': (
        '# Golden file: vLLM 0.8.x /metrics, before the num_drafts counter existed: only draft and accepted tokens.\n'
        '# Written from vllm-project/vllm vllm/v1/spec_decode/metrics.py as of pull request #15151 (vLLM 0.8.3).\n'
        '# Read with --lookahead 3: calls = 300 / 3 = 100 (full-length drafts assumed).\n'
        '# HELP vllm:spec_decode_num_draft_tokens_total Number of draft tokens.\n'
        '# TYPE vllm:spec_decode_num_draft_tokens_total counter\n'
        'vllm:spec_decode_num_draft_tokens_total{model_name="m"} 300.0\n'
        '# HELP vllm:spec_decode_num_accepted_tokens_total Number of accepted tokens.\n'
        '# TYPE vllm:spec_decode_num_accepted_tokens_total counter\n'
        'vllm:spec_decode_num_accepted_tokens_total{model_name="m"} 150.0\n'
    ),
    'sglang.log': (
        '# Golden file: SGLang scheduler log. Format defined by sgl-project/sglang\n'
        '# python/sglang/srt/managers/scheduler.py (the Decode batch log line with its accept len field, %.2f).\n'
        '# Values are synthetic.\n'
        '[2025-03-01 10:00:00 TP0] Prefill batch. #new-seq: 1, #new-token: 32, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0\n'
        '[2025-03-01 10:00:01 TP0] Decode batch. #running-req: 1, #token: 120, token usage: 0.01, accept len: 3.20, gen throughput (token/s): 150.00, #queue-req: 0\n'
        '[2025-03-01 10:00:02 TP0] Decode batch. #running-req: 1, #token: 160, token usage: 0.01, accept len: 2.80, gen throughput (token/s): 140.00, #queue-req: 0\n'
    ),
    'sglang_accept_rate.log': (
        '[2025-11-02 10:00:01] Decode batch, #running-req: 4, #token: 1234, token usage: 0.01, accept len: 3.20, accept rate: 0.64, cuda graph: True, gen throughput (token/s): 250.00, #queue-req: 0, \n'
        '[2025-11-02 10:00:05] Decode batch, #running-req: 4, #token: 1418, token usage: 0.01, accept len: 2.80, accept rate: 0.56, cuda graph: True, gen throughput (token/s): 230.00, #queue-req: 0, \n'
    ),
    'single_number.txt': (
        'Mean acceptance length: 2.8\n'
    ),
    'trtllm_iteration_stats.json': (
        '[\n'
        '  {\n'
        '    "iter": 1,\n'
        '    "iterLatencyMS": 12.5,\n'
        '    "numActiveRequests": 3,\n'
        '    "specDecodingStats": {\n'
        '      "numDraftTokens": 12,\n'
        '      "numAcceptedTokens": 7,\n'
        '      "numRequestsWithDraftTokens": 3,\n'
        '      "acceptanceLength": 3.3333333333333335,\n'
        '      "iterLatencyMS": 1.5,\n'
        '      "draftOverhead": 0.12\n'
        '    }\n'
        '  },\n'
        '  {\n'
        '    "iter": 2,\n'
        '    "iterLatencyMS": 11.0,\n'
        '    "numActiveRequests": 2,\n'
        '    "specDecodingStats": {"numDraftTokens": 8, "numAcceptedTokens": 3, "numRequestsWithDraftTokens": 2, "acceptanceLength": 2.5, "iterLatencyMS": 1.2, "draftOverhead": 0.1}\n'
        '  },\n'
        '  {\n'
        '    "iter": 3,\n'
        '    "iterLatencyMS": 9.0,\n'
        '    "numActiveRequests": 1,\n'
        '    "specDecodingStats": {"numDraftTokens": 0, "numAcceptedTokens": 0, "numRequestsWithDraftTokens": 0, "acceptanceLength": 0.0, "iterLatencyMS": 0.0, "draftOverhead": 0.0}\n'
        '  }\n'
        ']\n'
    ),
    'trtllm_null_stats.jsonl': (
        '{"iter": 0, "iterLatencyMS": 30.2, "numActiveRequests": 1, "specDecodingStats": null}\n'
        '{"iter": 1, "iterLatencyMS": 10.1, "numActiveRequests": 2, "specDecodingStats": {"numDraftTokens": 6, "numAcceptedTokens": 4, "numRequestsWithDraftTokens": 2, "acceptanceLength": 3.0, "iterLatencyMS": 1.1, "draftOverhead": 0.1}}\n'
        '{"iter": 2, "iterLatencyMS": 10.4, "numActiveRequests": 2, "specDecodingStats": {"numDraftTokens": 6, "numAcceptedTokens": 1, "numRequestsWithDraftTokens": 2, "acceptanceLength": 1.5, "iterLatencyMS": 1.0, "draftOverhead": 0.1}}\n'
    ),
    'vllm_bench.txt': (
        '============ Serving Benchmark Result ============\n'
        'Successful requests:                     20        \n'
        'Failed requests:                         0         \n'
        'Maximum request concurrency:             1         \n'
        'Benchmark duration (s):                  266.90    \n'
        '---------------Speculative Decoding---------------\n'
        'Acceptance rate (%):                     73.47     \n'
        'Acceptance length:                       3.20      \n'
        'Drafts:                                  6393      \n'
        'Draft tokens:                            19179     \n'
        'Accepted tokens:                         14090     \n'
        'Per-position acceptance (%):\n'
        '  Position 0:                            83.42     \n'
        '  Position 1:                            72.91     \n'
        '  Position 2:                            64.07     \n'
        '==================================================\n'
    ),
    'vllm_log.txt': (
        '# Golden file: vLLM log lines, verbatim from noonghunna/club-3090 issue #105 (vLLM 0.20.1, Qwen3.6-27B, MTP, k = 6).\n'
        '# Format defined by vllm-project/vllm vllm/v1/spec_decode/metrics.py (SpecDecodingLogging.log): Mean acceptance\n'
        '# length %.2f, Accepted %d tokens, Drafted %d tokens, per-position rates %.3f, Avg Draft acceptance rate %.1f%%.\n'
        '(APIServer pid=13026) INFO:     127.0.0.1:37582 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'
        '(APIServer pid=13026) INFO 05-08 16:25:09 [loggers.py:271] Engine 000: Avg prompt throughput: 2.5 tokens/s, Avg generation throughput: 74.7 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 7.4%, Prefix cache hit rate: 0.0%\n'
        '(APIServer pid=13026) INFO 05-08 16:25:09 [metrics.py:101] SpecDecoding metrics: Mean acceptance length: 2.87, Accepted throughput: 48.90 tokens/s, Drafted throughput: 157.19 tokens/s, Accepted: 489 tokens, Drafted: 1572 tokens, Per-position acceptance rate: 0.740, 0.473, 0.309, 0.187, 0.099, 0.057, Avg Draft acceptance rate: 31.1%\n'
        '(APIServer pid=13026) INFO 05-08 16:25:19 [metrics.py:101] SpecDecoding metrics: Mean acceptance length: 2.72, Accepted throughput: 45.49 tokens/s, Drafted throughput: 158.98 tokens/s, Accepted: 455 tokens, Drafted: 1590 tokens, Per-position acceptance rate: 0.728, 0.445, 0.275, 0.151, 0.075, 0.042, Avg Draft acceptance rate: 28.6%\n'
    ),
    'vllm_ngram_short.log': (
        '# Golden file: vLLM V1 log, n-gram drafting with drafts shorter than k = 3. Written from the format string of\r\n'
        '# vllm-project/vllm vllm/v1/spec_decode/metrics.py (SpecDecodingLogging.log); pasted with CRLF, colour codes and\r\n'
        '# the engine-core prefix. 1000 calls, 2400 drafted, 1200 accepted, per-position counts 550, 400, 250.\r\n'
        "(EngineCore_0 pid=4242) INFO 05-12 10:11:02 [core.py:95] Initializing a V1 LLM engine with config: model='Qwen/Qwen2.5-7B'\r\n"
        '(EngineCore_0 pid=4242) \x1b[32mINFO\x1b[0m 05-12 10:11:12 [metrics.py:123] SpecDecoding metrics: Mean acceptance length: 2.20, Accepted throughput: 120.00 tokens/s, Drafted throughput: 240.00 tokens/s, Accepted: 1200 tokens, Drafted: 2400 tokens, Per-position acceptance rate: 0.550, 0.400, 0.250, Avg Draft acceptance rate: 50.0%\r\n'
    ),
    'vllm_ngram_summary.txt': (
        "# Golden file: the summary of vLLM's examples/offline_inference/spec_decode.py --method ngram (k = 2), verbatim\n"
        '# from vllm-project/vllm issue #27287. num_draft_tokens 147899 < 2 x 74097: n-gram drafts can be short.\n'
        '--------------------------------------------------\n'
        'total_num_output_tokens: 248291\n'
        'num_drafts: 74097\n'
        'num_draft_tokens: 147899\n'
        'num_accepted_tokens: 141162\n'
        'mean acceptance length: 2.91\n'
        '--------------------------------------------------\n'
        'acceptance at token 0: 0.96\n'
        'acceptance at token 1: 0.94\n'
    ),
    'vllm_periodic_and_summary.txt': (
        "# Golden file: the console of vLLM's examples/offline_inference/spec_decode.py (k = 2): the engine's periodic\n"
        "# SpecDecoding metrics lines (vllm/v1/spec_decode/metrics.py) and then the run's cumulative summary (the\n"
        "# example's print of llm.get_metrics()). Written from both format strings; the summary alone must count.\n"
        'INFO 06-01 09:00:10 [metrics.py:101] SpecDecoding metrics: Mean acceptance length: 2.50, Accepted throughput: 30.00 tokens/s, Drafted throughput: 40.00 tokens/s, Accepted: 300 tokens, Drafted: 400 tokens, Per-position acceptance rate: 0.800, 0.700, Avg Draft acceptance rate: 75.0%\n'
        'INFO 06-01 09:00:20 [metrics.py:101] SpecDecoding metrics: Mean acceptance length: 2.00, Accepted throughput: 20.00 tokens/s, Drafted throughput: 40.00 tokens/s, Accepted: 200 tokens, Drafted: 400 tokens, Per-position acceptance rate: 0.600, 0.400, Avg Draft acceptance rate: 50.0%\n'
        '--------------------------------------------------\n'
        'total_num_output_tokens: 1200\n'
        'num_drafts: 400\n'
        'num_draft_tokens: 800\n'
        'num_accepted_tokens: 500\n'
        'mean acceptance length: 2.25\n'
        '--------------------------------------------------\n'
        'acceptance at token 0: 0.70\n'
        'acceptance at token 1: 0.55\n'
    ),
    'vllm_request.jsonl': (
        '{"request_id": "r1", "model": "meta-llama/Llama-3.1-8B-Instruct", "acceptance_histogram": [2, 1, 0, 3]}\n'
        '{"request_id": "r2", "model": "meta-llama/Llama-3.1-8B-Instruct", "acceptance_histogram": [1, 2, 2, 1]}\n'
    ),
    'vllm_request_stats.json': (
        '{\n'
        '  "id": "cmpl-7f3c",\n'
        '  "object": "text_completion",\n'
        '  "model": "Qwen/Qwen3-8B",\n'
        '  "choices": [\n'
        '    {\n'
        '      "index": 0,\n'
        '      "text": " and so the draft tokens were checked in one pass.",\n'
        '      "finish_reason": "stop",\n'
        '      "speculative_decoding_stats": {\n'
        '        "mean_acceptance_length": 2.6,\n'
        '        "draft_acceptance_rate": 0.4,\n'
        '        "acceptance_histogram": {"0": 3, "1": 3, "2": 1, "3": 1, "4": 2},\n'
        '        "num_spec_steps": 10,\n'
        '        "num_accepted_draft_tokens": 16,\n'
        '        "num_draft_tokens": 40,\n'
        '        "num_spec_tokens": 4\n'
        '      }\n'
        '    },\n'
        '    {\n'
        '      "index": 1,\n'
        '      "text": " no draft here.",\n'
        '      "finish_reason": "stop",\n'
        '      "speculative_decoding_stats": null\n'
        '    }\n'
        '  ]\n'
        '}\n'
    ),
    'vllm_request_v0.json': (
        '[\n'
        '  {"request_id": "0", "metrics": {"arrival_time": 1749797930.09, "spec_token_acceptance_counts": [10, 8, 5, 2]}},\n'
        '  {"request_id": "1", "metrics": {"arrival_time": 1749797931.10, "spec_token_acceptance_counts": [6, 3, 1, 0]}}\n'
        ']\n'
    ),
    'vllm_spec_decode_summary.txt': (
        "# Golden file: the summary printed by vLLM's examples/offline_inference/spec_decode.py, verbatim from\n"
        '# vllm-project/vllm issue #26191 (Llama-3.1-8B-Instruct + EAGLE-3, MT-bench, temperature 0, k = 7).\n'
        '# Format defined by vllm-project/vllm examples/offline_inference/spec_decode.py (print of num_drafts,\n'
        '# num_draft_tokens, num_accepted_tokens, mean acceptance length, then one line per position).\n'
        'total_num_output_tokens: 16990\n'
        'num_drafts: 4816\n'
        'num_draft_tokens: 33712\n'
        'num_accepted_tokens: 12208\n'
        'mean acceptance length: 3.53\n'
        '--------------------------------------------------\n'
    ),
    'vllm_v0.log': (
        '# Golden file: vLLM V0 log line, verbatim from vllm-project/vllm issue #9539 (vLLM 0.6.3, k = 3).\n'
        '# Format defined by vllm-project/vllm vllm/engine/metrics.py (_format_spec_decode_metrics_str): cumulative\n'
        '# counters; calls = draft tokens / k, accepted prefix = emitted - calls (vllm-project/vllm#9565).\n'
        'INFO 10-16 19:05:47 metrics.py:367] Speculative metrics: Draft acceptance rate: 0.642, System efficiency: 0.598, Number of speculative tokens: 3, Number of accepted tokens: 8547, Number of draft tokens: 13311, Number of emitted tokens: 10616.\n'
        'INFO 10-16 19:06:01 metrics.py:361] Prefix cache hit rate: GPU: 94.35%, CPU: 0.00%\n'
    ),
    'vllm_v0_metrics.prom': (
        '# Golden file: vLLM V0 /metrics, written from vllm-project/vllm vllm/engine/metrics.py (V0 Metrics:\n'
        '# gauges vllm:spec_decode_draft_acceptance_rate and vllm:spec_decode_efficiency, counters\n'
        '# vllm:spec_decode_num_accepted_tokens, _num_draft_tokens, _num_emitted_tokens), with the counts of\n'
        '# vllm-project/vllm issue #9539 (k = 3, not printed here: solved from the efficiency gauge).\n'
        '# HELP vllm:spec_decode_draft_acceptance_rate Speulative token acceptance rate.\n'
        '# TYPE vllm:spec_decode_draft_acceptance_rate gauge\n'
        'vllm:spec_decode_draft_acceptance_rate{model_name="meta-llama/Llama-2-7b-chat-hf"} 0.6421004432424311\n'
        '# HELP vllm:spec_decode_efficiency Speculative decoding system efficiency.\n'
        '# TYPE vllm:spec_decode_efficiency gauge\n'
        'vllm:spec_decode_efficiency{model_name="meta-llama/Llama-2-7b-chat-hf"} 0.5981519044399369\n'
        '# HELP vllm:spec_decode_num_accepted_tokens_total Number of accepted tokens.\n'
        '# TYPE vllm:spec_decode_num_accepted_tokens_total counter\n'
        'vllm:spec_decode_num_accepted_tokens_total{model_name="meta-llama/Llama-2-7b-chat-hf"} 8547.0\n'
        '# HELP vllm:spec_decode_num_draft_tokens_total Number of draft tokens.\n'
        '# TYPE vllm:spec_decode_num_draft_tokens_total counter\n'
        'vllm:spec_decode_num_draft_tokens_total{model_name="meta-llama/Llama-2-7b-chat-hf"} 13311.0\n'
        '# HELP vllm:spec_decode_num_emitted_tokens_total Number of emitted tokens.\n'
        '# TYPE vllm:spec_decode_num_emitted_tokens_total counter\n'
        'vllm:spec_decode_num_emitted_tokens_total{model_name="meta-llama/Llama-2-7b-chat-hf"} 10616.0\n'
    ),
    'sglang_meta_info_2025.json': (
        '{"meta_info":{"id":"cf5e164f23c14777ac8d07d61fd84509","finish_reason":{"type":"length","length":200},"prompt_tokens":171,"weight_version":"default","total_retractions":0,"completion_tokens":200,"cached_tokens":0,"spec_accept_rate":0.011702127659574468,"spec_accept_length":1.0638297872340425,"spec_verify_ct":188,"spec_accept_token_num":11,"spec_draft_token_num":940,"e2e_latency":1.7586748600006104}}\n'
    ),
    'sglang_sglext_spec.json': (
        '{"spec_accept_rate": 0.2930232558139535, "spec_accept_length": 2.4651162790697674,\n'
        ' "spec_num_correct_drafts": 63, "spec_num_proposed_drafts": 215,\n'
        ' "spec_verify_ct": 43, "spec_correct_drafts_histogram": [11, 14, 11, 4, 0, 3]}\n'
    ),
    'speculators_acceptance.csv': (
        'subset,num_drafts,num_draft_tokens,num_accepted_tokens,acceptance_length,acceptance_at_pos_0,acceptance_at_pos_1\r\n'
        'qa,20.0,40.0,26.0,2.3,0.9,0.4\r\n'
        'HumanEval,10.0,20.0,8.0,1.8,0.6,0.2\r\n'
    ),
    'trtllm_request_perf.json': (
        '{\n'
        '  "timing_metrics": {\n'
        '    "arrival_time": 1234567890.123,\n'
        '    "first_scheduled_time": 1234567890.135,\n'
        '    "first_token_time": 1234567890.150,\n'
        '    "last_token_time": 1234567890.300,\n'
        '    "kv_cache_size": 2048576,\n'
        '    "kv_cache_transfer_start": 1234567890.140,\n'
        '    "kv_cache_transfer_end": 1234567890.145\n'
        '  },\n'
        '  "kv_cache_metrics": {\n'
        '    "num_total_allocated_blocks": 100,\n'
        '    "num_new_allocated_blocks": 10,\n'
        '    "num_reused_blocks": 90,\n'
        '    "num_missed_blocks": 5\n'
        '  },\n'
        '  "speculative_decoding": {\n'
        '    "acceptance_rate": 0.85,\n'
        '    "total_accepted_draft_tokens": 42,\n'
        '    "total_draft_tokens": 50\n'
        '  }\n'
        '}\n'
    ),
}

# (file, lookahead given, model chosen, what it must read as): counts worked by hand from each file's own
# figures; tests/test_traces_formats.py shows the arithmetic.
GOLDEN_EXPECTED = (
    ("prometheus.prom", None, None, {"format": "prometheus", "lookahead": 3, "drafts": 160, "draftTokens": 480,
                                     "accepted": 225, "perPosition": (110, 75, 40)}),
    ("prometheus_two_models.prom", None, "a", {"format": "prometheus", "lookahead": 2, "drafts": 160,
                                               "draftTokens": 320, "accepted": 170, "perPosition": (100, 70)}),
    ("prometheus_two_models.prom", None, "b", {"format": "prometheus", "lookahead": 3, "drafts": 80,
                                               "draftTokens": 240, "accepted": 96, "perPosition": (48, 32, 16)}),
    ("prometheus_v08.prom", 3, None, {"format": "prometheus", "lookahead": 3, "drafts": 100, "draftTokens": 300,
                                      "accepted": 150, "perPosition": None}),
    ("vllm_v0_metrics.prom", None, None, {"format": "vllm-v0-metrics", "lookahead": 3, "drafts": 4437,
                                          "draftTokens": 13311, "accepted": 6179, "perPosition": None}),
    ("vllm_log.txt", None, None, {"format": "vllm-log", "lookahead": 6, "drafts": 527, "draftTokens": 3162,
                                  "accepted": 944, "perPosition": (387, 242, 154, 89, 46, 26)}),
    ("vllm_v0.log", None, None, {"format": "vllm-v0-log", "lookahead": 3, "drafts": 4437, "draftTokens": 13311,
                                 "accepted": 6179, "perPosition": None}),
    ("vllm_spec_decode_summary.txt", None, None, {"format": "vllm-log", "lookahead": 7, "drafts": 4816,
                                                  "draftTokens": 33712, "accepted": 12208, "perPosition": None}),
    ("vllm_ngram_summary.txt", None, None, {"format": "vllm-log", "lookahead": 2, "drafts": 74097,
                                            "draftTokens": 147899, "accepted": 141162, "perPosition": (71133, 69651)}),
    ("vllm_ngram_short.log", None, None, {"format": "vllm-log", "lookahead": 3, "drafts": 1000, "draftTokens": 2400,
                                          "accepted": 1200, "perPosition": (550, 400, 250)}),
    ("vllm_periodic_and_summary.txt", None, None, {"format": "vllm-log", "lookahead": 2, "drafts": 400,
                                                   "draftTokens": 800, "accepted": 500, "perPosition": (280, 220)}),
    ("vllm_bench.txt", None, None, {"format": "vllm-bench", "lookahead": 3, "drafts": 6393, "draftTokens": 19179,
                                    "accepted": 14090, "perPosition": (5333, 4661, 4096)}),
    ("vllm_request.jsonl", None, None, {"format": "vllm-request-json", "lookahead": 3, "drafts": 12,
                                       "draftTokens": 36, "accepted": 19, "perPosition": (9, 6, 4)}),
    ("vllm_request_stats.json", None, None, {"format": "vllm-request-json", "lookahead": 4, "drafts": 10,
                                             "draftTokens": 40, "accepted": 16, "perPosition": (7, 4, 3, 2)}),
    ("vllm_request_v0.json", None, None, {"format": "vllm-request-json", "lookahead": 3, "drafts": 16,
                                          "draftTokens": 48, "accepted": 19, "perPosition": (11, 6, 2)}),
    ("sglang.log", 4, None, {"format": "sglang-log", "lookahead": 4, "meanLength": 3.0}),
    ("sglang_accept_rate.log", None, None, {"format": "sglang-log", "lookahead": 4, "meanLength": 3.0}),
    ("llamacpp_server.log", 7, None, {"format": "llamacpp-log", "lookahead": 7, "drafts": 33, "draftTokens": 231,
                                      "accepted": 133, "perPosition": None, "callsBound": True}),
    ("llamacpp_speculative.log", None, None, {"format": "llamacpp-log", "lookahead": 8, "drafts": 67,
                                              "draftTokens": 96, "accepted": 60, "perPosition": None}),
    ("llamacpp_2026.log", None, None, {"format": "llamacpp-log", "lookahead": 3, "drafts": 87, "draftTokens": 259,
                                       "accepted": 167, "perPosition": (70, 55, 42)}),
    ("llamacpp_2026_stats.log", None, None, {"format": "llamacpp-stats", "lookahead": 3, "drafts": 87,
                                             "draftTokens": 259, "accepted": 167, "perPosition": (70, 55, 42)}),
    ("llamacpp_stats_two.log", 16, "draft", {"format": "llamacpp-stats", "lookahead": 16, "drafts": 10,
                                             "draftTokens": 110, "accepted": 98, "perPosition": None}),
    ("trtllm_iteration_stats.json", None, None, {"format": "trtllm-json", "lookahead": 4, "drafts": 5,
                                                 "draftTokens": 20, "accepted": 10, "perPosition": None}),
    ("trtllm_null_stats.jsonl", None, None, {"format": "trtllm-json", "lookahead": 3, "drafts": 4, "draftTokens": 12,
                                             "accepted": 5, "perPosition": None}),
    ("cycles.txt", 3, None, {"format": "cycles", "lookahead": 3, "drafts": 8, "draftTokens": 24, "accepted": 12,
                             "perPosition": (6, 4, 2)}),
    ("single_number.txt", 4, None, {"format": "single-number", "lookahead": 4, "meanLength": 2.8}),
    # sgl-project/sglang#33518: 43 verify passes, 63 accepted of 215 proposed; the histogram [11, 14, 11, 4, 0, 3]
    # gives c_i = calls that accepted at least i: 32, 18, 7, 3, 3
    ("sglang_sglext_spec.json", None, None, {"format": "sglang-json", "lookahead": 5, "drafts": 43,
                                             "draftTokens": 215, "accepted": 63, "perPosition": (32, 18, 7, 3, 3)}),
    # sgl-project/sglang#13754: 188 verify passes, 11 accepted; spec_draft_token_num 940 = 188 x (k + 1), read as 188 x 4
    ("sglang_meta_info_2025.json", 4, None, {"format": "sglang-json", "lookahead": 4, "drafts": 188,
                                             "draftTokens": 752, "accepted": 11, "perPosition": None}),
    # speculators: subset qa, 20 drafts, 26 accepted, acceptance_at_pos 0.9 and 0.4 of 20 = 18 and 8
    ("speculators_acceptance.csv", None, "qa", {"format": "speculators-csv", "lookahead": 2, "drafts": 20,
                                                "draftTokens": 40, "accepted": 26, "perPosition": (18, 8)}),
    ("speculators_acceptance.csv", None, "HumanEval", {"format": "speculators-csv", "lookahead": 2, "drafts": 10,
                                                       "draftTokens": 20, "accepted": 8, "perPosition": (6, 2)}),
    # TensorRT-LLM per request: 50 drafted at k = 5 are 10 full-length calls, 42 accepted
    ("trtllm_request_perf.json", 5, None, {"format": "trtllm-request-json", "lookahead": 5, "drafts": 10,
                                           "draftTokens": 50, "accepted": 42, "perPosition": None}),
)
