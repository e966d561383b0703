"""The widgets: the one table that lists them, and the convention that finds their parts.

Every widget on the page has one name here and, by that name, the same parts:

    lab/NAME.py                      the model: pure functions, standard library only
    lab/widgets/NAME.py              its figures (one function each) and the view:
                                       view(raw) -> dict         one region of the page, never raises
                                       page_context() -> dict    what the build pre-renders
    lab/commands/NAME.py             add_parser(commands) and run(args) -> (document, text, status)
    templates/partials/NAME.html.j2  its markup: a form[data-lab="NAME"] inside a .lab-widget

and a place in one of the two audits, which is what tells the two kinds of widget apart:

* the seed's widgets (:data:`SEED`: the latency ledger and the exact sampler) are checked by the
  seed audit, :mod:`lab.audit` (20 fixed checks, docs/CONTRACT.md), and have no family of their own;
* an instrument (:data:`NAMES`) also has ``lab/checks/NAME.py``: ``CHECKS``, its named checks,
  and ``signature_value()``, its family in the instruments suite (lab/checks/__init__.py), whose
  signature lists the families in the order of :data:`NAMES`.

Nothing else needs to learn a name: the page's JavaScript discovers widgets from the markup,
the worker's ``handle`` and the CLI dispatch through this table, and the build pre-renders every
entry. Parts are imported on first use, so a reader pays for a widget's module only when it
nears the viewport (the page asks the worker to ``warm`` it), and ``python -m lab audit``
never imports a widget. A new instrument is one more name in :data:`NAMES`.
"""

import importlib

__all__ = ["SEED", "NAMES", "ROLES", "widget_names", "is_widget", "is_instrument", "part"]

SEED: tuple[str, ...] = ("ledger", "exact")
NAMES: tuple[str, ...] = ("traces", "serving", "policies", "trees", "realtext", "deployment")

ROLES = ("widgets", "checks", "commands")


def widget_names() -> tuple[str, ...]:
    """Every widget, the seed's first, in page order.

    >>> widget_names()[:2]
    ('ledger', 'exact')
    """
    return SEED + NAMES


def is_widget(name) -> bool:
    """Whether ``name`` is a widget of the page (the worker sees untrusted kinds).

    >>> is_widget("ledger"), is_widget("trees"), is_widget(["ledger"]), is_widget("audit")
    (True, True, False, False)
    """
    return isinstance(name, str) and name in widget_names()


def is_instrument(name) -> bool:
    """Whether ``name`` is an instrument: a widget with a family in the instruments suite.

    >>> is_instrument("trees"), is_instrument("ledger")
    (True, False)
    """
    return isinstance(name, str) and name in NAMES


def part(role: str, name: str):
    """The module ``lab.<role>.<name>``, imported on first use. Every widget has a ``widgets``
    and a ``commands`` part; only an instrument has ``checks``.

    >>> part("widgets", "no-such-widget")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    KeyError: "unknown widget 'no-such-widget'; valid: ledger, exact, ..."
    >>> part("checks", "ledger")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    KeyError: "unknown instrument 'ledger' (the seed's widgets are checked by lab.audit); valid: ..."
    """
    if role not in ROLES:
        raise KeyError(f"unknown role {role!r}; valid: {', '.join(ROLES)}")
    if role == "checks" and not is_instrument(name):
        seed = " (the seed's widgets are checked by lab.audit)" if name in SEED else ""
        raise KeyError(f"unknown instrument {name!r}{seed}; valid: {', '.join(NAMES) or 'none registered'}")
    if not is_widget(name):
        raise KeyError(f"unknown widget {name!r}; valid: {', '.join(widget_names())}")
    return importlib.import_module(f"lab.{role}.{name}")
