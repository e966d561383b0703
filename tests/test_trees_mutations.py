"""Each check of the token-tree family fails when the model is broken the way it claims to catch."""

from fractions import Fraction

import pytest

from lab import trees
from lab.audit import run_check
from lab.checks import trees as family


def _run(name):
    for check_name, check in family.CHECKS:
        if check_name == name:
            return run_check(check)  # a generator check runs to its end there
    raise KeyError(name)


@pytest.fixture(autouse=True)
def _fresh_caches():
    """Memoised results must not hide a mutation (or leak one into later tests)."""
    for cached in (family._multi, family._bug, trees._table, trees.toy_pair, trees._ranked):
        cached.cache_clear()
    yield
    for cached in (family._multi, family._bug, trees._table, trees.toy_pair, trees._ranked):
        cached.cache_clear()


def test_all_checks_pass_unmutated():
    for name, _ in family.CHECKS:
        out = _run(name)
        assert out.failure is None and out.visited > 0, (name, out.failure)


def test_multi_draft_without_residual_update(monkeypatch):
    monkeypatch.setattr(trees, "multi_draft_outputs", trees.no_update_outputs)   # the no-update bug
    out = _run("multi-draft-is-exact")
    assert out.failure and out.failure.startswith("k=2")


def test_bug_prediction_that_ignores_k(monkeypatch):
    monkeypatch.setattr(trees, "bug_is_exact_predicted", lambda p, q, k: True)
    out = _run("no-update-bug-where-predicted")
    assert out.failure and "predicts exact" in out.failure


def test_bug_that_redraws_from_p(monkeypatch):
    monkeypatch.setattr(trees, "no_update_outputs", lambda p, q, k: [tuple(p)] * k)   # "exact" everywhere
    out = _run("no-update-bug-where-predicted")
    assert out.failure and "predicts biased" in out.failure


def test_typical_acceptance_claimed_exact(monkeypatch):
    monkeypatch.setattr(trees, "typical_output", lambda p, q, k, *a: tuple(p))
    out = _run("typical-acceptance-is-not-exact")
    assert out.failure and "predicted biased" in out.failure


def test_tree_verifier_that_tests_every_child_against_p(monkeypatch):
    real = trees._residual
    monkeypatch.setattr(trees, "_residual", lambda cur, q: tuple(cur))
    out = _run("whole-tree-is-exact")
    assert out.failure and out.failure.startswith("certainty=60 match=40")
    monkeypatch.setattr(trees, "_residual", real)


def test_tree_verifier_that_mixes_up_branches(monkeypatch):
    monkeypatch.setattr(trees, "_complete", _complete_without_context())
    out = _run("whole-tree-is-exact")
    assert out.failure and "path" in out.failure


def _complete_without_context():
    """A completion that samples every continuation from the root's distribution."""
    def complete(prefix, weight, length, pair, out):
        if len(prefix) == length:
            out[prefix] = out.get(prefix, Fraction(0)) + weight
            return
        for token, p_x in enumerate(pair(())[0]):
            if p_x:
                complete(prefix + (token,), weight * p_x, length, pair, out)
    return complete


def test_dp_that_forbids_branching(monkeypatch):
    real = trees.tree_values
    monkeypatch.setattr(trees, "tree_values", lambda probs, budget, depth: [
        trees.chain_value(probs[0], n, depth) * 0.99 for n in range(1, budget + 1)])
    out = _run("best-tree-at-least-chain")
    assert out.failure and out.failure.startswith("budget=1 ")
    monkeypatch.setattr(trees, "tree_values", real)


def test_dp_that_overstates_its_value(monkeypatch):
    real = trees.best_tree
    monkeypatch.setattr(trees, "best_tree", lambda *args: real(*args)._replace(value=real(*args).value + 0.01))
    out = _run("dp-value-is-reach-sum")
    assert out.failure and "budget=1 " in out.failure


def test_verify_cost_off_by_one_node(monkeypatch):
    monkeypatch.setattr(trees, "ledger_verify_ms", lambda nodes, target_ms, tax: target_ms * (1 + (nodes - 1) * tax / 100))
    monkeypatch.setattr(trees.tree_cost, "__kwdefaults__", {**trees.tree_cost.__kwdefaults__,
                                                             "verify_ms": trees.ledger_verify_ms})
    out = _run("chain-matches-ledger")
    assert out.failure and out.failure.startswith("acceptance=0 nodes=2")


def test_value_that_falls_with_budget(monkeypatch):
    real = trees.tree_values
    monkeypatch.setattr(trees, "tree_values", lambda probs, budget, depth: [
        v - 0.001 * i for i, v in enumerate(real(probs, budget, depth))])
    out = _run("value-grows-with-budget")
    assert out.failure and "budget=" in out.failure


def test_ranking_by_level_before_reach(monkeypatch):
    """A ranking that fills the tree level by level (breadth first) is a tree but not a best one."""
    real = trees._ranked.__wrapped__

    def breadth_first(probs, budget, depth):
        return tuple(sorted(real(probs, 4 * budget, depth), key=lambda node: (node[1], node[2]))[:budget])

    monkeypatch.setattr(trees, "_ranked", breadth_first)
    out = _run("ranked-tree-is-best")
    assert out.failure and "DP optimum" in out.failure


def test_ranking_that_drops_the_last_node(monkeypatch):
    real = trees.ranked_best_tree

    def short(probs, budget, depth, capacity=0):
        tree = real(probs, budget, depth, capacity)
        return tree if tree.nodes < 3 else trees.BestTree(tree.value, tree.parents[:-1], tree.depth, tree.nodes - 1)

    monkeypatch.setattr(trees, "ranked_best_tree", short)
    out = _run("ranked-tree-is-best")
    assert out.failure and "by its nodes" in out.failure


def test_depth_aware_search_that_ranks_by_the_first_level_only(monkeypatch):
    """A depth-aware search that ignores the levels below the first (the i.i.d. tree) is caught."""
    monkeypatch.setattr(trees, "depth_best_tree", lambda levels, budget, depth: trees.ranked_best_tree(levels[0], budget,
                                                                                                      depth))
    out = _run("trees-depth-best-tree-is-best")
    assert out.failure and "every tree enumerated gives at most" in out.failure


def test_depth_aware_search_that_leaves_a_node_unspent(monkeypatch):
    real = trees.depth_best_tree
    monkeypatch.setattr(trees, "depth_best_tree", lambda levels, budget, depth: real(levels, max(1, budget - 1), depth))
    out = _run("trees-depth-best-tree-is-best")
    assert out.failure and "the depth-aware tree" in out.failure


def test_depth_aware_tree_the_widget_does_not_show(monkeypatch):
    from lab import trees_depth  # the widget's measured-curve mode and `python -m lab tree` call it

    real = trees_depth.depth_aware_tree
    monkeypatch.setattr(trees_depth, "depth_aware_tree", lambda rates, decay, drafts, budget, depth: real(
        rates, decay, drafts, max(1, budget - 2), depth))
    out = _run("trees-depth-best-tree-is-best")
    assert out.failure and "the widget's depth-aware tree" in out.failure
