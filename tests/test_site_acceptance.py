"""An acceptance curve through the page in Chromium: typed into the deployment panel's curve box, the panel
answers what CPython's view answers, and "Use in every instrument" sets the ledger, serving and the lookahead
policies to the curve itself (the token of 4-decimal rates), each then showing what CPython gives for it."""

from lab import acceptance
from lab.widgets import deployment as widget, ledger as ledger_widget, serving as serving_widget
from sitepage import notes, wait_live, wait_summary
from test_site_deployment import SELECTOR, form_values, set_control

KIND = "deployment"
DSV4_MTP = ",".join(f"{k}:{value}" for k, value in
                    enumerate(acceptance.library_lengths("dsv4-pro-mtp-thinking"), start=1))


def test_the_held_out_table_is_a_plain_link_away_with_javascript_off(page):
    """The held-out table lives on the appendix page: with JavaScript off the fold's plain link reaches it."""
    pg = page(viewport={"width": 390, "height": 800}, java_script_enabled=False)
    pg.goto(pg.base_url)
    assert pg.locator("table.acceptance-held-out").count() == 0
    floor = " ".join(pg.locator(".acceptance-floor").text_content().split())
    link = pg.locator('.acceptance-curve a[data-appendix="appendix-held-out"]')
    pg.locator(".acceptance-curve details.fold > summary").nth(1).click()
    link.click()
    pg.wait_for_url("**/appendix.html#appendix-held-out")
    table = pg.locator("#appendix-held-out table.acceptance-held-out")
    assert table.count() == 1
    assert table.locator("tbody tr").count() == len(acceptance.CURVES)
    assert "Too few curves to trust" in pg.locator("#appendix-held-out .acceptance-too-few").text_content()
    from lab import acceptance_validation

    apart = acceptance_validation.page_facts()["apart"]
    assert f"misses each by {100 * apart['floor']:.0f}%" in floor
    assert f"{100 * apart['medianErrors'][0]:.1f}% from k = 1 and {100 * apart['medianErrors'][1]:.1f}%" in floor


def test_the_held_out_fold_fills_in_from_the_appendix_with_javascript_on(page):
    """With JavaScript on, opening the fold puts the appendix's table where the link was."""
    pg = page(viewport={"width": 390, "height": 800})
    pg.goto(pg.base_url)
    fold = pg.locator(".acceptance-curve details.fold").nth(1)
    fold.locator("> summary").click()
    table = fold.locator("table.acceptance-held-out")
    table.wait_for()
    assert table.locator("tbody tr").count() == len(acceptance.CURVES)
    assert fold.locator(".appendix-link").count() == 0 and fold.locator(".acceptance-too-few").count() == 1


def test_a_curve_in_the_panel_reaches_every_instrument(page):
    pg = page(viewport={"width": 1280, "height": 900})
    pg.goto(pg.base_url + "#deployment-lab")
    wait_live(pg)
    for name, value in {"target": "deepseek-v3", "gpu": "h200", "gpus": "8", "batchExp": "0", "lookahead": "4",
                        "curve": DSV4_MTP}.items():
        set_control(pg, name, value)
    view = widget.view(form_values(pg, KIND))
    wait_summary(pg, KIND, view["summary"])
    assert notes(pg, KIND) == []
    assert "plateaus from k = 4" in view["summary"]
    token = view["answer"]["values"]["serving"]["srvCurve"]
    assert token.startswith("custom:0.7900,")
    pg.click(f"{SELECTOR} button[data-action='send-all']")
    pg.wait_for_function("(sel) => document.querySelector(`${sel} [data-send-status]`).textContent.includes('Sent to')",
                         arg=SELECTOR)
    assert form_values(pg, "ledger")["trcCurve"] == token
    assert form_values(pg, "serving")["srvCurve"] == token
    assert form_values(pg, "policies")["polCurve"] == token
    assert form_values(pg, "trees")["treCurve"] == token  # the trees show their depth profile on it
    wait_summary(pg, "ledger", ledger_widget.view(form_values(pg, "ledger"))["summary"])
    wait_summary(pg, "serving", serving_widget.view(form_values(pg, "serving"))["summary"])
