"""The audit: 20 named checks over a grid of 6**4 = 1296 settings, and the three signatures.

A setting is (certainty, match, lookahead, draftCost). The sampler half reads it directly;
the ledger half is fed the sampler's own acceptance rate, ``acceptance = 100 alpha`` of the
reference pair, so both halves of the article are checked on the same settings. Work that
a setting shares with others (the distributions of a (certainty, match) pair, a trace) is
computed once; every check still visits every setting it names. The 1296 settings hold
108 distinct (p, q) pairs (36 (certainty, match) x 3 context kinds) and 216 distinct traces
(36 x 6 lookaheads; the draft cost does not change a trace).

Each check states one property that a wrong implementation would break; none is true by
construction (``tests/test_audit_mutations.py`` breaks the code on purpose and watches checks
fail). The sampler's stochastic path is checked as a distribution: ``verify()`` and
``generate_trace()`` are run under a scripted generator that enumerates every branch
(:func:`lab.sampler.uniform_law`), and their exact laws are compared with the target's.
"""

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import product
import math
import random
import re

from . import sampler
from .exact import evaluate
from .jsformat import to_fixed, to_js_string
from .ledger import (LedgerSettings, best_lookahead, expected_tokens_per_call,
                     expected_tokens_per_call_closed_form, heatmap_axes, ledger, leviathan_speedup, speedup_grid)
from .stats import chi_square_survival, total_variation

__all__ = ["GRID", "SETTINGS", "CHECKS", "run_audit", "signatures", "audit_signature",
           "exact_signature", "legacy_signature", "LEGACY_EXPECTED", "AUDIT_EXPECTED", "counter_text"]

GRID = {
    "certainty": (0, 20, 40, 60, 80, 100),
    "match": (0, 20, 40, 60, 80, 100),
    "lookahead": (1, 2, 3, 5, 8, 12),
    "draftCost": (0, 5, 10, 25, 50, 100),
}
SETTINGS = tuple(product(*GRID.values()))
LEDGER_BASE = LedgerSettings()            # overheadMs, targetMs and verifyTax of the legacy setting
LEGACY_SETTINGS = LedgerSettings(74, 12, 5, 6, 80, 3)
LEGACY_EXPECTED = "74:12:5:6:80:3:2.214590:3.214590:48.000000:89.600000:143.600000:44.671321:1.790858:2.785410:4:1.819264"
AUDIT_EXPECTED = "20:20:0:1296:0.000000000000:0.000000000000"
EXACT_SETTING = dict(certainty=64, draftCost=9, gamma=5, length=96, match=72, seed=23)
TRACE_LENGTH = 32        # tokens per audited trace
AUDIT_SAMPLES = 1000     # one-token outputs per sampler and (certainty, match) in the statistical check
SIGNIFICANCE = 1e-6      # the chi-square test fails below this p-value (seeded, so it never flakes)
RELATIVE_TOLERANCE = 1e-12
LAW_TOLERANCE = 1e-12    # TV allowed between verify()'s law and the target's: float thresholds only
# Small rows (3 tokens) for verify()'s exact law at gamma 2 and 3, one per position: a draft
# that over- and under-covers, a draft mass on a token the target forbids together with a
# target token the draft never proposes, p == q (no residual), and a plain mismatch.
_F = Fraction
LAW_P_ROWS = ((_F(1, 2), _F(1, 3), _F(1, 6)), (_F(0), _F(1, 4), _F(3, 4)),
              (_F(1, 5), _F(2, 5), _F(2, 5)), (_F(1, 3), _F(1, 3), _F(1, 3)))
LAW_Q_ROWS = ((_F(1, 4), _F(1, 4), _F(1, 2)), (_F(1, 2), _F(1, 2), _F(0)),
              (_F(1, 5), _F(2, 5), _F(2, 5)), (_F(3, 5), _F(1, 5), _F(1, 5)))
LAW_TRACE_SETTINGS = ((64, 72), (40, 20))   # generate_trace's exact law of 2 tokens (gamma 2)


# --- shared, memoised work ---------------------------------------------------------------

def _kind_pairs(certainty, match):
    """The distinct (p, q) pairs of a (certainty, match) setting: one per context kind,
    centred on token 0. Other positions are rotations of these, and the rule acts token by
    token, so checking these covers every position."""
    pairs = []
    for kind in ("easy", "normal", "hard"):
        kind_certainty, kind_match = sampler.context_sliders(Fraction(certainty), Fraction(match), kind)
        pairs.append((kind, sampler.Categorical(sampler.target_distribution(kind_certainty, 0)),
                      sampler.Categorical(sampler.draft_distribution(kind_certainty, kind_match, 0))))
    return pairs


@lru_cache(maxsize=None)
def _pairs(certainty, match):
    return _kind_pairs(certainty, match)


@lru_cache(maxsize=None)
def _alpha(certainty, match) -> Fraction:
    return sampler.per_token_acceptance(*sampler.reference_pair(certainty, match))


@lru_cache(maxsize=None)
def _trace(certainty, match, lookahead):
    seed = SETTINGS.index((certainty, match, lookahead, GRID["draftCost"][0]))
    return sampler.generate_trace(certainty, match, lookahead, TRACE_LENGTH, seed)


@lru_cache(maxsize=None)
def _speedup_row(certainty, match, draft_cost) -> list[float]:
    s = _ledger_settings((certainty, match, 1, draft_cost))
    return [ledger(s.with_(lookahead=k)).speedup for k in range(1, 13)]


def _ledger_settings(setting, **overrides) -> LedgerSettings:
    certainty, match, lookahead, draft_cost = setting
    return LEDGER_BASE.with_(acceptance=float(_alpha(certainty, match)) * 100, lookahead=lookahead,
                             draftCost=draft_cost, **overrides)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= RELATIVE_TOLERANCE * max(1.0, abs(a), abs(b))


def _law_tv(law: dict, target: dict) -> Fraction:
    """TV between two laws given as {outcome: probability} (:func:`lab.stats.total_variation`
    over the union of their outcomes)."""
    outcomes = law.keys() | target.keys()
    return total_variation([law.get(k, 0) for k in outcomes], [target.get(k, 0) for k in outcomes])


def chi_square_cells(counts, law) -> tuple[float, int, int]:
    """Pearson's statistic of ``counts`` against ``law`` (exact probabilities), its degrees of
    freedom, and how many draws landed on zero-mass tokens (must be 0). Tokens expected fewer
    than 5 times are pooled into one cell (merged into the smallest other cell if the pool is
    still under 5), so that the chi-square law applies."""
    total = sum(counts)
    impossible = sum(c for c, p_x in zip(counts, law) if not p_x)
    cells = [(c, total * float(p_x)) for c, p_x in zip(counts, law) if p_x]
    big = sorted((cell for cell in cells if cell[1] >= 5), key=lambda cell: cell[1])
    rare = [cell for cell in cells if cell[1] < 5]
    if rare:
        pooled = (sum(c for c, _ in rare), sum(e for _, e in rare))
        if pooled[1] < 5 and big:
            smallest = big.pop(0)
            pooled = (pooled[0] + smallest[0], pooled[1] + smallest[1])
        big.append(pooled)
    statistic = sum((c - e) ** 2 / e for c, e in big)
    return statistic, len(big) - 1, impossible


def _pair_settings():
    return sorted({(c, m) for c, m, _, _ in SETTINGS})


def _every_ledger(out, **overrides):
    """Each grid setting as (setting, its ledger settings), counted as visited."""
    for setting in SETTINGS:
        out.visited += 1
        yield setting, _ledger_settings(setting, **overrides)


def _every_pair(out):
    """Each distinct (p, q) of the grid as (certainty, match, kind, p, q), counted as visited."""
    for c, m in _pair_settings():
        for kind, p, q in _pairs(c, m):
            out.visited += 1
            yield c, m, kind, p, q


# --- the checks ---------------------------------------------------------------------------

@dataclass
class Outcome:
    failure: str | None = None   # first counterexample, None when the check held
    visited: int = 0             # settings (or cases) the check looked at

    def fail(self, message: str):
        if self.failure is None:
            self.failure = message


class Audit:
    """Runs the checks and keeps the two exact maxima the signature reports."""

    def __init__(self):
        self.max_exact_tv = Fraction(0)
        self.max_alpha_gap = Fraction(0)

    # sampler half ------------------------------------------------------------------------

    def distributions_are_normalised(self, out: Outcome):
        """Every p and q of every setting and context is a distribution: no negative mass, total exactly 1."""
        for c, m, kind, p, q in _every_pair(out):
            for name, row in (("p", p), ("q", q)):
                if min(row.probs) < 0 or sum(row.probs) != 1:
                    out.fail(f"{name} at certainty={c} match={m} ({kind}) sums to {sum(row.probs)}")

    def exact_output_equals_target(self, out: Outcome):
        """The exact output distribution of one verifier step equals p, in fractions."""
        for c, m, kind, p, q in _every_pair(out):
            tv = sampler.total_variation(p, sampler.exact_output_distribution(p, q))
            self.max_exact_tv = max(self.max_exact_tv, tv)
            if tv != 0:
                out.fail(f"TV(p, output) = {float(tv):.3g} at certainty={c} match={m} ({kind})")

    def alpha_equals_one_minus_tv(self, out: Outcome):
        """alpha = sum min(p, q) equals 1 - TV(p, q) exactly."""
        for c, m, kind, p, q in _every_pair(out):
            gap = abs(sampler.per_token_acceptance(p, q) - (1 - sampler.total_variation(p, q)))
            self.max_alpha_gap = max(self.max_alpha_gap, gap)
            if gap:
                out.fail(f"|alpha - (1 - TV)| = {float(gap):.3g} at certainty={c} match={m} ({kind})")

    def survival_probability_is_alpha(self, out: Outcome):
        """The verifier's own survival chance, sum_x q(x) min(1, p(x)/q(x)), equals alpha."""
        for c, m, kind, p, q in _every_pair(out):
            kept, _ = sampler._rejection_split(p, q)
            if sum(kept) != sampler.per_token_acceptance(p, q):
                out.fail(f"survival {float(sum(kept)):.6f} != alpha at certainty={c} match={m} ({kind})")

    def buggy_sampler_is_biased(self, out: Outcome):
        """The draft-resampling bug is biased exactly where p != q (and harmless where p == q)."""
        for c, m, kind, p, q in _every_pair(out):
            wrong = sampler.total_variation(p, sampler.buggy_output_distribution(p, q))
            if (wrong > 0) != (p.probs != q.probs):
                out.fail(f"wrongTv = {float(wrong):.3g} with p {'!=' if p.probs != q.probs else '=='} q "
                         f"at certainty={c} match={m} ({kind})")

    def two_token_joint_is_target(self, out: Outcome):
        """Across verifier calls, the first two tokens are jointly p_0 x p_1 (exact enumeration):
        gamma 2 for every (certainty, match), which covers a second draft and a restart after
        a rejection, and gamma 1, where the second token always comes from a new call or the
        bonus, where certainty equals match. And the sampler's own law: verify() driven by a
        scripted generator that enumerates every branch, weighted by the length of each
        uniform's interval, commits the product law at gamma 2 and 3 (3-token rows, within
        float rounding of its thresholds); generate_trace()'s first two tokens likewise."""
        for gamma in (2, 3):
            out.visited += 1
            law = sampler.verify_prefix_law(LAW_P_ROWS, LAW_Q_ROWS, gamma, gamma + 1)
            tv = _law_tv(law, sampler.product_law(LAW_P_ROWS, gamma + 1))
            if tv > LAW_TOLERANCE or sum(law.values()) != 1:
                out.fail(f"verify()'s exact law is {float(tv):.3g} in TV from the target's at gamma={gamma}")
            yield  # a pause: the browser answers a reader between two cases (run_check_steps)
        for c, m in LAW_TRACE_SETTINGS:
            out.visited += 1
            law = sampler.uniform_law(lambda rng: sampler.generate_trace(c, m, 2, 2, 0, rng=rng).tokens)  # noqa: B023 (called in this iteration)
            tv = _law_tv(law, sampler.product_law([sampler.position_pair(c, m, t)[0] for t in range(2)], 2))
            if tv > LAW_TOLERANCE:
                out.fail(f"generate_trace()'s exact law is {float(tv):.3g} in TV from the target's "
                         f"at certainty={c} match={m}")
            yield  # a pause: the browser answers a reader between two cases (run_check_steps)
        for c, m in _pair_settings():
            rows = [sampler.position_pair(c, m, t) for t in range(4)]
            p_rows, q_rows = [p for p, _ in rows], [q for _, q in rows]
            for gamma in ((1, 2) if c == m else (2,)):
                out.visited += 1
                joint = sampler.exact_prefix_distribution(p_rows, q_rows, gamma, 2)
                for a, b in product(range(len(sampler.VOCABULARY)), repeat=2):
                    if joint.get((a, b), 0) != p_rows[0][a] * p_rows[1][b]:
                        out.fail(f"P({a}, {b}) wrong at certainty={c} match={m} gamma={gamma}")
                        break
            yield  # a pause: the browser answers a reader between two cases (run_check_steps)

    def trace_accounting(self, out: Outcome):
        """In every trace: accepted + rejected + bonus = length, each call ends in one rejection
        or one bonus, and the drafts counted equal the drafts proposed."""
        for setting in SETTINGS:
            c, m, lookahead, _ = setting
            trace = _trace(c, m, lookahead)
            out.visited += 1
            proposed = sum(len(drafts) for _, drafts, _, _ in trace.calls)
            if (trace.acceptedDraft + trace.rejectedDraft + trace.bonusTokens != TRACE_LENGTH
                    or trace.length != TRACE_LENGTH
                    or trace.rejectedDraft + trace.bonusTokens != trace.targetCalls
                    or proposed != trace.draftCalls
                    or trace.acceptedDraft + trace.rejectedDraft > trace.draftCalls):
                out.fail(f"token accounting broken at {setting}")
            yield  # a pause: the browser answers a reader between two cases (run_check_steps)

    def greedy_matches_plain_greedy(self, out: Outcome):
        """With a one-hot target (certainty 100) speculative output is exactly greedy output."""
        for setting in SETTINGS:
            c, m, lookahead, _ = setting
            if c != 100:
                continue
            out.visited += 1
            greedy = tuple(sampler.FAVOURITES[t % len(sampler.FAVOURITES)] for t in range(TRACE_LENGTH))
            if _trace(c, m, lookahead).tokens != greedy:
                out.fail(f"speculative greedy output differs from greedy at {setting}")

    def known_vectors(self, out: Outcome):
        """Published test vectors: Hugging Face's (transformers, tests/generation/test_utils.py,
        test_speculative_sampling: draft [1, 4, 5] from softmax rows of +-10 logits, target rows
        accepting 1 and 4, then -inf everywhere but 8 -> [1, 4, 8]) and vLLM's greedy one
        (draft [1, 2, 3], argmax [1, 5, 3, 4] -> [1, 5])."""
        def one_hot(token, size=10):  # Categoricals, so the verifier's tables are built once
            return sampler.Categorical([1 if i == token else 0 for i in range(size)])
        cases = [
            ([1, 4, 5], [hf_softmax_row(1), hf_softmax_row(4), one_hot(8), sampler.Categorical([Fraction(1, 10)] * 10)],
             [hf_softmax_row(1), hf_softmax_row(4), hf_softmax_row(5)], (1, 4, 8)),
            ([1, 2, 3], [one_hot(1), one_hot(5), one_hot(3), one_hot(4)], [one_hot(1), one_hot(2), one_hot(3)], (1, 5)),
        ]
        for seed in range(20):
            rng = random.Random(seed)
            for drafts, p_rows, q_rows, expected in cases:
                out.visited += 1
                got = sampler.verify(drafts, p_rows, q_rows, rng).tokens
                if got != expected:
                    out.fail(f"draft {drafts} gave {list(got)}, expected {list(expected)} (seed {seed})")

    def samples_converge_to_target(self, out: Outcome):
        """Seeded histograms (1000 draws per sampler and (certainty, match)) pass Pearson's
        chi-square test against their exact laws, pooled over all 36 pairs, at p >= 1e-6 from
        the chi-square law: the speculative sampler's against p, the buggy sampler's against
        its own biased law; and the buggy histograms fail the test against p (the test has
        power). No draw may land on a zero-mass token."""
        fits = {"speculative vs p": [0.0, 0], "buggy vs its law": [0.0, 0], "buggy vs p": [0.0, 0]}
        for index, (c, m) in enumerate(_pair_settings()):
            p, q = sampler.reference_pair(c, m)
            out.visited += 1
            spec = sampler.sample_outputs(p, q, AUDIT_SAMPLES, random.Random(index), "speculative")
            wrong = sampler.sample_outputs(p, q, AUDIT_SAMPLES, random.Random(index), "buggy")
            for key, counts, law in (("speculative vs p", spec, p.probs),
                                     ("buggy vs its law", wrong, sampler.buggy_output_distribution(p, q)),
                                     ("buggy vs p", wrong, p.probs)):
                statistic, dof, impossible = chi_square_cells(counts, law)
                if impossible and key != "buggy vs p":
                    out.fail(f"{key}: {impossible} draws on zero-mass tokens at certainty={c} match={m}")
                fits[key][0] += statistic
                fits[key][1] += dof
        for key, (statistic, dof) in fits.items():
            p_value = chi_square_survival(statistic, dof)
            if (p_value < SIGNIFICANCE) != (key == "buggy vs p"):
                out.fail(f"{key}: chi-square {statistic:.1f} on {dof} degrees of freedom, p = {p_value:.3g}")

    def theoretical_speedup_uses_alpha(self, out: Outcome):
        """evaluate(): summaryAlpha is the mean of the per-position alphas sum_x min(p_t, q_t)
        over the sequence, computed here; theoreticalSpeedup is Leviathan et al.'s Theorem 3.8,
        (1 - a**(g+1)) / ((1 - a)(g c + 1)), evaluated here in fractions at that mean; trace
        fields agree with their definitions, and exactTv is 0 (one evaluate per certainty)."""
        cost = Fraction(9, 100)
        for c, lookahead in zip(GRID["certainty"], GRID["lookahead"]):
            out.visited += 1
            r = evaluate(certainty=c, draftCost=9, gamma=lookahead, length=TRACE_LENGTH, match=60, seed=c)
            t = r["trace"]
            alphas = [sampler.per_token_acceptance(*sampler.position_pair(c, 60, position)) for position in range(TRACE_LENGTH)]
            a = sum(alphas, Fraction(0)) / TRACE_LENGTH
            tokens_per_call = lookahead + 1 if a == 1 else (1 - a ** (lookahead + 1)) / (1 - a)
            expected = tokens_per_call / (lookahead * cost + 1)
            if (not _close(r["summaryAlpha"], float(a)) or not _close(r["theoreticalSpeedup"], float(expected))
                    or r["contract"]["exactTv"] != 0
                    or not _close(t["tokensPerTargetCall"], TRACE_LENGTH / t["targetCalls"])
                    or not _close(t["speedup"], TRACE_LENGTH / (t["targetCalls"] + 0.09 * t["draftCalls"]))):
                out.fail(f"evaluate fields disagree at certainty={c} gamma={lookahead}: summaryAlpha "
                         f"{r['summaryAlpha']:.9f} (mean alpha {float(a):.9f}), theoreticalSpeedup "
                         f"{r['theoreticalSpeedup']:.9f} (Theorem 3.8 gives {float(expected):.9f})")

    # ledger half -------------------------------------------------------------------------

    def yield_matches_closed_form(self, out: Outcome):
        """1 + a + ... + a**m equals (1 - a**(m+1)) / (1 - a) (m + 1 at a = 1)."""
        for setting, s in _every_ledger(out):
            a = s.acceptance / 100
            if not _close(expected_tokens_per_call(a, s.lookahead), expected_tokens_per_call_closed_form(a, s.lookahead)):
                out.fail(f"yield disagrees with the closed form at {setting}")

    def ledger_equals_leviathan(self, out: Outcome):
        """With verifyTax 0 and overhead 0 the ledger's speedup is Leviathan's formula."""
        for setting, s in _every_ledger(out, verifyTax=0, overheadMs=0):
            if not _close(ledger(s).speedup, leviathan_speedup(s.acceptance / 100, s.lookahead, s.draftCost / 100)):
                out.fail(f"ledger {ledger(s).speedup} != Leviathan at {setting}")

    def best_lookahead_is_first_argmax(self, out: Outcome):
        """best_lookahead returns the first strict maximum of the ledger's speedup over 1..12,
        including on an exact float tie (acceptance 50, draft cost 20, no tax or overhead:
        lookahead 1 and 2 both give 1.25x, and the shallower one must win). The maximum is the
        float one, as documented in best_lookahead (it can stop short of the exact argmax)."""
        tie = LedgerSettings(acceptance=50, draftCost=20, lookahead=1, overheadMs=0, targetMs=80, verifyTax=0)
        out.visited += 1
        speedups = [ledger(tie.with_(lookahead=k)).speedup for k in (1, 2)]
        if speedups[0] != speedups[1] or best_lookahead(tie)[0] != 1:
            out.fail(f"on the 1.25x tie best lookahead is {best_lookahead(tie)[0]} (speedups {speedups})")
        for setting, s in _every_ledger(out):
            row = _speedup_row(setting[0], setting[1], setting[3])  # the lookahead axis does not matter here
            k, speedup = best_lookahead(s)
            if k != row.index(max(row)) + 1 or speedup != max(row):
                out.fail(f"best lookahead {k} but the argmax is {row.index(max(row)) + 1} at {setting}")

    def speedup_rises_with_acceptance(self, out: Outcome):
        """At fixed cost and lookahead, speedup never falls as acceptance rises."""
        for setting, s in _every_ledger(out):
            lower, higher = ledger(s).speedup, ledger(s.with_(acceptance=min(100.0, s.acceptance + 10))).speedup
            if higher < lower:
                out.fail(f"speedup falls from {lower:.6f} to {higher:.6f} as acceptance rises at {setting}")

    def cycle_adds_up(self, out: Outcome):
        """draftMs = m targetMs draftCost/100, verifyMs = targetMs (1 + (m - 1) verifyTax/100),
        draft + verify + overhead = cycle, and msPerToken x outputTokens = cycle."""
        for setting, s in _every_ledger(out):
            r = ledger(s)
            m = s.lookahead
            if (not _close(r.draftMs, m * s.targetMs * s.draftCost / 100)
                    or not _close(r.verifyMs, s.targetMs * (1 + (m - 1) * s.verifyTax / 100))
                    or r.draftMs + r.verifyMs + s.overheadMs != r.cycleMs or not _close(r.msPerToken * r.outputTokens, r.cycleMs)
                    or not _close(r.speedup, s.targetMs * r.outputTokens / r.cycleMs)):
                out.fail(f"cycle does not add up at {setting}")

    def yield_within_bounds(self, out: Outcome):
        """0 <= accepted <= m, 1 <= tokens per call <= m + 1, wasted = m - accepted."""
        for setting, s in _every_ledger(out):
            r = ledger(s)
            if not (0 <= r.accepted <= s.lookahead and 1 <= r.outputTokens <= s.lookahead + 1
                    and _close(r.wastedDrafts, s.lookahead - r.accepted)):
                out.fail(f"yield out of bounds at {setting}")

    def heatmap_matches_ledger(self, out: Outcome):
        """Every heatmap cell is the ledger's speedup for that cell, and the selected cell is the ledger's."""
        lookaheads, acceptances = heatmap_axes()
        for draft_cost in GRID["draftCost"]:
            s = LEDGER_BASE.with_(draftCost=draft_cost)
            grid = speedup_grid(s, lookaheads, acceptances)
            for (row, acceptance), (col, k) in product(enumerate(acceptances), enumerate(lookaheads)):
                out.visited += 1
                if grid[row][col] != ledger(s.with_(acceptance=acceptance, lookahead=k)).speedup:
                    out.fail(f"heatmap cell acceptance={acceptance} k={k} differs at draftCost={draft_cost}")

    def legacy_signature_matches(self, out: Outcome):
        """The legacy ledger signature equals the SPEC's string."""
        out.visited += 1
        got = legacy_signature()
        if got != LEGACY_EXPECTED:
            out.fail(f"legacy signature {got}")

    def to_fixed_ties_away_from_zero(self, out: Outcome):
        """toFixed rounding: exact binary ties go away from zero (JavaScript), not to even,
        at 0 to 20 digits (2**-(d+1) is an exact tie at d digits; the strings are Node's)."""
        cases = {(0.0078125, 6): "0.007813", (-0.0078125, 6): "-0.007813", (2.5, 0): "3", (0.125, 2): "0.13",
                 (1.005, 2): "1.00", (-0.0, 3): "0.000", (1e21, 2): "1e+21", (123.456, 1): "123.5"}
        cases.update(((2.0 ** -(digits + 1), digits), text) for digits, text in TIES_IN_NODE.items())
        cases.update(((-(3 + 2.0 ** -(digits + 1)), digits), "-3" + text[1:]) for digits, text in TIES_IN_NODE.items())
        for (value, digits), expected in cases.items():
            out.visited += 1
            if to_fixed(value, digits) != expected:
                out.fail(f"to_fixed({value}, {digits}) = {to_fixed(value, digits)}, JavaScript gives {expected}")


# (2**-(d+1)).toFixed(d) in Node 20, for d = 7..20: each an exact binary tie, rounded away from zero.
TIES_IN_NODE = {
    7: "0.0039063", 8: "0.00195313", 9: "0.000976563", 10: "0.0004882813", 11: "0.00024414063",
    12: "0.000122070313", 13: "0.0000610351563", 14: "0.00003051757813", 15: "0.000015258789063",
    16: "0.0000076293945313", 17: "0.00000381469726563", 18: "0.000001907348632813",
    19: "0.0000009536743164063", 20: "0.00000047683715820313",
}


def hf_softmax_row(token: int, size: int = 10) -> "sampler.Categorical":
    """softmax of logits +10 at ``token`` and -10 elsewhere, as in Hugging Face's test: weight
    1 for the favourite and exp(-20) for the others, normalised exactly in fractions."""
    other = Fraction(math.exp(-20))
    total = 1 + (size - 1) * other
    return sampler.Categorical([(1 if i == token else other) / total for i in range(size)])


CHECKS = (
    ("distributions-are-normalised", Audit.distributions_are_normalised),
    ("exact-output-equals-target", Audit.exact_output_equals_target),
    ("alpha-equals-one-minus-tv", Audit.alpha_equals_one_minus_tv),
    ("survival-probability-is-alpha", Audit.survival_probability_is_alpha),
    ("buggy-sampler-is-biased", Audit.buggy_sampler_is_biased),
    ("two-token-joint-is-target", Audit.two_token_joint_is_target),
    ("trace-accounting", Audit.trace_accounting),
    ("greedy-matches-plain-greedy", Audit.greedy_matches_plain_greedy),
    ("known-test-vectors", Audit.known_vectors),
    ("samples-converge-to-target", Audit.samples_converge_to_target),
    ("theoretical-speedup-uses-alpha", Audit.theoretical_speedup_uses_alpha),
    ("yield-matches-closed-form", Audit.yield_matches_closed_form),
    ("ledger-equals-leviathan", Audit.ledger_equals_leviathan),
    ("best-lookahead-is-first-argmax", Audit.best_lookahead_is_first_argmax),
    ("speedup-rises-with-acceptance", Audit.speedup_rises_with_acceptance),
    ("cycle-adds-up", Audit.cycle_adds_up),
    ("yield-within-bounds", Audit.yield_within_bounds),
    ("heatmap-matches-ledger", Audit.heatmap_matches_ledger),
    ("legacy-signature", Audit.legacy_signature_matches),
    ("tofixed-ties-away-from-zero", Audit.to_fixed_ties_away_from_zero),
)


def run_check_steps(check, *args, nothing_visited: str = "visited no setting"):
    """Run ``check(*args, out)``, one step at a time: a generator that yields wherever the check
    does (a long check written as a generator yields between its cases, so the browser can answer
    a reader between two of them; a plain function is one step) and returns the Outcome. A check
    that raises fails with the exception named, and one that visits nothing fails with
    ``nothing_visited``."""
    out = Outcome()
    try:
        steps = check(*args, out)
        if steps is not None:  # a generator check: run it to its end, pausing where it pauses
            for _ in steps:
                yield
    except Exception as error:  # a crash is a failed check, named, not a broken page
        out.fail(f"raised {type(error).__name__}: {error}")
    if out.visited == 0:
        out.fail(nothing_visited)
    return out


def run_to_end(steps):
    """Run a step generator to its end and return what it returns."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def run_check(check, *args, nothing_visited: str = "visited no setting") -> Outcome:
    """Run ``check(*args, out)`` to its end (:func:`run_check_steps` without the pauses). Both
    audit suites run their checks here."""
    return run_to_end(run_check_steps(check, *args, nothing_visited=nothing_visited))


def check_result_steps(name: str, check, *args, nothing_visited: str = "visited no setting"):
    """:func:`run_check_steps` as the suites report it: a generator returning name, passed,
    detail (the first counterexample), visited and description (the check's docstring)."""
    out = yield from run_check_steps(check, *args, nothing_visited=nothing_visited)
    return {"name": name, "passed": out.failure is None, "detail": out.failure or "", "visited": out.visited,
            "description": reader_text(check.__doc__ or "")}


def reader_text(docstring: str) -> str:
    """A check's docstring as a reader sees it in the audit list: one line, without the markup the docs tools
    read (a role such as ``:func:`name``` and double backquotes keep only what they mark).

    >>> reader_text("Every readout is the model's (:func:`_expected`),   ``to_fixed`` formatted.")
    "Every readout is the model's (_expected), to_fixed formatted."
    """
    return re.sub(r":[a-z]+:`([^`]*)`", r"\1", " ".join(docstring.split())).replace("``", "")


def run_audit_steps():
    """:func:`run_audit` one step at a time: a generator that yields True after each check, None
    where a long check pauses between its cases, and returns :func:`run_audit`'s result. The
    browser runs the audit in slices through it, so a reader's slider move is answered between two
    steps instead of waiting for the whole audit."""
    audit = Audit()
    results = []
    for name, check in CHECKS:
        results.append((yield from check_result_steps(name, check, audit)))
        yield True
    failures = [r["name"] for r in results if not r["passed"]]
    return {
        "checked": len(results),
        "passed": len(results) - len(failures),
        "failures": failures,
        "settings": len(SETTINGS),
        "maxExactTv": float(audit.max_exact_tv),
        "maxAlphaGap": float(audit.max_alpha_gap),
        "checks": results,
    }


def run_audit() -> dict:
    """Run every check; ``checks`` lists name, passed, detail (the first counterexample) and
    how many settings or cases each visited. A check that raises counts as failed."""
    return run_to_end(run_audit_steps())


def counter_text(result: dict) -> str:
    """The visible audit counter: ``20/20 speculative decoding checks passed``."""
    return f"{result['passed']}/{result['checked']} speculative decoding checks passed"


# --- signatures -------------------------------------------------------------------------

def audit_signature(result: dict) -> str:
    """``checked:passed:failures:settings:maxExactTv:maxAlphaGap`` (the last two to 12 decimals)."""
    return ":".join([str(result["checked"]), str(result["passed"]), str(len(result["failures"])),
                     str(result["settings"]), to_fixed(result["maxExactTv"], 12), to_fixed(result["maxAlphaGap"], 12)])


def exact_signature(result: dict | None = None) -> str:
    """The exact-lab signature of docs/CONTRACT.md section 4 for ``evaluate(**EXACT_SETTING)``."""
    r = result or evaluate(**EXACT_SETTING)
    c, t, s = r["contract"], r["trace"], r["samples"]
    fields = [to_js_string(v) for v in r["params"].values()] + [str(r["state"])]
    fields += [to_fixed(c["alpha"], 6), to_fixed(c["draftTv"], 6), to_fixed(c["exactTv"], 12), to_fixed(c["wrongTv"], 6),
               to_fixed(r["summaryAlpha"], 6), to_fixed(r["theoreticalSpeedup"], 6), to_fixed(t["speedup"], 6)]
    fields += [str(t[k]) for k in ("targetCalls", "draftCalls", "acceptedDraft", "rejectedDraft", "bonusTokens")]
    fields += [to_fixed(t["tokensPerTargetCall"], 6)]
    fields += [to_fixed(s[k], 6) for k in ("specEmpiricalTv", "targetEmpiricalTv", "wrongEmpiricalTv")]
    return ":".join(fields)


def legacy_signature(settings: LedgerSettings = LEGACY_SETTINGS) -> str:
    """The legacy ledger signature: six params, the eight ledger fields, best lookahead and its speedup."""
    r = ledger(settings)
    best_k, speedup = best_lookahead(settings)
    fields = [to_js_string(getattr(settings, k)) for k in ("acceptance", "draftCost", "lookahead", "overheadMs", "targetMs", "verifyTax")]
    fields += [to_fixed(getattr(r, k), 6) for k in ("accepted", "outputTokens", "draftMs", "verifyMs", "cycleMs",
                                                  "msPerToken", "speedup", "wastedDrafts")]
    return ":".join(fields + [str(best_k), to_fixed(speedup, 6)])


def signatures(result: dict | None = None) -> dict:
    """The three signature strings: ``audit`` (runs the audit unless given its result), ``exact``, ``legacy``."""
    return {"audit": audit_signature(result or run_audit()), "exact": exact_signature(), "legacy": legacy_signature()}
