"""lab.policies against hand-solved chains, closed forms, numpy oracles and seeded simulation; the
`policy` CLI; the widget's view."""

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from lab import cli, ledger, policies, policies_simulation
from lab.checks import policies as family
from lab.widgets import policies as widget

ROOT = Path(__file__).resolve().parent.parent


# --- the stationary law -------------------------------------------------------------------------

def test_gth_two_state_chain_by_hand():
    # pi P = pi with P = [[1-a, a], [b, 1-b]] gives pi = (b, a) / (a + b): a = 1/3, b = 1/6 -> (1/3, 2/3)
    rows = [{0: Fraction(2, 3), 1: Fraction(1, 3)}, {0: Fraction(1, 6), 1: Fraction(5, 6)}]
    assert policies.stationary(rows) == [Fraction(1, 3), Fraction(2, 3)]


def test_gth_periodic_cycle_is_uniform():
    # A deterministic 3-cycle has no limit under power iteration but a unique stationary law.
    rows = [{1: 1.0}, {2: 1.0}, {0: 1.0}]
    assert policies.stationary(rows) == pytest.approx([1 / 3] * 3, abs=1e-15)


def test_gth_birth_death_chain_by_hand():
    # Birth-death on {0,1,2}: up 1/2, down 1/4 (detailed balance: pi1 = 2 pi0, pi2 = 2 pi1).
    h, q = Fraction(1, 2), Fraction(1, 4)
    rows = [{0: 1 - h, 1: h}, {0: q, 1: 1 - q - h, 2: h}, {1: q, 2: 1 - q}]
    assert policies.stationary(rows) == [Fraction(1, 7), Fraction(2, 7), Fraction(4, 7)]


def test_gth_reducible_chain_is_refused():
    with pytest.raises(ValueError, match="reducible"):
        policies.stationary([{0: 1.0}, {1: 1.0}])


# --- static lookahead ---------------------------------------------------------------------------

@pytest.mark.parametrize("alpha,k,c", [(0.5, 1, 0.0), (0.74, 5, 0.12), (0.9, 12, 0.05), (0.2, 3, 0.5)])
def test_iid_static_is_leviathan(alpha, k, c):
    got = policies.static_policy(policies.iid(alpha), k, policies.Costs(c))
    assert got["speedup"] == pytest.approx(ledger.leviathan_speedup(alpha, k, c), rel=1e-13)
    assert got["tokensPerCall"] == pytest.approx((1 - alpha ** (k + 1)) / (1 - alpha), rel=1e-13)
    assert got["meanLookahead"] == k


def test_static_with_tax_and_overhead_is_the_ledger():
    s = ledger.LedgerSettings(acceptance=74, draftCost=12, lookahead=5, overheadMs=6, targetMs=80, verifyTax=3)
    got = policies.static_policy(policies.iid(0.74), 5, policies.setting_costs(s._asdict()))
    assert got["speedup"] == pytest.approx(ledger.ledger(s).speedup, rel=1e-13)
    assert got["wastedPerToken"] * got["tokensPerCall"] == pytest.approx(ledger.ledger(s).wastedDrafts, rel=1e-12)


def test_bursty_static_one_by_hand():
    # k = 1: a cycle commits 2 tokens if its draft survives (then the chain moves two positions),
    # else 1 (one position). Cycle-start chain: Q = (1 - a_s) T + a_s T^2 row by row.
    alpha, burst = 0.6, 50
    process = policies.bursty(alpha, burst)
    T = np.array(process.transition)
    a = np.array(process.rates)
    Q = (1 - a)[:, None] * T + a[:, None] * (T @ T)
    w, v = np.linalg.eig(Q.T)
    pi = np.real(v[:, np.argmin(abs(w - 1))])
    pi /= pi.sum()
    tokens = float(pi @ (1 + a))
    got = policies.static_policy(process, 1, policies.Costs(0.1))
    assert got["tokensPerCall"] == pytest.approx(tokens, rel=1e-12)
    assert got["speedup"] == pytest.approx(tokens / 1.1, rel=1e-12)


def test_bursty_keeps_its_mean_and_persistence():
    process = policies.bursty(0.7, 90)
    pi = policies.stationary([{j: p for j, p in enumerate(row)} for row in process.transition])
    assert sum(p * a for p, a in zip(pi, process.rates)) == pytest.approx(0.7, abs=1e-15)
    assert process.transition[0][0] - process.transition[1][0] == pytest.approx(0.9)  # lag-one correlation


# --- the heuristic ---------------------------------------------------------------------------------

def _numpy_heuristic(alpha, c, levels):
    """Hugging Face's schedule on iid acceptance, built and solved independently (numpy lstsq)."""
    P = np.zeros((levels, levels))
    for k in range(1, levels + 1):
        full = alpha ** k
        P[k - 1, min(k + 2, levels) - 1] += full
        P[k - 1, max(1, k - 1) - 1] += 1 - full
    A = np.vstack([P.T - np.eye(levels), np.ones(levels)])
    b = np.zeros(levels + 1)
    b[-1] = 1
    pi = np.linalg.lstsq(A, b, rcond=None)[0]
    ks = np.arange(1, levels + 1)
    tokens = np.array([(1 - alpha ** (k + 1)) / (1 - alpha) for k in ks])
    return float(pi @ tokens) / float(pi @ (ks * c + 1)), float(pi @ ks)


@pytest.mark.parametrize("alpha,c", [(0.74, 0.12), (0.5, 0.3), (0.9, 0.05)])
def test_heuristic_matches_numpy(alpha, c):
    got = policies.heuristic_policy(policies.iid(alpha), policies.Costs(c))
    speedup, lookahead = _numpy_heuristic(alpha, c, 200)
    assert got["speedup"] == pytest.approx(speedup, rel=1e-9)
    assert got["meanLookahead"] == pytest.approx(lookahead, rel=1e-9)


def test_heuristic_at_zero_acceptance_sits_at_one():
    got = policies.heuristic_policy(policies.iid(0.0), policies.Costs(0.25))
    assert got["meanLookahead"] == pytest.approx(1.0) and got["speedup"] == pytest.approx(1 / 1.25)


def test_signature_value_and_its_cross_checks():
    value = family.signature_value()
    assert value == "1.938043"
    speedup, _ = _numpy_heuristic(0.74, 0.12, 200)
    assert f"{speedup:.6f}" == value
    run = policies_simulation.simulate(policies.iid(0.74), "heuristic", policies.Costs(0.12), 200_000, 11)
    assert abs(run["speedup"] - float(value)) <= 3 * run["stderr"]


def test_truncation_bound_holds_on_the_solved_chain():
    """The proven bound on the mass above level K is at least the mass the solved chain puts there."""
    process = policies.bursty(0.9, 80)
    result = policies.heuristic_policy(process, policies.Costs(0.1), detail=True)
    pi, size = result["chain"]["pi"], process.size
    for level in (8, 12, 16, 20):
        above = sum(pi[(level) * size:])
        assert above <= policies.heuristic_tail_bound(process.max_alpha(), level) + 1e-15
    assert result["truncationBound"] < 1e-9


def test_heuristic_refuses_a_state_that_accepts_everything():
    with pytest.raises(ValueError, match="alpha = 1"):
        policies.heuristic_policy(policies.iid(1.0), policies.Costs(0.1))


# --- oracle, threshold, state-aware ------------------------------------------------------------------

def test_oracle_on_bursty_matches_a_long_series():
    process = policies.bursty(0.8, 70)
    T, a = np.array(process.transition), np.array(process.rates)
    D = np.diag(a) @ T
    expected, term = np.zeros(2), np.eye(2)
    for _ in range(3000):          # E[survivors] = sum_i (D^i 1) from the start state
        term = term @ D
        expected += term.sum(axis=1)
    nxt = np.linalg.inv(np.eye(2) - D) @ np.diag(1 - a) @ T
    w, v = np.linalg.eig(nxt.T)
    pi = np.real(v[:, np.argmin(abs(w - 1))])
    pi /= pi.sum()
    got = policies.oracle_policy(process, policies.Costs(0.2))
    assert got["tokensPerCall"] == pytest.approx(float(pi @ (expected + 1)), rel=1e-10)
    assert got["wastedPerToken"] == 0.0


def test_threshold_on_toy_reads_the_drafts_probabilities():
    # One slot, threshold 1.01: exactly one draft, survival alpha_t; tokens = 1 + mean alpha over slots
    # at the cycle starts, which (one or two positions per cycle) is not the plain mean: compare with static 1.
    process = policies.toy(64, 72)
    got = policies.threshold_policy(process, 1.01, policies.Costs(0.1))
    want = policies.static_policy(process, 1, policies.Costs(0.1))
    assert got["tokensPerCall"] == pytest.approx(want["tokensPerCall"], rel=1e-12)
    middle = policies.threshold_policy(process, 0.5, policies.Costs(0.1))
    assert 1 < middle["meanLookahead"] < policies.THRESHOLD_CAP


def test_state_aware_is_at_least_best_static():
    for burst in (0, 40, 90):
        process = policies.bursty(0.7, burst)
        costs = policies.Costs(0.1)
        assert policies.state_aware_policy(process, costs)["speedup"] >= policies.best_static(process, costs)["speedup"]


def _markov_process(rates, transition):
    """A hidden acceptance process with the given per-state rates and per-position transition."""
    levels = tuple(((1.0, rate, rate),) for rate in rates)
    return policies.Process("test", tuple(f"s{i}" for i in range(len(rates))), transition, list(rates), levels)


def _per_state_speedup(process, ks, costs, prefixes=None):
    """The long-run speedup of drafting ks[s] from start state s, evaluated afresh (no cache; the
    prefix sums may be passed in, they do not depend on ks)."""
    prefixes = prefixes or policies._prefixes(process, max(ks))
    blocks = [p.block(k) for p, k in zip(prefixes, ks)]
    return policies._per_state_chain(process, [(tokens, k, nxt) for (tokens, nxt), k in zip(blocks, ks)],
                                     costs)["speedup"]


def _brute_force_per_state(process, costs, max_k):
    """The largest long-run speedup over every per-state lookahead vector in 1..max_k."""
    import itertools

    return max(_per_state_speedup(process, list(ks), costs)
               for ks in itertools.product(range(1, max_k + 1), repeat=process.size))


@pytest.mark.parametrize("seed", range(6))
def test_state_aware_policy_iteration_finds_the_best_per_state_lookaheads(seed):
    """On small chains (a 4-slot cycle like the toy model's, or a random dense one) the policy
    iteration's answer is the best of every lookahead vector, checked by trying them all."""
    import random

    rng = random.Random(seed)
    size = 4 if seed % 2 == 0 else 3
    rates = [rng.uniform(0.05, 0.95) for _ in range(size)]
    if seed % 2 == 0:
        transition = [[1.0 if j == (i + 1) % size else 0.0 for j in range(size)] for i in range(size)]
    else:
        weights = [[rng.uniform(0.1, 1) for _ in range(size)] for _ in range(size)]
        transition = [[w / sum(row) for w in row] for row in weights]
    process = _markov_process(rates, transition)
    costs = policies.Costs(rng.uniform(0.02, 0.4), rng.uniform(0, 0.05), rng.uniform(0, 0.2))
    max_k = 6 if size == 3 else 5
    found = policies.state_aware_policy(process, costs, max_k)
    assert found["speedup"] == pytest.approx(_brute_force_per_state(process, costs, max_k), rel=1e-12)
    assert found["speedup"] >= policies.best_static(process, costs, max_k)["speedup"]


@pytest.mark.parametrize("draft_cost", [0.02, 0.12, 0.35])
def test_toy_state_aware_no_single_slot_change_helps(draft_cost):
    """On the 12-slot toy model (too many vectors to try) the answer is at least stable: changing
    any one slot's lookahead to any other k in 1..64 does not raise the long-run speedup."""
    process, costs = policies.toy(64, 72), policies.Costs(draft_cost, 0.03, 0.075)
    found = policies.state_aware_policy(process, costs)
    prefixes = policies._prefixes(process, policies.MAX_STATIC)
    assert _per_state_speedup(process, found["ks"], costs, prefixes) == found["speedup"]
    for slot in range(process.size):
        for k in range(1, policies.MAX_STATIC + 1):
            ks = found["ks"][:slot] + [k] + found["ks"][slot + 1:]
            assert _per_state_speedup(process, ks, costs, prefixes) <= found["speedup"] * (1 + 1e-12), (slot, k)


def test_depth_curve_static_by_hand():
    # Curve (0.9, 0.5): k = 2 commits 1 (p 0.1), 2 (p 0.9 * 0.5), 3 (p 0.45): 0.1 + 0.9 + 1.35 = 2.35.
    got = policies.static_policy(policies.depth_curve([0.9, 0.5]), 2, policies.Costs(0.0))
    assert got["tokensPerCall"] == pytest.approx(2.35, rel=1e-14)


@pytest.mark.parametrize("name", ["static", "heuristic", "threshold", "oracle", "state-aware"])
def test_simulation_agrees_on_toy(name):
    process, costs = policies.toy(64, 72), policies.Costs(0.1, 0.02, 0.05)
    exact = policies.evaluate_policies(process, costs, 5, 0.4)
    run = policies_simulation.simulate(process, name, costs, 30_000, 5, ks=exact["state-aware"]["ks"])
    assert abs(run["speedup"] - exact[name]["speedup"]) <= 4 * run["stderr"]
    assert run["meanLookahead"] == pytest.approx(exact[name]["meanLookahead"], rel=0.03)


# --- properties ------------------------------------------------------------------------------------

alphas = st.floats(0.02, 0.95)
costs = st.floats(0.0, 1.0)


@settings(max_examples=25, deadline=None)
@given(alphas, costs, st.integers(1, 20))
def test_burst_zero_equals_iid_for_static(alpha, c, k):
    a = policies.static_policy(policies.iid(alpha), k, policies.Costs(c))
    b = policies.static_policy(policies.bursty(alpha, 0), k, policies.Costs(c))
    assert b["speedup"] == pytest.approx(a["speedup"], rel=1e-12)


@settings(max_examples=20, deadline=None)
@given(alphas, costs)
def test_oracle_is_the_iid_bound_and_beats_the_rest(alpha, c):
    results = policies.evaluate_policies(policies.iid(alpha), policies.Costs(c), 5, 0.4)
    assert results["oracle"]["speedup"] == pytest.approx(policies.oracle_bound(alpha, c), rel=1e-12)
    for result in results.values():
        assert result["speedup"] <= results["oracle"]["speedup"] * (1 + 1e-12)
    assert results["heuristic"]["speedup"] <= results["best-static"]["speedup"] * (1 + 1e-12)


@settings(max_examples=15, deadline=None)
@given(alphas, st.floats(0, 95), st.floats(0, 0.5))
def test_every_policy_reports_sane_numbers(alpha, burst, c):
    for name, r in policies.evaluate_policies(policies.bursty(alpha, burst), policies.Costs(c), 3, 0.4).items():
        assert r["tokensPerCall"] >= 1 and r["meanLookahead"] >= 0 and r["wastedPerToken"] >= 0, name
        assert r["tokensPerCall"] <= r["meanLookahead"] + 1 + 1e-9, name


# --- the CLI -------------------------------------------------------------------------------------------

def test_cli_json(capsys):
    assert cli.main(["policy", "--acceptance", "74", "--draft-cost", "12", "--burst", "80", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert list(document["policies"]) == list(policies.POLICY_NAMES)
    for numbers in document["policies"].values():
        assert set(numbers) == {"speedup", "tokensPerCall", "meanLookahead", "wastedPerToken"}
    best = policies.best_static(policies.bursty(0.74, 80), policies.Costs(0.12))
    assert document["policies"]["best-static"]["meanLookahead"] == best["k"] == document["bestStaticK"]
    assert document["policies"]["static"]["meanLookahead"] == 5


def test_cli_text_uses_tax_and_overhead(capsys):
    args = ["policy", "--acceptance", "74", "--draft-cost", "12", "--lookahead", "5", "--verify-tax", "3",
            "--overhead-ms", "6", "--target-ms", "80"]
    assert cli.main(args) == 0
    line = next(l for l in capsys.readouterr().out.splitlines() if l.startswith("static"))
    s = ledger.LedgerSettings(74, 12, 5, 6, 80, 3)
    assert float(line.split()[1]) == pytest.approx(ledger.ledger(s).speedup, abs=5e-5)


@pytest.mark.parametrize("args,message", [
    (["--acceptance", "100", "--draft-cost", "12"], "--acceptance must be a number from 1 to 99, got '100'"),
    (["--acceptance", "74", "--draft-cost", "nan"], "--draft-cost must be a number from 0 to 100, got 'nan'"),
    (["--acceptance", "74", "--draft-cost", "12", "--lookahead", "0"], "--lookahead must be an integer from 1 to 64"),
    (["--acceptance", "74", "--draft-cost", "12", "--burst", "-5"], "--burst must be a number from 0 to 95, got '-5'"),
    (["--acceptance", "74", "--draft-cost", "12", "--threshold", "x"], "--threshold must be a number from 0 to 100"),
    (["--draft-cost", "12"], "--acceptance is required"),
])
def test_cli_bad_input(capsys, args, message):
    assert cli.main(["policy", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err and len(captured.err.strip().splitlines()) == 1


def test_cli_subprocess_has_no_traceback():
    done = subprocess.run([sys.executable, "-m", "lab", "policy", "--acceptance", "abc", "--draft-cost", "1"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == "--acceptance must be a number from 1 to 99, got 'abc'"


# --- the view --------------------------------------------------------------------------------------------

def test_view_default_and_round_trip():
    default = widget.view(None)
    assert default["notes"] == [] and set(default["figures"]) == {"bars", "strip", "table", "mode"}
    again = widget.view(default["query"])
    assert again["summary"] == default["summary"] and again["figures"] == default["figures"]
    best = policies.best_static(policies.bursty(0.74, 80), policies.Costs(0.12))
    assert f"k = {best['k']}" in default["summary"]


@pytest.mark.parametrize("raw", [
    {"acceptance": "<script>", "burst": "1e999", "threshold": "-3", "lookahead": "2.6", "width": "9999"},
    "?polAcceptance=&polBurst=nan&polLookahead=" + "9" * 400, {"width": "abc"}, ["not", "a", "mapping"], 42,
])
def test_view_never_raises_and_says_what_changed(raw):
    got = widget.view(raw)
    assert got["summary"] and "<script>" not in json.dumps(got["figures"])
    if isinstance(raw, dict) and "acceptance" in raw:
        assert any(note.startswith("Per-token acceptance \u03b1 (mean):") for note in got["notes"])
        assert got["params"]["burst"] == 95 and got["params"]["threshold"] == 0 and got["params"]["lookahead"] == 3


def test_view_width_lays_out_figures():
    narrow = widget.view({"width": "390"})
    assert 'viewBox="0 0 390 ' in narrow["figures"]["bars"] and 'viewBox="0 0 390 ' in narrow["figures"]["strip"]
    assert 'viewBox="0 0 960 ' in widget.view({"width": "5000"})["figures"]["bars"]


def test_url_keys_are_prefixed():
    assert all(slider.key.startswith("pol") for slider in widget.SLIDERS)


# --- under Pyodide ------------------------------------------------------------------------------------

def test_same_numbers_under_pyodide(tmp_path):
    """The published lab zip under Node's Pyodide gives the suite signature and the widget's summary
    exactly as this CPython does, and the same policy numbers to 1e-12 (Python 3.12 made ``sum`` of
    floats compensated, so a last bit may differ from this 3.11)."""
    import shutil

    from lab.checks import run_suite, signature
    from sitebuild.assets import lab_zip_bytes
    from sitebuild.stdlib import RUNNER

    node = shutil.which("node")
    assert node and (ROOT / "node_modules" / "pyodide" / "pyodide.mjs").is_file(), "node and its Pyodide are needed"
    zip_path = tmp_path / "lab.zip"
    zip_path.write_bytes(lab_zip_bytes(ROOT / "lab"))
    code = ("import json\nfrom lab import checks, policies\nfrom lab.widgets import policies as w\n"
            "r = checks.run_suite(['policies'])\n"
            "v = w.view('?polAcceptance=81&polBurst=70&polDraftCost=7')\n"
            "print(json.dumps({'signature': checks.signature(r), 'summary': v['summary'], 'policies': v['policies']}))\n")
    done = subprocess.run([node, str(RUNNER), str(zip_path), code],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    here = widget.view("?polAcceptance=81&polBurst=70&polDraftCost=7")
    assert got["signature"] == signature(run_suite(["policies"]))
    assert got["summary"] == here["summary"] and got["policies"].keys() == here["policies"].keys()
    for name, numbers in here["policies"].items():
        assert got["policies"][name] == pytest.approx(numbers, rel=1e-12), name


def test_widget_cache_changes_no_number():
    """The widget keeps a cache per acceptance process across slider steps; every step's numbers
    must be evaluate_setting's (fresh, uncached), to the float."""
    import random

    rng = random.Random(11)
    for _ in range(40):
        values = {"acceptance": rng.choice((30, 74, 95)), "burst": rng.choice((0, 80)), "draftCost": rng.randrange(0, 101),
                  "threshold": rng.randrange(0, 101), "lookahead": rng.randrange(1, 21)}
        shown = widget.view({key: str(value) for key, value in values.items()})
        fresh = policies.evaluate_setting(values)
        for name in shown["policies"]:
            for key, number in shown["policies"][name].items():
                assert number == fresh[name][key], (values, name, key)


def test_two_state_row_is_the_pair_search():
    process, costs = policies.bursty(0.74, 80), policies.Costs(0.3, 0.05, 0.1)
    blocks = [[None] + [p.block(k) for k in range(1, 65)] for p in policies._prefixes(process, 64)]
    for k_good in (1, 7, 64):
        assert policies._two_state_row(blocks, k_good, 64, costs) == [
            policies._two_state_speedup(blocks, k_good, k_bad, costs) for k_bad in range(1, 65)]


def test_toy_widget_reuses_the_state_aware_search_without_changing_a_number():
    """On the toy model only the costs move the state-aware search (its 12-slot search is the
    slow part): steps on the other sliders reuse its answer, and every step's numbers are a
    fresh, uncached evaluation's, to the float."""
    widget._process.cache_clear()   # a fresh cache, whatever ran before
    process = policies.toy(*widget.TOY_SETTING)
    steps = [{"draftCost": 12, "threshold": 40, "lookahead": 5, "acceptance": 74, "burst": 80},
             {"draftCost": 12, "threshold": 70, "lookahead": 9, "acceptance": 30, "burst": 0},
             {"draftCost": 35, "threshold": 70, "lookahead": 9, "acceptance": 30, "burst": 0}]
    for values in steps:
        shown = widget.view({**{key: str(value) for key, value in values.items()}, widget.PROCESS_KEY: "toy"})
        fresh = policies.evaluate_policies(process, policies.setting_costs(values), values["lookahead"],
                                           values["threshold"] / 100)
        for name in shown["policies"]:
            for key, number in shown["policies"][name].items():
                assert number == fresh[name][key], (values, name, key)
    _, cache = widget._process("toy", 0, 0)
    assert sum(1 for key in cache if key[1:2] == ("state-aware",)) == 2   # one search per draft cost


def test_a_measured_curve_with_a_rate_of_1_inside_it():
    """A per-depth rate of 1 (what the traces widget sends for a vLLM position at 1.000) is a state that
    accepts every draft at that depth: the heuristic and the oracle still have a long-run law when a
    deeper rate is below 1, and they agree with a seeded simulation of the same curve."""
    for curve in ([1.0, 0.5], [0.9, 1.0, 0.5], [1.0, 1.0, 1.0, 0.3]):
        process = policies.depth_curve(curve)
        results = policies.evaluate_policies(process, policies.Costs(0.12), 5, 0.4)
        assert results["heuristic"]["truncationBound"] < policies.TRUNCATION_TOLERANCE
        for name in ("heuristic", "oracle"):
            simulated = policies_simulation.simulate(process, name, policies.Costs(0.12), 20000, seed=3)
            assert abs(results[name]["speedup"] - simulated["speedup"]) < 4 * simulated["stderr"] + 1e-9, (curve, name)
    with pytest.raises(ValueError, match="alpha = 1"):
        policies.heuristic_policy(policies.depth_curve([0.9, 1.0]), policies.Costs(0.1))
    with pytest.raises(ValueError, match="alpha = 1"):
        policies.oracle_policy(policies.depth_curve([0.9, 1.0]), policies.Costs(0.1))


def test_two_state_law_is_the_elimination():
    """The two-state law written out gives the generic GTH elimination's very floats, and refuses what it refuses."""
    import random
    rng = random.Random(11)
    for _ in range(2000):
        leave, enter = rng.random(), rng.random() or 0.5
        rows = [{0: 1 - leave, 1: leave} if leave else {0: 1.0}, {0: enter, 1: 1 - enter}]
        assert policies._two_state_law(rows) == policies._gth(rows) == policies.stationary(rows)
    with pytest.raises(policies.LabValueError, match="reducible"):
        policies.stationary([{0: 0.5, 1: 0.5}, {1: 1.0}])
