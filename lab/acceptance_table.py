"""The appendix's held-out acceptance table as text, apart from the leave-one-out run that fills it
(:mod:`lab.acceptance_validation`, build-only): the browser's instruments suite renders made-up results through it
in milliseconds (lab.checks.deployment), where leave-one-out itself takes seconds."""

from __future__ import annotations

from .acceptance import FAMILIES, FAMILY_NAMES
from .acceptance_curves import CURVES

__all__ = ["signed", "held_out_table_html", "family_spread"]


def signed(x: float) -> str:
    """A signed percentage with a true minus sign, as the held-out table prints them: ``+9.8%``, ``\u22123.7%``;
    one that rounds to zero has no sign (it printed "\u22120.0%").

    >>> signed(0.098), signed(-0.037), signed(-0.0004), signed(0.0)
    ('+9.8%', '\u22123.7%', '0.0%', '0.0%')
    """
    text = f"{100 * x:.1f}"
    return "0.0%" if float(text) == 0 else f"{100 * x:+.1f}%".replace("-", "\u2212")


def held_out_table_html(one: dict, two: dict) -> str:
    """The leave-one-out table and its caption from :func:`lab.acceptance_validation.leave_one_out`'s results from k = 1 (``one``) and from
    k = 1..2 (``two``), rows in order: the curve, its method, k, the measured length, and each prediction with its
    error beside i.i.d.'s. Apart from :func:`lab.acceptance_validation.held_out_html` so that a check renders given results in milliseconds
    (leave-one-out itself takes seconds).

    >>> row = {"name": next(iter(CURVES)), "family": "eagle", "lookahead": 8, "measured": 3.0, "predicted": 3.3,
    ...        "error": 0.1, "iid": 2.7, "iidError": -0.1}
    >>> result = {"rows": [row], "medianError": 0.1, "medianIidError": 0.1, "better": 0, "covered": 1}
    >>> "<td>3.00</td><td>3.30 (+10.0%)</td><td>2.70 (\u221210.0%)</td>" in held_out_table_html(result, result)
    True
    """
    from .figures import escape

    rows = []
    for a, b in zip(one["rows"], two["rows"]):
        label = CURVES[a["name"]][3]
        rows.append(f'<tr><th scope="row">{escape(label)}</th><td>{escape(FAMILY_NAMES[a["family"]])}</td>'
                    f'<td>{a["lookahead"]}</td><td>{a["measured"]:.2f}</td>'
                    f'<td>{a["predicted"]:.2f} ({signed(a["error"])})</td><td>{a["iid"]:.2f} ({signed(a["iidError"])})</td>'
                    f'<td>{b["predicted"]:.2f} ({signed(b["error"])})</td><td>{b["iid"]:.2f} ({signed(b["iidError"])})</td></tr>')
    caption = (f"Each curve left out in turn and predicted at its largest k. From k = 1: median error "
               f"{100 * one['medianError']:.1f}% against the independent model's {100 * one['medianIidError']:.1f}% "
               f"(one rate at every position), closer than it on {one['better']} of {len(one['rows'])}, inside the "
               f"80% interval (made without it) on {one['covered']}. From k = 1..2: "
               f"{100 * two['medianError']:.1f}% against {100 * two['medianIidError']:.1f}%, closer on {two['better']} of "
               f"{len(two['rows'])}, inside the interval on {two['covered']}.")
    # the table scrolls sideways in its own wrapper; the notes below it wrap with the page, not under its edge fade
    return ('<div class="table-wrap" tabindex="0" role="group" aria-label="Acceptance curves predicted with each left '
            'out"><table class="acceptance-held-out"><caption>' + escape(caption) + '</caption>'
            '<thead><tr><th scope="col">Curve</th><th scope="col">Method</th><th scope="col">k</th>'
            '<th scope="col">Measured</th><th scope="col">From k = 1</th><th scope="col">Independent, from k = 1</th>'
            '<th scope="col">From k = 1..2</th><th scope="col">Independent, from k = 1..2</th></tr></thead><tbody>'
            + "".join(rows) + '</tbody></table></div>')


def family_spread(one: dict, two: dict) -> str:
    """Each family's count of curves and median error from k = 1 and from k = 1..2 (``byFamily`` of
    :func:`lab.acceptance_validation.leave_one_out`'s two results), in :data:`FAMILIES` order.

    >>> family_spread({"byFamily": {"mtp": {"curves": 1, "medianError": 0.099}}}, {"byFamily": {"mtp": {"medianError": 0.093}}})
    'MTP heads: 1 curve, median error 9.9% from k = 1 and 9.3% from k = 1..2'
    """
    return "; ".join(
        f"{FAMILY_NAMES[f]}: {one['byFamily'][f]['curves']} curve{'s' if one['byFamily'][f]['curves'] != 1 else ''}, "
        f"median error {100 * one['byFamily'][f]['medianError']:.1f}% from k = 1 and "
        f"{100 * two['byFamily'][f]['medianError']:.1f}% from k = 1..2"
        for f in FAMILIES if f in one["byFamily"])
