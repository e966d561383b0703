"""Views and figures of the instruments, one module each (see :mod:`lab.instruments`)."""


def ledger_lookahead(k: int) -> str:
    """``k`` as the ledger's lookahead slider holds it (clamped to its range, as a query value), for
    a hand-off to the ledger from a widget whose lookahead may run past the slider's end.

    >>> ledger_lookahead(3), ledger_lookahead(40)
    ('3', '12')
    """
    from ..urlstate import LEDGER_SLIDERS, clamp_value

    slider = next(s for s in LEDGER_SLIDERS if s.name == "lookahead")
    return str(clamp_value(slider, k)[0])
