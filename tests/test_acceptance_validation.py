"""The acceptance model judged on its own library (lab.acceptance_validation): leave-one-out against i.i.d.,
the prior's point it chooses, the page's held-out table, and the prior-point switch it runs under
(lab.acceptance.prior_point)."""

import importlib.util
import math
from pathlib import Path

import pytest

from lab import acceptance, acceptance_prior, acceptance_rates, acceptance_validation
from lab.acceptance_curves import CURVES
from lab.errors import LabValueError


def test_leave_one_out_beats_iid_on_the_library():
    """The held-back bar for "better than i.i.d.": a smaller median error and closer on most curves. The bound was
    a third of i.i.d.'s error and 80% of the curves while the library held 22 curves; the nine DSpark rows of
    December 2026 (a 1B drafter whose pooled conditional rates hardly fall) and a suffix-decoding curve brought it
    to 7.1% against 19.4% and 22 of 32 from k = 1 (5.8% and 21 of 32 with the prior from the curves nearest in
    r_1), so the test holds that bar, not the old library's margin. The two pooled curves of vllm-project/speculators'
    FP8 ablation (a DFlash at k = 15 and a DSpark at k = 8 on Qwen3-8B, low r_1 and falling fast) brought k = 1 to
    8.03% against 14.87% (26 of 38): from k = 1 the bar is the issue's (a smaller median, closer on most), from
    k = 1..2 still half i.i.d.'s (2.95% against 8.85%, 32 of 38). Three k = 7 engine curves (vLLM #26191's EAGLE-3,
    vllm-ascend #11602's DSpark and #11765's DFlash, all falling less than the prior) gave 8.19% against 14.45% (28 of
    41) and 3.55% against 7.67% (32 of 41); with the prior's point chosen for each input, 6.50% from k = 1. Five k = 4
    and 5 engine curves (vLLM #42764's two gpt-oss heads, #43010's P-EAGLE, llama.cpp #27917's GLM-5.3-Flash MTP and
    #24344's second n-gram run) gave 6.57% against 14.00% (30 of 46) and 3.51% against 7.55% (36 of 46); letting the
    copying drafters' curves rise (their own prior group) 6.49% (33 of 46) and 3.51% (35 of 46), and the whole
    library's median from two figures 3.03%. The fifth search's ten curves (speculators #563's six k = 1..7 reference
    curves of two EAGLE-3 drafters for Qwen3-8B, #610's two k = 5 curves on Qwen3-30B-A3B, club-3090's DFlash pair)
    gave 7.09% against 14.59% (43 of 56) and 3.38% against 7.69% (46 of 56). The seventh search's DSpark at k = 8
    (speculators #822, a low first rate) gave 6.50% against 14.45% (43 of 57) and 2.98% against 7.67% (47 of 57)."""
    for known in (1, 2):
        result = acceptance_validation.leave_one_out(known)
        assert result["medianError"] < result["medianIidError"] / (1 if known == 1 else 2)
        assert result["better"] > len(result["rows"]) / 2
        assert set(result["tooFew"]) >= {"suffix"}


def test_the_prior_point_is_what_leave_one_out_chooses_for_each_input():
    """For a curve built from one figure and for one built from two or more, the model's prior point
    (lab.acceptance.PRIOR_MODE_BY_FIGURES) is the choice leave-one-out prefers for that input among the nearest curves
    over the whole library, the nearest of the reader's family and the whole library's median. One rule for both
    held until the 41-curve library of December 2026, where the family's nearest curves predicted one figure better
    (6.5% against 8.2%) and the whole library's nearest two figures (3.5% against 4.8%); if a library change moves
    either, this fails and the model (and the page's sentence, written from the same result) must follow.
    The 46-curve library with the copying ceiling (4 December 2026) moved the choice from two figures to the whole
    library's median (3.03% against the nearest curves' 3.23%; the 42 model-drafter curves alone prefer it too, 3.01%
    against 3.19%), and the model followed (lab.acceptance.POINT_RULE_BY_FIGURES, docs/READING.md).
    The 56-curve library of the fifth search (4 December 2026) moves the one-figure choice to the whole library's
    median by 0.005 points (7.080% against the family's nearest curves' 7.085%; closer than i.i.d. on 44 and 43 of
    56); two figures keep the median (3.38%). The model was not changed: the curves were added with the rule that the
    model's rules stay as they are while their leave-one-out is looked at (tuning on the validation otherwise), so the
    page said the model had not followed (choice_note), and the decision was left open in docs/READING.md.
    The 57-curve library of the seventh search (5 December 2026: speculators #822's DSpark at k = 8) moves the
    one-figure choice back to the family's nearest curves (6.50% against the whole library's median 6.92% and the
    whole library's nearest 7.48%); two figures keep the median (2.98%). The choice and the model agree again, with
    nothing in the model changed, and the page's sentence says so.
    The 58-curve library of the eighth search (5 December 2026: speculators v0.6.0's P-EAGLE table on Qwen3-8B) keeps
    the one-figure choice (5.96% against 6.68% and 7.42%) and moves the two-figure one to the whole library's nearest
    curves (3.43% against the median's 3.51% and the family's 4.24%). This test says the model follows, and it did
    (lab.acceptance_prior.POINT_RULE_BY_FIGURES: nearest for both inputs, docs/READING.md).
    The 65-curve library of branch curves9 (6 December 2026: four DFlash curves of speculators #613, predicted out of
    sample first) keeps both choices (one figure: the family's nearest 5.89%; two: the whole library's nearest 3.48%);
    only the order of the two options not taken from one figure swaps (the whole library's median 8.14% now ahead
    of its nearest curves' 8.21%).
    The 73-curve library of branch curves10 (6 December 2026: five classic draft-model and three EAGLE-3 engine curves
    of tomasruizt/vllm-scripts, predicted out of sample first) keeps both choices (one figure: the family's nearest
    7.04%; two: the whole library's nearest 3.22%, against the median's 3.27% and the family's 3.69%); the order of the
    two options not taken from one figure swaps back (the whole library's nearest 8.97% ahead of its median 9.60%)."""
    choice = acceptance_validation.prior_choice()
    assert set(choice["errors"]) == set(acceptance_validation.PRIOR_CHOICES)
    model = {figures: acceptance_validation.model_choice(figures) for figures in (1, 2)}
    assert model == {1: "family", 2: "pooled"} and choice["chosen"] == model
    for figures in (1, 2):   # the rule: the model's point stands unless beaten by more than the margin
        margin = choice["errors"][model[figures]][figures - 1] - choice["errors"][choice["best"][figures]][figures - 1]
        assert 0 <= margin <= acceptance_validation.CHOICE_MARGIN
    assert choice["errors"]["family"][0] < choice["errors"]["pooled"][0] < choice["errors"]["library"][0]
    assert choice["errors"]["pooled"][1] < choice["errors"]["library"][1] < choice["errors"]["family"][1]
    for figures in (1, 2):
        # the model's leave-one-out is its own option's: the default runs the model's point for each input
        assert acceptance_validation.leave_one_out(figures)["medianError"] == choice["errors"][model[figures]][figures - 1]
    note = acceptance_validation.choice_note(choice)
    assert "the model has not followed" not in note and "prefers each for its input" in note
    assert acceptance.prior("mtp", r1=0.8)[0] == acceptance.prior("eagle", r1=0.8)[0]  # two figures: one point for all
    assert acceptance.prior("mtp", r1=0.8)[0] != acceptance.prior("mtp", r1=0.3)[0]    # two figures: the nearest
    assert acceptance.prior("mtp", r1=0.8, figures=1)[0] != acceptance.prior("eagle", r1=0.8, figures=1)[0]
    from lab.figures import escape

    assert escape(acceptance_validation.choice_note(choice)) in acceptance_validation.held_out_html()



def test_the_nested_options_are_the_models_arithmetic():
    """nested_leave_one_out predicts with its own short arithmetic (a point rule and a drop's weight per option); for
    the three prior points the model can take (PRIOR_CHOICES) it must give leave_one_out's every error float for
    float, so a change to the model that the nested judgment does not follow fails here."""
    names = list(CURVES)
    for figures in (1, 2):
        for option, how in acceptance_validation.PRIOR_CHOICES.items():
            for row in acceptance_validation.leave_one_out(figures, *how)["rows"]:
                pool = [name for name in names if name != row["name"]]
                assert acceptance_validation._option_error(row["name"], figures, option, pool) == row["error"], (
                    figures, option, row["name"])


def test_the_candidate_priors_are_judged_by_nested_leave_one_out_and_the_model_is_what_it_keeps():
    """The four candidate rules for the prior (the curve from one or two figures), written down before any was
    evaluated (docs/READING.md, 4 December 2026): (d) one figure, engine logs and reference curves weighted alike; (a) two figures, nearest in (r_1, c);
    (b) the measured drop weighted 0.75 or 1; (c) nearest in c. Each held-out curve's option is chosen on the other 40
    curves' own leave-one-out. The stated rule adopts the nested choice only if its median beats the model's plain
    one and it is closer than i.i.d. on no fewer curves. On the 41-curve library it did not (from k = 1 7.19% against
    6.50%, 28 and 28 closer; from k = 1..2 4.11% against 3.55%, 32 and 32: (b) at 0.75 alone gives 3.13% but is not
    chosen in the folds that need it), so the model is today's; if a library change turns that, this fails and the
    decision is to be taken again (docs/READING.md). Since the copying ceiling (4 December 2026) the one-figure rule
    says adopt; taken again, the decision is not to: the candidates' judgment was one run, fixed beforehand on the
    41-curve library, and rerunning it after each library change until a candidate passes would be testing until
    success (the standing choice of prior_choice, which the model is defined to follow, is another matter). From two
    figures the model's point is now the whole library's median, and no candidate beats it nested. With the fifth
    search's 56 curves the rule adopts neither: from k = 1 the nested choice (mostly "kinds") gives 6.31% against the
    model's 7.09% but is closer than i.i.d. on 42 curves against 43; from k = 1..2 4.61% against 3.38%. With the
    seventh search's 57 curves neither: from k = 1 7.82% against 6.50% (closer on 42 and 43), from k = 1..2 the same
    2.98% (closer on 47 and 47). With branch curves10's 73 curves (five classic draft-model and three EAGLE-3 engine
    curves) the one-figure rule says adopt again: every fold chooses "kinds", 6.33% against the model's 7.04%, closer
    than i.i.d. on 51 and 51; from k = 1..2 not (3.69% against 3.22%, 59 and 59). Not adopted, for the reason above and
    because these curves were added under the rule that the model is not changed on their numbers; recorded in
    docs/READING.md and left to the lead. With the block family (branch blockfam: the 29 DFlash and DSpark curves
    filed "block", the five classic draft models "draft") the one-figure rule itself no longer adopts: the nested
    choice gives 5.61% against the model's 6.48% but is closer than i.i.d. on 54 curves against 55."""
    for figures in (1, 2):
        result = acceptance_validation.nested_leave_one_out(figures)
        model = result["plain"][result["options"][0]]
        assert result["options"] == (acceptance_validation.model_choice(figures),) + acceptance_validation.CANDIDATES[figures]
        assert model["medianError"] == acceptance_validation.leave_one_out(figures)["medianError"]
        adopt = result["medianError"] < model["medianError"] and result["better"] >= model["better"]
        # one figure: from the copying ceiling to the fifth search the nested choice (mostly the candidate "kinds")
        # passed the rule (6.37% against 6.48%, 35 and 34 closer on 46 curves) and was not adopted (the docstring says
        # why); on 56 curves it was closer on one curve fewer (42 against 43), so the rule itself did not adopt it; on
        # the 73 curves of branch curves10 it passed again (6.33% against 7.04%, 51 and 51) and was not adopted; with
        # the block family (branch blockfam) it is closer on one curve fewer (54 against 55): the rule adopts neither
        assert not adopt, (figures, result["medianError"], model["medianError"], result["better"],
                                         model["better"])
        assert result["medianError"] < result["medianIidError"]


def test_the_same_kind_prior_was_judged_once_and_its_rule_does_not_adopt_it():
    """The "same-kind" prior (two or more lengths take their point from the reference curves only, rates or a trace
    from the engine curves only; fewer than MIN_KIND_CURVES of the kind in the reader's group: the group whole), its
    rule written before it was run (docs/READING.md, "a prior from curves measured as the reader's were"): nested
    leave-one-out from k = 1..2, the model's option first, margin CHOICE_MARGIN; adopt only if (1) the nested median is
    below the model's plain one by more than the margin, (2) closer than i.i.d. on no fewer curves, (3) neither kind
    worse by more than the margin. Run once on the 58-curve library: nested 3.52% against the model's 3.42% (the
    candidate's own plain 2.95%, chosen in 38 of 58 folds; the 20 folds that kept the model are mostly the reference
    curves the candidate helps, so the gain rests on the curves it is judged on), 48 and 48 closer than i.i.d.;
    reference curves 6.45% against 6.70%, engine curves 1.91% against 1.94%. Rule (1) fails, so the model is
    unchanged; if a library change turns the verdict this fails, and the decision is not to be rerun until it passes
    (docs/READING.md). On the 61-curve library (three InferenceX curves added, 5 December 2026) the candidate's own plain
    error is 3.20% against the model's 2.98% and no fold chooses it, so nested equals the model's plain: the verdict
    stands, by a wider margin. On the 73-curve library of branch curves10 (five classic draft-model and three EAGLE-3
    engine curves added, 6 December 2026) the verdict turns: nested 2.92% against the model's 3.22% (the candidate's
    own plain 2.92%, chosen in 56 of 73 folds), 60 and 59 closer than i.i.d.; reference curves 5.86% against 7.90%,
    engine curves 2.52% against 2.82%: all three rules pass. Not adopted: the judgment's own rule says it is not rerun
    until it passes, and these curves were added under the rule that the model is not changed on their numbers; the
    turned verdict is recorded in docs/READING.md and left to the lead. This test holds the verdict as it now stands,
    so a library change that turns it again fails here."""
    found = acceptance_validation.kind_judgment()
    assert found["curves"] == len(CURVES)
    assert found["model"] == acceptance_validation.leave_one_out(2)["medianError"]
    assert found["rules"] == (True, True, True) and found["adopt"]
    assert found["model"] - found["medianError"] > acceptance_validation.CHOICE_MARGIN   # rule (1), as it now stands
    assert found["folds"] < found["curves"]
    # the model is today's: its prior's curves for two lengths include engine curves, and for rates reference ones
    assert acceptance_validation.model_choice(2) not in acceptance_validation.KIND_OPTIONS
    group = acceptance.prior_group(list(CURVES), None, acceptance.PRIOR_MODE_BY_FIGURES[2])[0]
    assert {CURVES[name][1] for name in group} == {"lengths", "unconditional"}
    # from one figure it is no candidate (one figure carries no kind), and a copying reader's group stays whole
    assert 1 not in acceptance_validation.KIND_CANDIDATES
    copying = acceptance.prior_group(list(CURVES), "ngram", "pooled")[0]
    assert acceptance_validation._same_kind(copying, "unconditional") == copying
    assert acceptance_validation._same_kind(copying, "lengths") == copying


def test_the_nested_choice_is_made_without_the_held_out_curve_and_can_leave_the_first_option(monkeypatch):
    """Each fold's choice is the option with the smallest plain leave-one-out median over the library without the
    held-out curve: deleting that curve and comparing the options' plain medians gives the same choice, for every
    curve whose fold chose against the choice on the whole library and for one that did not (with the whole library's
    nearest curves and its median from k = 1..2, two folds of the 41 chose the median; were the held-out curve in its
    own fold's score, no fold could differ). With the median first, one figure's folds leave it for the family's
    nearest curves on some curves (most of the 46; 16 of the fifth search's 56, where the plain comparison prefers the
    median by 0.005 points; all 58 of the eighth search's): ties go to the first option, nothing else does."""
    options = ("pooled", "library")
    whole = acceptance_validation.nested_leave_one_out(2, options)
    winner = min(options, key=lambda option: (whole["plain"][option]["medianError"], options.index(option)))
    apart = [name for name, option in whole["chosen"].items() if option != winner]
    assert apart, "every fold chose as the whole library does"
    # two folds that chose apart and one that did not: each one rerun costs a whole nested run on the smaller library
    for name in apart[:2] + [next(name for name in CURVES if name not in apart)]:
        with monkeypatch.context() as patch:  # the library without it, in the same order (the original dict untouched)
            for module in (acceptance, acceptance_prior, acceptance_validation):
                patch.setattr(module, "CURVES", {key: value for key, value in CURVES.items() if key != name})
            rest = acceptance_validation.nested_leave_one_out(2, options)["plain"]
            assert len(rest) == len(options) and len(acceptance_validation.nested_leave_one_out(2, options[:1])["chosen"]) == len(CURVES) - 1
        assert whole["chosen"][name] == min(options, key=lambda option: (rest[option]["medianError"], options.index(option)))
    one = acceptance_validation.nested_leave_one_out(1, ("library", "family"))
    assert list(one["chosen"].values()).count("family") > 0   # on the eighth search's 58 curves every fold leaves it


def test_curves_that_start_alike_end_apart_and_the_page_says_by_how_much():
    """The floor on any rule that predicts from k = 1 alone, found by brute force here (every pair of library curves
    of different drafters measured to k = 8 whose k = 1 lengths lie within 0.02): the widest pair's best single
    prediction misses each by (hi - lo) / (hi + lo). In December 2026 that is DeepSeek-V4-Pro's MTP (1.92 -> 3.11)
    against Qwen3.5-397B's MTP with thinking (1.93 -> 5.21): 25%, six times the issue's 4% target for k = 1."""
    from itertools import combinations

    from lab.acceptance_curves import drafter_of

    floors = []
    for a, b in combinations([name for name in CURVES if len(acceptance.library_lengths(name)) >= 8], 2):
        la, lb = acceptance.library_lengths(a), acceptance.library_lengths(b)
        if drafter_of(a) != drafter_of(b) and abs(la[0] - lb[0]) <= 0.02 + 1e-9:
            low, high = sorted((la[7], lb[7]))
            floors.append(((high - low) / (high + low), low, high))
    widest = max(floors)
    apart = acceptance_validation.start_alike_end_apart()
    assert apart["floor"] == pytest.approx(widest[0]) and apart["lengthsAtK"] == widest[1:]
    assert apart["floor"] > 0.04  # the floor sits above the k = 1 target, which is why the page explains it
    facts = acceptance_validation.page_facts()["apart"]
    assert facts["medianErrors"][1] < facts["medianErrors"][0]  # the second figure helps, as the page says


def test_leave_one_out_never_sees_the_held_out_curve(monkeypatch):
    """Changing the held-out curve's tail does not move its own prediction."""
    before = acceptance_validation.predict_from_lengths("glm-5.2-mtp-thinking", 1)["predicted"]
    family_, kind, values, *rest = CURVES["glm-5.2-mtp-thinking"]
    monkeypatch.setitem(CURVES, "glm-5.2-mtp-thinking", (family_, kind, values[:-1] + (8.0,), *rest))
    assert acceptance_validation.predict_from_lengths("glm-5.2-mtp-thinking", 1)["predicted"] == before


def test_an_unseen_curve_is_predicted_by_leave_one_outs_arithmetic(monkeypatch):
    """predict_unseen is what leave-one-out computes for a held-out curve: a library curve given to it with itself
    excluded gives predict_from_lengths' row, and a curve the library does not hold is predicted with the whole
    library as prior (adding it to the library as a twin, left out, gives the same answer)."""
    for name in ("glm-5.2-mtp-thinking", "club3090-qwen3.6-27b-dflash"):
        family_, kind, values, *_ = CURVES[name]
        for known in (1, 2):
            row = acceptance_validation.predict_from_lengths(name, known)
            assert acceptance_validation.predict_unseen(family_, kind, values, known, exclude=name) == \
                {key: value for key, value in row.items() if key != "name"}
    rates = (0.9, 0.7, 0.5, 0.4, 0.3, 0.2)
    unseen = acceptance_validation.predict_unseen("draft", "unconditional", rates, 2)
    monkeypatch.setitem(CURVES, "a-twin", ("draft", "unconditional", rates, "", "", ""))
    twin = acceptance_validation.predict_from_lengths("a-twin", 2)
    assert twin["predicted"] == unseen["predicted"] and twin["measured"] == pytest.approx(1 + sum(rates))


def test_the_prior_point_switch_names_what_is_valid_and_always_resets():
    """leave_one_out runs each choice under prior_point: a bad mode or rule is one clear error naming the valid
    ones, and the model's own point is back after the block, also when the block raised."""
    model = acceptance.prior(None, r1=0.9, figures=1)[0]
    with pytest.raises(LabValueError, match=r"one of \('pooled', 'family'\), \('nearest', 'median'\): got 'x'"):
        acceptance_validation.leave_one_out(1, mode="x")
    with pytest.raises(RuntimeError):
        with acceptance.prior_point("pooled", "median"):
            assert acceptance.prior(None, r1=0.9, figures=1)[0] == acceptance.prior(None)[0] != model
            raise RuntimeError
    assert acceptance.prior(None, r1=0.9, figures=1)[0] == model


def test_only_the_builds_router_and_the_cli_import_the_validation():
    """The browser's lab leaves lab.acceptance_validation out (sitebuild.pystrip.CLI_ONLY: the worker never runs
    leave-one-out; the build writes its table and numbers into the page), so no module the worker can import may
    import it: only lab.views (its page_context, which the build alone calls) and the CLI."""
    from pathlib import Path

    from sitebuild import pystrip
    from test_import_graph import _import_graph

    root = Path(__file__).resolve().parents[1]
    importers = {name for name, edges in _import_graph(root).items() if "lab.acceptance_validation" in edges}
    assert not pystrip.browser_module("acceptance_validation.py")
    assert importers and all(name == "lab.views" or not pystrip.browser_module(name[len("lab."):].replace(".", "/") + ".py")
                             for name in importers), sorted(importers)


def test_the_errors_split_by_how_the_curve_was_measured_and_the_page_says_which_way():
    """The held-out errors by kind (reference curves of lengths; engine curves of per-position rates): the counts
    add to the library, each median is the median of that kind's rows, "high" or "low" follows its sign, and the
    page's paragraph carries the sentence. In December 2026 the reference curves ran high (+9.8% from k = 1, 19 of
    23 above) and the engine curves low (-3.7%, 12 of 33): if a library change flips a sign, the words flip with it."""
    from lab.figures import escape
    from lab.stats import median

    one, two = acceptance_validation.leave_one_out(1), acceptance_validation.leave_one_out(2)
    split = acceptance_validation.by_measurement(one, two)
    assert sum(entry["curves"] for entry in split.values()) == len(CURVES)
    for kind, entry in split.items():
        for known, result in ((1, one), (2, two)):
            errors = [row["error"] for row in result["rows"] if CURVES[row["name"]][1] == kind]
            assert entry[known]["median"] == median(errors) and entry[known]["above"] == sum(e > 0 for e in errors)
    note = acceptance_validation.measurement_note(split)
    for kind, words in (("lengths", "reference curves"), ("unconditional", "engine curves")):
        lean = "high" if split[kind][1]["median"] > 0 else "low"
        assert f"{split[kind]['curves']} {words}" in note and f"{words} (" in note
        assert note.split(f"{words} (")[1].split("are predicted ")[1].startswith(lean)
    assert escape(note) in acceptance_validation.held_out_html()


def test_the_prior_changes_its_point_only_when_beaten_by_the_margin():
    """The two-figure choice flipped three times by under 0.1 point as curves joined; the rule keeps the model's
    point unless another's median error is lower by more than CHOICE_MARGIN, and the page says when a point within
    the margin is kept."""
    margin = acceptance_validation.CHOICE_MARGIN
    errors = {"pooled": 0.0343, "library": 0.0343 - margin / 2, "family": 0.05}
    assert acceptance_validation.kept_choice("pooled", "library", errors) == "pooled"
    errors["library"] = 0.0343 - 2 * margin
    assert acceptance_validation.kept_choice("pooled", "library", errors) == "library"
    choice = {"errors": {"pooled": (0.07, 0.0343), "family": (0.06, 0.05), "library": (0.08, 0.0343 - margin / 2)},
              "best": {1: "family", 2: "library"}, "chosen": {1: "family", 2: "pooled"},
              "nested": {1: (0.06, 58, 58), 2: (0.034, 50, 58)}}
    note = acceptance_validation.choice_note(choice)
    assert "by less than the 0.25 point a change needs" in note and "the model has not followed" not in note
    assert "from two or more of the nearest curves over the whole library" in note


# --- the interval: the held-out residuals' band, frozen quantiles, and how often it held ---------------------------

REFRESH = ("run `.venv/bin/python tools/refresh_interval_quantiles.py` (it rewrites the constant from the library), "
           "then update the numbers docs/READING.md quotes")


def _scaled_residuals(known: int) -> dict:
    """Each library curve's held-out ln(measured / predicted) at its largest k per position past k = known, computed
    here from leave-one-out's predictions (not from its ``residual`` and ``reach``)."""
    rows = acceptance_validation.leave_one_out(known)["rows"]
    return {row["name"]: (math.log(row["measured"] / row["predicted"]) / (row["lookahead"] - known), row)
            for row in rows}


def _nearest_rank(values, fraction):
    ordered = sorted(values)
    return ordered[max(1, math.ceil(fraction * len(ordered))) - 1]


def _check_frozen():
    for known in (1, 2):
        scaled = [value for value, _ in _scaled_residuals(known).values()]
        found = tuple(round(_nearest_rank(scaled, f), 6) for f in (0.1, 0.9))
        frozen = acceptance_rates.RESIDUAL_QUANTILES[known]
        assert found == frozen, (f"lab.acceptance.RESIDUAL_QUANTILES[{known}] is {frozen}, the library gives {found}: "
                                 + REFRESH)


def _held_out_count(known: int) -> int:
    """How many library curves the interval made without their own residual (nor their curve in the prior) held."""
    scaled = _scaled_residuals(known)
    held = 0
    for name, (_, row) in scaled.items():
        others = [value for other, (value, _) in scaled.items() if other != name]
        reach = row["lookahead"] - known
        low = max(row["atMeasured"], row["predicted"] * math.exp(_nearest_rank(others, 0.1) * reach))
        high = min(row["lookahead"] + 1, row["predicted"] * math.exp(_nearest_rank(others, 0.9) * reach))
        held += low <= row["measured"] <= high
    return held


def _check_band():
    """Curve.interval is the point times exp(q reach) for the reader's input, zero-width where nothing is
    extrapolated or no prior made the point, and within [L(m), k + 1]."""
    q1, q2 = acceptance_rates.RESIDUAL_QUANTILES[1], acceptance_rates.RESIDUAL_QUANTILES[2]
    two = acceptance.from_lengths({1: 1.8, 2: 2.44}, "eagle")
    one = acceptance.from_single(1.8, 1, "mtp")
    rates = acceptance.from_conditional([0.8, 0.6, 0.5], "draft")
    for curve, q, m in ((two, q2, 2), (one, q1, 1), (rates, q2, 3)):
        for k in (m + 1, 8):
            point = curve.length(k)  # a length never falls as k grows: the band's low end stops at L(m)
            wanted = (max(curve.length(m), point * math.exp(q[0] * (k - m))), point * math.exp(q[1] * (k - m)))
            assert curve.interval(k) == pytest.approx(wanted, rel=1e-12), (curve.source, k)
        assert curve.interval(m) == (curve.length(m),) * 2
    low, high = one.interval(64)
    assert low == pytest.approx(one.length(1)) and high <= 65
    assert acceptance.token_curve([0.9, 0.5]).interval(8) == (acceptance.token_curve([0.9, 0.5]).length(8),) * 2


def _check_coverage(page: bool = False):
    """The page's note says the held-out coverage this file recomputes, within two binomial standard deviations of
    80%; with ``page``, the built table (held_out_html, heavy: it reruns the prior's choice) prints that note and
    those counts in its caption."""
    one, two = acceptance_validation.leave_one_out(1), acceptance_validation.leave_one_out(2)
    note = acceptance_validation.interval_note(one, two)
    counts = [_held_out_count(known) for known in (1, 2)]
    if page:
        from lab.figures import escape

        html = acceptance_validation.held_out_html()
        assert escape(note) in html
        assert html.count(escape("inside the 80% interval (made without it) on ")) == 1
        assert f"on {counts[0]}. From k = 1..2" in html and f"inside the interval on {counts[1]}." in html
        # the curves found later (FOUND_LATER) are said too, from the very rows found_later computes
        later = acceptance_validation.found_later_note(acceptance_validation.found_later(1), acceptance_validation.found_later(2))
        assert f'<p class="acceptance-found-later">{escape(later)}</p>' in html
    n = len(CURVES)
    assert f"it held the measured length on {counts[0]} of {n} " in note and f"and {counts[1]} of {n} " in note
    assert f"would hold {round(0.8 * n)}." in note
    for known, result, count in zip((1, 2), (one, two), counts):
        assert result["covered"] == count
        assert abs(count - 0.8 * n) <= 2 * math.sqrt(n * 0.8 * 0.2), (known, count)


def test_the_frozen_interval_quantiles_are_the_library_s():
    """lab.acceptance.RESIDUAL_QUANTILES, frozen for the browser, equal the 10th and 90th percentiles (nearest rank) of
    the held-out residuals per extrapolated position recomputed from the library, to the 6 decimals printed; the
    refresh tool agrees it is up to date. A curve added to the library without a refresh fails here, saying how."""
    _check_frozen()
    spec = importlib.util.spec_from_file_location("refresh", Path(__file__).parent.parent / "tools" / "refresh_interval_quantiles.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tool.main(["--check"]) == 0
    assert acceptance_validation.residual_quantiles() == {
        known: tuple(_nearest_rank([v for v, _ in _scaled_residuals(known).values()], f) for f in (0.1, 0.9))
        for known in (1, 2)}


def test_the_interval_is_the_point_times_the_residual_band():
    _check_band()


def test_the_page_prints_the_held_out_coverage_and_it_is_near_80_percent():
    """Nested leave-one-out: each curve's interval from the other curves' residuals alone (and its prediction from
    the other curves' prior). 48 of 61 from k = 1 and from k = 1..2 on 5 December 2026 (49 nominal)."""
    _check_coverage(page=True)


def _widened(factor):
    def quantiles():
        return {figures: (low * factor, high * factor) for figures, (low, high) in acceptance_rates.RESIDUAL_QUANTILES.items()}
    return quantiles


@pytest.mark.parametrize("mutation", ["widen-quantiles", "narrow-quantiles", "reach-plus-one", "reach-doubled",
                                      "held-out-reach-plus-one", "held-out-own-residual"])
def test_a_widened_or_narrowed_interval_fails_a_check(monkeypatch, mutation):
    """Planted mistakes that widen or narrow the interval (its frozen quantiles scaled, its reach off by one or doubled
    in the model or in the page's held-out interval, the held-out curve's own residual among its quantiles): at least
    one of the three checks above fails."""
    original = acceptance_rates.residual_interval
    if mutation in ("widen-quantiles", "narrow-quantiles"):
        scaled = _widened(1.25 if mutation == "widen-quantiles" else 0.8)()
        for module in (acceptance_rates, acceptance, acceptance_validation):
            monkeypatch.setattr(module, "RESIDUAL_QUANTILES", scaled)
    elif mutation in ("reach-plus-one", "reach-doubled"):
        def mutated(point, reach, *rest):
            return original(point, reach + 1 if mutation == "reach-plus-one" else 2 * reach, *rest)
        monkeypatch.setattr(acceptance_rates, "residual_interval", mutated)
    elif mutation == "held-out-reach-plus-one":
        monkeypatch.setattr(acceptance_validation, "residual_interval",
                            lambda point, reach, *rest: original(point, reach + 1, *rest))
    else:
        monkeypatch.setattr(acceptance_validation, "held_out_intervals", lambda rows: [
            original(row["predicted"], row["reach"], acceptance_validation._quantiles(rows), row["atMeasured"],
                     row["lookahead"] + 1) for row in rows])
    failed = []
    for check in (_check_frozen, _check_band, _check_coverage):
        try:
            check()
        except AssertionError:
            failed.append(check.__name__)
    assert failed, mutation


def test_curves_found_later_are_predicted_with_their_whole_search_left_out():
    """Each curve of FOUND_LATER is predicted with every curve of its search out of the prior, as it was before
    they joined: the batch's exclusion reaches the prior (a classic draft model's curve predicted with only itself left
    out, its sibling run of the same drafter on another workload in the prior, comes out differently; on the 65-curve
    library a DFlash curve of speculators #613 showed it, but since the 73 its two-figure prior no longer draws on its
    sibling); the page's sentence is checked with the held-out coverage (_check_coverage), which builds the page's
    table once."""
    from lab import acceptance_prior, acceptance_validation as v

    names = set(CURVES)
    for _, batch in v.FOUND_LATER:
        assert set(batch) <= names
        assert not set(batch) & set(acceptance_prior.library_less(batch))
    rows = {row["name"]: row for row in v.found_later(2)["rows"]}
    name = "tomasruizt-draft-qwen3-1.7b-qwen3-32b-instructcoder"
    alone = v.predict_from_lengths(name, 2)
    assert rows[name]["predicted"] != pytest.approx(alone["predicted"], rel=1e-9)
    assert rows[name]["measured"] == pytest.approx(alone["measured"])
