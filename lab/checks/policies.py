"""The lookahead-policies family of the instruments suite (see :mod:`lab.checks`).

Each check calls the model through the module (``policies.X``), so a test that breaks the model
on purpose (``tests/test_policies_mutations.py``) sees the check fail. No result is cached between
checks: each is cheap on its own.
"""

import re

from .. import acceptance, audit, ledger, policies, policies_simulation
from ..jsformat import to_fixed
from . import (cells_difference, close, figure_difference, figure_texts, hostile_inputs_answered, phrase_missing,
               readout_difference, table_cells, views_at)

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
                if not all(close(x, y, TOLERANCE, floor=1.0) for x, y in zip(_reported(a), _reported(b))):
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
            if got["k"] != k and not close(got["speedup"], speedup, 1e-12, floor=1.0):
                out.fail(f"alpha={alpha:.6f} draftCost={draft_cost}: k {got['k']} vs ledger {k}")
            elif not close(got["speedup"], speedup, TOLERANCE, floor=1.0):
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
            if not (close(run["meanLookahead"], first["meanLookahead"], 1e-12, floor=1.0)
                    and close(run["tokensPerCall"], first["tokensPerCall"], 1e-12, floor=1.0)):
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
        run = policies_simulation.simulate(process, name, costs, SIMULATION["cycles"], SIMULATION["seed"], lookahead=5,
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
            if not close(got, want, 1e-12, floor=1.0):
                out.fail(f"alpha={alpha} c={c}: oracle {got!r}, closed form {want!r}")
            # the same i.i.d. acceptance received as a measured curve of 1 to 3 equal rates (the oracle's tail past a
            # curve is geometric in its last rate): the same closed form
            for length in (1, 3):
                if alpha < 1 and not close(policies.oracle_policy(policies.depth_curve([alpha] * length),
                                                                  policies.Costs(c))["speedup"], want, 1e-12, floor=1.0):
                    out.fail(f"alpha={alpha} c={c} as a curve of {length} rates: the oracle is not {want!r}")
                    return


def threshold_extremes_are_static(out):
    """A threshold of 0 never stops early, so it equals static k = 20 (the cap); a threshold above
    every confidence stops after one draft, so it equals static k = 1 (iid, bursty and toy)."""
    costs = policies.Costs(0.12, 0.03, 0.05)
    for label, process in _processes():
        for threshold, k in ((0.0, policies.THRESHOLD_CAP), (1.01, 1)):
            out.visited += 1
            got = _reported(policies.threshold_policy(process, threshold, costs))
            want = _reported(policies.static_policy(process, k, costs))
            if not all(close(a, b, TOLERANCE, floor=1.0) for a, b in zip(got, want)):
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
        if not all(close(a, b, TOLERANCE, floor=1.0) for a, b in zip(_reported(result), _reported(deeper))):
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


# --- the widget's readouts ---------------------------------------------------------------------

# Form values for the widget (lab.widgets.policies): its defaults, both ends of every slider, each
# acceptance process and a measured curve (one with a rate of 1 inside it, one ending at 1, which
# the widget refuses with a note).
READOUT_SETTINGS = (
    {},
    {"acceptance": "1", "draftCost": "0", "burst": "0", "threshold": "0", "lookahead": "1"},
    {"acceptance": "99", "draftCost": "100", "burst": "95", "threshold": "100", "lookahead": "20",
     "verifyTax": "50", "overheadMs": "200", "targetMs": "1"},
    {"polProcess": "independent", "acceptance": "60", "verifyTax": "3", "overheadMs": "6", "targetMs": "500"},
    {"polProcess": "toy", "lookahead": "7"},
    {"polCurve": "custom:0.9,1,0.5", "lookahead": "2"},
    {"polCurve": "custom:0.8,1", "acceptance": "50"},
)


def _iid_heuristic(alpha: float, levels: int = 80) -> tuple[float, float]:
    """(mean lookahead, tokens per call) of Hugging Face's heuristic under iid acceptance, found here by
    iterating the lookahead's own chain (k -> k + 2 with chance alpha^k, else max(1, k - 1)) from its
    start, independently of :func:`lab.policies.heuristic_policy`'s elimination."""
    law = [0.0] * (levels + 3)
    law[policies.HEURISTIC_START] = 1.0
    for _ in range(3000):
        nxt = [0.0] * (levels + 3)
        for k in range(1, levels + 1):
            if law[k]:
                full = alpha ** k
                nxt[min(k + 2, levels)] += law[k] * full
                nxt[max(1, k - 1)] += law[k] * (1 - full)
        change, law = sum(abs(a - b) for a, b in zip(law, nxt)), nxt
        if change < 1e-15:
            break
    mean_k = sum(k * p for k, p in enumerate(law))
    tokens = sum(p * (1 - alpha ** (k + 1)) / (1 - alpha) for k, p in enumerate(law) if p)
    return mean_k, tokens


def _policies_expected(widget, values: dict):
    """(process, results, params, curve mode) for the widget's form ``values``, from the model."""
    params = {**{s.name: s.default for s in widget.SLIDERS}, **{k: float(v) for k, v in values.items()
                                                                  if k not in ("polProcess", "polCurve")}}
    choice = values.get("polProcess", "bursty")
    curve = acceptance.token_rates(values["polCurve"]) if "polCurve" in values else None
    if curve is not None and curve[-1] < 1:
        process = policies.received_curve(curve, acceptance.token_measured_at(values["polCurve"]),
                                          acceptance.token_method(values["polCurve"]))
    elif choice == "toy":
        process = policies.toy(*TOY_SETTING)
    elif choice == "independent" or params["burst"] == 0:
        process = policies.iid(params["acceptance"] / 100)
    else:
        process = policies.bursty(params["acceptance"] / 100, params["burst"])
    costs = policies.Costs(params["draftCost"] / 100, params["verifyTax"] / 100, params["overheadMs"] / params["targetMs"])
    results = policies.evaluate_policies(process, costs, int(params["lookahead"]), params["threshold"] / 100)
    return process, results, params, process.depth_rates is not None


def _gain_text(speedup: float, best: float) -> str:
    """A policy's change against the best static speedup as the page words it, written here apart from
    the widget: a sign (+ from +0.05%, the minus sign from -0.05%, else plus-minus) and one decimal.

    >>> _gain_text(2.22, 1.82817), _gain_text(1.81, 1.82817), _gain_text(1.8282, 1.82817)
    ('+21.4%', '−1.0%', '±0.0%')
    """
    change = 100 * (speedup - best) / best
    sign = "+" if change >= 0.05 else "\u2212" if change <= -0.05 else "\u00b1"
    return f"{sign}{to_fixed(abs(change), 1)}%"


def _figures_difference(where, view, process, results, params, shown) -> str | None:
    """The numbers of the bars and the strip figures against the model's (lab.checks.figure_difference):
    each policy's speedup and its change against the best static one, in percent (computed here, not by the
    widget's _gain); the lookaheads named in the labels; the seeded strip's calls, lookahead range and mean
    (lab.policies_simulation.heuristic_strip at the widget's seed), best k and calls per stretch."""
    from ..widgets import policies as widget

    f = to_fixed
    best = results["best-static"]
    bars = [str(int(params["lookahead"])), str(best["k"])]
    for name in shown:
        bars.append(f(results[name]["speedup"], 2))
        if name != "best-static":
            bars.append(f(abs(results[name]["speedup"] / best["speedup"] - 1) * 100, 1))
    failure = figure_difference(where, "bars", view["figures"]["bars"], bars, fixed=("1", "2"))
    if failure:
        return failure
    texts = figure_texts(view["figures"]["bars"])
    for name in shown:  # each bar's value with its signed change, as its label and tooltip say it
        said = f(results[name]["speedup"], 2) + "x" + (
            "" if name == "best-static" else f" ({_gain_text(results[name]['speedup'], best['speedup'])})")
        if sum(said in text for text in texts) < 2:
            return f"{where}: the bars figure does not say {said!r} for {name} in its label and tooltip"
    failure = _best_line_difference(where, view["figures"]["bars"], best["speedup"])
    if failure:
        return failure
    strip = policies_simulation.heuristic_strip(process, widget.STRIP_CYCLES, widget.STRIP_SEED)
    ks = [call["lookahead"] for call in strip]
    # the heuristic's own rule, walked call by call: it starts at HEURISTIC_START, adds 2 after a block accepted whole
    # (every one of its k drafts) and takes 1 off otherwise, never below 1
    for before, call in zip([None] + strip, strip):
        want = (policies.HEURISTIC_START if before is None else before["lookahead"] + 2
                if before["accepted"] == before["lookahead"] else max(1, before["lookahead"] - 1))
        if call["lookahead"] != want or not 0 <= call["accepted"] <= call["lookahead"]:
            return f"{where}: a strip call drafts {call['lookahead']} (accepting {call['accepted']}), the heuristic's rule {want}"
    top = max(max(ks), best["k"], 6)
    numbers = [str(len(strip)), str(min(ks)), str(max(ks)), f(sum(ks) / len(ks), 1), str(best["k"])]
    if process.size == 2:
        good = sum(1 for call in strip if call["state"] == 0)
        numbers += [str(good), str(len(strip) - good)]
    return figure_difference(where, "strip", view["figures"]["strip"], numbers,
                             fixed=("0", str(top // 2), str(top), "1"))


# The bars' dashed line marks the best static speedup and the solid one 1x (plain decoding): each must sit where
# a bar of that speedup would end, on the scale the best static policy's own bar sets (its left end is 0x). The
# numbers above do not see a line drawn at another policy's speedup (the second outsider's mutation sweep).
_BAR = re.compile(r'<rect class="pol-bar" x="([0-9.]+)" y="[0-9.]+" width="([0-9.]+)" height="[0-9.]+"><title>'
                  r'best static \(k = [0-9]+\): ([0-9.]+)x</title>')
_LINE = re.compile(r'class="([^"]*)" (?:x1="|d="M)([0-9.]+)')


def _best_line_difference(where, svg: str, speedup: float) -> str | None:
    """The bars figure's best-static and 1x lines against the scale of the best static bar (of the model's
    ``speedup``; see above), or None."""
    left, width = (float(v) for v in _BAR.search(svg).groups()[:2])
    lines = {css: float(x) for css, x in _LINE.findall(svg) if css in ("pol-one", "fig-baseline pol-best-line")}
    for css, value in (("fig-baseline pol-best-line", speedup), ("pol-one", 1.0)):
        want = left + width * value / speedup
        if abs(lines.get(css, -1.0) - want) > 0.3:
            return f"{where}: the bars' {css} line is at x = {lines.get(css)}, where {value:.2f}x ends at {want:.2f}"
    return None


def policy_readouts_match_model(out):
    """Every readout, the lead's and summary's numbers and every cell of the policies table equal the
    policies model's numbers through the page's formatter (lab.jsformat.to_fixed), at the defaults,
    both ends of every slider, each process and measured curves (a rate of 1 inside one; a curve ending
    at 1 is refused with a note, not an error); for every policy wasted drafts per token x tokens per
    call = mean lookahead - tokens per call + 1, the bars' and the strip's numbers (labels, tooltips, the
    description) are the model's (lab.checks.figure_difference), and under iid the heuristic's mean lookahead and tokens
    per call match its lookahead chain iterated here."""
    from ..widgets import policies as widget

    for values, where, view in views_at(out, widget, READOUT_SETTINGS):
        if view.get("error") or "readouts" not in view:
            return out.fail(f"{where}: no view ({view.get('error')})")
        yield  # the view and the model's own numbers in steps of their own (the extremes take a while)
        process, results, params, curve_mode = _policies_expected(widget, values)
        yield
        if "polCurve" in values and not curve_mode and not any("last rate is 1" in note for note in view["notes"]):
            return out.fail(f"{where}: a curve ending at 1 was not refused with a note ({view['notes']})")
        if view["curveMode"] != curve_mode:
            return out.fail(f"{where}: curve mode {view['curveMode']}, expected {curve_mode}")
        shown = [n for n in policies.POLICY_NAMES if not (curve_mode and n == "state-aware")]
        failure = (_policy_readouts_difference(where, view, process, results, shown)
                   or phrase_missing(where, view, _policy_phrases(process, results, params))
                   or _figures_difference(where, view, process, results, params, shown)
                   or _wasted_difference(where, results))
        if failure:
            return out.fail(failure)
        if process.name == "iid":
            yield
            heuristic = results["heuristic"]
            mean_k, tokens = _iid_heuristic(process.rates[0])
            if not (close(heuristic["meanLookahead"], mean_k, 1e-7, floor=1.0) and close(heuristic["tokensPerCall"], tokens, 1e-7, floor=1.0)):
                return out.fail(f"{where}: heuristic mean lookahead {heuristic['meanLookahead']}, tokens per call "
                                f"{heuristic['tokensPerCall']}; its chain iterated gives {mean_k}, {tokens}")
        yield  # a pause: the browser answers a reader between two settings


def _policy_readouts_difference(where, view: dict, process, results: dict, shown: list) -> str | None:
    """The readouts (the best static k, past the measured positions on a curve; the heuristic's mean lookahead; the
    oracle) and the table's cells for each policy ``shown`` against the model's ``results``."""
    f, best, heuristic = to_fixed, results["best-static"], results["heuristic"]
    measured_k = len(process.depth_rates or ())
    past = f" (past the measured k = {measured_k})" if measured_k and best["k"] > measured_k else ""
    expected = {"bestStatic": f"k = {best['k']}, {f(best['speedup'], 2)}x{past}",
                "heuristicLookahead": f(heuristic["meanLookahead"], 2),
                "oracle": f"{f(results['oracle']['speedup'], 2)}x"}
    failure = readout_difference(where, view["readouts"], expected)
    if failure:
        return failure
    cells = [cell for name in shown for cell in (
        f"{f(results[name]['speedup'], 3)}x",
        "\u2014" if name == "best-static" else _gain_text(results[name]["speedup"], best["speedup"]),
        f(results[name]["tokensPerCall"], 3), f(results[name]["meanLookahead"], 2),
        f(results[name]["wastedPerToken"], 3))]
    return cells_difference(where, "table", table_cells(view["figures"]["table"]), cells)


def _policy_phrases(process, results: dict, params: dict) -> dict:
    """The lead's, summary's and live line's numbers as the model gives them: the best static k, the heuristic,
    the oracle's bound, the reader's static k, the threshold policy's gain and, for a bursty process, the
    stretches' own rates and the state-aware policy's k in each."""
    f, best, heuristic = to_fixed, results["best-static"], results["heuristic"]
    phrases = {"lead": [f"k = {best['k']} at {f(best['speedup'], 2)}x"],
               "summary": [f"k = {best['k']} at {f(best['speedup'], 2)}x",
                           f"heuristic averages {f(heuristic['speedup'], 2)}x",
                           f"mean lookahead {f(heuristic['meanLookahead'], 1)}",
                           f"bounds them all at {f(results['oracle']['speedup'], 2)}x",
                           f"Static k = {int(params['lookahead'])}: {f(results['static']['speedup'], 2)}x"],
               "live": [f"k = {best['k']} at {f(best['speedup'], 2)}x", f"heuristic {f(heuristic['speedup'], 2)}x"]}
    threshold = results["threshold"]["speedup"]
    phrases["summary"].append(f"{f(threshold, 2)}x ({_gain_text(threshold, best['speedup'])})")
    if process.name == "toy":  # the toy's slots' mean survival, a percent
        phrases["summary"].append(f"drafts survive {f(100 * sum(process.rates) / len(process.rates), 1)}% of the time")
    if process.name == "bursty":  # the stretches' own rates, and the best k in each (lab.policies.bursty)
        mean = params["acceptance"] / 100
        good, bad = mean + policies.CONTRAST * (1 - mean), mean * (1 - policies.CONTRAST)
        aware = results["state-aware"]
        phrases["summary"] += [f"good stretches accept {f(100 * good, 1)}% of drafts, bad ones {f(100 * bad, 1)}%",
                               f"({aware['ks'][0]} in good, {aware['ks'][1]} in bad) {f(aware['speedup'], 2)}x"]
    return phrases


def _wasted_difference(where, results: dict) -> str | None:
    """For every policy, wasted drafts per token x tokens per call = mean lookahead - tokens per call + 1."""
    for name, r in results.items():
        if not close(r["wastedPerToken"] * r["tokensPerCall"], r["meanLookahead"] - r["tokensPerCall"] + 1, 1e-7, floor=1.0):
            return (f"{where}: {name}: wasted per token x tokens per call "
                    f"{r['wastedPerToken'] * r['tokensPerCall']} is not mean lookahead - tokens + 1 = "
                    f"{r['meanLookahead'] - r['tokensPerCall'] + 1}")
    return None


def policies_hostile_inputs_answered(out):
    """No input breaks the policies widget: every slider given NaN, infinities, an empty value, other
    scripts' digits, hex, underscores, markup or 5,000 characters (as a form value and in a link) is
    answered with a note naming it and the slider in range, never an error, a NaN or a long echo
    (lab.checks.hostile_inputs_answered); so are measured curves with a rate of 1 inside (taken), one
    ending at 1 (refused with a note: no long-run average), NaN, a rate above 1, 80 rates and a choice
    that is no process."""
    from ..widgets import policies as widget

    yield from hostile_inputs_answered(out, widget, cases=(
        ({"polCurve": "custom:0.9,1,0.5"}, None), ({"polCurve": "custom:1"}, "last rate is 1"),
        ({"polCurve": "custom:0.8,1"}, "last rate is 1"), ({"polCurve": "custom:nan"}, "polCurve"),
        ({"polCurve": "custom:1.5"}, "polCurve"), ("?polCurve=custom:" + ",".join(["0.5"] * 80), "polCurve"),
        ({"polProcess": "<script>" * 700}, "Acceptance process"), ({"polCurve": "custom:\u0663"}, "polCurve")))


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
    ("policies-readouts-match-model", policy_readouts_match_model),
    ("policies-hostile-inputs-answered", policies_hostile_inputs_answered),
)


def signature_value() -> str:
    """The heuristic's exact long-run speedup at iid 74 %, draft cost 12 % (6 decimals)."""
    process = policies.iid(SIGNATURE_SETTING["acceptance"] / 100)
    return to_fixed(policies.heuristic_policy(process, policies.Costs(SIGNATURE_SETTING["draftCost"] / 100))["speedup"], 6)
