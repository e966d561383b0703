"""The readout checks of the instruments suite (NAME-readouts-match-model) catch a single
wrong number anywhere between the model and the page: one readout, one table cell or one number of a
lead or summary moved by one digit, and the mistakes a review planted in the models and the views
(an effective batch of B x k, a heuristic mean lookahead one too low, a figure translated at k - 1,
alpha iid shown as the MLE, a chance min(1, p/q) read as p/q, a chain read at budget - 1, tokens per
call over calls + 1, a tree-tokens setting with no effect)."""

from __future__ import annotations

import re

import pytest

from lab import deployment, policies, realtext, serving, trees
from lab.checks import deployment as deployment_family
from lab.checks import policies as policies_family
from lab.checks import realtext as realtext_family
from lab.checks import serving as serving_family
from lab.checks import trees as trees_family
from lab.checks import _run_check
from lab.widgets import deployment as deployment_widget
from lab.widgets import policies as policies_widget
from lab.widgets import realtext as realtext_widget
from lab.widgets import serving as serving_widget
from lab.widgets import trees as trees_widget
from mutation import clear_caches, failure_of

FAMILIES = {
    "serving": (serving_family, serving_widget),
    "policies": (policies_family, policies_widget),
    "trees": (trees_family, trees_widget),
    "realtext": (realtext_family, realtext_widget),
    "deployment": (deployment_family, deployment_widget),
}


def _clear_widget_caches():
    clear_caches(serving_widget, trees_widget, policies_widget, realtext_widget)


@pytest.fixture(autouse=True)
def _fresh_caches():
    """A view cached before a mutation must not hide it (nor one leak into a later test)."""
    _clear_widget_caches()
    yield
    _clear_widget_caches()


def _fails(family: str, *fragments: str) -> str:
    module, _ = FAMILIES[family]
    failure = failure_of(module.CHECKS, f"{family}-readouts-match-model", *fragments)
    assert not failure.startswith("raised"), failure
    return failure


def _bump(text: str) -> str:
    """One digit of ``text`` moved by one (the first; 9 becomes 0), or a mark added where there is none."""
    found = re.search(r"\d", text)
    if found is None:
        return text + "?"
    return text[:found.start()] + str((int(found.group()) + 1) % 10) + text[found.end():]


def _bump_cell(html: str) -> str:
    """The first digit inside a table cell's own text moved by one."""
    found = re.search(r"<td[^>]*>[^<\d]*(\d)", html)
    assert found, html[:200]
    at = found.start(1)
    return html[:at] + str((int(html[at]) + 1) % 10) + html[at + 1:]


def _bump_decimal(text: str) -> str:
    """The last digit of the first decimal number of ``text`` (a model's number, not a setting)."""
    found = re.search(r"\d+\.\d+", text)
    assert found, text
    at = found.end() - 1
    return text[:at] + str((int(text[at]) + 1) % 10) + text[at + 1:]


def _mutate_view(monkeypatch, family: str, change):
    _, widget = FAMILIES[family]
    original = widget.view
    monkeypatch.setattr(widget, "view", lambda raw=None: change(original(raw)))


def test_the_readout_checks_pass_unmutated():
    for family, (module, _) in FAMILIES.items():
        out = _run_check(dict(module.CHECKS)[f"{family}-readouts-match-model"])
        assert out.failure is None and out.visited > 1, (family, out.failure)


READOUTS = {
    "serving": ("batch", "context", "plainStepMs", "draftStepMs", "verifyStepMs", "tokensPerCall", "speedup",
                "plainTokensPerSecond", "specTokensPerSecond", "ridge", "regime", "crossover", "effectiveBatch",
                "memory", "loadCross", "tailRange", "tailMiddle", "tailPrediction", "tailSeed", "gapP50", "gapP99"),
    "policies": ("bestStatic", "heuristicLookahead", "oracle"),
    "trees": ("expectedLength", "chainLength", "nodes", "depth", "speedup", "chainSpeedup", "bestBudget",
              "bestSpeedup", "exactTv", "bugTv", "typicalTv"),
    "realtext": ("calls", "tokensPerCall", "acceptanceRate", "alphaIid", "alphaMle", "firstAlpha", "ledger"),
    "deployment": ("alpha", "rate", "length", "plainStepMs", "draftStepMs", "verifyStepMs", "speedup", "best"),
}


@pytest.mark.parametrize("family, key", [(family, key) for family, keys in READOUTS.items() for key in keys])
def test_each_readout_moved_by_one_digit_fails(monkeypatch, family, key):
    _mutate_view(monkeypatch, family, lambda view: {**view, "readouts": {**view["readouts"],
                                                                         key: _bump(view["readouts"][key])}})
    _fails(family, f"readout {key}")


TABLES = {"serving": ("table", "loadTable"), "policies": ("table",), "trees": ("table", "exactTable"),
          "realtext": ("call", "positions")}


@pytest.mark.parametrize("family, figure", [(family, figure) for family, figures in TABLES.items()
                                            for figure in figures])
def test_each_table_with_one_cell_moved_fails(monkeypatch, family, figure):
    _mutate_view(monkeypatch, family, lambda view: {
        **view, "figures": {**view["figures"], figure: _bump_cell(view["figures"][figure])}})
    _fails(family)


@pytest.mark.parametrize("family, part", [(family, part) for family in FAMILIES for part in ("lead", "summary")])
def test_each_lead_and_summary_with_one_number_moved_fails(monkeypatch, family, part):
    _mutate_view(monkeypatch, family, lambda view: {**view, part: _bump_decimal(view[part])})
    _fails(family, f"the {part} lacks")


# --- the review's mutants, in the models and the views ---------------------------------------------

def test_serving_effective_batch_of_b_times_k(monkeypatch):
    monkeypatch.setattr(serving, "verify_tokens", lambda s: max(s.treeTokens, s.lookahead))
    _fails("serving")


def test_serving_tree_tokens_dropped_by_the_widget(monkeypatch):
    original = serving_widget._settings
    monkeypatch.setattr(serving_widget, "_settings", lambda params: original(params).with_(treeTokens=0))
    _fails("serving")


def test_serving_tree_tokens_ignored_by_the_model(monkeypatch):
    monkeypatch.setattr(serving, "verify_tokens", lambda s: s.lookahead + 1)
    _fails("serving", "tree")


def test_policies_heuristic_mean_lookahead_one_too_low(monkeypatch):
    original = policies.heuristic_policy

    def low(process, costs, cache=None, detail=False):
        result = original(process, costs, cache, detail)
        return {**result, "meanLookahead": result["meanLookahead"] - 1}
    monkeypatch.setattr(policies, "heuristic_policy", low)
    _fails("policies", "mean lookahead")


def test_deployment_figure_written_back_at_k_minus_1(monkeypatch):
    original = deployment.units_at
    monkeypatch.setattr(deployment, "units_at", lambda alpha, k: original(alpha, max(1, k - 1)))
    _fails("deployment", "readout")


def test_deployment_figure_read_at_k_minus_1(monkeypatch):
    original = deployment.alpha_from
    monkeypatch.setattr(deployment, "alpha_from", lambda value, unit, k: original(
        min(value, k) if unit == "length" else value, unit, max(1, k - 1)))
    _fails("deployment", "readout alpha")


def test_realtext_alpha_mle_showing_alpha_iid(monkeypatch):
    original = realtext.summarise
    monkeypatch.setattr(realtext, "summarise", lambda cycles, k, analytic=True: {
        **original(cycles, k, analytic), "alphaMle": original(cycles, k, analytic)["alphaIid"]})
    _fails("realtext", "alphaMle")


def test_realtext_tokens_per_call_over_calls_plus_one(monkeypatch):
    original = realtext.summarise

    def shifted(cycles, k, analytic=True):
        result = original(cycles, k, analytic)
        return {**result, "tokensPerCall": result["committedTokens"] / (result["verifierCalls"] + 1)}
    monkeypatch.setattr(realtext, "summarise", shifted)
    _fails("realtext", "tokensPerCall")


def test_realtext_chance_without_the_min(monkeypatch):
    monkeypatch.setattr(realtext, "acceptance_probability", lambda p_x, q_x: p_x / q_x)
    _fails("realtext", "call table")


def test_trees_chain_at_budget_minus_1_in_the_model(monkeypatch):
    original = trees.chain_value
    monkeypatch.setattr(trees, "chain_value", lambda top1, budget, depth: original(top1, max(1, budget - 1), depth))
    _fails("trees")


def test_trees_chain_read_at_budget_minus_1_by_the_widget(monkeypatch):
    original = trees_widget._curves.__wrapped__

    def shifted(*args):
        curves = original(*args)
        return {**curves, "chain": curves["chain"][:1] + curves["chain"][:-1]}
    monkeypatch.setattr(trees_widget, "_curves", shifted)
    _fails("trees")


def test_deployment_instruments_list_with_the_ledger_speedup_moved_fails(monkeypatch):
    def moved(view):
        html = view["figures"]["instruments"]
        at = html.index("at k = ")
        return {**view, "figures": {**view["figures"], "instruments": html[:at] + _bump_decimal(html[at:])}}
    _mutate_view(monkeypatch, "deployment", moved)
    _fails("deployment", "the instruments lacks")


@pytest.mark.parametrize("family", list(FAMILIES))
def test_each_live_line_with_one_digit_moved_fails(monkeypatch, family):
    _mutate_view(monkeypatch, family, lambda view: {**view, "live": _bump(view["live"])})
    _fails(family, "the live lacks")
