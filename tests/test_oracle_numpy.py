"""An independent numpy oracle for the ledger and the speculative sampler.

Everything below is written from docs/CONTRACT.md sections 1 and 2 and from the model description in
lab/sampler.py's docstring, in float64, without calling lab's formulas. lab is only used for
(1) the list of audit settings and (2) the values being checked.
"""

from __future__ import annotations

import numpy as np
import pytest

from lab import audit, exact, ledger, sampler

VOCAB = 8
FAVOURITES = np.array([0, 1, 2, 3, 0, 4, 5, 3, 6, 7, 0, 1])
CONTEXTS = ["easy", "easy", "normal", "normal", "easy", "easy", "hard", "normal", "easy", "easy", "hard", "normal"]
GRID_VALUES = (0, 20, 40, 60, 80, 100)


# --- the model, in numpy ----------------------------------------------------------------------

def np_context(c: float, m: float, kind: str) -> tuple[float, float]:
    if kind == "easy":
        return c + (100 - c) / 2, m + (100 - m) / 2
    if kind == "hard":
        return c * c / 100, m * m / 100
    return c, m


def np_geometric(ratio: float, centre: int) -> np.ndarray:
    ranks = (np.arange(VOCAB) - centre) % VOCAB
    w = np.power(float(ratio), ranks.astype(float))  # 0.0 ** 0 == 1: one-hot at ratio 0
    return w / w.sum()


def np_pair(c: float, m: float, favourite: int) -> tuple[np.ndarray, np.ndarray]:
    rho = 1 - c / 100
    p = np_geometric(rho, favourite)
    d = np_geometric(rho / 2, (favourite + 1) % VOCAB)
    mu = m / 100
    return p, mu * p + (1 - mu) * d


def np_slot_pair(certainty: float, match: float, slot: int):
    c, m = np_context(certainty, match, CONTEXTS[slot])
    return np_pair(c, m, int(FAVOURITES[slot]))


def np_alpha(p, q) -> float:
    return float(np.minimum(p, q).sum())


def np_spec_output(p, q) -> np.ndarray:
    """min(p, q) + (1 - alpha) * norm(max(0, p - q))."""
    kept = np.minimum(p, q)
    alpha = kept.sum()
    excess = np.maximum(p - q, 0)
    if excess.sum() == 0:
        return kept
    return kept + (1 - alpha) * excess / excess.sum()


def np_buggy_output(p, q) -> np.ndarray:
    kept = np.minimum(p, q)
    return kept + (1 - kept.sum()) * q


def np_tv(a, b) -> float:
    return float(np.abs(a - b).sum() / 2)


# --- (a) the ledger over all 1296 audit settings ----------------------------------------------

def np_ledger(acceptance, draft_cost, lookahead, overhead, target, tax):
    """Vectorised ledger of docs/CONTRACT.md section 1: every argument a float64 array (or scalar)."""
    a = np.asarray(acceptance, dtype=float) / 100
    m = np.asarray(lookahead)
    max_m = int(m.max())
    powers = a[..., None] ** np.arange(1, max_m + 1)          # a, a**2, ...
    mask = np.arange(1, max_m + 1) <= m[..., None]
    accepted = np.where(mask, powers, 0.0).sum(axis=-1)
    output = 1 + accepted
    draft = m * target * np.asarray(draft_cost, dtype=float) / 100
    verify = target * (1 + (m - 1) * tax / 100)
    cycle = draft + verify + overhead
    per_token = cycle / output
    return {"accepted": accepted, "outputTokens": output, "draftMs": draft, "verifyMs": verify,
            "cycleMs": cycle, "msPerToken": per_token, "speedup": target / per_token,
            "wastedDrafts": np.maximum(0.0, m - accepted)}


def test_ledger_grid_matches_numpy():
    settings = audit.SETTINGS
    assert len(settings) == 1296 == 6**4
    base = audit.LEDGER_BASE
    # acceptance = 100 alpha of the reference pair, as the audit feeds the ledger; alpha from lab...
    lab_alpha = {(c, m): float(sampler.per_token_acceptance(*sampler.reference_pair(c, m)))
                 for c in GRID_VALUES for m in GRID_VALUES}
    # ...checked against the numpy alpha of the numpy reference pair (normal context, favourite 0)
    for (c, m), alpha in lab_alpha.items():
        assert np_alpha(*np_pair(c, m, 0)) == pytest.approx(alpha, rel=1e-12, abs=1e-15)
    acc = np.array([100 * lab_alpha[(c, m)] for c, m, _, _ in settings])
    look = np.array([s[2] for s in settings])
    cost = np.array([s[3] for s in settings], dtype=float)
    ours = np_ledger(acc, cost, look, base.overheadMs, base.targetMs, base.verifyTax)
    worst = 0.0
    for i, (c, m, lookahead, draft_cost) in enumerate(settings):
        theirs = ledger.ledger(base.with_(acceptance=acc[i], lookahead=lookahead, draftCost=draft_cost))
        for field, values in ours.items():
            mine, lab_value = float(values[i]), getattr(theirs, field)
            rel = abs(mine - lab_value) / max(abs(mine), abs(lab_value), 1e-300)
            worst = max(worst, rel if abs(mine - lab_value) > 1e-13 else 0.0)
            assert rel <= 1e-12 or abs(mine - lab_value) <= 1e-13, (field, (c, m, lookahead, draft_cost), mine, lab_value)
    assert worst <= 1e-12


def test_best_lookahead_matches_numpy_argmax():
    base = audit.LEDGER_BASE
    m = np.arange(1, 13)
    for c in GRID_VALUES:
        for match in GRID_VALUES:
            acceptance = 100 * float(sampler.per_token_acceptance(*sampler.reference_pair(c, match)))
            for draft_cost in audit.GRID["draftCost"]:
                row = np_ledger(np.full(12, acceptance), np.full(12, float(draft_cost)), m,
                                base.overheadMs, base.targetMs, base.verifyTax)["speedup"]
                best_m, best = ledger.best_lookahead(base.with_(acceptance=acceptance, draftCost=draft_cost))
                assert best == pytest.approx(row.max(), rel=1e-12)
                # the argmax agrees unless two lookaheads are within rounding of each other
                if np.sort(row)[-1] - np.sort(row)[-2] > 1e-9 * row.max():
                    assert best_m == int(np.argmax(row)) + 1


# --- (b) the sampler's exact output distributions ---------------------------------------------

@pytest.mark.parametrize("certainty", GRID_VALUES)
@pytest.mark.parametrize("match", GRID_VALUES)
def test_sampler_pairs_and_outputs_match_numpy(certainty, match):
    for slot in range(12):
        p, q = np_slot_pair(certainty, match, slot)
        lab_p, lab_q = sampler.position_pair(certainty, match, slot)
        np.testing.assert_allclose(p, [float(x) for x in lab_p.probs], rtol=0, atol=1e-12)
        np.testing.assert_allclose(q, [float(x) for x in lab_q.probs], rtol=0, atol=1e-12)
        assert abs(p.sum() - 1) < 1e-12 and abs(q.sum() - 1) < 1e-12
        # the speculative sampler's output is the target
        np.testing.assert_allclose(np_spec_output(p, q), p, rtol=0, atol=1e-12)
        # and lab's exact (Fraction) output agrees with numpy's float one
        lab_out = [float(x) for x in sampler.exact_output_distribution(lab_p, lab_q)]
        np.testing.assert_allclose(np_spec_output(p, q), lab_out, rtol=0, atol=1e-12)
        # alpha and the bias of the draft-resampling bug, per slot
        assert np_alpha(p, q) == pytest.approx(float(sampler.per_token_acceptance(lab_p, lab_q)), abs=1e-12)
        buggy = np_buggy_output(p, q)
        assert abs(buggy.sum() - 1) < 1e-12
        lab_buggy = sampler.buggy_output_distribution(lab_p, lab_q)
        np.testing.assert_allclose(buggy, [float(x) for x in lab_buggy], rtol=0, atol=1e-12)
        assert np_tv(p, buggy) == pytest.approx(float(sampler.total_variation(lab_p, lab_buggy)), abs=1e-12)
        if match == 100:
            assert np_tv(p, buggy) < 1e-12
        else:
            assert np_tv(p, buggy) > 1e-6


@pytest.mark.parametrize("certainty", GRID_VALUES)
@pytest.mark.parametrize("match", GRID_VALUES)
def test_contract_matches_numpy(certainty, match):
    # the contract uses the reference pair: a normal context centred on token 0
    p, q = np_pair(certainty, match, 0)
    contract = exact.evaluate(certainty=certainty, match=match, length=8)["contract"]
    assert contract["alpha"] == pytest.approx(np_alpha(p, q), abs=1e-12)
    assert contract["draftTv"] == pytest.approx(np_tv(p, q), abs=1e-12)
    assert contract["alpha"] == pytest.approx(1 - np_tv(p, q), abs=1e-12)
    assert np_tv(p, np_spec_output(p, q)) < 1e-12 and contract["exactTv"] == 0
    assert contract["wrongTv"] == pytest.approx(np_tv(p, np_buggy_output(p, q)), abs=1e-12)


@pytest.mark.parametrize("certainty, match, length", [(64, 72, 96), (0, 0, 1), (100, 40, 13), (37, 91, 256), (80, 20, 30)])
def test_summary_alpha_matches_numpy(certainty, match, length):
    alphas = [np_alpha(*np_slot_pair(certainty, match, t % 12)) for t in range(length)]
    result = exact.evaluate(certainty=certainty, match=match, length=length)
    assert result["summaryAlpha"] == pytest.approx(float(np.mean(alphas)), abs=1e-12)
    a, g, c = result["summaryAlpha"], result["params"]["gamma"], result["params"]["draftCost"] / 100
    expected = (g + 1) / (g * c + 1) if a == 1 else (1 - a ** (g + 1)) / ((1 - a) * (g * c + 1))
    assert result["theoreticalSpeedup"] == pytest.approx(expected, rel=1e-12)
