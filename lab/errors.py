"""The lab's one error type for bad arguments.

A model function called with an argument outside what it accepts (a probability row that does
not sum to 1, a lookahead vector that is empty, a digit count out of range) raises
:class:`LabValueError`, whose message names the argument, what it got and what is valid. It is a
``ValueError``, so ``except ValueError`` still catches it. Readers never meet it: sliders and URLs
are clamped before a model sees them (:mod:`lab.urlstate`), and the CLI refuses bad flags with
one line (:mod:`lab.cli`); a view that fails anyway is reported in its own widget
(:func:`lab.views.handle`).
"""

__all__ = ["LabValueError"]


class LabValueError(ValueError):
    """A model was given an argument it does not accept.

    >>> issubclass(LabValueError, ValueError)
    True
    """
