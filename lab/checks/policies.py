"""The lookahead-policies family of the instruments suite (see :mod:`lab.checks`).

Each check calls the model through the module (``policies.X``), so a test that breaks the model
on purpose (``tests/test_policies_mutations.py``) sees the check fail. No result is cached between
checks: each is cheap on its own.
"""

from .. import audit, ledger, policies
from ..jsformat import to_fixed

__all__ = ["CHECKS", "signature_value", "SIGNATURE_NOTE"]

ALPHAS = (0.3, 0.74, 0.9)                  # mean acceptances the checks walk
BURST = 80                                 # burstiness (%) of the bursty cases
DRAFT_COSTS = (0.05, 0.12, 0.5)            # c, draft pass / target pass
TOY_SETTING = (64, 72)                     # (certainty, match) of the exact sampler's toy model
TOLERANCE = 1e-9
SIMULATION = {"process": (0.74, 80), "costs": (0.12, 0.03, 0.075), "cycles": 3000, "seed": 2024, "z": 4.0}
SIGNATURE_SETTING = {"acceptance": 74, "draftCost": 12}

SIGNATURE_NOTE = (
    "Hugging Face's heuristic lookahead schedule (+2 after a fully accepted block, else -1, floor 1) as an exact "
    "long-run speedup under iid acceptance 74% with a draft pass at 12% of a target pass (no tax, no overhead): "
    "E[tokens per cycle] / E[k c + 1] under the stationary law of the lookahead chain (truncated at K_max = 19, "
    "cut mass <= 2.6e-11). Cross-checked by tests/test_policies.py against numpy's least-squares solve of the same "
    "chain built independently, and by a seeded 200000-cycle simulation (agreement within its 3-sigma interval).")


def _close(a: float, b: float, tolerance: float = TOLERANCE) -> bool:
    return abs(a - b) <= tolerance * max(1.0, abs(a), abs(b))


def _reported(result: dict) -> tuple:
    return tuple(result[key] for key in ("speedup", "tokensPerCall", "meanLookahead", "wastedPerToken"))


def burstiness_zero_is_iid(out):
    """At burstiness 0 the two-state bursty process is the iid process in law: static 5, best static,
    the heuristic, the threshold and the oracle report the same four numbers on both (to 1e-9)."""
    for alpha in ALPHAS:
        for c in DRAFT_COSTS[:2]:
            out.visited += 1
            costs = policies.Costs(c)
            flat, burst = policies.iid(alpha), policies.bursty(alpha, 0)
            pairs = {
                "static": (policies.static_policy(flat, 5, costs), policies.static_policy(burst, 5, costs)),
                "best-static": (policies.best_static(flat, costs), policies.best_static(burst, costs)),
                "heuristic": (policies.heuristic_policy(flat, costs), policies.heuristic_policy(burst, costs)),
                "threshold": (policies.threshold_policy(flat, 0.4, costs), policies.threshold_policy(burst, 0.4, costs)),
                "oracle": (policies.oracle_policy(flat, costs), policies.oracle_policy(burst, costs)),
            }
            for name, (a, b) in pairs.items():
                if not all(_close(x, y) for x, y in zip(_reported(a), _reported(b))):
                    out.fail(f"{name} at alpha={alpha} c={c}: iid {_reported(a)} vs bursty(0) {_reported(b)}")


def _processes(alphas=ALPHAS):
    for alpha in alphas:
        yield f"iid {alpha}", policies.iid(alpha)
        yield f"bursty {alpha} b={BURST}", policies.bursty(alpha, BURST)
    yield f"toy {TOY_SETTING[0]}/{TOY_SETTING[1]}", policies.toy(*TOY_SETTING)


def oracle_bounds_every_policy(out):
    """No policy beats the no-waste oracle (tax and overhead 0, c <= 1): on iid, bursty and toy
    processes (toy: one draft cost), static 5, the best static, the heuristic, the threshold and (iid, bursty) the
    state-aware policy have long-run speedups at most the oracle's."""
    for label, process in _processes():
        for c in ((0.05, 0.5) if process.size <= 2 else (0.05,)):
            out.visited += 1
            costs = policies.Costs(c)
            bound = policies.oracle_policy(process, costs)["speedup"]
            results = {"static": policies.static_policy(process, 5, costs), "best-static": policies.best_static(process, costs),
                       "heuristic": policies.heuristic_policy(process, costs),
                       "threshold": policies.threshold_policy(process, 0.4, costs)}
            if process.size <= 2:
                results["state-aware"] = policies.state_aware_policy(process, costs)
            for name, result in results.items():
                if result["speedup"] > bound * (1 + 1e-12):
                    out.fail(f"{name} {result['speedup']:.6f} beats the oracle {bound:.6f} on {label} c={c}")
            yield  # a pause: the browser answers a reader between two cases (lab.audit.run_check_steps)


def best_static_matches_ledger(out):
    """Under iid acceptance with no tax and no overhead, the best static lookahead and its speedup
    equal lab.ledger.best_lookahead scanned over 1..64, at every acceptance of the seed audit grid
    (its (certainty, match) pairs) and every draft cost of that grid."""
    alphas = sorted({float(audit._alpha(c, m)) for c in audit.GRID["certainty"] for m in audit.GRID["match"]})
    for alpha in alphas:
        process, shared = policies.iid(alpha), {}  # one process: its depth sums are shared across costs
        for draft_cost in audit.GRID["draftCost"]:
            out.visited += 1
            settings = ledger.LedgerSettings(acceptance=alpha * 100, draftCost=draft_cost, overheadMs=0, verifyTax=0)
            k, speedup = ledger.best_lookahead(settings, policies.MAX_STATIC)
            got = policies.best_static(process, policies.Costs(draft_cost / 100), cache=shared)
            if got["k"] != k and not _close(got["speedup"], speedup, 1e-12):
                out.fail(f"alpha={alpha:.6f} draftCost={draft_cost}: k {got['k']} vs ledger {k}")
            elif not _close(got["speedup"], speedup):
                out.fail(f"alpha={alpha:.6f} draftCost={draft_cost}: speedup {got['speedup']} vs ledger {speedup}")
        yield  # a pause: the browser answers a reader between two cases (lab.audit.run_check_steps)


def heuristic_lookahead_ignores_draft_cost(out):
    """Under iid acceptance the heuristic's schedule sees only acceptances, so its mean lookahead
    (and tokens per call) are the same at every draft cost, while its speedup falls as drafts cost more."""
    for alpha in ALPHAS:
        out.visited += 1
        runs = [policies.heuristic_policy(policies.iid(alpha), policies.Costs(c)) for c in (0.0, 0.05, 0.12, 0.5)]
        first = runs[0]
        for c, run in zip((0.0, 0.05, 0.12, 0.5), runs):
            if not (_close(run["meanLookahead"], first["meanLookahead"], 1e-12)
                    and _close(run["tokensPerCall"], first["tokensPerCall"], 1e-12)):
                out.fail(f"alpha={alpha}: mean lookahead {run['meanLookahead']} at c={c} vs {first['meanLookahead']} at c=0")
        if not all(a["speedup"] > b["speedup"] for a, b in zip(runs, runs[1:])):
            out.fail(f"alpha={alpha}: speedup does not fall with the draft cost")


def stationary_law_is_invariant(out):
    """Every chain's solved law is a distribution (non-negative, sums to 1 within 1e-12) and
    invariant: max |(pi P) - pi| <= 1e-9, for the heuristic's (lookahead, state) chain and the
    static policy's state chain on iid, bursty and toy processes."""
    costs = policies.Costs(0.12)
    for label, process in _processes((0.74,)):
        for name, result in (("heuristic", policies.heuristic_policy(process, costs, detail=True)),
                             ("static 5", policies.static_policy(process, 5, costs, detail=True))):
            out.visited += 1
            rows, pi = result["chain"]["rows"], result["chain"]["pi"]
            residual = policies.invariance_residual(rows, pi)
            if min(pi) < 0 or abs(sum(pi) - 1) > 1e-12 or residual > TOLERANCE:
                out.fail(f"{name} on {label}: sum {sum(pi)!r}, min {min(pi)!r}, |pi P - pi| = {residual:.3g}")
            yield  # a pause: the browser answers a reader between two cases (lab.audit.run_check_steps)


def exact_agrees_with_simulation(out):
    """Each policy's exact long-run speedup lies within z = 3 batch-means standard errors of a seeded
    simulation (random.Random(2024), 2000 cycles) on a bursty process with tax and overhead."""
    alpha, burst = SIMULATION["process"]
    process, costs = policies.bursty(alpha, burst), policies.Costs(*SIMULATION["costs"])
    exact = policies.evaluate_policies(process, costs, 5, 0.4)
    for name in ("static", "heuristic", "threshold", "oracle", "state-aware"):
        out.visited += 1
        run = policies.simulate(process, name, costs, SIMULATION["cycles"], SIMULATION["seed"], lookahead=5,
                                threshold=0.4, ks=exact["state-aware"]["ks"])
        gap = abs(run["speedup"] - exact[name]["speedup"])
        if not gap <= SIMULATION["z"] * run["stderr"]:
            out.fail(f"{name}: exact {exact[name]['speedup']:.4f}, simulated {run['speedup']:.4f} "
                     f"+- {run['stderr']:.4f} (|gap| = {gap / run['stderr']:.1f} standard errors)")
        yield  # a pause: the browser answers a reader between two cases (lab.audit.run_check_steps)


def oracle_matches_closed_form(out):
    """Under iid acceptance with no tax and no overhead the oracle's speedup is 1 / (1 - alpha + alpha c)."""
    for alpha in ALPHAS + (0.05, 0.99):
        for c in DRAFT_COSTS + (0.0, 1.0):
            out.visited += 1
            got = policies.oracle_policy(policies.iid(alpha), policies.Costs(c))["speedup"]
            want = 1 / (1 - alpha + alpha * c)
            if not _close(got, want, 1e-12):
                out.fail(f"alpha={alpha} c={c}: oracle {got!r}, closed form {want!r}")


def threshold_extremes_are_static(out):
    """A threshold of 0 never stops early, so it equals static k = 20 (the cap); a threshold above
    every confidence stops after one draft, so it equals static k = 1 (iid, bursty and toy)."""
    costs = policies.Costs(0.12, 0.03, 0.05)
    for label, process in _processes():
        for threshold, k in ((0.0, policies.THRESHOLD_CAP), (1.01, 1)):
            out.visited += 1
            got = _reported(policies.threshold_policy(process, threshold, costs))
            want = _reported(policies.static_policy(process, k, costs))
            if not all(_close(a, b) for a, b in zip(got, want)):
                out.fail(f"threshold {threshold} on {label}: {got} vs static {k} {want}")


def truncation_is_certified(out):
    """The heuristic's truncation at K_max cuts a stationary mass whose proven bound is below 1e-9,
    and truncating 16 levels higher moves no reported number by more than 1e-9."""
    costs = policies.Costs(0.12)
    for label, process in (("iid 0.9", policies.iid(0.9)), (f"bursty 0.9 b={BURST}", policies.bursty(0.9, BURST))):
        out.visited += 1
        result = policies.heuristic_policy(process, costs)
        k_max = result["kMax"]
        if not result["truncationBound"] < TOLERANCE:
            out.fail(f"{label}: truncation bound {result['truncationBound']:.3g} at K_max {k_max}")
            continue
        rows, tokens, drafts = policies._heuristic_chain(process, k_max + 16)
        deeper = policies._summary(policies.stationary(rows), tokens, drafts, costs)
        if not all(_close(a, b) for a, b in zip(_reported(result), _reported(deeper))):
            out.fail(f"{label}: K_max {k_max} gives {_reported(result)}, K_max {k_max + 16} {_reported(deeper)}")


def heuristic_never_beats_best_static_under_iid(out):
    """Under iid acceptance a lookahead chosen from the past is a mix of static lookaheads, and a
    ratio of sums is at most the best ratio: the heuristic's long-run speedup never exceeds the
    best static one (with tax and overhead too)."""
    for alpha in ALPHAS + (0.5, 0.97):
        for costs in (policies.Costs(0.02), policies.Costs(0.12, 0.03, 0.075), policies.Costs(0.4)):
            out.visited += 1
            process = policies.iid(alpha)
            heuristic = policies.heuristic_policy(process, costs)["speedup"]
            best = policies.best_static(process, costs)["speedup"]
            if heuristic > best * (1 + 1e-12):
                out.fail(f"alpha={alpha} {costs}: heuristic {heuristic:.9f} beats the best static {best:.9f}")


CHECKS = (
    ("burstiness-zero-is-iid", burstiness_zero_is_iid),
    ("oracle-bounds-every-policy", oracle_bounds_every_policy),
    ("best-static-matches-ledger", best_static_matches_ledger),
    ("heuristic-lookahead-ignores-draft-cost", heuristic_lookahead_ignores_draft_cost),
    ("stationary-law-is-invariant", stationary_law_is_invariant),
    ("exact-agrees-with-simulation", exact_agrees_with_simulation),
    ("oracle-matches-closed-form", oracle_matches_closed_form),
    ("threshold-extremes-are-static", threshold_extremes_are_static),
    ("truncation-is-certified", truncation_is_certified),
    ("heuristic-never-beats-best-static-under-iid", heuristic_never_beats_best_static_under_iid),
)


def signature_value() -> str:
    """The heuristic's exact long-run speedup at iid 74 %, draft cost 12 % (6 decimals)."""
    process = policies.iid(SIGNATURE_SETTING["acceptance"] / 100)
    return to_fixed(policies.heuristic_policy(process, policies.Costs(SIGNATURE_SETTING["draftCost"] / 100))["speedup"], 6)
