"""Token trees on a measured acceptance curve: the top-1 acceptance at each tree level (level i at the
curve's position i), a tree's depth profile on those levels, and the best tree chosen on them. What the
trees widget shows in its measured-curve mode (``treCurve``) and ``python -m lab tree`` prints for the
same curve flags: both call these, so the two answer alike on the same token.

The tree whose profile is shown is the one the widget's sliders choose (:func:`slider_tree`: top-1,
decay of lower ranks, candidates per node, i.i.d. at every level); the depth-aware tree is the one the
curve's own levels choose (:func:`lab.trees.depth_best_tree`)."""

from . import trees

__all__ = ["CURVE_LEVELS", "slider_tree", "depth_rates", "depth_profile_of", "depth_aware_tree", "profile_on_curve", "levels_resting"]

CURVE_LEVELS = 12  # the widget's deepest tree (its maxDepth slider's top): a measured curve is extended to it


def slider_tree(top1: float, decay: float, drafts: int, budget: int, max_depth: int, capacity: int = 0):
    """The best tree for the widget's sliders: ranks accepted as :func:`lab.trees.rank_probabilities`
    gives them at top-1 ``top1``% and decay ``decay``%, ``drafts`` candidates per node, within the
    budget and depth (:func:`lab.trees.fast_best_tree`; ``capacity`` shares a larger budget's ranking).

    >>> slider_tree(70, 50, 4, 4, 3).parents
    [-1, 0, 0, 1]
    """
    return trees.fast_best_tree(trees.rank_probabilities(top1 / 100, decay / 100, drafts), budget, max_depth,
                                capacity=capacity)


def depth_rates(curve, top1: float, measured: int | None = None, levels: int = CURVE_LEVELS, method=None) -> list[float]:
    """The top-1 acceptance per tree level: a measured curve's conditional rates (level i, position i),
    continued past its measured positions (``measured``, default all) by the acceptance model
    (:func:`lab.acceptance.extended_rates`, under the drafter family ``method``'s prior, else the pooled one) to
    ``levels`` levels at least, or the slider's one top-1 at
    every level (the i.i.d. model).

    >>> depth_rates(None, 70), len(depth_rates([0.8, 0.5], 70)), depth_rates([0.8, 0.5], 70)[2] < 0.5
    ([0.7], 12, True)
    """
    if not curve:
        return [top1 / 100]
    from .acceptance import extended_rates  # the curve library: only a measured curve needs it

    return extended_rates(curve, levels, measured, method)


def _node_levels(parents) -> list[int]:
    out = []
    for parent in parents:
        out.append(0 if parent < 0 else out[parent] + 1)
    return out


def depth_profile_of(parents, rates, decay: float, drafts: int) -> dict:
    """The tree's depth profile on these per-level rates (a tree of depth d uses positions 1..d):
    its rows (:func:`lab.trees.depth_profile`), the tree's tokens per verify pass on them and a chain
    of the same depth's (the curve's mean acceptance length at k = depth; 1 for a tree of its root alone).

    >>> profile = depth_profile_of([-1, 0, 1], [0.8, 0.5], 50, 2)
    >>> [(row["depth"], row["top1"], row["nodes"]) for row in profile["rows"]], round(profile["value"], 6), profile["chain"]
    ([(1, 0.8, 1), (2, 0.5, 1)], 2.2, 2.2)
    >>> depth_profile_of([-1], [0.8, 0.5], 50, 2)
    {'rows': [], 'value': 1.0, 'chain': 1.0}
    """
    levels = max(_node_levels(parents), default=0)   # below the root
    probs = trees.depth_rank_probabilities(rates, decay / 100, drafts, levels)
    chain = trees.chain_parents(levels + 1)
    return {"rows": trees.depth_profile(parents, probs) if len(parents) > 1 else [],
            "value": trees.tree_value_by_depth(parents, probs),
            "chain": trees.tree_value_by_depth(chain, trees.depth_rank_probabilities(rates, decay / 100, 1, levels))}


def depth_aware_tree(rates, decay: float, drafts: int, budget: int, max_depth: int) -> dict:
    """The best tree chosen on the curve's levels (:func:`lab.trees.depth_best_tree`: the budget spent
    where the depth profile says acceptance is), within the same budget and depth as the slider's
    tree: its tokens per verify pass on the curve, nodes, levels (root included) and parents.

    >>> depth_aware_tree([0.6, 0.1], 100, 2, 3, 3)["parents"]   # level 2 accepts 10%: level 1 widens
    [-1, 0, 0]
    """
    probs = trees.depth_rank_probabilities(rates, decay / 100, drafts, max(1, max_depth - 1))
    best = trees.depth_best_tree(probs, budget, max_depth)
    return {"value": best.value, "nodes": best.nodes, "depth": best.depth, "parents": best.parents}


def profile_on_curve(parents, rates, decay: float, drafts: int, budget: int, max_depth: int) -> dict:
    """The measured-curve mode's depth profile: :func:`depth_profile_of` of the slider's tree and, under
    ``aware``, :func:`depth_aware_tree` within the same budget and depth."""
    profile = depth_profile_of(parents, rates, decay, drafts)
    profile["aware"] = depth_aware_tree(rates, decay, drafts, budget, max_depth)
    return profile


def levels_resting(first: int, last: int) -> str:
    """Which tree levels rest on the acceptance model's extrapolation, as the subject of "rest" (the widget's
    summary and the tree CLI's note).

    >>> levels_resting(3, 5), levels_resting(5, 5)
    ('levels 3 to 5 rest', 'level 5 rests')
    """
    from .figures import span

    return span("level", first, last) + (" rests" if first == last else " rest")
