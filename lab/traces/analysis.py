"""What a parsed trace says: per-position rates with Wilson intervals, the two alphas and a
likelihood-ratio test of one constant conditional rate (the ledger's model).
"""

import math

from ..stats import chi_square_survival
from ..stats import wilson_interval

from .common import Trace, count_text
from .formats import FORMAT_NAMES, SHORT_NAMES
from .translator import alpha_iid


def alpha_mle(accepted: int, calls_with_rejection: int) -> float:
    """Maximum-likelihood alpha of the independent model, ``S / (S + R)``: each call is a run of
    survivals ended by a rejection or by the lookahead, so the likelihood is
    ``alpha^S (1 - alpha)^R`` with ``S`` accepted drafts and ``R`` calls that ended in a rejection.

    >>> alpha_mle(3, 1)
    0.75
    """
    total = accepted + calls_with_rejection
    return accepted / total if total else 0.0


def _xlogy(x: float, y: float) -> float:
    """``x log y`` with ``0 log 0 = 0``; ``x log 0`` for x > 0 is minus infinity (an impossible count).

    >>> _xlogy(0, 0.0), _xlogy(2, 1.0)
    (0.0, 0.0)
    """
    if x == 0:
        return 0.0
    return x * math.log(y) if y > 0 else -math.inf


def independence_test(drafts: int, per_position, trials=None) -> dict:
    """Likelihood-ratio test of one constant conditional rate against one rate per position: it
    tests whether a single per-token acceptance explains the counts at every position (the
    ledger's model), not independence in general (a constant rate can hide bursts).

    At position ``i`` there are ``c_{i-1}`` trials and ``c_i`` survivals (``trials`` overrides the
    trials where the engine printed drafted tokens per position). Per position the MLE is
    ``c_i / c_{i-1}``; under one constant rate it is ``S / (S + R)`` with ``R = N - c_k``. The
    statistic ``G = 2 (log L_positions - log L_constant)`` is chi-square with (positions with
    trials - 1) degrees of freedom when one rate holds. Pooled requests bias it upward with position:
    the calls that reach a late position come mostly from easy requests, so mixing easy and hard
    requests can make a curve rise, and flattens (never causes) a fall.

    >>> independence_test(100, (50, 25, 12.5))["statistic"]
    0.0
    """
    trials = list(trials) if trials is not None else [drafts] + list(per_position[:-1])
    survived = list(per_position)
    accepted, rejected = sum(survived), drafts - survived[-1]
    constant = alpha_mle(accepted, rejected)
    constant_rejected = rejected / (accepted + rejected) if accepted + rejected else 1.0
    log_positions = log_constant = 0.0
    used = 0
    for n, s in zip(trials, survived):
        if n <= 0:
            continue
        used += 1
        s = min(s, n)
        # (n - s) / n, not 1 - s / n: with big counts s / n can round to 1 while n - s > 0 (log of 0)
        log_positions += _xlogy(s, s / n) + _xlogy(n - s, (n - s) / n)
        log_constant += _xlogy(s, constant) + _xlogy(n - s, constant_rejected)
    statistic = max(0.0, 2 * (log_positions - log_constant))
    if statistic < 1e-9 * max(1.0, accepted):  # float noise on an exactly constant curve
        statistic = 0.0
    df = max(0, used - 1)
    p_value = chi_square_survival(statistic, df)
    return {"statistic": statistic, "df": df, "pValue": p_value, "verdict": _verdict(p_value, df, per_position, trials)}


def _verdict(p_value: float, df: int, survived, trials) -> str:
    if df == 0:
        return "one position only: nothing to compare, one constant conditional rate cannot be tested"
    if p_value < 0.01:
        first, last = survived[0] / trials[0], (survived[-1] / trials[-1] if trials[-1] else 0)
        trend = "falls" if last < first else "rises"
        # Pooling easy and hard requests makes a conditional rate RISE with position (the calls that
        # reach a late position come mostly from easy stretches): it can cause a rise, never a fall.
        why = ("pooled requests can cause this: the calls that reach later positions come mostly from easy "
               "requests" if trend == "rises" else
               "pooling requests would flatten such a fall, not cause it, so the draft itself gets worse with depth")
        return (f"not one constant conditional rate: the chance of surviving {trend} with position by more than "
                f"sampling noise explains (significant at the 1% level), so one alpha misdescribes this trace ({why})")
    if p_value < 0.05:
        return "weak evidence against one constant conditional rate (0.01 <= p < 0.05)"
    return "consistent with one constant conditional rate: one alpha explains these counts (p >= 0.05)"


# --- analysis ----------------------------------------------------------------------------------

def analyse(trace: Trace) -> dict:
    """Everything the page and the CLI report about one trace (rates as fractions in [0, 1]).

    ``meanAcceptanceLength = 1 + S / N`` (vLLM's convention: it counts the verifier's token),
    ``acceptanceRate = S / draft tokens``, ``perPosition[i] = c_i / N`` (the chance that the first
    i drafts all survived; ``c_i / d_i`` where the engine printed ``d_i`` drafted tokens at
    position i), ``conditional[i] = c_i / c_{i-1}``. Fields a format cannot give are None, and
    ``missing`` says why. When the calls are only a lower bound (``callsBound``), ``bounds`` names
    the figures that become bounds: the mean acceptance length and alphaIid are then upper bounds.

    >>> from lab.traces.plain import cycles_to_trace
    >>> analyse(cycles_to_trace({0: 1, 2: 1}, 2))["meanAcceptanceLength"]
    2.0
    """
    k = trace.lookahead
    missing, bounds = [], []
    mean_length, mean_accepted, rate = _means(trace, missing)
    per_position = conditional = unconditional_ci = conditional_ci = None
    mle = independence = None
    if trace.perPosition is not None:
        per_position, unconditional_ci, conditional, conditional_ci, mle, independence = _position_figures(trace)
    elif trace.meanAcceptanceLength is None:
        missing.append("no per-position counts: no curve, no alphaMle, no test of one constant rate")
    rate_ci = (list(wilson_interval(trace.accepted, trace.draftTokens))
               if trace.draftTokens and trace.accepted is not None and trace.exact else None)
    alpha = alpha_iid(mean_accepted, k)
    if trace.callsBound:
        bounds = [f"verifier calls: at least {count_text(trace.drafts)}",
                  f"mean acceptance length: at most {mean_length:.2f}",
                  f"alphaIid: at most {alpha:.3f}",
                  "speedup: at most the figure shown"]
    return {
        "format": trace.format,
        "formatName": FORMAT_NAMES[trace.format],
        "model": trace.model,
        "method": trace.method,
        "lookahead": k,
        "drafts": trace.drafts,
        "draftTokens": trace.draftTokens,
        "acceptedTokens": trace.accepted,
        "meanAcceptanceLength": mean_length,
        "acceptanceRate": rate,
        "acceptanceRateInterval": rate_ci,
        "perPosition": per_position,
        "perPositionIntervals": unconditional_ci,
        "conditional": conditional,
        "conditionalIntervals": conditional_ci,
        "alphaIid": alpha,
        "alphaMle": mle,
        "independence": independence,
        "exactCounts": trace.exact,
        "callsBound": trace.callsBound,
        "bounds": bounds,
        "notes": list(trace.notes),
        "missing": missing,
    }


def _means(trace: Trace, missing: list) -> tuple:
    """(mean acceptance length, mean accepted drafts a call, acceptance rate or None): from the counts, or the
    printed mean of a format without counts (``missing`` then says what cannot be given)."""
    if trace.meanAcceptanceLength is not None:
        mean_length = trace.meanAcceptanceLength
        mean_accepted = mean_length - 1
        missing.append(f"{SHORT_NAMES.get(trace.format, trace.format)} gives no counts: no intervals, no "
                       f"per-position curve, no test of one constant rate")
        return mean_length, mean_accepted, mean_accepted / trace.lookahead
    mean_accepted = trace.accepted / trace.drafts
    return 1 + mean_accepted, mean_accepted, trace.accepted / trace.draftTokens if trace.draftTokens else None


def _position_figures(trace: Trace) -> tuple:
    """(unconditional rates, their Wilson intervals, conditional rates, their intervals, alphaMle, the independence
    test) from the per-position counts: over the calls, or over the drafted tokens per position where the engine
    printed them (the survivors of position i - 1 that had a draft at position i, drafting assumed blind to
    acceptance)."""
    c, n, d = trace.perPosition, trace.drafts, trace.draftsPerPosition
    denominators = list(d) if d is not None else [n] * len(c)
    per_position = [ci / di if di else 0.0 for ci, di in zip(c, denominators)]
    unconditional_ci = [list(wilson_interval(ci, di)) for ci, di in zip(c, denominators)]
    if d is None:
        trials = [n] + list(c[:-1])
    else:  # survivors of position i - 1 that had a draft at position i (drafting assumed blind to acceptance)
        trials = [d[0]] + [round(c[i - 1] * d[i] / d[i - 1]) if d[i - 1] else 0 for i in range(1, len(c))]
    conditional = [min(1.0, ci / t) if t else None for ci, t in zip(c, trials)]
    conditional_ci = [list(wilson_interval(min(ci, t), t)) if t else None for ci, t in zip(c, trials)]
    return (per_position, unconditional_ci, conditional, conditional_ci, alpha_mle(sum(c), n - c[-1]),
            independence_test(n, c, trials if d is not None else None))


def measured_curve(analysis: dict) -> list[float]:
    """The conditional curve the ledger's measured-curve mode takes: ``conditional`` where it
    exists (a position nobody reached repeats the rate before it), else one alphaIid per position."""
    if analysis["conditional"] is None:
        return [analysis["alphaIid"]] * analysis["lookahead"]
    curve = []
    for rate in analysis["conditional"]:
        curve.append(rate if rate is not None else (curve[-1] if curve else 0.0))
    return curve


# --- the translator ----------------------------------------------------------------------------
