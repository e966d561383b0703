"""The reader audit's two tasks (../shared/reviews/reader-audit-2026-12.md, section 1), counted in Chromium
at 390 px and at 1280 px: each gives one answer in at most 3 interactions.

1. "vLLM prints Mean acceptance length 2.8 at num_speculative_tokens=4; Llama-3-70B with an EAGLE head on
   4 H100s at batch 32, 2k context. Will speculation pay, and with which k?" (one dashboard number)
2. "Here is my vLLM log line [...] Per-position acceptance rate: 0.734, [...] What should I set k to?"

An interaction is what a reader does with a hand: a tap or click, one typed or pasted entry (with its
Enter), or a scroll, counted as the audit counted them: a control or an answer outside the viewport costs
one scroll that brings it in, so Playwright's own scrolling never hides one. The answer counts
only when it is on screen and is the lab's answer (CPython's view) for what the form then holds."""

import re

import pytest

from lab.widgets import deployment as widget
from sitepage import RENDER_TIMEOUT_MS, wait_live, wait_summary
from test_site_deployment import form_values
from test_site_reader import VLLM_LINE

LIMIT = 3
ANSWER = "#deployment-lab output[name='lead']"
WIDTHS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}


class Reader:
    """A page and the interactions spent on it, each named (the failure message lists them)."""

    def __init__(self, pg, viewport):
        self.pg, self.height, self.steps = pg, viewport["height"], []

    def bring_into_view(self, selector):
        box = self.pg.locator(selector).bounding_box()
        assert box is not None, f"{selector} is not laid out"
        below, above = box["y"] + box["height"] - self.height, -box["y"]
        if max(below, above) > 0:
            self.steps.append(f"scroll to {selector}")
            self.pg.locator(selector).scroll_into_view_if_needed()

    def click(self, selector):
        self.bring_into_view(selector)
        self.steps.append(f"tap {selector}")
        self.pg.click(selector)

    def enter(self, selector, text):
        """One typed or pasted entry, committed as a reader commits it (Enter)."""
        self.bring_into_view(selector)
        self.steps.append(f"enter {text[:20]!r} in {selector}")
        self.pg.fill(selector, text)
        self.pg.press(selector, "Enter")

    def read_answer(self, expected_values):
        """The panel's one-sentence answer, once it is the lab's for ``expected_values`` and on screen."""
        # what the reader entered has been read: a pasted line becomes its number, unit and k once rendered
        try:
            self.pg.wait_for_function("""(want) => Object.entries(want).every(([name, value]) =>
                document.querySelector(`form[data-lab=deployment] [name="${name}"]`).value === value)""",
                                      arg=expected_values, timeout=RENDER_TIMEOUT_MS)
        except Exception as error:
            raise AssertionError(f"the panel never held {expected_values}: {form_values(self.pg, 'deployment')}; "
                                 f"{self.steps}") from error
        values = form_values(self.pg, "deployment")
        view = widget.view(values)
        wait_summary(self.pg, "deployment", view["summary"])
        self.bring_into_view(ANSWER)
        lead = self.pg.locator(ANSWER).text_content()
        assert lead == view["lead"]
        return lead


def best_k(lead):
    """The one k a lead names as best: "1.61x at lookahead 4, the best lookahead." or "... the best
    lookahead is 3 (1.81x)."; None when it names none or two."""
    named = re.findall(r"the best lookahead is (\d+)", lead) + re.findall(r"at lookahead (\d+), the best lookahead\.",
                                                                       lead)
    return int(named[0]) if len(named) == 1 else None


def _reader_at_the_panel(page, width):
    """The page live at ``width``, and a reader whose first interaction is the lede's jump to the panel."""
    pg = page(viewport=WIDTHS[width])
    pg.goto(pg.base_url)
    wait_live(pg)
    reader = Reader(pg, WIDTHS[width])
    reader.click(".lede-jump a")
    return pg, reader


# the question's deployment: what the panel must hold when the answer is read
TASK_ONE = {"value": "2.8", "unit": "length", "measuredK": "4", "target": "llama-3-70b", "draft": "eagle-head",
            "gpu": "h100-sxm", "gpus": "4", "batchExp": "5", "contextExp": "11"}


@pytest.mark.parametrize("width", WIDTHS)
def test_one_dashboard_number_gives_one_answer_in_three_interactions(page, width):
    pg, reader = _reader_at_the_panel(page, width)
    # context 2,048 typed beside its log slider (N4-22), not hunted along it
    reader.enter("#deployment-contextExp-typed", "2048")
    lead = reader.read_answer(TASK_ONE)
    assert len(reader.steps) <= LIMIT, reader.steps
    # one answer: whether it pays, and which k
    assert re.search(r"speculation (pays|does not pay)", lead) and best_k(lead) is not None, lead
    assert pg.console_errors == []


@pytest.mark.parametrize("width", WIDTHS)
def test_one_vllm_log_line_gives_one_k_in_three_interactions(page, width):
    pg, reader = _reader_at_the_panel(page, width)
    reader.enter("#deployment-value", VLLM_LINE)  # the whole line, pasted into the acceptance figure
    lead = reader.read_answer({"value": "2.79", "unit": "length", "measuredK": "6"})
    assert len(reader.steps) <= LIMIT, reader.steps
    assert best_k(lead) == widget.view(form_values(pg, "deployment"))["answer"]["serving"]["bestLookahead"], lead
    assert pg.console_errors == []
