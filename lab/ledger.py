"""Part one: the latency ledger of one speculative decoding cycle.

The model is deterministic and deliberately simple (docs/CONTRACT.md section 1). One cycle drafts ``k``
tokens (the lookahead) with ``k`` serial passes of a draft model, then verifies all of them in one parallel
pass of the target model. Each draft token is accepted independently with probability
``a = acceptance / 100`` (a simplifying assumption: real acceptance is contextual, see
``lab.sampler``). The cycle stops at the first rejection, and the verifier always commits one
token of its own: the correction at the first rejection, or a bonus token after ``k``
acceptances.

    accepted      = sum_{i=1..k} a**i                       expected accepted drafts
    outputTokens  = 1 + accepted = (1 - a**(k+1)) / (1 - a) tokens per verifier call (mean acceptance length)
    draftMs       = k * targetMs * draftCost / 100
    verifyMs      = targetMs * (1 + (k - 1) * verifyTax / 100)
    cycleMs       = draftMs + verifyMs + overheadMs
    msPerToken    = cycleMs / outputTokens
    speedup       = targetMs / msPerToken                   versus one target pass per token
    wastedDrafts  = max(0, k - accepted)

With ``verifyTax = 0`` and ``overheadMs = 0`` the speedup is exactly Leviathan, Kalman and
Matias's expected walltime improvement ``(1 - a**(k+1)) / ((1 - a) (k c + 1))`` with
``c = draftCost / 100`` (they call the lookahead gamma).

All functions here take already-valid numbers; ``lab.urlstate`` clamps raw input first.
"""

from typing import NamedTuple

from .errors import LabValueError

__all__ = [
    "LedgerSettings", "Ledger", "expected_accepted_drafts", "expected_tokens_per_call",
    "expected_tokens_per_call_closed_form", "leviathan_speedup", "ledger", "best_lookahead",
    "speedups_by_lookahead", "speedup_grid", "cycle_breakdown", "DEFAULT_SETTINGS", "heatmap_axes",
    "expected_accepted_from_curve", "ledger_from_accepted", "cycle_costs", "per_token_and_speedup", "draft_ms", "verify_ms", "ledger_from_curve",
]


class LedgerSettings(NamedTuple):
    """One position of the six part-one sliders."""

    acceptance: float = 74      # % chance that one draft token survives verification
    draftCost: float = 12       # % of one target pass that one draft pass costs
    lookahead: int = 5          # k, draft tokens proposed per verifier call
    overheadMs: float = 6       # scheduler, launch and sampling cost per cycle
    targetMs: float = 80        # one target forward pass
    verifyTax: float = 3        # % extra verifier cost per candidate token beyond the first

    def with_(self, **changes) -> "LedgerSettings":
        return self._replace(**changes)


DEFAULT_SETTINGS = LedgerSettings()


class Ledger(NamedTuple):
    """The ledger of one cycle (field names are the JSON contract: docs/CONTRACT.md section 1)."""

    accepted: float
    outputTokens: float
    draftMs: float
    verifyMs: float
    cycleMs: float
    msPerToken: float
    speedup: float
    wastedDrafts: float


def expected_accepted_drafts(alpha: float, lookahead: int) -> float:
    """Expected drafts accepted before the first rejection: ``a + a**2 + ... + a**k``, the
    geometric sum of per-token acceptances ``a`` (alpha) at lookahead ``k``.

    >>> expected_accepted_drafts(0.5, 3)
    0.875

    Draft ``i`` is kept only if drafts ``1..i`` all survive, which has probability ``a**i``.
    The terms are summed in order, as the contract writes them, so every implementation that
    follows it gets the same float.
    """
    total = 0.0
    power = 1.0
    for _ in range(lookahead):
        power *= alpha
        total += power
    return total


ALPHA_TOLERANCE = 1e-9  # alpha_iid solves its equation to this


def alpha_iid(mean_accepted: float, lookahead: int) -> float:
    """The alpha whose independent model accepts ``mean_accepted`` drafts per call at this
    lookahead: the root of ``sum_{i=1..k} alpha^i = mean_accepted`` (the mean acceptance length less one), by bisection
    (the sum rises with alpha, so the root is unique), to within :data:`ALPHA_TOLERANCE`.

    >>> round(alpha_iid(expected_accepted_drafts(0.74, 5), 5), 9)
    0.74
    """
    if mean_accepted <= 0:
        return 0.0
    if mean_accepted >= lookahead:
        return 1.0
    low, high = 0.0, 1.0
    for _ in range(200):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if expected_accepted_drafts(middle, lookahead) < mean_accepted:
            low = middle
        else:
            high = middle
    low_gap = abs(expected_accepted_drafts(low, lookahead) - mean_accepted)
    return low if low_gap <= abs(expected_accepted_drafts(high, lookahead) - mean_accepted) else high


def expected_tokens_per_call(alpha: float, lookahead: int) -> float:
    """Expected tokens one verifier call commits (the mean acceptance length): ``1 + a + ... + a**k``.

    >>> expected_tokens_per_call(0.5, 3)
    1.875
    """
    return 1 + expected_accepted_drafts(alpha, lookahead)


def expected_tokens_per_call_closed_form(alpha: float, lookahead: int) -> float:
    """The geometric sum in closed form: ``(1 - a**(k+1)) / (1 - a)``, and ``k + 1`` at ``a = 1``.

    >>> expected_tokens_per_call_closed_form(0.5, 3), expected_tokens_per_call_closed_form(1, 3)
    (1.875, 4.0)
    """
    if alpha == 1:
        return lookahead + 1.0
    return (1 - alpha ** (lookahead + 1)) / (1 - alpha)


def leviathan_speedup(alpha: float, lookahead: int, cost_ratio: float) -> float:
    """Leviathan et al.'s expected walltime improvement ``(1 - a**(k+1)) / ((1 - a)(k c + 1))``
    (their gamma is the lookahead ``k``).

    ``a`` is alpha, the per-token acceptance, ``k`` the lookahead and ``c`` the cost of one draft
    pass relative to one target pass.

    >>> round(leviathan_speedup(0.74, 5, 0.12), 6)
    2.009119
    """
    return expected_tokens_per_call_closed_form(alpha, lookahead) / (lookahead * cost_ratio + 1)


def draft_ms(lookahead: int, target_ms: float, draft_cost: float) -> float:
    """Serial draft work of one cycle: ``k * targetMs * draftCost / 100`` (k draft passes, each
    ``draftCost`` % of a target pass).

    >>> draft_ms(5, 80, 12)
    48.0
    """
    return lookahead * target_ms * draft_cost / 100


def verify_ms(lookahead: int, target_ms: float, verify_tax: float) -> float:
    """One verifier call over ``k`` drafts: ``targetMs * (1 + (k - 1) * verifyTax / 100)``.

    >>> round(verify_ms(5, 80, 3), 9)
    89.6
    """
    return target_ms * (1 + (lookahead - 1) * verify_tax / 100)


def cycle_costs(settings: LedgerSettings, lookahead: int, draft_passes: int | None = None,
                verify: float | None = None) -> tuple[float, float, float]:
    """One cycle's cost at ``lookahead`` k: ``(draftMs, verifyMs, cycleMs)``, with
    ``cycleMs = draftMs + verifyMs + overheadMs`` (:func:`draft_ms`, :func:`verify_ms`). A tree
    (:func:`lab.trees.tree_cost`) drafts one pass per level, ``draft_passes``, and may bring its own
    ``verify`` cost in ms (the serving roofline's); a chain drafts k passes.

    >>> [round(ms, 9) for ms in cycle_costs(LedgerSettings(), 5)]
    [48.0, 89.6, 143.6]
    """
    draft = draft_ms(lookahead if draft_passes is None else draft_passes, settings.targetMs, settings.draftCost)
    if verify is None:
        verify = verify_ms(lookahead, settings.targetMs, settings.verifyTax)
    return draft, verify, draft + verify + settings.overheadMs


def per_token_and_speedup(target_ms: float, cycle_ms: float, tokens: float) -> tuple[float, float]:
    """``(msPerToken, speedup)`` of a cycle of ``cycle_ms`` that commits ``tokens``: ``cycle / tokens``
    and ``targetMs / msPerToken`` (against one target pass per token).

    >>> per_token_and_speedup(80, 143.6, 3.21459)[1] > 1.79
    True
    """
    per_token = cycle_ms / tokens
    return per_token, target_ms / per_token


def ledger(settings: LedgerSettings) -> Ledger:
    """Evaluate the ledger of docs/CONTRACT.md section 1 for one setting (formulas in the module
    docstring): :func:`ledger_from_accepted` at the geometric sum :func:`expected_accepted_drafts`.

    >>> round(ledger(LedgerSettings()).speedup, 6)
    1.790858
    """
    return ledger_from_accepted(settings, expected_accepted_drafts(settings.acceptance / 100, settings.lookahead))


def speedups_by_lookahead(settings: LedgerSettings, max_lookahead: int) -> list[float]:
    """Speedup for lookahead ``1..max_lookahead`` at ``settings`` (its own lookahead ignored).

    The accepted-draft sum grows term by term exactly as :func:`expected_accepted_drafts`
    adds it, so entry ``k - 1`` is the very float :func:`ledger` gives for lookahead ``k``
    (the audit's heatmap and best-lookahead checks compare the two), at a fraction of the cost.
    """
    a, target = settings.acceptance / 100, settings.targetMs
    speedups = []
    accepted, power = 0.0, 1.0
    for k in range(1, max_lookahead + 1):
        power *= a
        accepted += power
        speedups.append(target / (cycle_costs(settings, k)[2] / (1 + accepted)))
    return speedups


def best_lookahead(settings: LedgerSettings, max_lookahead: int = 12) -> tuple[int, float]:
    """The lookahead in ``1..max_lookahead`` with the largest speedup, and that speedup.

    Scanning upward and replacing only on a strictly larger speedup keeps the *first*
    maximum, so a plateau resolves to the cheaper, shallower draft.

    The maximum is taken over the ledger's floats, not over exact reals: where the speedup
    still rises by less than the floats can show, the float plateau ends the scan early. With
    draftCost 0 and verifyTax 0 the exact speedup grows with every extra draft (each adds
    ``a**k`` tokens at no cost), so the exact argmax is 12; but at acceptance 1% to 4% the
    terms ``a**k`` fall below half an ulp of the running total and the float argmax is 8 to 11:

    >>> best_lookahead(LedgerSettings(acceptance=1, draftCost=0, lookahead=1, overheadMs=6, targetMs=80, verifyTax=0))[0]
    8
    """
    best_k, best_speedup = 0, float("-inf")
    for k, speedup in enumerate(speedups_by_lookahead(settings, max_lookahead), 1):
        if speedup > best_speedup:
            best_k, best_speedup = k, speedup
    return best_k, best_speedup


def speedup_grid(settings: LedgerSettings, lookaheads, acceptances) -> list[list[float]]:
    """Speedup for every (acceptance, lookahead) pair: one row per acceptance, one column
    per lookahead (each at least 1); the other four sliders are taken from ``settings``.
    This is the heatmap."""
    lookaheads = list(lookaheads)
    deepest = max(lookaheads, default=0)
    grid = []
    for acceptance in acceptances:
        row = speedups_by_lookahead(settings.with_(acceptance=acceptance), deepest)
        grid.append([row[k - 1] for k in lookaheads])
    return grid


def cycle_breakdown(settings: LedgerSettings) -> dict[str, float]:
    """Where one cycle's milliseconds go: draft work, verifier work and fixed overhead."""
    result = ledger(settings)
    return {"draft": result.draftMs, "verify": result.verifyMs, "overhead": settings.overheadMs}


HEATMAP_LOOKAHEADS = tuple(range(1, 13))
HEATMAP_ACCEPTANCES = tuple(float(a) for a in range(0, 101, 5))


def heatmap_axes() -> tuple[tuple[int, ...], tuple[float, ...]]:
    """Columns (lookahead 1..12) and rows (acceptance 0..100 % in steps of 5) of the heatmap.

    It lives beside the grid it describes so that the audit, which checks every cell, does not
    depend on the page's views."""
    return HEATMAP_LOOKAHEADS, HEATMAP_ACCEPTANCES


# --- measured-curve mode: a conditional acceptance rate per draft position in place of one alpha ----

def expected_accepted_from_curve(conditional, lookahead: int) -> tuple[float, int]:
    """Expected accepted drafts from a measured per-position conditional curve:
    ``E[accepted] = sum_{i=1..k} prod_{j<=i} a_j``, where ``a_j`` is the chance that draft ``j``
    survives given drafts ``1..j-1`` did. Beyond the measured positions the last conditional
    rate is repeated (an extrapolation), and the second value counts those extrapolated positions.

    The running product is formed exactly as :func:`expected_accepted_drafts` forms its powers,
    so a constant curve gives the very same float.

    >>> accepted, extrapolated = expected_accepted_from_curve([0.9, 0.5], 3)
    >>> round(accepted, 12), extrapolated
    (1.575, 1)
    """
    if not conditional:
        raise LabValueError("the curve needs at least one conditional rate")
    total, survival = 0.0, 1.0
    for position in range(lookahead):
        survival *= conditional[min(position, len(conditional) - 1)]
        total += survival
    return total, max(0, lookahead - len(conditional))


def ledger_from_accepted(settings: LedgerSettings, accepted: float) -> Ledger:
    """The ledger of :func:`ledger` for a given expected number of accepted drafts (the cycle's
    costs do not depend on how acceptance was modelled)."""
    k = settings.lookahead
    output_tokens = 1 + accepted
    draft, verify, cycle_ms = cycle_costs(settings, k)
    ms_per_token, speedup = per_token_and_speedup(settings.targetMs, cycle_ms, output_tokens)
    return Ledger(accepted=accepted, outputTokens=output_tokens, draftMs=draft, verifyMs=verify,
                  cycleMs=cycle_ms, msPerToken=ms_per_token, speedup=speedup, wastedDrafts=max(0.0, k - accepted))


def ledger_from_curve(settings: LedgerSettings, conditional) -> Ledger:
    """:func:`ledger` with a measured conditional curve in place of the acceptance slider."""
    accepted, _ = expected_accepted_from_curve(conditional, settings.lookahead)
    return ledger_from_accepted(settings, accepted)


