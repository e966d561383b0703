"""The numbers drawn in the figures, the deployment panel's instruments list and the real-text presets
table are checked too: one number of a figure's text, tooltip or description moved by one digit, a row
of the list with one number moved, and mistakes planted in the views' figure code (a value passed from
the wrong variable, a formatter's digits changed, a chance or a gain computed against the wrong base)
each make the instruments suite fail (lab.checks.figure_difference, numbers_difference)."""

from __future__ import annotations

import re

import pytest

from lab import exact as exact_model
from lab import ledger as ledger_model
from lab.checks import _run_check
from lab.jsformat import to_fixed
from lab.checks import deployment as deployment_family
from lab.checks import policies as policies_family
from lab.checks import realtext as realtext_family
from lab.checks import trees as trees_family
from lab.widgets import deployment as deployment_widget
from lab.widgets import exact as exact_widget
from lab.widgets import ledger as ledger_widget
from lab.widgets import policies as policies_widget
from lab.widgets import realtext as realtext_widget
from lab.widgets import trees as trees_widget
from mutation import clear_caches, failure_of

WIDGETS = (ledger_widget, exact_widget, policies_widget, trees_widget, deployment_widget, realtext_widget,
           ledger_model, exact_model)

# check name -> (its family's checks, the widget it reads)
CHECKS = {
    "ledger-readouts-match-model": (deployment_family.CHECKS, ledger_widget),
    "exact-readouts-match-model": (deployment_family.CHECKS, exact_widget),
    "policies-readouts-match-model": (policies_family.CHECKS, policies_widget),
    "trees-readouts-match-model": (trees_family.CHECKS, trees_widget),
    "deployment-readouts-match-model": (deployment_family.CHECKS, deployment_widget),
    "realtext-presets-match-model": (realtext_family.CHECKS, realtext_widget),
}


@pytest.fixture(autouse=True)
def _fresh_caches():
    """A view cached before a mutation must not hide it (nor one leak into a later test)."""
    clear_caches(*WIDGETS)
    yield
    clear_caches(*WIDGETS)


def _fails(check: str, *fragments: str) -> str:
    failure = failure_of(CHECKS[check][0], check, *fragments)
    assert not failure.startswith("raised"), failure
    return failure


def _bump_at(text: str, at: int) -> str:
    return text[:at] + str((int(text[at]) + 1) % 10) + text[at + 1:]


def _bump_in(svg: str, pattern: str) -> str:
    """The last digit of the first decimal number (else the first digit of the first number) inside the
    first match of ``pattern`` (a regex with one group: the part of the figure a reader sees)."""
    for found in re.finditer(pattern, svg, re.S):
        start = found.start(1)
        number = re.search(r"\d+\.\d+", found.group(1)) or re.search(r"\d", found.group(1))
        if number:
            return _bump_at(svg, start + number.end() - 1)
    raise AssertionError(f"no number in {pattern!r}: {svg[:300]}")


def _mutate_figure(monkeypatch, widget, figure: str, change):
    original = widget.view
    monkeypatch.setattr(widget, "view", lambda raw=None: (lambda view: {
        **view, "figures": {**view["figures"], figure: change(view["figures"][figure])}})(original(raw)))


TEXT = r"<text[^>]*>([^<]*\d[^<]*)</text>"
TITLE = r"<title>([^<]*\d[^<]*)</title>"
LABEL = r'aria-label="([^"]*\d[^"]*)"'
TIPS = r'data-tip-values="([^"]*)"'
CELL = r"<td[^>]*>([^<]*\d[^<]*)</td>"

FIGURE_MUTANTS = [
    ("ledger-readouts-match-model", "heatmapSelection", TEXT),
    ("ledger-readouts-match-model", "heatmapSelection", LABEL),
    ("ledger-readouts-match-model", "heatmap", TIPS),
    ("ledger-readouts-match-model", "table", CELL),
    ("ledger-readouts-match-model", "breakdown", TEXT),
    ("ledger-readouts-match-model", "breakdown", TITLE),
    ("ledger-readouts-match-model", "breakdown", LABEL),
    ("exact-readouts-match-model", "distributions", TITLE),
    ("exact-readouts-match-model", "distributions", LABEL),
    ("exact-readouts-match-model", "outputs", TITLE),
    ("exact-readouts-match-model", "outputs", LABEL),
    ("exact-readouts-match-model", "trace", LABEL),
    ("policies-readouts-match-model", "bars", r'<text class="fig-tick" x="[\d.]+" y="\d+">([^<]*x[^<]*)</text>'),
    ("policies-readouts-match-model", "bars", TITLE),
    ("policies-readouts-match-model", "bars", LABEL),
    ("policies-readouts-match-model", "strip", r'aria-label="[^"]*(mean [^"]*)"'),
    ("trees-readouts-match-model", "tree", TITLE),
    ("trees-readouts-match-model", "tree", r'aria-label="[^"]*(expected tokens[^"]*)"'),
    ("trees-readouts-match-model", "length", LABEL),
    ("trees-readouts-match-model", "speedup", LABEL),
    ("trees-readouts-match-model", "speedup", TITLE),
    ("trees-readouts-match-model", "exactness", r"<title>[^<]*(TV [^<]*)</title>"),
    ("trees-readouts-match-model", "exactness", r'aria-label="[^"]*(At [^"]*)"'),
]


def test_the_figure_checks_pass_unmutated():
    for check, (checks, _) in CHECKS.items():
        out = _run_check(dict(checks)[check])
        assert out.failure is None and out.visited > 1, (check, out.failure)


@pytest.mark.parametrize("check, figure, pattern", FIGURE_MUTANTS)
def test_each_figure_number_moved_by_one_digit_fails(monkeypatch, check, figure, pattern):
    _mutate_figure(monkeypatch, CHECKS[check][1], figure, lambda svg: _bump_in(svg, pattern))
    _fails(check)


ROWS = ("ledger", "traces", "policies", "serving", "exact", "realtext", "trees")
NUMBERED = [(target, "gets") for target in ROWS] + [(target, "uses") for target in ("ledger", "serving", "trees")]


@pytest.mark.parametrize("target, part", NUMBERED)
def test_each_instruments_list_row_with_one_number_moved_fails(monkeypatch, target, part):
    def moved(html):
        row = html.index(f'data-target="{target}"')
        found = re.compile(rf'<p class="dep-{part}">([^<]*\d[^<]*)</p>').search(html, row, html.index("</li>", row))
        assert found, f"the {target} row's {part} shows no number"
        number = re.search(r"\d+\.\d+", found.group(1)) or re.search(r"\d", found.group(1))
        return _bump_at(html, found.start(1) + number.end() - 1)
    _mutate_figure(monkeypatch, deployment_widget, "instruments", moved)
    _fails("deployment-readouts-match-model")


def test_an_instruments_list_button_sending_another_value_fails(monkeypatch):
    def sent_another(html):
        sent = re.search(r"&quot;verifyTax&quot;: (\d+)", html)
        assert sent, "no button sends a verify tax"
        return html[:sent.start(1)] + str(int(sent.group(1)) + 1) + html[sent.end(1):]
    _mutate_figure(monkeypatch, deployment_widget, "instruments", sent_another)
    _fails("deployment-readouts-match-model", "button sends")


# --- mistakes planted in the views' figure code -------------------------------------------------------

def test_ledger_mark_at_the_cells_value_not_the_settings(monkeypatch):
    original = ledger_widget.heatmap_selection_svg
    monkeypatch.setattr(ledger_widget, "heatmap_selection_svg",
                        lambda grid, ks, accs, selected, width=640, value=None, acceptance=None:
                        original(grid, ks, accs, selected, width, acceptance=acceptance))
    _fails("ledger-readouts-match-model", "heatmapSelection")


def test_ledger_selection_names_the_grid_row_not_the_readers_acceptance(monkeypatch):
    """N4-21: the outlined cell's label says the reader's 74%, not only the 75% row it falls in."""
    original = ledger_widget.heatmap_selection_svg
    monkeypatch.setattr(ledger_widget, "heatmap_selection_svg",
                        lambda grid, ks, accs, selected, width=640, value=None, acceptance=None:
                        original(grid, ks, accs, selected, width, value))
    _fails("ledger-readouts-match-model", "heatmapSelection")


def test_ledger_plain_decoding_for_one_token_less(monkeypatch):
    original = ledger_widget.breakdown_svg
    monkeypatch.setattr(ledger_widget, "breakdown_svg", lambda draft, verify, overhead, baseline, tokens, width=640:
                        original(draft, verify, overhead, baseline - baseline / tokens, tokens, width))
    _fails("ledger-readouts-match-model", "breakdown")


def test_ledger_breakdown_formatter_with_one_digit_fewer(monkeypatch):
    monkeypatch.setattr(ledger_widget, "_fmt", lambda value, digits=2: to_fixed(value, max(0, digits - 1)))
    _fails("ledger-readouts-match-model")


def test_exact_outputs_with_the_samplers_swapped(monkeypatch):
    original = exact_widget.outputs_svg

    def swapped(p, speculative, buggy, vocabulary, exact=None, exact_buggy=None, width=640):
        return original(p, buggy, speculative, vocabulary, exact, exact_buggy, width)
    monkeypatch.setattr(exact_widget, "outputs_svg", swapped)
    _fails("exact-readouts-match-model", "outputs")


def test_exact_distributions_with_q_for_p(monkeypatch):
    original = exact_widget.distributions_svg
    monkeypatch.setattr(exact_widget, "distributions_svg",
                        lambda p, q, vocabulary, width=640: original(q, q, vocabulary, width))
    _fails("exact-readouts-match-model", "distributions")


def test_exact_trace_missing_its_last_call(monkeypatch):
    original = exact_widget.trace_svg
    monkeypatch.setattr(exact_widget, "trace_svg", lambda calls, vocabulary, width=640: original(calls[:-1], vocabulary, width))
    _fails("exact-readouts-match-model", "trace")


def test_policies_gain_against_the_static_k_not_the_best(monkeypatch):
    original = policies_widget.bars_svg

    def against_static(results, lookahead, width=640, curve=False, toy=False):
        return original({**results, "best-static": {**results["best-static"], "speedup": results["static"]["speedup"]}},
                        lookahead, width, curve, toy)
    monkeypatch.setattr(policies_widget, "bars_svg", against_static)
    _fails("policies-readouts-match-model", "bars")


def test_policies_gain_with_its_sign_flipped(monkeypatch):
    original = policies_widget._gain
    monkeypatch.setattr(policies_widget, "_gain", lambda speedup, best: original(best, speedup))
    _fails("policies-readouts-match-model")


def test_policies_gain_with_one_decimal_more(monkeypatch):
    original = policies_widget._gain
    monkeypatch.setattr(policies_widget, "_gain", lambda speedup, best: original(speedup, best)[:-1] + "0%")
    _fails("policies-readouts-match-model")


def test_policies_strip_from_another_seed(monkeypatch):
    monkeypatch.setattr(policies_widget, "_strip", lambda process, cache: policies_family.policies_simulation.heuristic_strip(
        process, policies_widget.STRIP_CYCLES, policies_widget.STRIP_SEED + 1))
    _fails("policies-readouts-match-model", "strip")


def test_trees_reach_of_a_node_at_its_siblings_rank_plus_one(monkeypatch):
    def shifted(parents, probs):
        reach, seen = [], {}
        for parent in parents:
            if parent < 0:
                reach.append(1.0)
                continue
            rank = seen.get(parent, 0) + 1
            seen[parent] = rank
            reach.append(reach[parent] * (probs[rank] if rank < len(probs) else 0.0))
        return reach
    monkeypatch.setattr(trees_widget, "_reaches", shifted)
    _fails("trees-readouts-match-model", "figure tree")


def test_trees_speedup_marker_at_the_readers_budget(monkeypatch):
    original = trees_widget.speedup_svg
    monkeypatch.setattr(trees_widget, "speedup_svg", lambda curves, selected, width=640: original(
        {**curves, "bestBudget": selected}, selected, width))
    _fails("trees-readouts-match-model", "figure speedup")


def test_trees_exactness_description_one_candidate_off(monkeypatch):
    original = trees_widget.exactness_svg
    monkeypatch.setattr(trees_widget, "exactness_svg", lambda rows, selected, width=640: original(
        rows, max(1, selected - 1) if selected > 1 else 2, width))
    _fails("trees-readouts-match-model", "figure exactness")


def test_deployment_ledger_row_quoting_the_unrounded_speedup(monkeypatch):
    original = deployment_widget._rows

    def rows(d, params, result):
        ledger = result["ledger"]
        return original(d, params, {**result, "ledger": {**ledger, "speedup": ledger["unroundedSpeedup"]}})
    monkeypatch.setattr(deployment_widget, "_rows", rows)
    _fails("deployment-readouts-match-model", "instruments")


def test_deployment_serving_row_quoting_the_sent_answer(monkeypatch):
    original = deployment_widget._rows
    monkeypatch.setattr(deployment_widget, "_rows", lambda d, params, result: original(
        d, params, {**result, "serving": {**result["serving"],
                                          "speedup": result["serving"]["speedup"] * 1.01 + 0.01}}))
    _fails("deployment-readouts-match-model")


def test_realtext_presets_showing_the_acceptance_rate_as_alpha(monkeypatch):
    original = realtext_widget.preset_comparison.__wrapped__

    def rate(model):
        return [{**row, "cells": [{**cell, "alphaMle": cell["acceptanceRate"]} for cell in row["cells"]]}
                for row in original(model)]
    monkeypatch.setattr(realtext_widget, "preset_comparison", rate)
    _fails("realtext-presets-match-model", "presets table")


def test_realtext_presets_tokens_per_call_over_calls_plus_one(monkeypatch):
    original = realtext_widget.preset_comparison.__wrapped__

    def plus_one(model):
        return [{**row, "cells": [{**cell, "tokensPerCall": cell["tokensPerCall"] * cell["verifierCalls"]
                                   / (cell["verifierCalls"] + 1)} for cell in row["cells"]]}
                for row in original(model)]
    monkeypatch.setattr(realtext_widget, "preset_comparison", plus_one)
    _fails("realtext-presets-match-model", "presets table")


def test_realtext_presets_error_without_the_square_root_of_n(monkeypatch):
    original = realtext_widget._mean_and_error
    monkeypatch.setattr(realtext_widget, "_mean_and_error", lambda values: (
        lambda mean, error: (mean, None if error is None else error * len(values) ** 0.5))(*original(values)))
    _fails("realtext-presets-match-model", "presets table")


def test_realtext_presets_sentence_with_one_error_not_two(monkeypatch):
    original = realtext_widget._alpha_gap
    monkeypatch.setattr(realtext_widget, "_alpha_gap", lambda first, second: (
        lambda gap, error: (gap, error / 2))(*original(first, second)))
    _fails("realtext-presets-match-model", "sentence")


@pytest.mark.parametrize("pattern", (CELL, r'class="rt-presets-note">[^\d]*(\d[^<]*)'))
def test_realtext_presets_table_with_one_number_moved_fails(monkeypatch, pattern):
    original = realtext_widget.comparison_html
    monkeypatch.setattr(realtext_widget, "comparison_html", lambda rows, held_out=None: _bump_in(
        original(rows, held_out), pattern))
    _fails("realtext-presets-match-model", "presets table")


# --- the deployment panel's engine tables ---------------------------------------------------------------

@pytest.mark.parametrize("figure, pattern", [
    ("schedule", CELL), ("production", CELL), ("production", r"<caption>([^<]*)</caption>"),
    ("prefill", r'class="dep-prefill">([^<]*)</p>'), ("diagnosis", r"<li>([^<]*\d[^<]*)</li>")])
def test_each_engine_table_with_one_number_moved_fails(monkeypatch, figure, pattern):
    _mutate_figure(monkeypatch, deployment_widget, figure, lambda html: _bump_in(html, pattern))
    _fails("deployment-readouts-match-model", figure)


def test_deployment_prefill_share_over_the_draft(monkeypatch):
    original = deployment_widget.prefill_html
    monkeypatch.setattr(deployment_widget, "prefill_html", lambda prod: original(
        {**prod, "prefill": {**prod["prefill"], "targetMs": prod["prefill"]["targetMs"] + prod["prefill"]["draftMs"]}}))
    _fails("deployment-readouts-match-model", "prefill")


def test_deployment_production_row_at_the_readers_k_for_the_schedule(monkeypatch):
    original = deployment_widget.production_html
    monkeypatch.setattr(deployment_widget, "production_html", lambda prod, d: original(
        {**prod, "scheduled": {**prod["speculative"], "lookahead": prod["scheduled"]["lookahead"]}}, d))
    _fails("deployment-readouts-match-model", "production")


def test_deployment_schedule_from_one_batch_too_late(monkeypatch):
    original = deployment_widget.schedule_html
    monkeypatch.setattr(deployment_widget, "schedule_html", lambda schedule, on_curve=False: original(
        [{**r, "from": r["from"] + 1} for r in schedule], on_curve))
    _fails("deployment-readouts-match-model", "schedule")


# --- the real-text run's own text, its hover titles and its send buttons ------------------------------------

CHECKS["realtext-readouts-match-model"] = (realtext_family.CHECKS, realtext_widget)


@pytest.mark.parametrize("figure, pattern", [
    ("plainText", r"<p>([^<]*)</p>"), ("text", r'class="rt-call[^"]*" title="([^"]*\d[^"]*)"'),
    ("send", r">(Send alpha[^<]*)</button>")])
def test_each_run_number_moved_fails(monkeypatch, figure, pattern):
    _mutate_figure(monkeypatch, realtext_widget, figure, lambda html: _bump_in(html, pattern) if html else html)
    _fails("realtext-readouts-match-model")


def test_realtext_plain_text_counting_drafts_kept_with_the_correction(monkeypatch):
    original = realtext_widget.plain_text_html
    monkeypatch.setattr(realtext_widget, "plain_text_html", lambda model, prompt, cycles: original(
        model, prompt, [{**c, "accepted": len(c["committed"])} for c in cycles]))
    _fails("realtext-readouts-match-model", "plain text")


def test_realtext_send_alpha_solved_at_k_minus_1(monkeypatch):
    original = realtext_widget.send_html
    monkeypatch.setattr(realtext_widget, "send_html", lambda summary, k, proposer=None: original(summary, max(1, k - 1), proposer))
    _fails("realtext-readouts-match-model", "send buttons")
