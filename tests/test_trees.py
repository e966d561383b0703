"""The token-tree model against hand arithmetic, brute force and properties; its CLI; its view."""

import itertools
import json
from fractions import Fraction as F

import pytest
from hypothesis import given, settings, strategies as st

from lab import cli, trees
from lab.widgets import trees as widget

# --- one position ------------------------------------------------------------------------------


def _enumerated_multi_draft(p, q, k):
    """Independent oracle: enumerate every k-tuple of candidates and every accept/reject path."""
    out = [F(0)] * len(p)
    for candidates in itertools.product(range(len(p)), repeat=k):
        weight = F(1)
        for x in candidates:
            weight *= q[x]
        if not weight:
            continue
        cur, reach = list(p), F(1)
        for x in candidates:
            accept = min(F(1), cur[x] / q[x])
            out[x] += weight * reach * accept
            reach *= 1 - accept
            if not reach:
                break
            excess = [max(F(0), c - b) for c, b in zip(cur, q)]
            cur = [e / sum(excess) for e in excess]
        else:
            for y, c in enumerate(cur):
                out[y] += weight * reach * c
    return tuple(out)


def test_multi_draft_matches_enumeration_and_is_p():
    p, q = (F(1, 2), F(1, 3), F(1, 6)), (F(1, 5), F(1, 2), F(3, 10))
    for k in (1, 2, 3):
        assert _enumerated_multi_draft(p, q, k) == trees.multi_draft_output(p, q, k) == p


def test_no_update_bug_by_hand():
    # p = (3/4, 1/4), q = (1/4, 3/4): min = (1/4, 1/4), alpha = 1/2, e = (1/2, 0)
    # bug_2 = (1 + 1/2) min + (1/2) e = (3/8 + 1/4, 3/8) = (5/8, 3/8)
    p, q = (F(3, 4), F(1, 4)), (F(1, 4), F(3, 4))
    assert trees.no_update_output(p, q, 1) == p
    assert trees.no_update_output(p, q, 2) == (F(5, 8), F(3, 8))
    assert trees.total_variation(p, trees.no_update_output(p, q, 2)) == F(1, 8)


def test_typical_acceptance_by_hand():
    # p = (0.94, 0.05, 0.01): only token 0 is typical (0.05 < min(0.09, 0.3 exp(-H)) since exp(-H) ~ 0.79)
    p, q = (F(94, 100), F(5, 100), F(1, 100)), (F(1, 2), F(1, 2), F(0))
    assert trees.typical_set(p) == (True, False, False)
    # k = 1: Q = 1/2, output = 1/2 * (1, 0, 0) + 1/2 * p
    assert trees.typical_output(p, q, 1) == (F(1, 2) + F(47, 100), F(5, 200), F(1, 200))
    assert trees.total_variation(p, trees.typical_output(p, q, 1)) > 0


def test_typical_tie_is_decided_exactly_and_not_accepted():
    uniform = [F(1, 8)] * 8   # exp(-H) = 1/8 exactly
    assert not trees.is_typical(F(1, 8), uniform, epsilon=F(1), delta=F(1))
    assert trees.is_typical(F(1, 8), uniform, epsilon=F(1), delta=F(1) - F(1, 10**30))


def test_medusa_defaults():
    assert (trees.EPSILON, trees.DELTA) == (F(9, 100), F(3, 10))


fractions = st.lists(st.integers(0, 6), min_size=2, max_size=5)


@settings(max_examples=60, deadline=None)
@given(fractions, fractions, st.integers(1, 4))
def test_properties_of_the_three_verifiers(p_weights, q_weights, k):
    n = min(len(p_weights), len(q_weights))
    p_weights, q_weights = p_weights[:n], q_weights[:n]
    if not sum(p_weights) or not sum(q_weights):
        return
    p, q = trees.normalise(p_weights), trees.normalise(q_weights)
    assert trees.multi_draft_output(p, q, k) == p
    bug = trees.no_update_output(p, q, k)
    assert sum(bug) == 1 and min(bug) >= 0
    assert (bug == p) == trees.bug_is_exact_predicted(p, q, k)
    typical = trees.typical_output(p, q, k)
    assert sum(typical) == 1 and (typical == p) == trees.typical_is_exact_predicted(p, q)


# --- whole trees -------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [((),), ((), (), ()), (((),), ()), ((((),), ()), ((),), ())])
def test_whole_tree_of_depth_three_is_exact(shape):
    pair = lambda prefix: trees.toy_pair(70, 50, prefix)  # noqa: E731
    assert trees.tree_output(shape, 4, pair) == trees.target_path_distribution(4, pair)


def test_a_tree_verifier_without_residual_updates_is_caught():
    pair = lambda prefix: trees.toy_pair(70, 50, prefix)  # noqa: E731
    real = trees._residual
    try:
        trees._residual = lambda cur, q: tuple(cur)   # never updated
        wrong = trees.tree_output(((), ()), 2, pair)
    finally:
        trees._residual = real
    assert wrong != trees.target_path_distribution(2, pair)


# --- the DP against brute force ----------------------------------------------------------------

def _all_trees(nodes, depth, ranks):
    """Every ordered tree (children in rank order) with exactly `nodes` nodes, as nested tuples."""
    if nodes == 1 or depth == 1:
        return [()] if nodes == 1 else []
    result = []

    def forests(remaining, count_left):
        if remaining == 0:
            yield ()
            return
        if count_left == 0:
            return
        for size in range(1, remaining + 1):
            for first in _all_trees(size, depth - 1, ranks):
                for rest in forests(remaining - size, count_left - 1):
                    yield (first,) + rest

    result.extend(forests(nodes - 1, ranks))
    return result


def _shape_value(shape, probs):
    return 1 + sum(p * _shape_value(child, probs) for p, child in zip(probs, shape))


@pytest.mark.parametrize("probs", [(0.6, 0.2, 0.1, 0.05), (0.9,), (0.5, 0.3, 0.15), (0.3, 0.25, 0.2), (0.7, 0.0, 0.2)])
@pytest.mark.parametrize("depth", [1, 2, 3, 4, 7])
def test_dp_agrees_with_brute_force_up_to_seven_nodes(probs, depth):
    values = trees.tree_values(probs, 7, depth)
    for budget in range(1, 8):
        brute = max(_shape_value(shape, probs) for n in range(1, budget + 1)
                    for shape in _all_trees(n, depth, len(probs)))
        assert values[budget - 1] == pytest.approx(brute, abs=1e-12)
        best = trees.best_tree(probs, budget, depth)
        assert _shape_value(trees.shape_from_parents(best.parents), probs) == pytest.approx(brute, abs=1e-12)


def test_signature_setting_by_hand():
    assert trees.best_tree((0.6, 0.2, 0.1, 0.05), 7, 4).value == pytest.approx(2.616, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.floats(0, 0.99), st.floats(0, 1), st.integers(1, 5), st.integers(1, 40), st.integers(1, 8))
def test_dp_properties(top1, decay, ranks, budget, depth):
    probs = trees.rank_probabilities(top1, decay, ranks)
    assert sum(probs) <= 1 + 1e-12
    tree = trees.best_tree(probs, budget, depth)
    assert tree.nodes <= budget and tree.depth <= depth
    assert trees.tree_value(tree.parents, probs) == pytest.approx(tree.value, rel=1e-12)
    assert tree.value >= trees.chain_value(top1, budget, depth) - 1e-12
    assert tree.value <= 1 / (1 - sum(probs)) + 1e-9 if sum(probs) < 1 else True


def test_chain_saturates_and_tree_keeps_growing():
    probs = trees.rank_probabilities(0.7, 0.5, 4)
    values = trees.tree_values(probs, 128, 12)
    assert trees.chain_value(0.7, 128, 128) < 1 / 0.3
    assert values[127] > 1 / 0.3 > values[7]


def test_cost_matches_the_ledger_default():
    from lab.ledger import LedgerSettings, ledger
    expected = ledger(LedgerSettings())
    cost = trees.tree_cost(expected.outputTokens, 6, 6)
    assert cost.speedup == pytest.approx(expected.speedup, rel=1e-12)


# --- the CLI -----------------------------------------------------------------------------------

def test_cli_tree_json(capsys):
    assert cli.main(["tree", "--rank-probs", "60,20,10,5", "--budget", "7", "--max-depth", "4", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert {"expectedLength", "chainLength", "nodes", "depth", "parents"} <= set(document)
    assert document["parents"] == [-1, 0, 0, 1, 1, 2, 3] and document["expectedLength"] == pytest.approx(2.616)
    assert document["chainLength"] == pytest.approx(1 + 0.6 + 0.36 + 0.216)


def test_cli_verify_json(capsys):
    assert cli.main(["tree", "--verify", "--p", "3/4,1/4", "--q", "0.25,0.75", "--drafts", "2", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["outputDistribution"] == ["3/4", "1/4"]
    assert document["buggyOutputDistribution"] == ["5/8", "3/8"]
    assert document["exactTv"] == "0/1" and document["buggyTv"] == "1/8"
    assert set(document) >= {"typicalOutputDistribution", "typicalTv"}


def test_cli_verify_q_zero_where_p_is_not_is_valid(capsys):
    assert cli.main(["tree", "--verify", "--p", "1,1", "--q", "1,0", "--drafts", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["outputDistribution"] == ["1/2", "1/2"]


def _library_lengths(name: str) -> str:
    from lab import acceptance

    return ",".join(f"{k}:{length}" for k, length in enumerate(acceptance.library_lengths(name), 1))


@pytest.mark.parametrize("flags, form", [
    ([], {}),   # the widget's sliders at their defaults
    (["--top1", "85", "--decay", "30", "--drafts", "3", "--budget", "20", "--max-depth", "5"],
     {"top1": "85", "decay": "30", "drafts": "3", "budget": "20", "maxDepth": "5"}),
    (["--budget", "128", "--max-depth", "12", "--rank-probs", "60,20"], {"budget": "128", "maxDepth": "12"}),
    (["--top1", "0"], {"top1": "0"}),   # the sliders' tree is its root alone: a chain of one node, 1 token
])
def test_cli_tree_on_a_curve_is_the_widgets_depth_profile(flags, form, capsys):
    """A curve given to `tree` answers what the trees widget shows on the token the deployment panel sends for
    the same curve: its sliders' tree, that tree's depth profile on the curve, the chain's and the depth-aware
    tree's values, row for row; --rank-probs, which the curve replaces, is set aside. The curve is a library
    curve that plateaus (DeepSeek-V4-Pro's MTP in thinking mode, zero past position 5)."""
    from lab import acceptance

    lengths = _library_lengths("dsv4-pro-mtp-thinking")
    token = acceptance.curve_token(acceptance.from_lengths(acceptance.parse_lengths(lengths)))
    assert cli.main(["tree", "--lengths", lengths, *flags, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    view = widget.view({**form, "treCurve": token})
    assert view["curveMode"] and document["curve"] == token and view["params"]["budget"] == document["params"]["budget"]
    assert document["depthProfile"] == json.loads(json.dumps(view["depthProfile"]))
    assert document["tree"] == view["tree"]
    assert {key: document["params"][key] for key in ("top1", "decay", "drafts", "budget", "maxDepth")} == {
        key: view["params"][key] for key in ("top1", "decay", "drafts", "budget", "maxDepth")}
    rows = document["depthProfile"]["rows"]
    assert [row["depth"] for row in rows] == list(range(1, document["tree"]["depth"]))
    assert [row["top1"] for row in rows] == acceptance.token_rates(token)[:len(rows)]
    assert sum(row["nodes"] for row in rows) + 1 == document["tree"]["nodes"]
    assert document["depthProfile"]["value"] == pytest.approx(1 + sum(row["tokens"] for row in rows))
    survival, chain = 1.0, 1.0   # a chain as deep as the tree: the curve's mean acceptance length at k = its depth
    for rate in acceptance.token_rates(token)[:len(rows)]:
        survival *= rate
        chain += survival
    assert document["depthProfile"]["chain"] == pytest.approx(chain, abs=1e-12)
    assert document["depthProfile"]["aware"]["value"] >= document["depthProfile"]["value"] - 1e-12
    assert document["params"]["rankProbs"] == ([60.0, 20.0] if "--rank-probs" in flags else None)
    assert cli.main(["tree", "--lengths", lengths, *flags]) == 0
    text = capsys.readouterr().out
    assert f"the slider tree {document['depthProfile']['value']:.6f} tokens per verify pass" in text
    assert f"depth-aware   {document['depthProfile']['aware']['value']:.6f}" in text
    assert len([line for line in text.splitlines() if line[:5].strip().isdigit()]) == len(rows)


def test_on_a_curve_the_lead_says_its_tree_is_the_sliders_iid_ranks(capsys):
    """On a curve the tree, its value and its speedup stay the top-1 slider's i.i.d. ranks' (the summary gives what
    that tree commits on the curve): the lead says so, where it had given them as the widget's answer on the curve;
    one level past the measured ones is named as one."""
    curved, plain = widget.view({"treCurve": "custom:0.8,0.6,0.5,0.4"}), widget.view({})
    assert curved["lead"] == "On the top-1 slider's ranks, the" + plain["lead"][len("The"):]
    assert plain["lead"].startswith("The best tree within ")
    assert curved["depthProfile"]["value"] != curved["tree"]["value"]  # the curve's value differs: it must be said whose
    assert "Level 5 rests on the acceptance model's extrapolation past the 4 measured positions." in curved["summary"]
    assert cli.main(["tree", "--per-position", "0.8,0.6,0.5,0.4"]) == 0
    assert "level 5 rests on the acceptance model's extrapolation past the 4" in capsys.readouterr().out


def test_cli_tree_on_a_short_curve_says_where_it_extrapolates(capsys):
    """A curve measured at two positions: levels past them are the acceptance model's continuation (the widget's
    `@2` mark), and the JSON and text say from where."""
    from lab import acceptance
    from lab.acceptance import extended_rates

    assert cli.main(["tree", "--per-position", "0.8,0.6", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    view = widget.view({"treCurve": document["curve"]})
    assert document["curve"].endswith("@2") and document["measuredAt"] == 2 and document["extrapolatedFrom"] == 2
    assert document["depthProfile"] == json.loads(json.dumps(view["depthProfile"]))
    assert "Levels 3 to 5 rest on the acceptance model's extrapolation past the 2 measured positions" in view["summary"]
    assert cli.main(["tree", "--per-position", "0.8,0.6"]) == 0
    assert "levels 3 to 5 rest on the acceptance model's extrapolation past the 2" in capsys.readouterr().out
    # deeper than the widget's 12 levels: the same continuation, not the 16th rate repeated
    assert cli.main(["tree", "--per-position", "0.9,0.8", "--top1", "95", "--budget", "256", "--max-depth", "24",
                     "--json"]) == 0
    deep = json.loads(capsys.readouterr().out)
    rows = deep["depthProfile"]["rows"]
    assert len(rows) > 16 and [row["top1"] for row in rows] == extended_rates(
        acceptance.token_rates(deep["curve"]), 24, 2)[:len(rows)]


@pytest.mark.parametrize("argv, words", [
    (["tree", "--lengths", "2:9"], "--lengths: the length at k = 2 must be from 1 to 3, got '9'"),
    (["tree", "--lengths", "1:x"], "--lengths: the length at k = 1 must be from 1 to 2"),
    (["tree", "--per-position", "0.9,1.5"], "--per-position: '1.5' is not a fraction from 0 to 1"),
    (["tree", "--per-position", "0.9", "--lengths", "1:1.5"],
     "give exactly one of --per-position, --vllm-per-position, --lengths"),
    (["tree", "--per-position", "0.9", "--method", "medusa"], "--method must be one of draft, block, eagle, mtp"),
    (["tree", "--per-position", "0.9", "--top1", "100"], "--top1 must be an integer from 0 to 99, got '100'"),
    (["tree", "--per-position", "0.9", "--decay", "50.5"], "--decay must be an integer from 0 to 100"),
    (["tree", "--per-position", "0.9", "--drafts", "17"], "--drafts must be an integer from 1 to 16"),
    (["tree", "--per-position", "0.9", "--rank-probs", "90,20"], "--rank-probs must sum to at most 100"),
    (["tree", "--per-position", "0.9", "--p", "1,1"], "--p belongs to --verify"),
    (["tree", "--rank-probs", "60", "--top1", "70"], "--top1 belongs to a curve (--lengths, --per-position"),
    (["tree", "--rank-probs", "60", "--method", "mtp"], "--method belongs to a curve"),
    (["tree", "--verify", "--p", "1,2", "--q", "1,2", "--drafts", "2", "--lengths", "1:1.5"],
     "--lengths gives a curve, which the tree mode takes"),
])
def test_cli_tree_bad_curve_input_exits_2_with_one_line(argv, words, capsys):
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and words in captured.err and captured.err.count("\n") == 1
    assert "Traceback" not in captured.err and "--trace" not in captured.err


@pytest.mark.parametrize("argv, words", [
    (["tree", "--rank-probs", "60,50"], "--rank-probs must sum to at most 100"),
    (["tree", "--rank-probs", "60", "--budget", "0"], "--budget must be an integer from 1 to 256"),
    (["tree", "--rank-probs", "60", "--max-depth", "0"], "--max-depth must be an integer from 1 to 32"),
    (["tree", "--verify", "--p", "1,2", "--q", "1,2,3", "--drafts", "2"], "same length"),
    (["tree", "--verify", "--p", "-0.1,0.5", "--q", "1,2", "--drafts", "2"], "--p has a negative entry"),
    (["tree", "--verify", "--p", "0,0", "--q", "1,2", "--drafts", "2"], "--p is all zeros"),
    (["tree", "--verify", "--p", "1,2", "--q", "1,x", "--drafts", "2"], "--q: 'x' is not a number"),
    (["tree", "--verify", "--p", "1,2", "--q", "1,2", "--drafts", "0"], "--drafts must be an integer from 1 to 16"),
    (["tree"], "tree needs --rank-probs"),
])
def test_cli_bad_input_exits_2_with_one_line(argv, words, capsys):
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and words in captured.err and captured.err.count("\n") == 1
    assert "Traceback" not in captured.err


# --- the view ----------------------------------------------------------------------------------

def test_view_defaults_and_bad_input():
    default = widget.view(None)
    assert default["query"] == "treeBudget=32&treeDepth=6&treeTop1=70&treeDecay=50&treeDrafts=4&treeVerifyTax=3"
    assert set(default["figures"]) == {"tree", "length", "speedup", "exactness", "table", "exactTable", "depthTable"}
    bad = widget.view({"budget": "lots", "drafts": "99", "width": "9999"})
    assert bad["params"]["budget"] == 32 and bad["params"]["drafts"] == 8 and len(bad["notes"]) == 2
    assert widget.view("treeBudget=5")["tree"]["nodes"] <= 5
    assert widget.view(["not", "a", "mapping"])["params"] == default["params"]


def test_view_width_changes_layout_and_texts_are_legible():
    narrow = widget.view({"width": "320"})["figures"]["tree"]
    assert 'viewBox="0 0 320 ' in narrow and 'viewBox="0 0 640 ' in widget.view(None)["figures"]["tree"]
    assert "style=" not in "".join(widget.view(None)["figures"].values())


def test_view_cost_select_round_trips_and_bad_values_are_noted():
    roofline = widget.view({"verifyCost": "a100", "width": "390"})
    assert roofline["params"]["verifyCost"] == "a100" and roofline["shown"]["verifyCost"] == "a100"
    assert roofline["query"].endswith("&treeVerifyCost=a100") and "width" not in roofline["query"]
    assert widget.view("?" + roofline["query"])["summary"] == roofline["summary"]
    bad = widget.view("?treeVerifyCost=gpu")
    assert bad["params"]["verifyCost"] == "tax" and any(note.startswith("Verify cost:") for note in bad["notes"])
    assert widget.view({"verifyCost": "tpu"})["notes"] and widget.view(None)["live"].endswith("best budget 12")


@pytest.mark.parametrize("raw", [{}, {"verifyCost": "a100", "budget": "128", "maxDepth": "12", "drafts": "8"},
                                 {"verifyCost": "h100", "budget": "1", "maxDepth": "1", "drafts": "1", "top1": "0"}])
def test_view_width_is_presentation_only_and_figures_fit(raw):
    import re

    from lab import figures

    default = widget.view(raw)
    for width in (320, 390, 640, 920, 960):
        shown = widget.view({**raw, "width": str(width)})
        assert shown["width"] == width
        for key in ("params", "query", "notes", "summary", "live", "readouts"):
            assert shown[key] == default[key], key
        for name, svg in shown["figures"].items():
            if not svg.startswith("<svg"):
                continue
            head = svg[:svg.index(">")]
            assert f'width="{width}"' in head and f'viewBox="0 0 {width} ' in head, name
            for classes, x, anchor, text in re.findall(
                    r'<text class="([^"]*)" x="(-?[0-9.]+)" y="[^"]*"(?: text-anchor="([a-z]+)")?[^>]*>([^<]*)</text>',
                    svg):
                assert set(classes.split()) & {"fig-tick", "fig-small", "fig-axis"}, (name, classes)
                span = figures.text_width(text, 13 if "fig-axis" in classes else 12)
                left = float(x) - {"middle": span / 2, "end": span}.get(anchor, 0)
                assert -1 <= left and left + span <= width + 1, (name, width, text)
            assert svg.count("<text") == len(re.findall(r'<text class="', svg)), name


# --- the roofline as the verify cost -------------------------------------------------------

def _preset(gpu):
    from lab import serving

    return serving.DEFAULT_SETTINGS.with_(gpu=gpu, batch=1, context=1024)


@pytest.mark.parametrize("gpu", ["h100-sxm", "a100-80g", "rtx-4090"])
def test_roofline_verify_is_flat_in_n_until_the_ridge(gpu):
    """At batch 1 the step streams the weights whatever N is: memory-bound, so N tokens cost what
    one does, up to the ridge; from the ridge on it is compute-bound and grows with N."""
    from lab import serving

    settings = _preset(gpu)
    verify = trees.roofline_verify_ms(settings)
    ridge = trees.roofline_ridge_nodes(settings)
    plain = serving.step_time_ms(serving.TARGETS[settings.target], settings, 1, 1, 1024)
    assert 1 < ridge < 4096
    assert all(verify(n, 80, 3) == plain for n in range(1, ridge))
    assert serving.step_regime(serving.TARGETS[settings.target], settings, 1, ridge - 1, 1024) == "memory-bound"
    assert verify(ridge, 80, 3) >= plain and verify(ridge + 50, 80, 3) > verify(ridge + 10, 80, 3) > plain
    # the tax's arguments are ignored: the hardware sets the price
    assert verify(64, 1, 0) == verify(64, 500, 20)


def test_roofline_cost_is_the_serving_step_and_draft():
    from lab import serving

    settings = _preset("h100-sxm")
    target = serving.TARGETS[settings.target]
    cost = trees.roofline_tree_cost(3.5, 20, 5, settings)
    plain = serving.step_time_ms(target, settings, 1, 1, 1024)
    assert cost.verifyMs == serving.step_time_ms(target, settings, 1, 20, 1024)
    assert cost.draftMs == pytest.approx(4 * serving.draft_step_ms(settings, 1, 1024), rel=1e-12)
    assert cost.speedup == pytest.approx(3.5 * plain / (cost.draftMs + cost.verifyMs), rel=1e-12)
    assert trees.roofline_tree_cost(1, 1, 1, settings).speedup == pytest.approx(1, rel=1e-12)  # the root alone


def test_best_budget_under_the_roofline_is_at_least_the_taxed_one():
    """Under the roofline a tree below the ridge verifies at the price of one token, a zero tax,
    and both presets put their ridge (223 and 116 nodes) at or past the taxed optimum, while their
    draft steps cost less of a target step (4.3% and 2.9%) than the ledger's 12%. So the best
    budget never falls, over a grid of acceptances, depths and candidates. It is not a theorem:
    a preset whose ridge sat below the taxed optimum (large batch, or a draft dearer than the
    ledger's) would charge more than the tax for the nodes past it, and then the taxed budget can
    be the larger one."""
    presets = {name: widget._roofline_settings(name) for name in ("h100", "a100")}
    for top1 in (30, 60, 80, 95):
        for decay in (0, 50, 100):
            for k in (1, 3, 8):
                for depth in (3, 6, 12):
                    probs = trees.rank_probabilities(top1 / 100, decay / 100, k)
                    best_trees = [trees.best_tree(probs, n, depth) for n in range(1, 129)]

                    def best(price):
                        speedups = [price(t).speedup for t in best_trees]  # noqa: B023 (called in this iteration)
                        return max(range(128), key=lambda i: (speedups[i], -i)) + 1

                    taxed = max(best(lambda t, tax=tax: trees.tree_cost(t.value, t.nodes, t.depth, verify_tax=tax))
                                for tax in (1, 3, 10, 20))
                    for name, preset in presets.items():
                        roofline = best(lambda t: trees.roofline_tree_cost(t.value, t.nodes, t.depth, preset))  # noqa: B023 (called in this iteration)
                        assert roofline >= taxed, (name, top1, decay, k, depth, roofline, taxed)


def test_the_widget_shows_the_best_budget_moving_with_the_cost():
    taxed, h100, a100 = (widget.view({"verifyCost": mode}) for mode in ("tax", "h100", "a100"))
    assert int(taxed["readouts"]["bestBudget"]) < int(a100["readouts"]["bestBudget"]) <= 116
    assert int(h100["readouts"]["bestBudget"]) == 128
    assert "ridge: 116 nodes" in a100["figures"]["speedup"] and "ridge" not in h100["figures"]["speedup"]
    assert "compute-bound at 116 nodes" in a100["summary"] and "memory-bound up to 222 nodes" in h100["summary"]


def test_best_tree_shapes_match_the_trees_they_summarise():
    """The curve's shortcut (value, nodes, depth per budget, without building each tree) agrees
    with best_tree for every budget, and a shared larger table gives the same tree."""
    import itertools

    from lab import trees

    for top1, decay, k, depth in itertools.product((0.3, 0.7, 0.95), (0.2, 0.6), (1, 2, 4), (1, 3, 6)):
        probs = trees.rank_probabilities(top1, decay, k)
        shapes = trees.best_tree_shapes(probs, 128, depth)
        for n in range(1, 129):
            tree = trees.best_tree(probs, n, depth)
            assert shapes[n - 1] == (tree.value, tree.nodes, tree.depth), (top1, decay, k, depth, n)
            assert trees.best_tree(probs, n, depth, capacity=128) == tree


# --- the ranking against the DP ------------------------------------------------------------------

# A deterministic sample of the widget's grid: its edges (top-1 0 and 99, decay 0 and 100: zero
# ranks and equal pass rates), a setting full of exact ties (top-1 50, decay 100: p2 = p1**2) and
# ordinary values, at every k in a spread and depths from 1 to 12.
GRID_TOP1, GRID_DECAY, GRID_K, GRID_DEPTH = (0, 1, 13, 50, 70, 99), (0, 27, 50, 100), (1, 2, 3, 5, 8), (1, 3, 7, 12)


def _is_a_tree(parents, probs, budget, depth):
    """parents before children, each node's children ranked 0, 1, ... within k, <= budget nodes, <= depth levels."""
    assert parents[0] == -1 and all(0 <= p < i for i, p in enumerate(parents) if i) and len(parents) <= budget
    levels = [1]
    for p in parents[1:]:
        levels.append(levels[p] + 1)
    assert max(levels) <= depth
    assert all(parents.count(node) <= len(probs) for node in set(parents[1:]))


def _assert_ranked_is_a_best(probs, depth, budget=128):
    """The ranking's value for every budget is the DP's optimum (to rounding); where no two
    equally good trees differ in shape, its nodes and depth are the DP's too."""
    ranked, dp = trees.ranked_tree_shapes(probs, budget, depth), trees.best_tree_shapes(probs, budget, depth)
    for n, (fast, slow) in enumerate(zip(ranked, dp, strict=True), start=1):
        assert abs(fast[0] - slow[0]) <= 1e-12, (probs, depth, n, fast, slow)
        assert fast[1] <= n and fast[2] <= depth
    nodes = trees.ranked_nodes(probs, budget, depth)
    reaches = [r for r, _, _ in nodes]
    if all(a - b > 1e-9 for a, b in zip(reaches, reaches[1:])):   # no ties at all: one best tree per budget
        assert [shape[1:] for shape in ranked] == [shape[1:] for shape in dp]
    return ranked


@pytest.mark.parametrize("depth", GRID_DEPTH)
@pytest.mark.parametrize("k", GRID_K)
def test_ranked_shapes_are_best_on_the_widget_grid(k, depth):
    for top1, decay in itertools.product(GRID_TOP1, GRID_DECAY):
        probs = trees.rank_probabilities(top1 / 100, decay / 100, k)
        assert trees.non_increasing(probs)   # the ranking's premise, at every setting
        _assert_ranked_is_a_best(probs, depth)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 99), st.integers(0, 100), st.integers(1, 8), st.integers(1, 12), st.integers(1, 128))
def test_ranked_trees_are_best_trees(top1, decay, k, depth, budget):
    probs = trees.rank_probabilities(top1 / 100, decay / 100, k)
    _assert_ranked_is_a_best(probs, depth, budget)
    tree, ranked = trees.best_tree(probs, budget, depth), trees.ranked_best_tree(probs, budget, depth, capacity=128)
    _is_a_tree(ranked.parents, probs, budget, depth)
    assert abs(ranked.value - tree.value) <= 1e-12
    assert abs(trees.tree_value(ranked.parents, probs) - ranked.value) <= 1e-12   # the value is the tree's
    assert ranked == trees.ranked_best_tree(probs, budget, depth)                 # capacity shares, changes nothing


def test_ranked_trees_match_brute_force_on_small_budgets():
    """Every tree of up to 6 nodes with 2 ranks and 3 levels, enumerated: the ranking's value is the best."""
    for probs in ((0.5, 0.25), (0.6, 0.3), (0.7, 0.2), (0.5, 0.5)):
        for budget in range(1, 7):
            best = max(trees.tree_value(parents, probs) for parents in _parent_lists(budget, 2, 3))
            assert abs(trees.ranked_best_tree(probs, budget, 3).value - best) <= 1e-12, (probs, budget)


def _parent_lists(budget, ranks, depth):
    """Parent lists of every tree of at most budget nodes (children numbered by rank in the
    order they were added), at most ``ranks`` children a node and ``depth`` levels."""
    found = set()

    def grow(parents, levels):
        found.add(tuple(parents))
        if len(parents) == budget:
            return
        for node in range(len(parents)):
            if parents.count(node) < ranks and levels[node] < depth:
                grow(parents + [node], levels + [levels[node] + 1])

    grow([-1], [1])
    return [list(p) for p in found]


def test_ties_follow_the_documented_order_and_increasing_ranks_go_to_the_dp():
    # With (0.5, 0.25), (1,) and (0, 0) both reach 0.25: the shallower (1,) comes first; then
    # (0, 1) and (1, 0) both reach 0.125 on level 3: the lower rank path, (0, 1), first.
    nodes = trees.ranked_nodes((0.5, 0.25), 5, 3)
    assert [path for _, _, path in nodes] == [(), (0,), (1,), (0, 0), (0, 1)]
    with pytest.raises(ValueError, match="do not increase"):
        trees.ranked_nodes((0.2, 0.6), 4, 3)
    assert trees.fast_best_tree((0.2, 0.6), 4, 3) == trees.best_tree((0.2, 0.6), 4, 3)
    assert trees.fast_tree_shapes((0.2, 0.6), 4, 3) == trees.best_tree_shapes((0.2, 0.6), 4, 3)


def test_widget_curves_are_the_dps():
    """The curves the widget draws from the ranking: the DP's values to rounding, and speedups at
    least the DP's."""
    for top1, decay, k, depth, tax, mode in ((70, 50, 4, 6, 3, "tax"), (50, 100, 8, 12, 0, "h100"),
                                             (99, 0, 8, 12, 20, "a100"), (13, 27, 3, 7, 5, "tax")):
        curves = widget._curves(top1, decay, k, depth, tax, mode)
        probs = curves["probs"]
        shapes = trees.best_tree_shapes(probs, 128, depth)
        speedups = [widget._cost(v, n, d, tax, mode).speedup for v, n, d in shapes]
        # Among equally good trees the ranking keeps the shallowest, the cheapest to draft: its
        # speedup is the DP's or better, budget by budget, and so is its best.
        assert all(a >= b - 1e-12 for a, b in zip(curves["treeSpeedup"], speedups))
        assert curves["treeSpeedup"][curves["bestBudget"] - 1] >= max(speedups) - 1e-12
        assert all(abs(a - v) <= 1e-12 for a, (v, _, _) in zip(curves["tree"], shapes))


# --- the depth-aware search: a tree chosen on the curve's levels -------------------------------------

def _brute_best_by_depth(probs_by_depth, budget, max_depth):
    """The largest tree_value_by_depth over every tree of at most ``budget`` nodes and ``max_depth`` levels
    (rank paths closed under parent and earlier sibling), by enumeration."""
    ranks = len(probs_by_depth[0])
    candidates = [()]
    frontier = [()]
    for _ in range(max_depth - 1):
        frontier = [path + (r,) for path in frontier for r in range(ranks)]
        candidates += frontier
    best = 0.0

    def grow(chosen, start):
        nonlocal best
        members = set(chosen)
        best = max(best, trees.tree_value_by_depth(trees._parents_of(chosen), probs_by_depth))
        if len(chosen) == budget:
            return
        for index in range(start, len(candidates)):
            path = candidates[index]
            if path in members or path[:-1] not in members or (path[-1] > 0 and path[:-1] + (path[-1] - 1,) not in members):
                continue
            grow(chosen + [path], index + 1)

    grow([()], 1)
    return best


def test_depth_best_tree_is_the_best_tree_on_every_small_case():
    import random

    rng = random.Random(37)
    for _ in range(40):
        levels = [tuple(sorted((rng.random() for _ in range(2)), reverse=True)) for _ in range(2)]
        budget, depth = rng.randint(1, 5), rng.randint(1, 3)
        found = trees.depth_best_tree(levels, budget, depth)
        assert found.nodes <= budget and found.depth <= depth
        assert found.value == pytest.approx(trees.tree_value_by_depth(found.parents, levels), abs=1e-12)
        assert found.value == pytest.approx(_brute_best_by_depth(levels, budget, depth), abs=1e-12)


def test_depth_best_tree_with_one_rate_at_every_level_is_the_ranked_tree():
    for top1, budget, depth in ((0.7, 16, 5), (0.9, 32, 6), (0.4, 8, 4)):
        probs = trees.rank_probabilities(top1, 0.5, 4)
        assert trees.depth_best_tree([probs] * (depth - 1), budget, depth) == trees.ranked_best_tree(probs, budget, depth)


def test_depth_best_tree_refuses_bad_levels():
    with pytest.raises(trees.LabValueError):
        trees.depth_best_tree([(0.2, 0.6)], 3, 2)
    with pytest.raises(trees.LabValueError):
        trees.depth_best_tree([(0.6, 0.2)], 0, 2)


def test_the_trees_widget_chooses_a_tree_on_the_curve_and_it_is_never_worse():
    from lab.jsformat import to_fixed as trees_to_fixed

    for token in ("club3090-mtp", "custom:0.9,0.3,0.2,0.1", "custom:0.8,0.7@2"):
        view = widget.view({"treCurve": token})
        profile = view["depthProfile"]
        assert profile["aware"]["value"] >= profile["value"] - 1e-12
        assert f"commits {trees_to_fixed(profile['aware']['value'], 2)} tokens per verify pass" in view["summary"]
    # a curve that collapses after position 1: the aware tree widens where the i.i.d. tree deepens
    falling = widget.view({"treCurve": "custom:0.9,0.2,0.1", "top1": "90"})["depthProfile"]
    assert falling["aware"]["value"] > falling["value"]


def test_the_tree_widget_reads_part_one_and_part_three_defaults_where_they_are_set(monkeypatch):
    """The tree widget's cycle costs are the ledger's defaults and its exactness pair the exact sampler's slider
    defaults, read from lab.ledger and lab.urlstate, not typed again: changed there, they change here."""
    import importlib
    from dataclasses import replace

    from lab import ledger, urlstate

    moved = ledger.DEFAULT_SETTINGS.with_(targetMs=90, draftCost=10, overheadMs=4)
    sliders = tuple(replace(s, default=50) if s.name == "match" else s for s in urlstate.EXACT_SLIDERS)
    monkeypatch.setattr(ledger, "DEFAULT_SETTINGS", moved)
    monkeypatch.setattr(urlstate, "EXACT_SLIDERS", sliders)
    try:
        reread = importlib.reload(widget)
        assert (reread.TARGET_MS, reread.DRAFT_COST, reread.OVERHEAD_MS) == (90.0, 10.0, 4.0)
        assert reread.PAIR_SETTING == (64, 50)
    finally:
        monkeypatch.undo()
        importlib.reload(widget)
    assert (widget.TARGET_MS, widget.DRAFT_COST, widget.OVERHEAD_MS, widget.PAIR_SETTING) == (80.0, 12.0, 6.0, (64, 72))
