"""The instruments: the one table that lists them, and the convention that finds their parts.

The seed widgets (the ledger and the exact sampler) predate this table. Every instrument added
after them has one name in :data:`NAMES` and, by that name, five parts:

    lab/NAME.py                      the model: pure functions, standard library only
    lab/widgets/NAME.py              its figures (one function each) and the view:
                                       view(raw) -> dict         one region of the page, never raises
                                       page_context() -> dict    what the build pre-renders
    lab/checks/NAME.py               CHECKS, its named checks, and signature_value() for the
                                     instruments suite (lab/checks/__init__.py)
    lab/commands/NAME.py             add_parser(commands) and run(args) -> (document, text, status)
    templates/partials/NAME.html.j2  its markup: a form[data-lab="NAME"] inside a .lab-widget

Nothing else needs to learn the name: the page's JavaScript discovers widgets from the markup,
the worker's ``handle`` and the CLI dispatch through this table, and the build pre-renders every
entry. Parts are imported on first use, so a reader pays for an instrument's module only when its
widget nears the viewport (the page asks the worker to ``warm`` it), and ``python -m lab audit``
never imports an instrument.
"""

import importlib

__all__ = ["NAMES", "part", "is_instrument"]

NAMES: tuple[str, ...] = ("traces", "serving", "policies", "trees", "realtext")

ROLES = ("widgets", "checks", "commands")


def is_instrument(name) -> bool:
    """Whether ``name`` is a registered instrument (the worker sees untrusted kinds)."""
    return isinstance(name, str) and name in NAMES


def part(role: str, name: str):
    """The module ``lab.<role>.<name>``, imported on first use.

    >>> part("widgets", "no-such-instrument")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    KeyError: "unknown instrument 'no-such-instrument'; valid: ..."
    """
    if role not in ROLES:
        raise KeyError(f"unknown role {role!r}; valid: {', '.join(ROLES)}")
    if not is_instrument(name):
        raise KeyError(f"unknown instrument {name!r}; valid: {', '.join(NAMES) or 'none registered'}")
    return importlib.import_module(f"lab.{role}.{name}")
