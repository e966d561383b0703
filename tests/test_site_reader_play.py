"""Play does not talk over itself (reader audit N4-11): while real text plays, its live region speaks every few
steps and at the end, not at every render. Counted in Chromium over a whole run: a count, not a time."""

import math

from lab.widgets import realtext as widget
from sitepage import wait_live

SELECTOR = "#realtext-lab"
EVERY = 5  # app.js's PLAY_ANNOUNCE_EVERY: one announcement per this many steps

COUNT_ANNOUNCEMENTS = """() => {
  window.__said = []; window.__steps = [];
  const live = document.querySelector('#realtext-lab [data-live]');
  new MutationObserver(() => window.__said.push(live.textContent)).observe(live, {childList: true, characterData: true, subtree: true});
  // each step Play takes sets the step control and sends it as a reader's change (an input event)
  document.getElementById('realtext-step').addEventListener('input', (e) => window.__steps.push(e.target.value));
}"""


def test_play_announces_every_few_steps_and_at_the_end_not_every_render(page):
    pg = page(viewport={"width": 1280, "height": 900})
    pg.goto(pg.base_url)
    wait_live(pg)
    pg.locator(SELECTOR).scroll_into_view_if_needed()
    calls = int(widget.view(None)["readouts"]["calls"])
    first = int(pg.get_attribute(f"{SELECTOR} button[data-action='play']", "data-from"))
    pg.wait_for_function("() => !document.querySelector('#realtext-lab button[data-action=\\'play\\']').disabled",
                         timeout=120_000)   # the widget's first render is in (its module loads as it nears)
    pg.evaluate(COUNT_ANNOUNCEMENTS)
    pg.click(f"{SELECTOR} button[data-action='play']")
    pg.wait_for_function(f"() => document.getElementById('realtext-step').value === '{calls}' && "
                         "document.querySelector('#realtext-lab button[data-action=\"stop\"]').disabled", timeout=120_000)
    pg.wait_for_timeout(500)  # (not a timing assertion: lets the last render's mutations arrive before counting)
    said = [text for text in pg.evaluate("() => window.__said") if text.strip()]
    steps = calls - first + 1
    renders = len(set(pg.evaluate("() => window.__steps")))  # the calls Play showed
    assert renders >= steps - 1, (renders, steps)       # the run really was played call by call
    assert 1 <= len(said) <= math.ceil(steps / EVERY) + 1, (len(said), steps, said)
    assert len(said) < renders / 2, (len(said), renders)  # far fewer announcements than renders
