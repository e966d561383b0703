"""The acceptance model's checks (lab.acceptance: a curve of one rate is today's model, lengths round-trip, the
plateau caps the best k, the curve reaches every instrument), which ride in the deployment panel's family of the
instruments suite: :mod:`lab.checks.deployment` adds :data:`ACCEPTANCE_CHECKS` to its CHECKS. Apart from it for size
(a lab module stays under a thousand lines).
"""

from .. import deployment, ledger, serving
from ..jsformat import to_fixed

# The grids the family's checks walk (lab.checks.deployment reads them from here)
ALPHAS = (0.0, 0.05, 0.3, 0.57, 0.74, 0.9, 0.99, 1.0)
LOOKAHEADS = (1, 2, 4, 7, 12)

__all__ = ["ACCEPTANCE_CHECKS", "ALPHAS", "LOOKAHEADS", "acceptance_curve_of"]

# --- acceptance by position (lab.acceptance): its checks ride in this family ---------------

def acceptance_iid_curve_is_todays_model(out):
    """A curve of one rate at every position (the independent model's) reproduces today's numbers exactly: the ledger's tokens per call
    and speedup, the serving model's tokens per cycle, every float equal."""
    from .. import acceptance

    for alpha in ALPHAS:
        for k in LOOKAHEADS:
            out.visited += 1
            curve = acceptance.iid(alpha)
            settings = ledger.DEFAULT_SETTINGS.with_(acceptance=100 * alpha, lookahead=k)
            pairs = ((curve.length(k), ledger.expected_tokens_per_call(alpha, k)),
                     (ledger.ledger_from_curve(settings, curve.rates(k)).speedup, ledger.ledger(settings).speedup),
                     (serving.tokens_per_cycle(0.0, k, curve.rates(k)), serving.tokens_per_cycle(alpha, k)))
            for mine, today in pairs:
                if mine != today:
                    out.fail(f"alpha {alpha}, k = {k}: the i.i.d. curve gives {mine!r}, today's model {today!r}")
                    return


def acceptance_lengths_round_trip(out):
    """A curve's own lengths at k = 1..8, given back as --lengths, rebuild it: the fitted mean
    acceptance length at every k within 0.5%, and one figure at k reproduces that figure exactly; the held-out
    table shows each prediction where it belongs; the CLI report's i.i.d. alpha and interval follow their rules."""
    from .. import acceptance

    from .deployment_rules import held_out_table_difference

    failure = held_out_table_difference()
    if failure:
        out.fail(failure)
        return

    # the last shape accepts every draft: its lengths are k + 1, the top of what a length can be, and are read
    for r1, shape in ((0.8, (0.9, 0.95)), (0.79, (0.78, 0.7)), (0.95, (1.0, 0.99)), (0.6, (0.8, 0.85)), (1.0, (1.0, 1.0))):
        out.visited += 1
        truth = acceptance.shaped_rates(r1, shape, 8)
        lengths = {k: acceptance.mean_acceptance_length(truth, k) for k in range(1, 9)}
        text = ",".join(f"{k}:{value!r}" for k, value in lengths.items())   # as typed into --lengths
        if acceptance.parse_lengths(text) != lengths:
            out.fail(f"--lengths {text[:60]}... reads as {acceptance.parse_lengths(text)}")
            return
        curve = acceptance.from_lengths(lengths)
        for k, value in lengths.items():
            if abs(curve.length(k) / value - 1) > 0.005:
                out.fail(f"shape {r1}, {shape}: fitted length at k = {k} is {curve.length(k)}, not {value}")
                return
        for k in (1, 3, 8):
            single = acceptance.from_single(lengths[k], k, "eagle")
            if abs(single.length(k) - lengths[k]) > 1e-9:
                out.fail(f"one figure {lengths[k]} at k = {k} came back as {single.length(k)}")
                return
        yield  # a pause between two shapes (lab.audit.run_check_steps)
    failure = _single_figure_prior_difference() or _report_difference()
    if failure:
        out.fail(failure)


def _first_rate_by_bisection(length: float, k: int, shape) -> float:
    """The r_1 whose curve of ``shape`` (r_1, r_1 c, r_1 c d, ...) has mean acceptance length ``length`` at k, by 80
    halvings of [0, 1], written out here."""
    from .. import acceptance

    low, high = 0.0, 1.0
    for _ in range(80):
        middle = (low + high) / 2
        if acceptance.mean_acceptance_length(acceptance.shaped_rates(middle, shape, k), k) < length:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def _single_figure_prior_difference() -> str | None:
    """One figure borrows its whole shape from the prior of the reader's family as one figure asks for it
    (figures=1: the family's own curves nearest the reader's r_1, lab.acceptance.PRIOR_MODE_BY_FIGURES), r_1 solved
    first under the family's point over all its curves; or None. Each case's one- and two-figure points differ, so it
    tests something."""
    from .. import acceptance

    for length, k, family in ((2.6, 3, "eagle"), (1.9, 1, "draft"), (2.2, 4, "mtp")):
        start = _first_rate_by_bisection(length, k, acceptance.prior(family, None, figures=1)[0])
        point = acceptance.prior(family, None, start, figures=1)[0]
        if point == acceptance.prior(family, None, start, figures=2)[0]:
            return f"{family}: the one- and two-figure points are the same, so this case tests nothing"
        shape = acceptance.from_single(length, k, family).shape
        if any(abs(a - b) > 1e-12 for a, b in zip(shape, point)):
            return f"{length} at k = {k} ({family}): the curve's shape {shape}, the one-figure prior's point {point}"
    return None


def _report_difference() -> str | None:
    """The CLI's report (lab.acceptance.report) at lookahead 8 on a curve from one length at k = 3 and one from
    lengths at k = 1, 2, or None: its i.i.d. alpha solves a + ... + a^m = L(m) - 1 at the last measured m (not at
    8); its interval is the point times exp(q_low (8 - m)) and exp(q_high (8 - m)), the held-out quantiles of the
    reader's input (one figure: RESIDUAL_QUANTILES[1]; two or more: [2]), within L(m) and 9; and it notes a small
    prior only for a family with fewer than MIN_FAMILY_CURVES library curves (n-gram has exactly 3)."""
    import math

    from .. import acceptance

    for curve, key in ((acceptance.from_single(2.6, 3, "mtp"), 1), (acceptance.from_lengths({1: 1.8, 2: 2.3}, "eagle"), 2)):
        m, report = curve.measuredAt, acceptance.report(curve, 8)
        alpha, want_sum = report["alphaIid"], curve.length(m) - 1
        if abs(sum(alpha ** i for i in range(1, m + 1)) - want_sum) > 1e-6:
            return f"{curve.source}: the i.i.d. alpha {alpha:.6f} does not give {want_sum:.4f} accepted drafts at k = {m}"
        point, (q_low, q_high) = curve.length(8), acceptance.RESIDUAL_QUANTILES[key]
        want = [min(point, max(curve.length(m), point * math.exp(q_low * (8 - m)))),
                max(point, min(9.0, point * math.exp(q_high * (8 - m))))]
        if any(abs(a - b) > 1e-12 for a, b in zip(report["interval"], want)):
            return f"{curve.source}: the interval at k = 8 is {report['interval']}, the rule's {want}"
    for family in acceptance.FAMILY_NAMES:
        count = sum(1 for entry in acceptance.CURVES.values() if entry[0] == family)
        note = acceptance.report(acceptance.from_single(1.8, 1, family), 4)["priorNote"]
        if (note is None) != (count >= acceptance.MIN_FAMILY_CURVES):
            return f"{family} ({count} library curves): the report's prior note is {note!r}"
    return None


def acceptance_plateau_caps_best_k(out):
    """On the plateauing DeepSeek-V4-Pro MTP curve (InferenceX, 2.55 from k = 4) the recommended k is never
    past the plateau's start plus one, whatever the costs; and best_lookahead says when k is extrapolated."""
    from .. import acceptance

    lengths = acceptance.library_lengths("dsv4-pro-mtp-thinking")
    curve = acceptance.from_lengths({k: value for k, value in enumerate(lengths, start=1)}, "mtp")
    start = acceptance.plateau_start(curve)
    if start != 4:
        out.fail(f"the plateau starts at k = {start}, not 4")
        return
    for cost in (0.0, 0.001, 0.01, 0.05):
        out.visited += 1
        best = acceptance.best_lookahead(lambda k: curve.length(k) / (1 + cost * k), curve, 12)  # noqa: B023 (called in this iteration)
        if best["k"] > start + 1:
            out.fail(f"draft cost {cost}: best k = {best['k']} lies past the plateau's start plus one")
            return
    # where the scan stops within the measured plateau (max_k 4), the plateau is still the measured one, 4
    if acceptance.plateau_start(curve, 4) != 4:
        out.fail(f"scanned to k = 4, the plateau is {acceptance.plateau_start(curve, 4)}, not the measured 4")
        return
    # lengths that keep rising by more than PLATEAU_GAIN (i.i.d. 0.8 at k = 1..4) have no measured plateau: the
    # plateau is where the chance all drafts survive falls below PLATEAU_GAIN, counted here from the curve's rates
    rising = acceptance.from_lengths({1: 1.8, 2: 2.44, 3: 2.952, 4: 3.3616})
    survival, counted = 1.0, None
    for k, rate in enumerate(rising.rates(acceptance.MAX_POSITIONS), start=1):
        survival *= rate
        if survival < acceptance.PLATEAU_GAIN:
            counted = k - 1
            break
    if acceptance.plateau_start(rising) != counted:
        out.fail(f"rising lengths: the plateau is {acceptance.plateau_start(rising)}, the rates' survival says {counted}")
        return
    # "extrapolated past position m" names the k returned, never the uncapped one: the second case is capped at 3,
    # within its 6 measured positions, while its uncapped best lies past them
    capped = acceptance.from_conditional([0.5, 0.3, 0.2, 0.9, 0.9, 0.9])
    for case, cost in ((acceptance.from_conditional([0.9, 0.85]), 0.01), (capped, 0.0), (curve, 0.0)):
        out.visited += 1
        best = acceptance.best_lookahead(lambda k: case.length(k) / (1 + cost * k), case, 12)  # noqa: B023
        m = case.measuredAt
        if best["extrapolatedFrom"] != (m if best["k"] > m else None):
            out.fail(f"best k = {best['k']} with {m} measured is flagged as extrapolated from {best['extrapolatedFrom']}")
            return
    if not acceptance.best_lookahead(lambda k: capped.length(k), capped, 12)["uncappedK"] > capped.measuredAt:
        out.fail("the capped case's uncapped k lies within its measured positions, so it tests nothing")


def acceptance_curve_reaches_every_instrument(out):
    """The deployment panel's sends carry the curve itself (4 decimals) to the ledger, serving, the
    policies and the token trees (their depth profile), and each of those widgets' own views reads that
    token back as the same rates and the curve's drafter family (which continues it past the 16 it carries)."""
    from .. import acceptance, urlstate

    curve = acceptance.from_lengths({1: 1.79, 2: 2.27, 3: 2.49, 4: 2.54}, "mtp")
    values = deployment.instrument_values(deployment.DEFAULT_DEPLOYMENT, 0.7, curve)
    yield  # a pause after the serving model's step times
    want = [float(to_fixed(r, 4)) for r in curve.rates(16)]
    for widget, key in (("ledger", "trcCurve"), ("serving", "srvCurve"), ("policies", "polCurve"), ("trees", "treCurve")):
        out.visited += 1
        found = urlstate.requested_curve({key: values[widget][key]}, key, [])
        if found is None or found[1][0] != want or acceptance.token_method(found[0]) != curve.family:
            out.fail(f"{widget} read {found and found[1][0]} ({found and acceptance.token_method(found[0])}) from the "
                     f"send, not the curve {want} ({curve.family})")
            return


def _plateau_cases():
    """Plateauing curves as the instruments receive them (the panel's 4-decimal tokens): the two
    DeepSeek-V4-Pro MTP reference curves (InferenceX) and a falling printed-rate curve; each with its
    plateau start counted here from the token's rates (the first k after which the chance that every
    draft survives falls below lab.acceptance.PLATEAU_GAIN), not by lab.acceptance.plateau_start."""
    from .. import acceptance

    curves = [acceptance.from_lengths(dict(enumerate(acceptance.library_lengths(name), start=1)), "mtp")
              for name in ("dsv4-pro-mtp-thinking", "dsv4-pro-mtp")]
    curves.append(acceptance.from_unconditional([0.8, 0.4, 0.12, 0.024], "eagle"))
    # prompt lookup's shape: most first drafts fail, a rare match runs on (a plateau with a long thin tail)
    curves.append(acceptance.from_conditional([0.6, 0.17, 0.4] + [0.95] * 13, "ngram"))
    cases = []
    for curve in curves:
        token = acceptance.curve_token(curve)
        rates = acceptance.token_rates(token)
        survival, start = 1.0, None
        for k, rate in enumerate(rates, start=1):
            survival *= rate
            if survival < acceptance.PLATEAU_GAIN:
                start = k - 1
                break
        cases.append((token, rates, start))
    return cases


def _argmax(values) -> int:
    return max(range(len(values)), key=lambda i: (values[i], -i)) + 1


_CHEAP = ({"draftCost": "0", "verifyTax": "0", "overheadMs": "0"}, {"draftCost": "1", "verifyTax": "0"}, {})


def acceptance_plateau_caps_every_instrument(out):
    """On a curve that plateaus, no instrument recommends k past the plateau's start plus one: the
    ledger's and the policies' widgets in measured-curve mode (cheap drafts, where their uncapped best
    lies deeper), the serving widget on its n-gram draft, and the deployment panel's three answers
    (serving, as sent, the ledger). The check fails too if the cap never binds (it would test nothing)."""
    import re

    from ..widgets import ledger as ledger_widget, policies as policies_widget, serving as serving_widget

    binds = {"ledger": 0, "policies": 0, "serving": 0}
    for token, rates, start in _plateau_cases():
        if start is None or start > 8:
            out.fail(f"{token[:40]}...: the test curve does not plateau within 8 (start {start})")
            return
        for extra in _CHEAP:
            out.visited += 1
            view = ledger_widget.view({"trcCurve": token, **extra})
            settings = ledger.LedgerSettings(**view["params"])
            uncapped = _argmax([ledger.ledger_from_curve(settings.with_(lookahead=k), rates).speedup
                                for k in range(1, 13)])
            binds["ledger"] += uncapped > start + 1
            if view["bestLookahead"] > start + 1:
                out.fail(f"ledger, {extra}: best k = {view['bestLookahead']} past the plateau start {start} plus one")
                return
            view = policies_widget.view({"polCurve": token, **extra})
            found = re.match(r"k = (\d+),", view["readouts"]["bestStatic"])
            k = int(found.group(1)) if found else None
            binds["policies"] += "The best static k stops where the curve " in view["summary"]
            if k is None or k > start + 1:
                out.fail(f"policies, {extra}: best static k = {k} past the plateau start {start} plus one")
                return
        yield  # a pause between two curves (lab.audit.run_check_steps)
        out.visited += 1
        view = serving_widget.view({"srvCurve": token, "draft": "ngram"})
        found = re.search(r"The best lookahead here is (\d+) ", view["summary"])
        s = serving_widget._settings(view["params"])
        binds["serving"] += _argmax([serving.speedup_at(s.with_(lookahead=k), s.batch, s.context, rates)
                                     for k in range(1, 13)]) > start + 1
        if found is None or int(found.group(1)) > start + 1:
            out.fail(f"serving: best k {found and found.group(1)} past the plateau start {start} plus one")
            return
        answer = deployment.answer(deployment.DEFAULT_DEPLOYMENT, rates[0], acceptance_curve_of(token))
        for part in ("serving", "servingSent", "ledger"):
            if answer[part]["bestLookahead"] > start + 1:
                out.fail(f"the panel's {part} best k = {answer[part]['bestLookahead']} past the plateau start "
                         f"{start} plus one")
                return
    for instrument, count in binds.items():
        if not count:
            out.fail(f"{instrument}: the plateau cap never binds on these cases, so this check tests nothing")


def acceptance_curve_of(token: str):
    """The curve a measured-curve token stands for (lab.acceptance.token_curve of its rates, measured mark and family)."""
    from .. import acceptance

    return acceptance.token_curve(acceptance.token_rates(token), acceptance.token_measured_at(token),
                                  acceptance.token_method(token))


ACCEPTANCE_CHECKS = (
    ("acceptance-iid-curve-is-todays-model", acceptance_iid_curve_is_todays_model),
    ("acceptance-lengths-round-trip", acceptance_lengths_round_trip),
    ("acceptance-plateau-caps-best-k", acceptance_plateau_caps_best_k),
    ("acceptance-curve-reaches-every-instrument", acceptance_curve_reaches_every_instrument),
    ("acceptance-plateau-caps-every-instrument", acceptance_plateau_caps_every_instrument),
)
