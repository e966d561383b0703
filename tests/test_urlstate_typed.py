"""A log slider's typed twin (N4-22): a batch or a context typed between powers of two is computed at that
count, in the panel and in the serving instrument; the link keeps it; an old link with the exponent alone
still loads at its power of two; a bad count is one note in the reader's words, never a traceback."""

import math

import pytest
from hypothesis import given, settings, strategies as st

from lab import deployment
from lab.urlstate import read_typed
from lab.widgets import deployment as panel, serving as serving_widget

BATCH = panel.SLIDERS[3]


def test_the_panel_computes_at_the_typed_batch_not_its_power_of_two():
    at_48 = panel.view({"batchExp": "6", "batch": "48"})
    d = panel.DEFAULT._replace(batch=48)  # the default figure (2.8 at k = 4) travels as a curve (the draft family's prior)
    curve = deployment.figure_curve(deployment.alpha_from(panel.DEFAULT_VALUE, panel.DEFAULT_UNIT,
                                                          panel.DEFAULT_MEASURED_K), panel.DEFAULT_MEASURED_K, d.draft, target=d.target)
    expected = deployment.answer(d, at_48["answer"]["alpha"], curve)
    assert at_48["answer"]["serving"]["speedup"] == expected["serving"]["speedup"]
    at_64 = panel.view({"batchExp": "6"})
    assert at_48["answer"]["serving"]["speedup"] != at_64["answer"]["serving"]["speedup"]
    assert at_48["notes"] == [] and at_48["params"]["batch"] == 48 and at_64["params"]["batch"] == 64
    # what it sends serving: the count beside its stop, and serving computes at it
    sent = at_48["answer"]["values"]["serving"]
    assert (sent["batchExp"], sent["batch"]) == (6, 48)
    srv = serving_widget.view({k: str(v) for k, v in sent.items()})
    assert srv["lead"].startswith(("At batch 48,", "On the measured curve, at batch 48,")), srv["lead"]


def test_the_link_keeps_the_count_and_an_old_link_loads_at_its_power():
    query = panel.view({"batchExp": "6", "batch": "48", "contextExp": "12", "context": "3000"})["query"]
    assert "depBatchLog2=6&depBatch=48" in query and "depContextLog2=12&depContext=3000" in query
    again = panel.view("?" + query)
    assert (again["params"]["batch"], again["params"]["context"], again["notes"]) == (48, 3000, [])
    assert panel.view("?depBatchLog2=6")["params"]["batch"] == 64
    assert "depBatch=" not in panel.view("?depBatchLog2=6")["query"]
    # a link that dropped the exponent (it was the default): the slider follows the count
    assert panel.view("?depBatch=40")["params"]["batchExp"] == 5
    assert serving_widget.view("?srvBatch=100")["readouts"]["batch"] == "100"


@pytest.mark.parametrize("typed, note", [
    ("abc", "Batch B: 'abc' is not a number; using 32 sequences (valid: a whole number, 1 to 1,024 sequences)"),
    ("5000", "Batch B: 5,000 sequences is more than the largest, 1,024 sequences; using 1,024 sequences"),
    ("0", "Batch B: 0 sequences is less than the smallest, 1 sequence; using 1 sequence"),
    ("48.5", "Batch B: 48.5 sequences is not a whole number from 1 to 1,024; using 49 sequences"),
])
def test_a_bad_count_in_a_link_is_one_note_in_the_readers_words(typed, note):
    got = panel.view(f"?depBatch={typed}")
    assert got["notes"] == [note]


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 1024), st.integers(0, 10))
def test_the_count_counts_only_where_its_nearest_stop_is_the_sliders(count, exponent):
    """The page keeps the twin on a count whose nearest stop is the slider's; a slider moved since
    (the twin not yet in step) gives the stop, never a count the slider does not show."""
    got, stop, note = read_typed(BATCH, str(count), exponent)
    nearest = round(math.log2(count))
    assert note is None and stop == exponent
    assert got == (count if nearest == exponent else 2 ** exponent)


def test_a_huge_count_in_a_link_is_named_short_not_in_three_hundred_digits():
    """Found by the fuzz test of parse_query (?certainty=1e308): a count in a unit prints with thousands
    separators ("99,999%") only up to where JavaScript itself turns to its exponent form."""
    from lab.urlstate import EXACT_SLIDERS, reader_note

    certainty = next(s for s in EXACT_SLIDERS if s.name == "certainty")
    assert reader_note(certainty, "1e308")[1] == "Target certainty: 1e+308% is more than the largest, 100%; using 100%"
    assert reader_note(certainty, "99999")[1].startswith("Target certainty: 99,999% is more than the largest")
