"""lab.ledger: every formula of docs/CONTRACT.md section 1 against hand-derived values, the closed
forms, Leviathan's speedup, the article's worked example, best_lookahead's first-maximum rule, the
legacy signature, the heatmap grid and the cycle breakdown."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from lab import audit, ledger as L
from lab.jsformat import to_fixed
from lab.ledger import LedgerSettings

CONTRACT_LEGACY = "74:12:5:6:80:3:2.214590:3.214590:48.000000:89.600000:143.600000:44.671321:1.790858:2.785410:4:1.819264"

acceptances = st.floats(0, 100, allow_nan=False)
costs = st.floats(0, 100, allow_nan=False)
lookaheads = st.integers(1, 12)


def close(a, b, rel=1e-12):
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


# --- hand-derived values ----------------------------------------------------------------------

def test_every_formula_by_hand():
    # a = 1/2, m = 3: accepted = 1/2 + 1/4 + 1/8 = 7/8; every number below is exact in binary
    # except msPerToken = 160 / (15/8) = 256/3.
    r = L.ledger(LedgerSettings(acceptance=50, draftCost=10, lookahead=3, overheadMs=10, targetMs=100, verifyTax=10))
    assert r.accepted == 0.875
    assert r.outputTokens == 1.875
    assert r.draftMs == pytest.approx(30.0, rel=1e-15)           # 3 * 100 * 10 / 100
    assert r.verifyMs == pytest.approx(120.0, rel=1e-15)         # 100 * (1 + 2 * 10 / 100)
    assert r.cycleMs == pytest.approx(160.0, rel=1e-15)          # 30 + 120 + 10
    assert r.msPerToken == pytest.approx(256 / 3, rel=1e-15)     # 160 / 1.875
    assert r.speedup == pytest.approx(1.171875, rel=1e-15)       # 100 / (256/3) = 75/64
    assert r.wastedDrafts == 2.125                               # 3 - 0.875


def test_legacy_defaults_by_hand():
    r = L.ledger(L.DEFAULT_SETTINGS)
    a = 0.74
    accepted = a + a**2 + a**3 + a**4 + a**5
    assert close(r.accepted, accepted)
    assert close(r.outputTokens, 1 + accepted)
    assert close(r.draftMs, 48.0)           # 5 * 80 * 0.12
    assert close(r.verifyMs, 89.6)          # 80 * (1 + 4 * 0.03)
    assert close(r.cycleMs, 143.6)          # 48 + 89.6 + 6
    assert close(r.msPerToken, 143.6 / (1 + accepted))
    assert close(r.speedup, 80 * (1 + accepted) / 143.6)
    assert close(r.wastedDrafts, 5 - accepted)


def test_default_settings_are_the_legacy_setting():
    assert L.DEFAULT_SETTINGS == LedgerSettings(74, 12, 5, 6, 80, 3)
    assert L.DEFAULT_SETTINGS.with_(lookahead=7).lookahead == 7
    assert L.DEFAULT_SETTINGS.lookahead == 5  # with_ does not mutate


@pytest.mark.parametrize("m", range(0, 13))
def test_accepted_at_the_extremes(m):
    assert L.expected_accepted_drafts(0.0, m) == 0.0
    assert L.expected_accepted_drafts(1.0, m) == m
    assert L.expected_tokens_per_call(1.0, m) == m + 1
    assert L.expected_tokens_per_call_closed_form(1.0, m) == m + 1
    assert L.expected_tokens_per_call_closed_form(0.0, m) == 1


def test_wasted_drafts_never_negative():
    r = L.ledger(LedgerSettings(acceptance=100, lookahead=4))
    assert r.accepted == 4 and r.wastedDrafts == 0.0
    assert L.ledger(LedgerSettings(acceptance=0, lookahead=4)).wastedDrafts == 4


@settings(max_examples=300, deadline=None)
@given(acceptance=acceptances, cost=costs, m=lookaheads, overhead=st.floats(0, 200), target=st.floats(1, 500),
       tax=st.floats(0, 50))
def test_formulas_against_fractions(acceptance, cost, m, overhead, target, tax):
    """Each field against an exact rational evaluation of its formula in docs/CONTRACT.md section 1
    (floats are exact rationals)."""
    r = L.ledger(LedgerSettings(acceptance, cost, m, overhead, target, tax))
    a = Fraction(acceptance) / 100
    accepted = sum(a**i for i in range(1, m + 1))
    draft = m * Fraction(target) * Fraction(cost) / 100
    verify = Fraction(target) * (1 + (m - 1) * Fraction(tax) / 100)
    cycle = draft + verify + Fraction(overhead)
    per_token = cycle / (1 + accepted)
    rel = 1e-12
    assert r.accepted == pytest.approx(float(accepted), rel=rel, abs=1e-300)
    assert r.outputTokens == pytest.approx(float(1 + accepted), rel=rel)
    assert r.draftMs == pytest.approx(float(draft), rel=rel, abs=1e-300)
    assert r.verifyMs == pytest.approx(float(verify), rel=rel)
    assert r.cycleMs == pytest.approx(float(cycle), rel=rel)
    assert r.msPerToken == pytest.approx(float(per_token), rel=rel)
    assert r.speedup == pytest.approx(float(Fraction(target) / per_token), rel=rel)
    assert r.wastedDrafts == pytest.approx(float(max(0, m - accepted)), rel=rel, abs=1e-12)


# --- closed form, Leviathan -------------------------------------------------------------------

@settings(max_examples=500, deadline=None)
@given(acceptance=acceptances, m=st.integers(0, 64))
def test_closed_form_equals_sum(acceptance, m):
    a = acceptance / 100
    summed = L.expected_tokens_per_call(a, m)
    assert summed == 1 + L.expected_accepted_drafts(a, m)
    assert close(summed, L.expected_tokens_per_call_closed_form(a, m), rel=1e-11)


def test_accepted_is_summed_in_spec_order():
    # the docstring promises the terms are added a, a**2, ... in order: the same float as a plain loop
    for a in (0.74, 0.33, 0.9999, 0.123456789):
        for m in range(1, 13):
            total, power = 0.0, 1.0
            for _ in range(m):
                power *= a
                total += power
            assert L.expected_accepted_drafts(a, m) == total


@settings(max_examples=500, deadline=None)
@given(acceptance=acceptances, cost=costs, m=lookaheads, target=st.floats(1, 500))
def test_ledger_equals_leviathan_without_tax_or_overhead(acceptance, cost, m, target):
    r = L.ledger(LedgerSettings(acceptance, cost, m, overheadMs=0, targetMs=target, verifyTax=0))
    a, c = acceptance / 100, cost / 100
    expected = (m + 1) / (m * c + 1) if a == 1 else (1 - a ** (m + 1)) / ((1 - a) * (m * c + 1))
    assert close(r.speedup, expected, rel=1e-11)
    assert close(L.leviathan_speedup(a, m, c), expected, rel=1e-15)


def test_leviathan_reference_numbers():
    # Leviathan et al.: a = 0.8, gamma = 3, c = 0 gives (1 - 0.8**4) / 0.2 = 2.952
    assert close(L.leviathan_speedup(0.8, 3, 0.0), 2.952)
    # with c = 0.05: 2.952 / 1.15
    assert close(L.leviathan_speedup(0.8, 3, 0.05), 2.952 / 1.15)


def test_spec_worked_example():
    """The article's worked example: p = 0.7, m = 8 gives about 2.2 accepted drafts, not the naive 0.7 * 8 = 5.6."""
    accepted = L.expected_accepted_drafts(0.7, 8)
    assert abs(accepted - 2.2) < 0.01
    assert close(accepted, 0.7 * (1 - 0.7**8) / 0.3)
    naive = 0.7 * 8
    assert abs(naive - 5.6) < 1e-12
    assert accepted < naive / 2
    r = L.ledger(LedgerSettings(acceptance=70, lookahead=8))
    assert r.accepted == accepted
    assert close(r.wastedDrafts, 8 - accepted)


# --- best lookahead ---------------------------------------------------------------------------

def _scan(s: LedgerSettings, max_lookahead: int):
    return [L.ledger(s.with_(lookahead=m)).speedup for m in range(1, max_lookahead + 1)]


def test_best_lookahead_on_a_plateau_keeps_the_first():
    # acceptance 0 and no cost beyond one target pass: every lookahead gives speedup exactly 1
    flat = LedgerSettings(acceptance=0, draftCost=0, lookahead=1, overheadMs=0, targetMs=80, verifyTax=0)
    row = _scan(flat, 12)
    assert row == [1.0] * 12  # a genuine plateau, not a near tie
    assert L.best_lookahead(flat) == (1, 1.0)
    assert L.best_lookahead(flat, 64) == (1, 1.0)


def test_best_lookahead_plateau_after_a_rise_keeps_the_first_of_the_top():
    # acceptance 100, free drafts, no tax: speedup m + 1 grows strictly, so the best is the last
    rising = LedgerSettings(acceptance=100, draftCost=0, lookahead=1, overheadMs=0, targetMs=80, verifyTax=0)
    assert _scan(rising, 12) == [float(m + 1) for m in range(1, 13)]
    assert L.best_lookahead(rising) == (12, 13.0)
    assert L.best_lookahead(rising, 64) == (64, 65.0)
    assert L.best_lookahead(rising, 1) == (1, 2.0)


def test_best_lookahead_exact_tie_between_one_and_two_keeps_one():
    # a = 1/2, draft pass 20% of an 80 ms target, no tax, no overhead:
    #   m = 1: 1.5 tokens / (16 + 80) ms   -> speedup 80 / 64 = 1.25
    #   m = 2: 1.75 tokens / (32 + 80) ms  -> speedup 80 / 64 = 1.25   (exactly tied in binary)
    #   m = 3: 1.875 tokens / 128 ms       -> 1.171875, and it keeps falling
    s = LedgerSettings(acceptance=50, draftCost=20, lookahead=1, overheadMs=0, targetMs=80, verifyTax=0)
    row = _scan(s, 12)
    assert row[0] == row[1] == 1.25
    assert all(v < 1.25 for v in row[2:])
    assert L.best_lookahead(s) == (1, 1.25)  # the first maximum, the shallower draft


@settings(max_examples=400, deadline=None)
@given(acceptance=acceptances, cost=costs, overhead=st.floats(0, 200), target=st.floats(1, 500),
       tax=st.floats(0, 50), max_lookahead=st.integers(1, 64))
def test_best_lookahead_is_the_first_strict_max_of_the_ledger(acceptance, cost, overhead, target, tax, max_lookahead):
    s = LedgerSettings(acceptance, cost, 1, overhead, target, tax)
    row = _scan(s, max_lookahead)
    m, speedup = L.best_lookahead(s, max_lookahead)
    assert 1 <= m <= max_lookahead
    assert speedup == max(row)          # the same float the ledger gives, not just close
    assert m == row.index(max(row)) + 1  # the first maximum


@settings(max_examples=300, deadline=None)
@given(acceptance=acceptances, cost=costs, overhead=st.floats(0, 200), target=st.floats(1, 500),
       tax=st.floats(0, 50), max_lookahead=st.integers(0, 64))
def test_speedups_by_lookahead_are_the_ledgers_floats(acceptance, cost, overhead, target, tax, max_lookahead):
    s = LedgerSettings(acceptance, cost, 7, overhead, target, tax)
    assert L.speedups_by_lookahead(s, max_lookahead) == _scan(s, max_lookahead)  # bit for bit


def test_best_lookahead_ignores_the_lookahead_field():
    base = L.DEFAULT_SETTINGS
    assert {L.best_lookahead(base.with_(lookahead=m)) for m in range(1, 13)} == {L.best_lookahead(base)}


# --- signature, grid, breakdown --------------------------------------------------------------

def test_legacy_signature_is_the_spec_string():
    assert audit.LEGACY_EXPECTED == CONTRACT_LEGACY
    assert audit.legacy_signature() == CONTRACT_LEGACY


def test_legacy_signature_rebuilt_from_the_ledger():
    s = LedgerSettings(74, 12, 5, 6, 80, 3)
    r = L.ledger(s)
    m, best = L.best_lookahead(s)
    fields = ["74", "12", "5", "6", "80", "3"] + [to_fixed(v, 6) for v in r] + [str(m), to_fixed(best, 6)]
    assert ":".join(fields) == CONTRACT_LEGACY
    assert list(r._fields) == ["accepted", "outputTokens", "draftMs", "verifyMs", "cycleMs", "msPerToken",
                               "speedup", "wastedDrafts"]


def test_legacy_signature_changes_with_settings():
    assert audit.legacy_signature(LedgerSettings(75, 12, 5, 6, 80, 3)) != CONTRACT_LEGACY
    assert audit.legacy_signature(LedgerSettings(74.5, 12, 5, 6, 80, 3)).startswith("74.5:12:5:6:80:3:")


def test_speedup_grid_shape_and_cells():
    lookaheads = [1, 2, 3, 5, 8, 12, 20]
    acceptances = [0.0, 12.5, 40, 74, 99.9, 100]
    s = L.DEFAULT_SETTINGS.with_(draftCost=25, verifyTax=7)
    grid = L.speedup_grid(s, lookaheads, acceptances)
    assert len(grid) == len(acceptances)
    assert all(len(row) == len(lookaheads) for row in grid)
    for i, a in enumerate(acceptances):
        for j, m in enumerate(lookaheads):
            assert grid[i][j] == L.ledger(s.with_(acceptance=a, lookahead=m)).speedup
    # rows rise with acceptance at every lookahead
    for j in range(len(lookaheads)):
        column = [grid[i][j] for i in range(len(acceptances))]
        assert column == sorted(column)
    assert L.speedup_grid(s, [], acceptances) == [[] for _ in acceptances]
    assert L.speedup_grid(s, lookaheads, []) == []


@settings(max_examples=300, deadline=None)
@given(acceptance=acceptances, cost=costs, m=lookaheads, overhead=st.floats(0, 200), target=st.floats(1, 500),
       tax=st.floats(0, 50))
def test_cycle_breakdown_sums_to_the_cycle(acceptance, cost, m, overhead, target, tax):
    s = LedgerSettings(acceptance, cost, m, overhead, target, tax)
    parts = L.cycle_breakdown(s)
    r = L.ledger(s)
    assert set(parts) == {"draft", "verify", "overhead"}
    assert parts["draft"] == r.draftMs and parts["verify"] == r.verifyMs and parts["overhead"] == overhead
    assert sum(parts.values()) == pytest.approx(r.cycleMs, rel=1e-15)
    assert all(v >= 0 for v in parts.values())


# --- the ledger widget reads its heatmap's axes, never a typed copy (review CR-1.5, CR-1.6) ---------

def _selected_cell(view) -> tuple[str, int]:
    """The marked cell of the view's heatmap table: its row's acceptance label and its column."""
    import re

    for row in re.findall(r"<tr><th scope=\"row\">([^<]*)</th>(.*?)</tr>", view["figures"]["table"]):
        cells = re.findall(r"<td([^>]*)>", row[1])
        marked = [i for i, attributes in enumerate(cells) if "selected" in attributes]
        if marked:
            return row[0], marked[0]
    raise AssertionError("no cell is marked")


@pytest.mark.parametrize("acceptance, lookahead, row", [(74, 5, "75%"), (72, 1, "70%"), (0, 12, "0%"), (100, 3, "100%")])
def test_the_selected_cell_is_the_nearest_of_the_heatmaps_axes(acceptance, lookahead, row):
    from lab.widgets import ledger as widget

    view = widget.view({"acceptance": str(acceptance), "lookahead": str(lookahead)})
    assert _selected_cell(view) == (row, lookahead - 1)
    assert view["bestLookahead"] == L.best_lookahead(LedgerSettings(**view["params"]))[0]


def test_the_selected_cell_follows_a_heatmap_with_other_steps(monkeypatch):
    """With rows every 10% and columns from k = 2, the reader's cell is still the nearest one: the
    widget reads the axes' first value and step (the `/ 5` and `- 1` it once typed would mark the
    wrong cell or none)."""
    from lab.widgets import ledger as widget

    monkeypatch.setattr(L, "HEATMAP_ACCEPTANCES", tuple(float(a) for a in range(0, 101, 10)))
    monkeypatch.setattr(L, "HEATMAP_LOOKAHEADS", tuple(range(2, 13)))
    widget._heatmap.cache_clear()
    try:
        assert _selected_cell(widget.view({"acceptance": "74", "lookahead": "5"})) == ("70%", 3)
        assert _selected_cell(widget.view({"acceptance": "36", "lookahead": "12"})) == ("40%", 10)
    finally:
        widget._heatmap.cache_clear()


# --- the ledger widget on a measured curve: its map stays one alpha's, and says so -------------------

def test_on_a_curve_the_heatmaps_outline_says_the_curve_has_no_row():
    """In measured-curve mode the heatmap is still one acceptance at every position, and the outlined cell is the
    set-aside slider's row: the selection's label says so and gives the curve's speedup as the curve's, where it
    called the slider's row 'your setting'; one extrapolated position is named as one."""
    import html
    import re

    from lab.widgets import ledger as widget

    view = widget.view({"trcCurve": "custom:0.9,0.5,0.2", "lookahead": "4"})
    label = html.unescape(re.search(r'aria-label="([^"]*)"', view["figures"]["heatmapSelection"]).group(1))
    assert label == (f"Outlined: the set-aside acceptance slider's 75% row at lookahead 4 (the map is one acceptance "
                     f"at every position; your measured curve has no row in it); your curve gives "
                     f"{to_fixed(view['ledger']['speedup'], 2)}x.")
    assert "position 4 extrapolated by the acceptance model past the measured k = 3" in view["summary"]
    plain = widget.view({"lookahead": "4"})
    assert "Selected setting: acceptance 74% and lookahead 4" in plain["figures"]["heatmapSelection"]
