"""The token-tree family of the instruments suite: multi-draft exactness, its bug, typical
acceptance, whole trees on the toy model, and Sequoia's dynamic programme.

The exact checks walk the distinct (p, q) pairs of the seed audit's grid (``lab.audit``); the
tree checks walk a small grid of acceptance vectors. Work is memoised, so a second run is cheap.
"""

import math
import re
from fractions import Fraction
from functools import lru_cache

from .. import trees
from ..jsformat import to_fixed
from . import (cells_difference, figure_difference, hostile_inputs_answered, phrase_missing, readout_difference,
               table_cells, views_at)
from ..ledger import LedgerSettings, expected_tokens_per_call, ledger

__all__ = ["CHECKS", "signature_value", "SIGNATURE_NOTE", "SIGNATURE_SETTING"]

MAX_DRAFTS = 4
TOLERANCE = 1e-12
# Acceptance vectors for the DP checks: (top-1, decay, ranks) through trees.rank_probabilities,
# plus one vector that is not geometric and one with a zero rank.
RANK_GRID = tuple(trees.rank_probabilities(top1, decay, ranks)
                  for top1 in (0.3, 0.9) for decay in (0.3, 0.8) for ranks in (1, 4)) + (
    (0.5, 0.3, 0.15), (0.7, 0.0, 0.2))
DEPTHS = (1, 2, 3, 6)
MAX_BUDGET = 48
# Pairs where the no-update bug must be exact for every k (q = c p on p's support, c < 1),
# which the audit grid (c = 1 or a one-hot p) does not reach.
PROPORTIONAL_PAIRS = (
    ((Fraction(1, 2), Fraction(1, 2), Fraction(0)), (Fraction(1, 4), Fraction(1, 4), Fraction(1, 2))),
    ((Fraction(1, 2), Fraction(1, 4), Fraction(1, 4), Fraction(0)),
     (Fraction(1, 4), Fraction(1, 8), Fraction(1, 8), Fraction(1, 2))),
)
# Whole-tree exactness: (certainty, match) of the toy model and two levels of candidates.
TREE_SETTINGS = ((60, 40), (80, 20))
TREE_SHAPES = (((), (), ()), (((), ()), ((),)))
SIGNATURE_SETTING = {"rank_probs": (0.6, 0.2, 0.1, 0.05), "budget": 7, "max_depth": 4}
SIGNATURE_NOTE = (
    "trees: expected tokens per verify pass of the best tree with at most 7 nodes and 4 levels for the "
    "acceptance vector (0.6, 0.2, 0.1, 0.05) (Sequoia's DP). Cross-checked by hand: root 1, its children "
    "0.6 and 0.2, under the first child 0.36 and 0.12, under the second 0.12, and 0.216 three levels down: "
    "1 + 0.6 + 0.2 + 0.36 + 0.12 + 0.12 + 0.216 = 2.616; and by the independent brute-force search over "
    "every tree of up to 7 nodes in tests/test_trees.py.")


@lru_cache(maxsize=1)
def _audit_pairs() -> tuple:
    """The distinct (p, q) pairs of the seed audit's grid, as tuples of fractions."""
    from .. import audit

    pairs = {(p.probs, q.probs) for c, m in audit._pair_settings() for _, p, q in audit._pairs(c, m)}
    return tuple(sorted(pairs))


@lru_cache(maxsize=None)
def _multi(p, q):
    return trees.multi_draft_outputs(p, q, MAX_DRAFTS)


@lru_cache(maxsize=None)
def _bug(p, q):
    return trees.no_update_outputs(p, q, MAX_DRAFTS)


def _short(vector) -> str:
    return "(" + ", ".join(str(x) for x in vector) + ")"


def multi_draft_is_exact(out):
    """k-candidate verification with the residual update outputs exactly p, for k = 1..4 and
    every distinct (p, q) pair of the seed audit's grid."""
    for p, q in _audit_pairs():
        for k, output in enumerate(_multi(p, q), start=1):
            out.visited += 1
            if output != p:
                out.fail(f"k={k}: output {_short(output)} != p {_short(p)} for q {_short(q)}")
                return
        yield  # a pause: the browser answers a reader between two cases (lab.audit.run_check_steps)


def no_update_bug_where_predicted(out):
    """The no-update bug is exact at k = 1 and, for k = 2..4, exactly where q is proportional to
    p on p's support (the derived condition), and its outputs are distributions."""
    for p, q in _audit_pairs() + PROPORTIONAL_PAIRS:
        for k, output in enumerate(_bug(p, q), start=1):
            out.visited += 1
            predicted = trees.bug_is_exact_predicted(p, q, k)
            if sum(output) != 1 or (output == p) != predicted:
                out.fail(f"k={k}: bug output {'equals' if output == p else 'differs from'} p but the condition "
                         f"predicts {'exact' if predicted else 'biased'} (p {_short(p)}, q {_short(q)})")
                return
        yield  # a pause: the browser answers a reader between two cases (lab.audit.run_check_steps)


def typical_acceptance_is_not_exact(out):
    """Medusa's typical acceptance (epsilon 0.09, delta 0.3) returns p only where q restricted to
    the typical set is p (or no typical token has draft mass); otherwise TV(p, output) > 0."""
    biased = 0
    for p, q in _audit_pairs():
        for k in (1, 3):
            out.visited += 1
            output = trees.typical_output(p, q, k)
            predicted = trees.typical_is_exact_predicted(p, q)
            if sum(output) != 1 or (output == p) != predicted:
                out.fail(f"k={k}: typical output {_short(output)} vs p {_short(p)}: predicted "
                         f"{'exact' if predicted else 'biased'}")
                return
            biased += output != p
        yield  # a pause: the browser answers a reader between two cases (lab.audit.run_check_steps)
    if not biased:
        out.fail("typical acceptance was exact on every pair: nothing shows its bias")


def whole_tree_is_exact(out):
    """Tree verification (children tried with the multi-draft rule, an accepted child's subtree
    next, a bonus token at a leaf) commits paths distributed exactly as the target's, on the toy
    model with path-dependent distributions."""
    for certainty, match in TREE_SETTINGS:
        pair = lambda prefix: trees.toy_pair(certainty, match, prefix)  # noqa: B023, E731 (called in this iteration)
        target = trees.target_path_distribution(3, pair)
        for shape in TREE_SHAPES:
            out.visited += 1
            output = trees.tree_output(shape, 3, pair)
            if output != target:
                wrong = next(path for path in target if output.get(path) != target[path])
                out.fail(f"certainty={certainty} match={match} shape {shape}: path {wrong} has "
                         f"{output.get(wrong)} instead of {target[wrong]}")
                return
        yield  # a pause: the browser answers a reader between two cases (lab.audit.run_check_steps)


def _value_table(probs, depth):
    return trees.tree_values(probs, MAX_BUDGET, depth)


def best_tree_at_least_chain(out):
    """For every budget 1..48, depth and acceptance vector, the best tree is worth at least the
    chain of the same budget and depth, and exactly the chain when only one rank exists."""
    for probs in RANK_GRID:
        for depth in DEPTHS:
            for budget, value in enumerate(_value_table(probs, depth), start=1):
                out.visited += 1
                chain = trees.chain_value(probs[0], budget, depth)
                if value < chain - TOLERANCE or (len(probs) == 1 and abs(value - chain) > TOLERANCE):
                    out.fail(f"budget={budget} depth={depth} ranks={_short(probs)}: tree {value} vs chain {chain}")
                    return
            yield  # a pause: the browser answers a reader between two cases (lab.audit.run_check_steps)


def dp_value_is_reach_sum(out):
    """The tree the DP returns is worth what the DP says (the sum of its nodes' reach
    probabilities), fits the budget and the depth, and lists parents before children."""
    for probs in RANK_GRID:
        for depth in DEPTHS:
            for budget in (1, 2, 5, 13, 48):
                out.visited += 1
                tree = trees.best_tree(probs, budget, depth)
                value = trees.tree_value(tree.parents, probs)
                ordered = all(0 <= parent < node for node, parent in enumerate(tree.parents) if node)
                if (abs(value - tree.value) > TOLERANCE * max(1.0, value) or tree.nodes > budget
                        or tree.depth > depth or not ordered or tree.parents[0] != -1):
                    out.fail(f"budget={budget} depth={depth} ranks={_short(probs)}: DP {tree.value}, tree "
                             f"{tree.parents} worth {value}")
                    return


def ranked_tree_is_best(out):
    """The tree the widget and the CLI draw (the nodes with the largest reach, first to last)
    is a best tree: for every budget 1..48, depth and acceptance vector it is worth the DP's
    optimum, fits the budget and the depth, lists parents before children and is worth the sum of
    its nodes' reaches; its per-budget curve is the DP's values."""
    for probs in RANK_GRID:
        for depth in DEPTHS:
            optimum = _value_table(probs, depth)
            shapes = trees.fast_tree_shapes(probs, MAX_BUDGET, depth)
            for budget in range(1, MAX_BUDGET + 1):
                out.visited += 1
                tree = trees.fast_best_tree(probs, budget, depth, capacity=MAX_BUDGET)
                best = optimum[budget - 1]
                worth = trees.tree_value(tree.parents, probs)
                ordered = all(0 <= parent < node for node, parent in enumerate(tree.parents) if node)
                if (abs(tree.value - best) > TOLERANCE or abs(worth - tree.value) > TOLERANCE
                        or abs(shapes[budget - 1][0] - best) > TOLERANCE or tree.nodes > budget
                        or tree.depth > depth or not ordered or tree.parents[0] != -1):
                    out.fail(f"budget={budget} depth={depth} ranks={_short(probs)}: drawn tree worth {tree.value} "
                             f"({worth} by its nodes), curve {shapes[budget - 1][0]}, DP optimum {best}")
                    return


def chain_matches_ledger(out):
    """A chain-shaped tree of N nodes is the ledger with lookahead N - 1: same expected tokens
    per call, same draft and verify cost, same speedup."""
    for acceptance in (0, 30, 55, 74, 90, 100):
        for nodes in range(2, 14):
            out.visited += 1
            a = acceptance / 100
            value = trees.tree_value(trees.chain_parents(nodes), (a,))
            settings = LedgerSettings(acceptance=acceptance, lookahead=nodes - 1)
            expected = ledger(settings)
            cost = trees.tree_cost(value, nodes, nodes, target_ms=settings.targetMs, draft_cost=settings.draftCost,
                                   overhead_ms=settings.overheadMs, verify_tax=settings.verifyTax)
            pairs = ((value, expected_tokens_per_call(a, nodes - 1)), (cost.draftMs, expected.draftMs),
                     (cost.verifyMs, expected.verifyMs), (cost.speedup, expected.speedup))
            if any(abs(x - y) > TOLERANCE * max(1.0, abs(y)) for x, y in pairs):
                out.fail(f"acceptance={acceptance} nodes={nodes}: tree {pairs} vs ledger")
                return


def value_grows_with_budget(out):
    """The best tree's value never falls when the budget or the depth grows."""
    for probs in RANK_GRID:
        previous_row = None
        for depth in DEPTHS:
            row = _value_table(probs, depth)
            for budget in range(len(row)):
                out.visited += 1
                smaller = row[budget - 1] if budget else 1.0
                shallower = previous_row[budget] if previous_row else 1.0
                if row[budget] < smaller - TOLERANCE or row[budget] < shallower - TOLERANCE:
                    out.fail(f"budget={budget + 1} depth={depth} ranks={_short(probs)}: {row[budget]} after "
                             f"{smaller} (budget - 1) and {shallower} (shallower)")
                    return
            previous_row = row


# --- the widget's readouts ---------------------------------------------------------------------

# Form values for the widget (lab.widgets.trees): its defaults, both ends of every slider and each
# verify-cost mode (the roofline ones change how its summary speaks).
READOUT_SETTINGS = (
    {},
    {"budget": "1", "maxDepth": "1", "top1": "0", "decay": "0", "drafts": "1", "verifyTax": "0"},
    {"budget": "128", "maxDepth": "12", "top1": "99", "decay": "100", "drafts": "8", "verifyTax": "20"},
    {"budget": "7", "maxDepth": "4", "top1": "60", "drafts": "2"},
    {"verifyCost": "h100", "budget": "64"},
    {"verifyCost": "a100", "budget": "100", "maxDepth": "3"},
)


def _reach_sum(parents, probs) -> float:
    """Expected tokens per verify pass of a tree, summed here from its parents: each node is reached
    with the product of its ancestors' rank probabilities (its rank among its siblings)."""
    return sum(_reaches(parents, probs))


def _reaches(parents, probs) -> list[float]:
    """Each node's reach probability (see :func:`_reach_sum`)."""
    reach, rank_of = [], {}
    for parent in parents:
        if parent < 0:
            reach.append(1.0)
            continue
        rank = rank_of.get(parent, 0)
        rank_of[parent] = rank + 1
        reach.append(reach[parent] * (probs[rank] if rank < len(probs) else 0.0))
    return reach


def _tree_price(widget, mode: str, tax: float):
    """The widget's cost of one cycle, from the trees model and the widget's declared constants."""
    from .. import serving

    if mode == "tax":
        return lambda value, nodes, depth: trees.tree_cost(
            value, nodes, depth, target_ms=widget.TARGET_MS, draft_cost=widget.DRAFT_COST,
            overhead_ms=widget.OVERHEAD_MS, verify_tax=tax)
    settings = serving.DEFAULT_SETTINGS.with_(gpu=widget.ROOFLINE_GPUS[mode], batch=trees.ROOFLINE_BATCH,
                                              context=trees.ROOFLINE_CONTEXT)
    return lambda value, nodes, depth: trees.roofline_tree_cost(value, nodes, depth, settings)


def _ridge(widget, mode: str) -> int:
    """The fewest nodes whose verify step is compute-bound under a roofline mode (lab.trees)."""
    from .. import serving

    return trees.roofline_ridge_nodes(serving.DEFAULT_SETTINGS.with_(
        gpu=widget.ROOFLINE_GPUS[mode], batch=trees.ROOFLINE_BATCH, context=trees.ROOFLINE_CONTEXT))


def tree_readouts_match_model(out):
    """Every readout, the lead's and summary's numbers and every cell of the budget and exactness tables
    of the trees widget equal the trees model's numbers through the page's formatters (to_fixed, tv_text),
    at the defaults, both ends of every slider and each verify-cost mode; the tree's value is the reach
    sum of the tree it draws, and the chain's is 1 + a + ... + a^(n - 1) with n = min(budget, depth); every
    number of the four figures (each node's reach in its tooltip, the description's counts, the charts'
    values at the reader's budget, at 128 nodes and at the best budget, the ridge, each TV) is the model's
    (lab.checks.figure_difference)."""
    from .. import sampler
    from ..widgets import trees as widget

    p, q = (row.probs for row in sampler.reference_pair(*widget.PAIR_SETTING))
    exactness = [(n, float(trees.total_variation(p, trees.multi_draft_output(p, q, n))),
                  float(trees.total_variation(p, trees.no_update_output(p, q, n))),
                  float(trees.total_variation(p, trees.typical_output(p, q, n))))
                 for n in range(1, widget.MAX_CANDIDATES + 1)]
    yield
    for values, where, view in views_at(out, widget, READOUT_SETTINGS):
        v = {**{s.name: int(s.default) for s in widget.SLIDERS},
             **{k: int(x) for k, x in values.items() if k != "verifyCost"}}
        budget, depth, mode = v["budget"], v["maxDepth"], values.get("verifyCost", "tax")
        probs = trees.rank_probabilities(v["top1"] / 100, v["decay"] / 100, v["drafts"])
        # the acceptance vector by its rule, written out: the b-th candidate passes top1 decay^(b-1) after the b - 1
        # before it failed, p_b = top1 decay^(b-1) prod_{j<b} (1 - top1 decay^(j-1)) (lab.trees.rank_probabilities)
        a, d = v["top1"] / 100, v["decay"] / 100
        rule = [a * d ** b * math.prod(1 - a * d ** j for j in range(b)) for b in range(v["drafts"])]
        if any(abs(x - y) > 1e-12 for x, y in zip(probs, rule)) or len(probs) != len(rule):
            return out.fail(f"{where}: the candidates' chances {_short(probs)}, the rule's {_short(rule)}")
        price = _tree_price(widget, mode, v["verifyTax"])
        tree = trees.fast_best_tree(probs, budget, depth)
        # one draft pass per level below the root (Sequoia's d x draft time), not one per node
        if mode == "tax" and abs(price(tree.value, tree.nodes, tree.depth).draftMs
                                 - (tree.depth - 1) * widget.TARGET_MS * widget.DRAFT_COST / 100) > 1e-9:
            return out.fail(f"{where}: a tree of {tree.nodes} nodes on {tree.depth} levels drafts "
                            f"{price(tree.value, tree.nodes, tree.depth).draftMs} ms, not {tree.depth - 1} passes")
        if abs(_reach_sum(view["tree"]["parents"], probs) - tree.value) > 1e-9:
            return out.fail(f"{where}: the drawn tree's reach sum {_reach_sum(view['tree']['parents'], probs)} "
                            f"is not its value {tree.value}")
        m = _budget_curves(widget.MAX_BUDGET, probs, price, depth)
        chosen = exactness[v["drafts"] - 1]
        expected = _tree_expected(tree, m, budget, price, chosen)
        failure = readout_difference(where, view["readouts"], expected)
        if failure:
            return out.fail(failure)
        failure = (_tree_tables_difference(where, view, widget, m, exactness, budget)
                   or _tree_phrase_missing(where, view, expected, probs, tree, (budget, depth, mode, m["best"]), price)
                   or _tree_figures_difference(where, view, widget, (v, mode, probs, tree, m, exactness, chosen)))
        if failure:
            return out.fail(failure)
        yield  # a pause: the browser answers a reader between two settings


def _budget_curves(most: int, probs, price, depth: int) -> dict:
    """The model's curves over the budgets 1..``most``: the best tree's shape (value, nodes, levels) and the chain's
    value at each, their speedups under ``price``, and the best budget (the smallest of the fastest)."""
    shapes = trees.fast_tree_shapes(probs, most, depth)
    chains = [sum(probs[0] ** i for i in range(min(n, depth))) for n in range(1, most + 1)]
    tree_speedups = [price(value, nodes, levels).speedup for value, nodes, levels in shapes]
    chain_speedups = [price(chains[n - 1], min(n, depth), min(n, depth)).speedup for n in range(1, most + 1)]
    best = max(range(most), key=lambda i: (tree_speedups[i], -i)) + 1
    return {"shapes": shapes, "chains": chains, "treeSpeedups": tree_speedups, "chainSpeedups": chain_speedups,
            "best": best}


def _tree_expected(tree, m: dict, budget: int, price, chosen: tuple) -> dict:
    """The readouts as the model gives them, through the page's formatters."""
    from ..figures import tv_text

    f, best = to_fixed, m["best"]
    return {
        "expectedLength": f(tree.value, 2), "chainLength": f(m["chains"][budget - 1], 2), "nodes": str(tree.nodes),
        "depth": str(tree.depth), "speedup": f(price(tree.value, tree.nodes, tree.depth).speedup, 2),
        "chainSpeedup": f(m["chainSpeedups"][budget - 1], 2), "bestBudget": str(best),
        "bestSpeedup": f(m["treeSpeedups"][best - 1], 2),
        "exactTv": tv_text(chosen[1]), "bugTv": tv_text(chosen[2]), "typicalTv": tv_text(chosen[3])}


def _tree_tables_difference(where, view: dict, widget, m: dict, exactness: list, budget: int) -> str | None:
    """The budget table (tree and chain lengths and speedups at the table's budgets and the reader's) and the
    exactness table (every TV) against the model's."""
    from ..figures import tv_text

    f = to_fixed
    budgets = sorted(set(widget.TABLE_BUDGETS) | {budget})
    tables = {"table": [cell for n in budgets for cell in (
                  f(m["shapes"][n - 1][0], 2), f(m["chains"][n - 1], 2), f(m["treeSpeedups"][n - 1], 2),
                  f(m["chainSpeedups"][n - 1], 2))],
              "exactTable": [tv_text(tv) for row in exactness for tv in row[1:]]}
    for name, cells in tables.items():
        failure = cells_difference(where, name, table_cells(view["figures"][name]), cells)
        if failure:
            return failure
    return None


def _tree_phrase_missing(where, view: dict, expected: dict, probs, tree, setting: tuple, price) -> str | None:
    """The lead's, live line's and summary's numbers (and, under a roofline, its verify pass and plain step) against
    the readouts expected; ``setting`` is (budget, depth, verify-cost mode, best budget)."""
    f = to_fixed
    budget, depth, mode, best = setting
    said = (f"commits {expected['expectedLength']} tokens per verify pass (a chain of {min(budget, depth)} nodes, "
            f"one per level, {expected['chainLength']}) and runs {expected['speedup']}x (the chain "
            f"{expected['chainSpeedup']}x); the best budget here is {best} nodes ({expected['bestSpeedup']}x)")
    phrases = {"lead": [said], "live": [f"{expected['speedup']}x at {budget} nodes; best budget {best}"],
               "summary": ["With ranks accepted " + ", ".join(f(100 * r, 1) + "%" for r in probs) + ",",
                           f"uses {tree.nodes} nodes over {tree.depth} levels and commits {expected['expectedLength']}",
                           f"({min(budget, depth)} nodes, one per level) commits {expected['chainLength']}",
                           f"it runs at {expected['speedup']}x (chain {expected['chainSpeedup']}x)",
                           f"the no-update bug is off by TV {expected['bugTv']} and typical acceptance by "
                           f"{expected['typicalTv']}"]}
    if mode != "tax":  # the roofline's own sentence: the verify pass and a plain step, priced, and where it turns
        from ..widgets import trees as widget  # compute-bound (the ridge, or the last memory-bound budget past 128)

        ridge = _ridge(widget, mode)
        phrases["summary"].append(f"Its verify pass takes {f(price(tree.value, tree.nodes, tree.depth).verifyMs, 1)} "
                                  f"ms, a plain step {f(price(1, 1, 1).verifyMs, 1)} ms: the step "
                                  + (f"turns compute-bound at {ridge} nodes." if ridge <= widget.MAX_BUDGET else
                                     f"stays memory-bound up to {ridge - 1} nodes, past the largest budget."))
    return phrase_missing(where, view, phrases)


def _tree_figures_difference(where, view: dict, widget, model: tuple) -> str | None:
    """Every number of the four figures against the model's: each node's reach and the tree's counts, the charts'
    values at the reader's budget, at the largest and at the best, the ridge, each TV. ``model`` is (slider values,
    verify-cost mode, rank probabilities, the best tree, the budget curves, the exactness rows, the chosen row)."""
    f = to_fixed
    v, mode, probs, tree, m, exactness, chosen = model
    budget, depth, best = v["budget"], v["maxDepth"], m["best"]
    shapes, chains, tree_speedups, chain_speedups = (m[key] for key in ("shapes", "chains", "treeSpeedups",
                                                                         "chainSpeedups"))
    parents = view["tree"]["parents"]
    levels = [0] * len(parents)
    for node, parent in enumerate(parents):
        levels[node] = levels[parent] + 1 if parent >= 0 else 0
    tops = max(levels) + 1
    ridge = None if mode == "tax" else _ridge(widget, mode)
    figures = {  # (the model's numbers, the fixed labels); the charts' ticks (fig-tick) are axis labels
        "tree": ([f(r, 4) for r in _reaches(parents, probs)] + [str(len(parents)), str(tops), f(tree.value, 3)]
                 + [str(levels.count(level)) for level in range(tops)],
                 [str(n) for n in range(len(parents))] + [str(n) for n in range(1, tops + 1)]),
        "length": ([f(shapes[-1][0], 2), str(depth), f(chains[-1], 2), str(budget), f(shapes[budget - 1][0], 2),
                    f(chains[budget - 1], 2)], [str(widget.MAX_BUDGET)]),
        "speedup": ([f(tree_speedups[best - 1], 2), str(best), str(budget), f(tree_speedups[budget - 1], 2),
                     f(chain_speedups[budget - 1], 2)] + ([str(ridge)] if ridge and ridge <= widget.MAX_BUDGET else []),
                    ["1"]),
        "exactness": ([f(tv, 4) for row in exactness for tv in row[1:]] + [str(v["drafts"])]
                      + [f(tv, 3) for tv in chosen[1:]], [str(n) for n in range(1, widget.MAX_CANDIDATES + 1)])}
    for name, (numbers, fixed) in figures.items():
        failure = figure_difference(where, name, view["figures"][name], numbers, fixed,
                                    skip_classes=("fig-axis", "fig-tick") if name != "tree" else ("fig-axis",))
        if failure:
            return failure
    return (_tree_drawing_difference(where, view["figures"]["tree"], _reaches(parents, probs), tops, widget)
            or _chart_marks_difference(where, view["figures"]["length"], (shapes[budget - 1][0], chains[budget - 1]),
                                       budget, None)
            or _chart_marks_difference(where, view["figures"]["speedup"], (tree_speedups[budget - 1],
                                       chain_speedups[budget - 1]), budget, (best, tree_speedups[best - 1])))


# What the numbers above do not see (the second outsider's mutation sweep, docs/CHECKS.md): where things are
# drawn. The tree's row labels must name their levels in order and each node's shade be its reach in
# REACH_SHADES steps; on the budget charts the axis runs from budget 1 at its left end to MAX_BUDGET at its
# right, so every budget tick, the reader's two dots and the best budget's triangle must sit at their budget,
# and the dots and the triangle on their own curve's value as the value ticks place it.
_ROW_LABEL = re.compile(r'<text class="fig-small" x="4" y="[0-9.]+">([^<]*)</text>')
_SHADE = re.compile(r'<circle class="tr-node tr-reach-([0-9]+)"')
_AXIS = re.compile(r'<line class="fig-axisline" x1="([0-9.]+)" x2="([0-9.]+)"')
_BUDGET_TICK = re.compile(r'<text class="fig-tick" x="([0-9.]+)" y="[0-9.]+" text-anchor="middle">([0-9]+)</text>')
_VALUE_TICK = re.compile(r'<text class="fig-tick" x="[0-9.]+" y="([0-9.]+)" text-anchor="end">([0-9.]+)</text>')
_DOT = re.compile(r'<circle class="[^"]*?(tr-chain )?tr-dot" cx="([0-9.]+)" cy="([0-9.]+)"')
_TRIANGLE = re.compile(r'<path class="tr-best" d="M([0-9.]+) ([0-9.]+)l')


def _tree_drawing_difference(where, svg: str, reaches: list, tops: int, widget) -> str | None:
    """The tree figure's row labels (root, then level 1 down) and node shades against the tree's levels and reaches."""
    labels = _ROW_LABEL.findall(svg)
    if labels[1:] not in ([f"level {n}" for n in range(1, tops)], [f"L{n}" for n in range(1, tops)]) or labels[:1] != ["root"]:
        return f"{where}: the tree's rows are labelled {labels}, not root and levels 1 to {tops - 1} in order"
    shades = [int(shade) for shade in _SHADE.findall(svg)]
    want = [round(r * widget.REACH_SHADES) for r in reaches]
    if shades != want:
        return f"{where}: the tree's node shades {shades[:12]} are not their reaches in steps ({want[:12]})"
    return None


def _chart_marks_difference(where, svg: str, values: tuple, budget: int, best) -> str | None:
    """A budget chart's ticks, the reader's dots (``values``: tree's, chain's at ``budget``) and, with ``best``
    (budget, tree value), the best budget's triangle, against the chart's own axes (see above)."""
    from ..widgets.trees import MAX_BUDGET

    x1, x2 = (float(v) for v in _AXIS.search(svg).groups())
    to_x = lambda n: x1 + (n - 1) / (MAX_BUDGET - 1) * (x2 - x1)  # noqa: E731
    ticks = [(float(x), int(n)) for x, n in _BUDGET_TICK.findall(svg)]
    if not {1, MAX_BUDGET} <= {n for _, n in ticks} or any(abs(x - to_x(n)) > 0.15 for x, n in ticks):
        return f"{where}: the budget ticks {ticks} are not at their budgets on an axis from 1 to {MAX_BUDGET}"
    (y_low, v_low), (y_high, v_high) = [(float(y) - 4, float(v)) for y, v in _VALUE_TICK.findall(svg)][::len(
        _VALUE_TICK.findall(svg)) - 1]
    to_y = lambda v: y_low + (v - v_low) / (v_high - v_low) * (y_high - y_low)  # noqa: E731
    dots = {("chain" if chain else "tree"): (float(x), float(y)) for chain, x, y in _DOT.findall(svg)}
    for name, value in zip(("tree", "chain"), values):
        x, y = dots.get(name, (None, None))
        if x is None or abs(x - to_x(budget)) > 0.15 or abs(y - to_y(value)) > 0.3:
            return f"{where}: the {name}'s dot at ({x}, {y}) is not at budget {budget}, value {to_fixed(value, 2)}"
    if best is not None:
        found = _TRIANGLE.search(svg)
        if found is None or abs(float(found.group(1)) - to_x(best[0])) > 0.15 or abs(
                float(found.group(2)) + 6 - to_y(best[1])) > 0.3:
            return f"{where}: the best budget's triangle is not on the tree's curve at budget {best[0]}"
    return None


def depth_profile_from_curve(out):
    """The trees depth profile: a tree of depth d uses the curve's positions 1..d, level i at
    position i. On a constant curve at the top-1 slider the profile's value is the best tree's (the
    independent model's, one rate at every level); a chain's value on a falling curve is its mean acceptance length, 1 + r1 + r1 r2 + ...,
    summed here; changing the curve past the tree's depth changes nothing; the widget shows the
    measured rates level by level and sends the same numbers to its table."""
    from ..widgets import trees as widget

    falling = [0.79, 0.614, 0.425, 0.295, 0.204, 0.142]
    for top1, decay, budget, depth in ((70, 50, 20, 6), (55, 80, 40, 8), (90, 30, 12, 4)):
        out.visited += 1
        probs = trees.rank_probabilities(top1 / 100, decay / 100, 4)
        tree = trees.fast_best_tree(probs, budget, depth)
        flat = widget.depth_profile_of(tree.parents, [top1 / 100], decay, 4)
        if abs(flat["value"] - tree.value) > 1e-9:
            return out.fail(f"top-1 {top1}%: the constant curve gives {flat['value']}, the best tree {tree.value}")
        curve = widget.depth_profile_of(tree.parents, falling, decay, 4)
        levels = len(curve["rows"])
        survival, chain = 1.0, 1.0
        for rate in (falling + [falling[-1]] * levels)[:levels]:
            survival *= rate
            chain += survival
        if abs(curve["chain"] - chain) > 1e-12:
            return out.fail(f"a chain of {levels + 1} nodes on the curve gives {curve['chain']}, not {chain}")
        if [row["top1"] for row in curve["rows"]] != (falling + [falling[-1]] * levels)[:levels]:
            return out.fail(f"the profile's top-1 by level {[row['top1'] for row in curve['rows']]} is not the curve's")
        deeper = widget.depth_profile_of(tree.parents, falling[:levels] + [0.01] * 4, decay, 4)
        if deeper["value"] != curve["value"] and levels < len(falling):
            return out.fail(f"a tree of depth {levels} moved when positions past {levels} changed")
    view = widget.view({CURVE_TOKEN_KEY: "custom:" + ",".join(f"{r:.4f}" for r in falling)})
    cells = table_cells(view["figures"]["depthTable"])
    want = [cell for row in view["depthProfile"]["rows"] for cell in (
        to_fixed(100 * row["top1"], 1) + "%", str(row["nodes"]), to_fixed(row["tokens"], 3))]
    failure = cells_difference("the measured curve", "depthTable", cells, want)
    if failure:
        return out.fail(failure)
    if not view["curveMode"] or to_fixed(view["depthProfile"]["value"], 2) not in view["summary"]:
        return out.fail("the widget does not say what the tree commits on the measured curve")
    # the sentence's rates level by level, its level range and the chain's node count (one node a level + the root)
    rows = view["depthProfile"]["rows"]
    said = (", ".join(to_fixed(100 * row["top1"], 1) + "%" for row in rows) + f" at levels 1 to {len(rows)}), "
            f"this tree commits {to_fixed(view['depthProfile']['value'], 2)} tokens per verify pass and a chain of "
            f"{len(rows) + 1} nodes")
    if said not in view["summary"]:
        out.fail(f"the measured curve's summary does not say {said!r}")


CURVE_TOKEN_KEY = "treCurve"

# Depth profiles for the depth-aware search: two ranks a level, as the brute force below can afford; each
# row is (level 1's ranks, level 2's, level 3's), a falling top-1 (a measured curve's shape), a rising one,
# one rate at every level (the i.i.d. case) and a level that accepts nothing.
DEPTH_PROFILES = (
    ((0.9, 0.3), (0.2, 0.1), (0.2, 0.1)),
    ((0.79, 0.12), (0.61, 0.2), (0.43, 0.25)),
    ((0.3, 0.2), (0.8, 0.1), (0.95, 0.01)),
    ((0.6, 0.2), (0.6, 0.2), (0.6, 0.2)),
    ((0.7, 0.0), (0.0, 0.0), (0.5, 0.5)),
)


def _brute_depth_value(probs_by_depth, budget: int, max_depth: int) -> float:
    """The largest tokens per verify pass over every tree of at most ``budget`` nodes and ``max_depth``
    levels, by enumeration (written here, apart from lab.trees' search): a tree is a set of rank paths
    closed under parent and earlier sibling; a node's reach is the product of its path's rank
    probabilities, level i's at level i; the value is the sum of its nodes' reaches."""
    ranks = len(probs_by_depth[0])
    paths, frontier = [()], [()]
    for _ in range(max_depth - 1):
        frontier = [path + (rank,) for path in frontier for rank in range(ranks)]
        paths += frontier

    def reach(path):
        value = 1.0
        for level, rank in enumerate(path):
            value *= probs_by_depth[level][rank]
        return value

    best = 0.0

    def grow(chosen: list, start: int, value: float):
        nonlocal best
        best = max(best, value)
        if len(chosen) == budget:
            return
        for index in range(start, len(paths)):
            path = paths[index]
            if path[:-1] in chosen and (path[-1] == 0 or path[:-1] + (path[-1] - 1,) in chosen):
                grow(chosen + [path], index + 1, value + reach(path))

    grow([()], 1, 1.0)
    return best


def depth_best_tree_is_best(out):
    """The tree chosen on a curve's levels (lab.trees.depth_best_tree, the one the trees widget shows beside
    the tree the independent model chooses) is a best tree: for every budget 1..6, depth 1..4 and depth profile of
    DEPTH_PROFILES it is worth the optimum of an enumeration of every tree written here, fits the
    budget and the depth, lists parents before children, is worth what tree_value_by_depth says of its
    parents, and never less than the tree the level-1 ranks alone choose, valued on the same levels;
    with one rate at every level it is the independent model's best tree (Sequoia's DP value). The widget's
    depth-aware readout on a falling measured curve is that search's tree."""
    from ..widgets import trees as widget

    for levels in DEPTH_PROFILES:
        for depth in range(1, 5):
            for budget in range(1, 7):
                out.visited += 1
                found = trees.depth_best_tree(levels, budget, depth)
                where = f"levels {levels}, budget {budget}, depth {depth}"
                optimum = _brute_depth_value(levels, budget, depth)
                worth = trees.tree_value_by_depth(found.parents, levels)
                iid_tree = trees.ranked_best_tree(levels[0], budget, depth)
                iid_worth = trees.tree_value_by_depth(iid_tree.parents, levels)
                ordered = all(0 <= parent < node for node, parent in enumerate(found.parents) if node)
                if (abs(found.value - optimum) > TOLERANCE or abs(worth - found.value) > TOLERANCE
                        or found.nodes > budget or found.depth > depth or not ordered or found.parents[0] != -1):
                    return out.fail(f"{where}: the depth-aware tree {found.parents} is worth {found.value} "
                                    f"({worth} by its nodes); every tree enumerated gives at most {optimum}")
                if iid_worth > found.value + TOLERANCE:
                    return out.fail(f"{where}: the i.i.d.-chosen tree is worth {iid_worth} on these levels, more "
                                    f"than the depth-aware tree's {found.value}")
                if len(set(levels)) == 1 and abs(found.value - trees.best_tree(levels[0], budget, depth).value) > TOLERANCE:
                    return out.fail(f"{where}: one rate at every level, yet {found.value} is not the DP's best tree")
        yield  # a pause: the browser answers a reader between two profiles (lab.audit.run_check_steps)
    falling = (0.79, 0.614, 0.425, 0.295, 0.204, 0.142)
    values = {"budget": "20", "maxDepth": "6", "decay": "50", "drafts": "4"}
    view = widget.view({**values, CURVE_TOKEN_KEY: "custom:" + ",".join(f"{r:.4f}" for r in falling)})
    out.visited += 1
    probs = trees.depth_rank_probabilities(falling, 0.5, 4, 5)
    best = trees.depth_best_tree(probs, 20, 6)
    aware = view["depthProfile"].get("aware") or {}
    if aware.get("parents") != best.parents or f"commits {to_fixed(best.value, 2)} tokens" not in view["summary"]:
        return out.fail(f"the widget's depth-aware tree {aware.get('parents')} is not the search's {best.parents} "
                        f"worth {to_fixed(best.value, 2)}")
    if best.value < view["depthProfile"]["value"] - TOLERANCE:
        out.fail(f"on the falling curve the depth-aware tree ({best.value}) is worth less than the i.i.d.-chosen "
                 f"tree ({view['depthProfile']['value']})")


def trees_hostile_inputs_answered(out):
    """No input breaks the trees widget: every slider given NaN, infinities, an empty value, other scripts'
    digits, hex, underscores, markup or 5,000 characters (as a form value and in a link) is answered with
    a note naming it and the slider in range, never an error, a NaN or a long echo
    (lab.checks.hostile_inputs_answered); so are a verify cost that is no mode and the extremes together
    (one node; 128 nodes over 12 levels with eight drafts and every rank accepted)."""
    from ..widgets import trees as widget

    yield from hostile_inputs_answered(out, widget, cases=(
        ({"verifyCost": "x" * 5000}, "Verify cost"),
        ({"budget": "1", "maxDepth": "12", "top1": "99", "decay": "100", "drafts": "8", "verifyTax": "20"}, None),
        ({"budget": "128", "maxDepth": "12", "top1": "0", "decay": "0", "drafts": "8"}, None)))


CHECKS = (
    ("multi-draft-is-exact", multi_draft_is_exact),
    ("no-update-bug-where-predicted", no_update_bug_where_predicted),
    ("typical-acceptance-is-not-exact", typical_acceptance_is_not_exact),
    ("whole-tree-is-exact", whole_tree_is_exact),
    ("best-tree-at-least-chain", best_tree_at_least_chain),
    ("dp-value-is-reach-sum", dp_value_is_reach_sum),
    ("ranked-tree-is-best", ranked_tree_is_best),
    ("chain-matches-ledger", chain_matches_ledger),
    ("value-grows-with-budget", value_grows_with_budget),
    ("trees-readouts-match-model", tree_readouts_match_model),
    ("trees-depth-profile-from-curve", depth_profile_from_curve),
    ("trees-depth-best-tree-is-best", depth_best_tree_is_best),
    ("trees-hostile-inputs-answered", trees_hostile_inputs_answered),
)


def signature_value() -> str:
    """The best tree's value at :data:`SIGNATURE_SETTING` (see :data:`SIGNATURE_NOTE`)."""
    return to_fixed(trees.best_tree(**SIGNATURE_SETTING).value, 6)
