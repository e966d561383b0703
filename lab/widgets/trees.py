"""Part four's widget: the best token tree for a node budget, its expected length against a
chain's, the speedup after the verify cost, and the exactness panel (multi-draft, its
no-update bug, Medusa's typical acceptance) on part three's default (p, q).

Two prices for the verify pass (the ``verifyCost`` select): the ledger's verify tax per extra
node (part one's numbers), or part two's roofline at a fixed serving preset (batch 1, context
1024), where verifying N nodes is one target step with n = N tokens per sequence
(:func:`lab.trees.roofline_tree_cost`)."""

from functools import lru_cache

from .. import sampler, trees
from ..trees_depth import depth_profile_of, depth_rates, levels_resting, profile_on_curve, slider_tree
from ..figures import (MIN_TEXT, label_box, svg, text_width, column_box, escape, fit_width, line_boxes,
                       line_path, nice_ticks, one_x_label, split_width, tick_label, tv_text, vertical_line)
from ..jsformat import to_fixed, to_js_string
from ..ledger import DEFAULT_SETTINGS as PART_ONE
from ..urlstate import EXACT_SLIDERS, TREE_SLIDERS, Choice, format_query, read_controls, requested_curve

__all__ = ["SLIDERS", "COST_MODES", "view", "page_context", "tree_svg", "length_svg", "speedup_svg",
           "exactness_svg", "budget_table_html", "exactness_table_html"]

SLIDERS = TREE_SLIDERS  # in lab.urlstate, where `python -m lab tree` reads their ranges and defaults
MAX_BUDGET = 128
# The rest of the cycle is part one's defaults, read from the ledger's (lab.ledger.DEFAULT_SETTINGS: an
# 80 ms target pass, a draft pass at 12% of it, 6 ms of overhead per cycle).
TARGET_MS, DRAFT_COST, OVERHEAD_MS = (float(PART_ONE.targetMs), float(PART_ONE.draftCost), float(PART_ONE.overheadMs))
# The exactness panel uses part three's default pair, the exact sampler's slider defaults (certainty 64, match 72).
PAIR_SETTING = tuple(next(slider.default for slider in EXACT_SLIDERS if slider.name == name)
                     for name in ("certainty", "match"))
MAX_CANDIDATES = 8
TABLE_BUDGETS = (1, 2, 4, 8, 16, 32, 64, 128)
# A node is the palette's tree colour (--k-tree) mixed into the widget's background, the more of it
# the likelier the node (CSS classes tr-reach-0 .. tr-reach-8, site/widgets.css): rare nodes fade
# into the background in either scheme (a fixed pale-to-dark ramp made them the brightest marks on
# a dark panel), and the root is the full colour. Opaque, so the edges do not show through.
REACH_SHADES = 8
# The verify-cost select: the ledger's tax, or the roofline at one of two serving presets (part
# two's default model pair, BF16, 4 GPUs, batch 1, context 1024). On H100 SXM the verify step
# stays memory-bound past the largest budget; on A100 it turns compute-bound within the scale.
COST_KEY, COST_URL_KEY, COST_DEFAULT = "verifyCost", "treeVerifyCost", "tax"
CURVE_KEY = "treCurve"  # a measured acceptance curve (custom:r1,r2,... or a traces preset): the depth profile
ROOFLINE_GPUS = {"h100": "h100-sxm", "a100": "a100-80g"}


def _roofline_settings(mode: str):
    from .. import serving

    return serving.DEFAULT_SETTINGS.with_(gpu=ROOFLINE_GPUS[mode], batch=trees.ROOFLINE_BATCH,
                                          context=trees.ROOFLINE_CONTEXT)


def _roofline_setting(gpu: str) -> str:
    """The roofline's setting for a GPU, as the sentence names it: target, GPUs, batch 1."""
    from .. import serving

    d = serving.DEFAULT_SETTINGS
    return f"{serving.TARGETS[d.target].label}, {d.gpus} x {serving.GPUS[gpu].label}, batch 1"


def _cost_modes() -> dict:
    """The select's options, short enough to show whole on a phone (the sentence gives the setting)."""
    from .. import serving

    d = serving.DEFAULT_SETTINGS
    return {"tax": "ledger's verify tax per node",
            **{mode: f"roofline, {d.gpus} x {serving.GPUS[gpu].label}" for mode, gpu in ROOFLINE_GPUS.items()}}


COST_MODES = ("tax", *ROOFLINE_GPUS)


def _f(value, digits=2) -> str:
    return to_fixed(value, digits)


def _params(raw) -> tuple[dict, list[str]]:
    """Slider params (and the cost mode under ``COST_KEY``) and notes, from a URL query string or a
    mapping of form values (:func:`lab.urlstate.read_controls`)."""
    return read_controls(raw, CONTROLS)


CONTROLS = (*SLIDERS, Choice(COST_KEY, COST_URL_KEY, "Verify cost", COST_MODES, COST_DEFAULT))


# --- the numbers -------------------------------------------------------------------------------

def _cost(value, nodes, depth, verify_tax, mode: str = COST_DEFAULT) -> trees.TreeCost:
    if mode != COST_DEFAULT:
        return trees.roofline_tree_cost(value, nodes, depth, _roofline_settings(mode))
    return trees.tree_cost(value, nodes, depth, target_ms=TARGET_MS, draft_cost=DRAFT_COST,
                           overhead_ms=OVERHEAD_MS, verify_tax=verify_tax)


@lru_cache(maxsize=8)
def _ridge(mode: str) -> int | None:
    """Nodes at which the preset's verify step turns compute-bound (None for the ledger's tax)."""
    return None if mode == COST_DEFAULT else trees.roofline_ridge_nodes(_roofline_settings(mode))


@lru_cache(maxsize=64)
def _shapes(top1: int, decay: int, drafts: int, max_depth: int) -> tuple:
    """(probs, (value, nodes, depth) of the best tree per budget 1..128) by ranking nodes
    (:func:`lab.trees.fast_tree_shapes`). Cached apart from the price, so moving the verify tax
    or the cost select reuses it."""
    probs = trees.rank_probabilities(top1 / 100, decay / 100, drafts)
    return probs, trees.fast_tree_shapes(probs, MAX_BUDGET, max_depth)


@lru_cache(maxsize=64)
def _curves(top1: int, decay: int, drafts: int, max_depth: int, verify_tax: int, mode: str = COST_DEFAULT) -> dict:
    """Tree and chain, for every budget 1..128: expected length and speedup after cost."""
    probs, shapes = _shapes(top1, decay, drafts, max_depth)
    tree_lengths = [value for value, _, _ in shapes]
    chain_lengths = [trees.chain_value(probs[0], n, max_depth) for n in range(1, MAX_BUDGET + 1)]
    tree_speedups, chain_speedups = [], []
    for n, (value, nodes, depth) in enumerate(shapes, start=1):
        tree_speedups.append(_cost(value, nodes, depth, verify_tax, mode).speedup)
        chain_nodes = min(n, max_depth)
        chain_speedups.append(_cost(chain_lengths[n - 1], chain_nodes, chain_nodes, verify_tax, mode).speedup)
    best = max(range(MAX_BUDGET), key=lambda i: (tree_speedups[i], -i)) + 1   # first budget with the top speedup
    return {"probs": probs, "tree": tree_lengths, "chain": chain_lengths, "treeSpeedup": tree_speedups,
            "chainSpeedup": chain_speedups, "bestBudget": best, "ridge": _ridge(mode), "maxDepth": max_depth}


@lru_cache(maxsize=1)
def _exactness() -> list[dict]:
    """TV to p of the three verifiers for 1..8 tree candidates on part three's default pair."""
    p, q = (row.probs for row in sampler.reference_pair(*PAIR_SETTING))
    exact, buggy = trees.multi_draft_outputs(p, q, MAX_CANDIDATES), trees.no_update_outputs(p, q, MAX_CANDIDATES)
    return [{"candidates": n, "exact": float(trees.total_variation(p, exact[n - 1])),
             "bug": float(trees.total_variation(p, buggy[n - 1])),
             "typical": float(trees.total_variation(p, trees.typical_output(p, q, n)))}
            for n in range(1, MAX_CANDIDATES + 1)]


# --- figures -----------------------------------------------------------------------------------

def _reaches(parents, probs) -> list[float]:
    reach, seen = [], {}
    for parent in parents:
        if parent < 0:
            reach.append(1.0)
            continue
        rank = seen.get(parent, 0)
        seen[parent] = rank + 1
        reach.append(reach[parent] * probs[rank])
    return reach


def tree_svg(parents, probs, width: int = 640) -> str:
    """The tree, root on top, one row per level; each node shaded by its reach probability
    (the chance that the verifier commits it: darker is likelier)."""
    width = fit_width(width)
    levels = [0] * len(parents)
    children: list[list[int]] = [[] for _ in parents]
    for node, parent in enumerate(parents):
        if parent >= 0:
            levels[node] = levels[parent] + 1
            children[parent].append(node)
    reach = _reaches(parents, probs)
    narrow = width < 480
    left, right, row_h, top = (34 if narrow else 58), 12, 30, 14
    leaves = sum(1 for node in range(len(parents)) if not children[node])
    step = (width - left - right) / max(1, leaves)
    x = [0.0] * len(parents)
    # leaves placed left to right in depth-first order, so subtrees never cross; a parent sits
    # over the middle of its children
    order, stack = [], [0]
    while stack:
        node = stack.pop()
        if not children[node]:
            order.append(node)
        stack.extend(reversed(children[node]))
    for rank, node in enumerate(order):
        x[node] = left + step * (rank + 0.5)
    for node in range(len(parents) - 1, -1, -1):
        if children[node]:
            x[node] = sum(x[c] for c in children[node]) / len(children[node])
    depth = max(levels) + 1
    height = top + row_h * depth + 4
    radius = max(2.5, min(9.0, step / 2 - 0.5))
    y = [top + row_h * level + row_h / 2 for level in levels]
    edges = "".join(f"M{x[p]:.1f} {y[p]:.1f}L{x[n]:.1f} {y[n]:.1f}" for n, p in enumerate(parents) if p >= 0)
    body = [f'<path class="tr-edge" d="{edges}" fill="none"/>'] if edges else []
    for level in range(depth):  # the root, then level d at draft position d, as the depth table and summary count
        name = "root" if level == 0 else f"L{level}" if narrow else f"level {level}"
        body.append(f'<text class="fig-small" x="4" y="{top + row_h * level + row_h / 2 + 4:.1f}">{name}</text>')
    for node in range(len(parents)):
        shade = round(reach[node] * REACH_SHADES)
        body.append(f'<circle class="tr-node tr-reach-{shade}" cx="{x[node]:.1f}" cy="{y[node]:.1f}" '
                    f'r="{radius:.1f}">'
                    f'<title>node {node}, {f"level {levels[node]}" if levels[node] else "the root"}: reached with probability '
                    f'{_f(reach[node], 4)}</title></circle>')
    label = (f"The best tree: {len(parents)} nodes over {depth} levels, root included; nodes per level, root first: "
             + ", ".join(str(levels.count(level)) for level in range(depth))
             + f"; expected tokens per verify pass {_f(sum(reach), 3)}.")
    return svg(width, height, label, body, "tr-fig tr-tree")


def _apart(ys: list[float], gap: float = 14.0) -> list[float]:
    """Label positions at least ``gap`` apart, in the order of ``ys`` (two end-of-line labels)."""
    if len(ys) == 2 and abs(ys[0] - ys[1]) < gap:
        middle = (ys[0] + ys[1]) / 2
        upper = ys[0] <= ys[1]
        return [middle - gap / 2, middle + gap / 2] if upper else [middle + gap / 2, middle - gap / 2]
    return ys


def _line_chart(series, selected: int, y_label: str, width: int, label: str, css_class: str,
                marker: int | None = None, floor: float = 0.0, ridge: int | None = None) -> str:
    """Curves over budget 1..128: ``series`` is ((css class, name, values), ...); the first is
    the best tree (a colour), the second the chain (neutral dashed ink)."""
    width = fit_width(width)
    left, right, top, bottom, height = 44, 48, 34, 38, 230
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max(max(values) for _, _, values in series)
    peak = max(peak * 1.05, floor + 1e-9)
    to_x = lambda n: left + (n - 1) / (MAX_BUDGET - 1) * plot_w  # noqa: E731
    to_y = lambda v: top + plot_h - (v - floor) / (peak - floor) * plot_h  # noqa: E731
    body = _chart_axes(to_x, to_y, (left, plot_w, width), (top, plot_h, height), (floor, peak), y_label)
    one_x = marker is not None and floor <= 1 <= peak  # the 1x line; its label is placed once the curves are drawn
    if one_x:
        body.append(f'<line class="tr-breakeven" x1="{left}" x2="{left + plot_w}" y1="{to_y(1):.1f}" y2="{to_y(1):.1f}"/>')
    taken = []  # what the 1x label must not sit on: the ridge and its label, the curves, the budget line
    ridge_box = None  # the ridge's label, which the budget line breaks around if it must cross it
    if ridge is not None and ridge <= MAX_BUDGET:
        markup, ridge_box = _ridge_mark(ridge, to_x(ridge), to_x(selected), width, top, plot_h)
        body.append(markup)
        taken += [column_box(to_x(ridge), top, top + plot_h), ridge_box]
    ends = _apart([to_y(values[-1]) + 4 for _, _, values in series])
    for (kind, name, values), end_y in zip(series, ends):
        points = [(to_x(n), to_y(v)) for n, v in enumerate(values, start=1)]
        body.append(f'<path class="{kind} tr-line" d="{line_path(points)}" fill="none"/>')
        body.append(f'<text class="fig-tick" x="{left + plot_w + 4}" y="{end_y:.1f}">{escape(name)}</text>')
        taken += line_boxes(points)
    sx = to_x(selected)
    # broken around the ridge's label where no side of the ridge was clear of it
    body.append(vertical_line(sx, top, top + plot_h, 'class="tr-budget"', ridge_box, reach=3))
    if one_x:
        mx, my = to_x(marker), to_y(series[0][2][marker - 1])  # the best budget's triangle (one_x implies it)
        body.append(_break_even_label(left, left + plot_w, to_y(1), taken + [
            column_box(sx, top, top + plot_h), (0, 0, width, top), (mx - 6, my - 15, mx + 6, my - 5)]))
    for kind, _, values in series:
        body.append(f'<circle class="{kind} tr-dot" cx="{sx:.1f}" cy="{to_y(values[selected - 1]):.1f}" r="4"/>')
    if marker is not None:
        mx, my = to_x(marker), to_y(series[0][2][marker - 1])
        body.append(f'<path class="tr-best" d="M{mx:.1f} {my - 6:.1f}l-5 -8h10z"><title>best budget {marker}</title></path>')
    return svg(width, height, label, body, f"tr-fig {css_class}")


def _chart_axes(to_x, to_y, across: tuple, down: tuple, values: tuple, y_label: str) -> list:
    """A budget chart's axes: the budget ticks (fewer on a phone) and title, the value ticks (round values) and the
    value axis' title. ``across`` is (left, plot width, width), ``down`` (top, plot height, height), ``values`` the
    value axis' (floor, peak)."""
    (left, plot_w, width), (top, plot_h, height), (floor, peak) = across, down, values
    body = [f'<line class="fig-axisline" x1="{left}" x2="{left + plot_w}" y1="{top + plot_h}" y2="{top + plot_h}"/>',
            f'<line class="fig-axisline" x1="{left}" x2="{left}" y1="{top}" y2="{top + plot_h}"/>']
    for tick in ((1, 64, 128) if width < 480 else (1, 32, 64, 96, 128)):
        body.append(f'<text class="fig-tick" x="{to_x(tick):.1f}" y="{top + plot_h + 16}" text-anchor="middle">{tick}</text>')
    body.append(f'<text class="fig-axis" x="{left + plot_w / 2:.1f}" y="{height - 4}" text-anchor="middle">'
                f'node budget</text>')
    ticks = nice_ticks(floor, peak, 4)  # round values (0, 2, 4), not thirds of the peak
    for value in ticks:
        body.append(f'<text class="fig-tick" x="{left - 4}" y="{to_y(value) + 4:.1f}" text-anchor="end">'
                    f'{tick_label(value, ticks)}</text>')
    body.append(f'<text class="fig-axis" x="4" y="{top - 18}">{escape(y_label)}</text>')
    return body


def _break_even_label(x0: float, x1: float, y1: float, taken: list) -> str:
    """The 1x line's label, placed clear of what is ``taken`` (the ridge and its label, the curves, the budget
    line, the plot's title row above it and the best budget's triangle)."""
    x, y, words, anchor = one_x_label(x0, x1, y1, ("1x: break-even",), taken)
    return f'<text class="fig-small fig-clear" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}">{escape(words)}</text>'


def _ridge_mark(ridge: int, rx: float, budget_x: float, width: int, top: float, plot_h: float) -> tuple:
    """(markup, its label's box) of the roofline's ridge: a line and its label, low in the plot beside the line
    (the curves run high there; the best budget's triangle is often just left of the ridge, at the top), right if
    it fits, else left, where the reader's budget line does not cross it (the shorter wording before giving that
    up)."""
    options = [option for text in (f"ridge: {ridge} nodes", f"ridge: {ridge}")
               for option in ([(text, rx + 4, "start")] if rx + 4 + text_width(text) <= width - 4 else [])
               + [(text, rx - 4, "end")]]
    boxes = [label_box((x, top + plot_h - 6, text, anchor), MIN_TEXT) for text, x, anchor in options]
    clear = [i for i, box in enumerate(boxes) if not box[0] - 3 <= budget_x <= box[2] + 3]
    choice = clear[0] if clear else 0
    (text, tx, anchor), ridge_box = options[choice], boxes[choice]
    return (f'<line class="tr-ridge" x1="{rx:.1f}" x2="{rx:.1f}" y1="{top}" y2="{top + plot_h}"/>'
            f'<text class="fig-small" x="{tx:.1f}" y="{top + plot_h - 6}" text-anchor="{anchor}">{text}</text>'), ridge_box


SERIES_CLASSES = ("k-tree", "fig-baseline tr-chain")


def length_svg(curves: dict, selected: int, width: int = 640) -> str:
    """Expected tokens per verify pass against the node budget: best tree and chain."""
    tree, chain = curves["tree"], curves["chain"]
    label = (f"Expected tokens per verify pass against node budget: the best tree reaches {_f(tree[-1])} at 128 nodes, "
             f"the chain (one node per level, so at most {curves['maxDepth']} nodes) {_f(chain[-1])}; at your budget "
             f"{selected}: tree {_f(tree[selected - 1])}, chain "
             f"{_f(chain[selected - 1])}.")
    return _line_chart(((SERIES_CLASSES[0], "tree", tree), (SERIES_CLASSES[1], "chain", chain)), selected,
                       "tokens per verify pass", width, label, "tr-length", floor=0.0)


def speedup_svg(curves: dict, selected: int, width: int = 640) -> str:
    """Speedup over plain decoding after the draft and verify cost, against the budget; the
    triangle marks the budget with the best tree speedup; under a roofline cost a dotted line
    marks the ridge (the fewest nodes whose verify step is compute-bound) if it is on the scale."""
    best, ridge = curves["bestBudget"], curves.get("ridge")
    label = (f"Speedup after verify cost against node budget: best tree {_f(curves['treeSpeedup'][best - 1])}x at "
             f"{best} nodes; at your budget {selected}: tree {_f(curves['treeSpeedup'][selected - 1])}x, chain "
             f"{_f(curves['chainSpeedup'][selected - 1])}x."
             + (f" The verify step turns compute-bound at {ridge} nodes." if ridge and ridge <= MAX_BUDGET else ""))
    return _line_chart(((SERIES_CLASSES[0], "tree", curves["treeSpeedup"]),
                        (SERIES_CLASSES[1], "chain", curves["chainSpeedup"])),
                       selected, "speedup over plain decoding (x)", width, label, "tr-speedup", marker=best,
                       floor=0.0, ridge=ridge)


EXACTNESS_KINDS = (("exact", "speculative", "multi-draft"), ("bug", "buggy", "no-update bug"),
                   ("typical", "typical", "typical acceptance"))


def exactness_svg(rows: list[dict], selected: int, width: int = 640) -> str:
    """TV(p, output) for 1..8 tree candidates: multi-draft (exactly 0), the no-update bug and
    typical acceptance; the selected number of candidates is outlined."""
    width = fit_width(width)
    left, right, top, bottom, height = 46, 10, 26, 38, 200
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max(max(r["bug"], r["typical"]) for r in rows) * 1.1 or 1.0
    column = plot_w / len(rows)
    bar = column * 0.26
    body = [f'<line class="fig-axisline" x1="{left}" x2="{left + plot_w}" y1="{top + plot_h}" y2="{top + plot_h}"/>']
    ticks = nice_ticks(0, peak, 3)
    for value in ticks:
        body.append(f'<text class="fig-tick" x="{left - 4}" y="{top + plot_h - plot_h * value / peak + 4:.1f}" '
                    f'text-anchor="end">{tick_label(value, ticks)}</text>')
    body.append(f'<text class="fig-axis" x="4" y="{top - 10}">TV to the target</text>')
    for index, row in enumerate(rows):
        x0 = left + column * index + column * 0.1
        if row["candidates"] == selected:
            body.append(f'<rect class="fig-target" x="{left + column * index + 1:.1f}" y="{top - 2}" '
                        f'width="{column - 2:.1f}" height="{plot_h + 4}" fill="none" stroke-width="2"/>')
        for offset, (key, concept, name) in enumerate(EXACTNESS_KINDS):
            h = row[key] / peak * plot_h
            x = x0 + offset * (bar + 1)
            body.append(f'<rect class="k-{concept}" x="{x:.1f}" y="{top + plot_h - max(h, 1.5):.1f}" width="{bar:.1f}" '
                        f'height="{max(h, 1.5):.1f}"><title>{row["candidates"]} candidates, {name}: TV {_f(row[key], 4)}</title></rect>')
        body.append(f'<text class="fig-tick" x="{left + column * (index + 0.5):.1f}" y="{top + plot_h + 16}" '
                    f'text-anchor="middle">{row["candidates"]}</text>')
    body.append(f'<text class="fig-axis" x="{left + plot_w / 2:.1f}" y="{height - 4}" text-anchor="middle">'
                f'tree candidates</text>')
    chosen = rows[selected - 1]
    label = (f"Total variation to the target for 1 to {len(rows)} tree candidates. At {selected}: multi-draft "
             f"{_f(chosen['exact'], 3)}, no-update bug {_f(chosen['bug'], 3)}, typical acceptance {_f(chosen['typical'], 3)}.")
    return svg(width, height, label, body, "tr-fig tr-exactness")


def budget_table_html(curves: dict, selected: int) -> str:
    """The two curves as a table, at powers of two and the selected budget. The chain takes one node
    per level, so past the depth limit its column stops growing: its header says so."""
    budgets = sorted(set(TABLE_BUDGETS) | {selected})
    rows = []
    for n in budgets:
        mark = ' class="selected"' if n == selected else ""
        rows.append(f"<tr{mark}><th scope=\"row\">{n}</th><td>{_f(curves['tree'][n - 1])}</td>"
                    f"<td>{_f(curves['chain'][n - 1])}</td><td>{_f(curves['treeSpeedup'][n - 1])}</td>"
                    f"<td>{_f(curves['chainSpeedup'][n - 1])}</td></tr>")
    cap = f"at most {curves['maxDepth']} nodes"
    return ('<table class="heatmap-table tr-table"><caption>Tokens per verify pass and speedup by node budget (a chain '
            f'takes one node per level: {cap})</caption>'
            '<thead><tr><th scope="col">Budget</th><th scope="col">Tree tokens</th>'
            f'<th scope="col">Chain tokens ({cap})</th>'
            '<th scope="col">Tree speedup</th><th scope="col">Chain speedup</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>")


def depth_table_html(profile: dict, curve: bool) -> str:
    """The depth profile as a table: per level, the top-1 acceptance there, the tree's nodes and the
    tokens they add per verify pass."""
    rows = "".join(f'<tr><th scope="row">{row["depth"]}</th><td>{_f(100 * row["top1"], 1)}%</td>'
                   f'<td>{row["nodes"]}</td><td>{_f(row["tokens"], 3)}</td></tr>' for row in profile["rows"])
    source = "the measured curve's position" if curve else "its \u03b1 (top-1) slider, the same at every level"
    return ('<table class="heatmap-table tr-depth-table"><caption>The best tree level by level: per-token acceptance \u03b1 of the '
            f'top-1 candidate from {source}; level d uses position d</caption>'
            '<thead><tr><th scope="col">Level</th><th scope="col">Per-token acceptance <span class="sym">\u03b1</span> (top-1)</th><th scope="col">Nodes</th>'
            '<th scope="col">Tokens added</th></tr></thead><tbody>' + rows + "</tbody></table>")


def exactness_table_html(rows: list[dict], selected: int) -> str:
    """The exactness panel as a table."""
    mark = lambda row: ' class="selected"' if row["candidates"] == selected else ""  # noqa: E731
    body = "".join(
        f"<tr{mark(r)}><th scope=\"row\">{r['candidates']}</th>"
        f"<td>{tv_text(r['exact'])}</td><td>{tv_text(r['bug'])}</td><td>{tv_text(r['typical'])}</td></tr>" for r in rows)
    return ('<table class="heatmap-table tr-table"><caption>TV to the target by number of candidates</caption>'
            '<thead><tr><th scope="col">Candidates</th><th scope="col">Multi-draft</th><th scope="col">No-update bug</th>'
            '<th scope="col">Typical acceptance</th></tr></thead><tbody>' + body + "</tbody></table>")


# --- the view ----------------------------------------------------------------------------------

def view(raw=None) -> dict:
    """The widget for one setting; never raises on bad input (notes say what was changed)."""
    raw, width = split_width(raw)
    params, notes = _params(raw)
    budget, depth, candidates, mode = params["budget"], params["maxDepth"], params["drafts"], params[COST_KEY]
    curves = _curves(params["top1"], params["decay"], candidates, depth, params["verifyTax"], mode)
    tree = slider_tree(params["top1"], params["decay"], candidates, budget, depth, capacity=MAX_BUDGET)
    cost = _cost(tree.value, tree.nodes, tree.depth, params["verifyTax"], mode)
    rows = _exactness()
    chosen = rows[candidates - 1]
    token, curve, curve_label, measured_k, method = _measured_curve(raw, notes)
    level_rates = depth_rates(curve, params["top1"], measured_k, method=method)
    profile = (depth_profile_of(tree.parents, level_rates, params["decay"], candidates) if curve is None
               else profile_on_curve(tree.parents, level_rates, params["decay"], candidates, budget, depth))
    readouts = _readouts(tree, cost, curves, budget, chosen)
    summary = _summary(params, tree, cost, curves, readouts, chosen)
    if curve is not None:
        summary += _curve_summary(profile, curve_label, budget, depth, measured_k)
    best = curves["bestBudget"]
    live = f"{readouts['speedup']}x at {budget} nodes; best budget {best}"
    query = format_query(params, SLIDERS) + (f"&{COST_URL_KEY}={mode}" if mode != COST_DEFAULT else "")
    return {
        "params": params,
        "shown": {**{name: to_js_string(params[name]) for name in (slider.name for slider in SLIDERS)},
                  COST_KEY: mode, CURVE_KEY: token},
        "curveMode": curve is not None,
        "depthProfile": profile,
        "notes": notes,
        "query": query,
        "lead": _lead(readouts, budget, depth, best, curve is not None),
        "summary": summary,
        "live": live,
        "width": width,
        "readouts": readouts,
        "tree": {"parents": tree.parents, "value": tree.value, "nodes": tree.nodes, "depth": tree.depth},
        "figures": _figures(tree, curves, rows, profile, (budget, candidates, curve is not None), width),
    }


def _figures(tree, curves: dict, rows: list, profile: dict, setting: tuple, width: int) -> dict:
    """The figures and tables: the tree, its length and speedup against the budget, the exactness panel, and the
    depth profile's table; ``setting`` is (budget, candidates, whether on a measured curve)."""
    budget, candidates, on_curve = setting
    return {
        "tree": tree_svg(tree.parents, curves["probs"], width),
        "length": length_svg(curves, budget, width),
        "speedup": speedup_svg(curves, budget, width),
        "exactness": exactness_svg(rows, candidates, width),
        "table": budget_table_html(curves, budget),
        "exactTable": exactness_table_html(rows, candidates),
        "depthTable": depth_table_html(profile, on_curve),
    }


def _lead(readouts: dict, budget: int, depth: int, best: int, on_curve: bool) -> str:
    """The lead: the best tree's length and speedup against the chain's, and the best budget. On a curve the tree,
    its value and its speedup stay the top-1 slider's i.i.d. ranks' (the summary gives the curve's): the lead says
    whose they are."""
    return (("On the top-1 slider's ranks, the" if on_curve else "The")
            + f" best tree within {budget} nodes commits {readouts['expectedLength']} tokens per verify pass (a chain "
            f"of {min(budget, depth)} nodes, one per level, {readouts['chainLength']}) and runs {readouts['speedup']}x "
            f"(the chain {readouts['chainSpeedup']}x); the best "
            f"budget here is {best} nodes ({readouts['bestSpeedup']}x).")


def _measured_curve(raw, notes: list) -> tuple:
    """(token, curve, its label, the positions measured, its token method) of the measured curve asked for under
    ``treCurve`` (a bad token adds a note); an empty token and None without one."""
    found = requested_curve(raw, CURVE_KEY, notes, fallback="the top-1 slider")
    token, curve, curve_label = (found[0], found[1][0], found[1][1]) if found else ("", None, None)
    measured_k = method = None
    if curve is not None:
        from ..acceptance import token_measured_at, token_method

        measured_k, method = token_measured_at(token) or len(curve), token_method(token)
    return token, curve, curve_label, measured_k, method


def _readouts(tree, cost, curves: dict, budget: int, chosen: dict) -> dict:
    """The readouts: the tree's expected length, nodes, depth and speedup beside the chain's, the best budget, and
    the exactness panel's TVs at the chosen number of candidates."""
    best = curves["bestBudget"]
    return {
        "expectedLength": _f(tree.value), "chainLength": _f(curves["chain"][budget - 1]), "nodes": str(tree.nodes),
        "depth": str(tree.depth), "speedup": _f(cost.speedup), "chainSpeedup": _f(curves["chainSpeedup"][budget - 1]),
        "bestBudget": str(best), "bestSpeedup": _f(curves["treeSpeedup"][best - 1]),
        "exactTv": tv_text(chosen["exact"]), "bugTv": tv_text(chosen["bug"]), "typicalTv": tv_text(chosen["typical"]),
    }


def _summary(params: dict, tree, cost, curves: dict, readouts: dict, chosen: dict) -> str:
    """The summary on the top-1 slider's ranks: the tree against the chain, how the verify pass is priced (the
    ledger's tax, or the roofline and where its step turns compute-bound), the speedups, and the exactness."""
    budget, depth, candidates, mode = params["budget"], params["maxDepth"], params["drafts"], params[COST_KEY]
    ranks = ", ".join(_f(p * 100, 1) + "%" for p in curves["probs"])
    if mode == COST_DEFAULT:
        price = (f"After the verify tax of {params['verifyTax']}% per extra node (the rest of the cycle at Part one's "
                 f"defaults: target pass {to_fixed(TARGET_MS, 0)} ms, draft pass {to_fixed(DRAFT_COST, 0)}%, overhead "
                 f"{to_fixed(OVERHEAD_MS, 0)} ms)")
        roofline = ""
    else:
        ridge = curves["ridge"]
        price = f"Priced by the roofline ({_roofline_setting(ROOFLINE_GPUS[mode])}, context {trees.ROOFLINE_CONTEXT})"
        where = (f"turns compute-bound at {ridge} nodes" if ridge <= MAX_BUDGET
                 else f"stays memory-bound up to {ridge - 1} nodes, past the largest budget")
        roofline = (f" Its verify pass takes {_f(cost.verifyMs, 1)} ms, a plain step "
                    f"{_f(_cost(1, 1, 1, 0, mode).verifyMs, 1)} ms: the step "
                    f"{where}.")
    return (
        f"With ranks accepted {ranks}, the best tree of at most {budget} nodes and {depth} levels uses "
        f"{tree.nodes} nodes over {tree.depth} levels and commits {readouts['expectedLength']} tokens per verify "
        f"pass; a chain under the same limits ({min(budget, depth)} nodes, one per level) commits "
        f"{readouts['chainLength']}. {price} "
        f"it runs at {readouts['speedup']}x (chain {readouts['chainSpeedup']}x); "
        f"the best budget here is {curves['bestBudget']} nodes ({readouts['bestSpeedup']}x).{roofline} With {candidates} tree candidate{'' if candidates == 1 else 's'}, "
        f"multi-draft verification is exact (TV {_f(chosen['exact'], 3)}), the no-update bug is off by TV "
        f"{readouts['bugTv']} and typical acceptance by {readouts['typicalTv']}.")


def _curve_summary(profile: dict, curve_label: str, budget: int, depth: int, measured_k: int) -> str:
    """The summary's sentences on a measured curve: its rates level by level, what this tree and a chain commit on
    it, the best tree chosen on its levels, and which levels rest on the acceptance model's extrapolation."""
    levels = len(profile["rows"])
    falling = (f", where the top-1 candidate's per-token acceptance \u03b1 falls level by level "
               f"({', '.join(_f(100 * row['top1'], 1) + '%' for row in profile['rows'])} at levels 1 to {levels})"
               if levels else "")  # a tree of its root alone has no level below it
    return (f" On the measured curve ({curve_label}){falling}, "
            f"this tree commits {_f(profile['value'])} tokens per verify pass and a chain of {levels + 1} "
            f"node{'s' if levels else ''} {_f(profile['chain'])}; that tree is the one the top-1 slider's ranks choose, one rate at every level. "
            f"Chosen on the curve's levels instead, the best tree within {budget} nodes and {depth} levels "
            f"commits {_f(profile['aware']['value'])} tokens per verify pass ({profile['aware']['nodes']} nodes "
            f"over {profile['aware']['depth']} levels, root included)."
            + (f" {levels_resting(measured_k + 1, levels).capitalize()} on the acceptance model's extrapolation past the "
               f"{measured_k} measured positions." if levels > measured_k else ""))


def differs(view: dict) -> str:
    """Under the lead when the deployment panel sent these settings: why its speedup is not the
    panel's (one sentence): it prices the rest of a cycle its own way and its chain is as deep as
    its tree budget allows, not your lookahead."""
    price = (f"Part one's costs ({to_fixed(TARGET_MS, 0)} ms target pass, {to_fixed(DRAFT_COST, 0)}% draft pass, "
             f"{to_fixed(OVERHEAD_MS, 0)} ms overhead)" if view["shown"][COST_KEY] == "tax"
             else "a roofline of its own")
    return (f"It prices the rest of a cycle at {price} and sizes trees by a node budget, not your k: read its "
            "tree-against-chain gain, not its speedup.")


def page_context() -> dict:
    from ..urlstate import slider_specs

    return {"view": view(None), "sliders": slider_specs(SLIDERS), "pair": PAIR_SETTING,
            "targetMs": TARGET_MS, "draftCost": DRAFT_COST, "overheadMs": OVERHEAD_MS,
            "costModes": list(_cost_modes().items()), "ridges": {mode: _ridge(mode) for mode in ROOFLINE_GPUS}}
