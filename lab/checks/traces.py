"""The traces instrument's checks: parsers, per-position statistics, the translator and the
ledger's measured-curve mode. Every case is deterministic (built from small integer grids), so
a failure names a case that can be rerun by hand.
"""

import math

from .. import ledger, traces
from ..audit import GRID
from ..jsformat import to_fixed

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
    """The chi-square tail from the incomplete gamma function equals the closed forms: for even df,
    exp(-x/2) sum_{j<df/2} (x/2)^j / j!; for df = 1, erfc(sqrt(x/2)); over x in 0.1..60."""
    xs = (0.1, 0.5, 1.0, 2.0, 3.841458820694124, 5.0, 10.0, 20.0, 35.0, 60.0)
    for x in xs:
        for df in (1, 2, 4, 6, 10, 16):
            out.visited += 1
            if df == 1:
                expected = math.erfc(math.sqrt(x / 2))
            else:
                expected = math.exp(-x / 2) * sum((x / 2) ** j / math.factorial(j) for j in range(df // 2))
            got = traces.chi_square_sf(x, df)
            if abs(got - expected) > 1e-10 * max(1.0, expected) and abs(got - expected) > 1e-15:
                out.fail(f"chi-square tail at x={x}, df={df}: {got} != {expected}")
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
)


def signature_value() -> str:
    """alphaIid of the default preset, 6 decimals (see :data:`SIGNATURE_NOTE`)."""
    result = traces.analyse(traces.preset_trace(traces.DEFAULT_PRESET))
    return to_fixed(result["alphaIid"], 6)
