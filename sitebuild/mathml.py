"""Build-time LaTeX -> MathML for the article (no math JavaScript in the page).

``register(env)`` adds two Jinja filters (also exposed as globals):

* ``math(latex)``          -> inline ``<math>`` Markup
* ``display_math(latex)``  -> ``<math display="block">`` Markup

Use the block form in templates so the LaTeX reaches the filter verbatim::

    {% filter math %}\\frac{1 - p^{m+1}}{1 - p}{% endfilter %}

(Jinja string literals process backslash escapes, so ``{{ "\\frac{a}{b}"|math }}``
would hand the filter a form feed followed by ``rac``. The filter repairs the
unambiguous cases -- ``\\f \\t \\b \\v \\a \\r`` -- but cannot tell ``\\n`` from a
real newline: write ``\\\\neq`` inside a string literal, or use the block form.)

The output of latex2mathml is post-processed so that it suits MathML Core as
rendered natively by Chromium and our Content-Security-Policy:

* ``style`` attributes are removed (CSP ``style-src 'self'`` blocks them).
* ``columnalign`` on ``<mtd>`` (not part of MathML Core) becomes a class,
  ``ml-left`` / ``ml-right`` / ``ml-center``, which ``site/style.css`` aligns.
* ``\\mathrm{draftMs}`` (emitted as one ``<mi>`` per letter) becomes a single
  ``<mi>draftMs</mi>``, which renders upright and reads as one word; a single
  upright letter such as ``\\mathrm{E}`` becomes ``<mtext>E</mtext>`` (latex2mathml
  would otherwise emit an italic ``<mi>``).
* Named functions emitted as ``<mo>min</mo>`` become ``<mi>min</mi>`` followed
  by an invisible function application, so Chromium does not pad them like a
  binary operator.
* The redundant ``xmlns`` is dropped (the HTML parser puts ``<math>`` in the
  MathML namespace itself).

Every result is parsed as XML before it is returned; constructs that
latex2mathml renders badly (``aligned`` with ``&``, ``\\boxed`` -> ``menclose``)
raise ``ValueError`` at build time instead of reaching the page. Conversions are
pure functions of their input, so the output is deterministic.
"""

from __future__ import annotations

import functools
import re
import xml.etree.ElementTree as ET

from latex2mathml.converter import convert
from markupsafe import Markup

__all__ = ["to_mathml", "math", "display_math", "register", "glue_punctuation"]

# Control characters that Jinja's string-literal unescaping produces from
# LaTeX commands (\frac -> form feed + "rac", \text -> tab + "ext", ...).
_JINJA_UNESCAPE = {
    "\f": "\\f",
    "\t": "\\t",
    "\b": "\\b",
    "\v": "\\v",
    "\a": "\\a",
    "\r": "\\r",
}

# Elements outside MathML Core that Chromium does not render.
_UNSUPPORTED = ("menclose", "mfenced", "maction", "mlabeledtr", "mglyph")

_XMLNS = ' xmlns="http://www.w3.org/1998/Math/MathML"'
_STYLE_ATTR = re.compile(r'\s+style\s*=\s*(?:"[^"]*"|\'[^\']*\')')
_COLUMNALIGN = re.compile(r'<mtd columnalign="(left|right|center)"')
_UPRIGHT_RUN = re.compile(r'<mrow>((?:<mi mathvariant="normal">[A-Za-z0-9]</mi>){2,})</mrow>')
_UPRIGHT_LETTER = re.compile(r'<mi mathvariant="normal">([A-Za-z0-9])</mi>')
# A named function as an operator, e.g. <mo>min</mo>. If it is the first child
# of a script element it is a base and must stay a single element.
_SCRIPTED_BASE = re.compile(
    r'(<(?:msub|msup|msubsup|munder|mover|munderover)>)<mo(?: movablelimits="(?:true|false)")?>([A-Za-z]{2,})</mo>'
)
_NAMED_OP = re.compile(r'<mo(?: movablelimits="(?:true|false)")?>([A-Za-z]{2,})</mo>')
# <mtd /> and <mspace /> -> explicit end tags (valid either way in MathML, but sturdier).
_SELF_CLOSING = re.compile(r"<([a-z]+)((?:\s+[a-z-]+=\"[^\"]*\")*)\s*/>")
_FUNCTION_APPLICATION = "<mo>&#x02061;</mo>"
# latex2mathml drops \mathrm on a single letter (\mathrm{E} -> italic <mi>E</mi>).
_MATHRM_LETTER = re.compile(r"\\mathrm\{\s*([A-Za-z])\s*\}")


def _repair_jinja_escapes(latex: str) -> str:
    for char, command in _JINJA_UNESCAPE.items():
        latex = latex.replace(char, command)
    return _MATHRM_LETTER.sub(r"\\text{\1}", latex)


def _postprocess(mathml: str) -> str:
    out = mathml.replace(_XMLNS, "")
    out = _STYLE_ATTR.sub("", out)
    out = _COLUMNALIGN.sub(r'<mtd class="ml-\1"', out)
    out = _UPRIGHT_RUN.sub(lambda m: "<mi>" + "".join(_UPRIGHT_LETTER.findall(m.group(1))) + "</mi>", out)
    out = _SCRIPTED_BASE.sub(r"\1<mi>\2</mi>", out)
    out = _NAMED_OP.sub(r"<mi>\1</mi>" + _FUNCTION_APPLICATION, out)
    out = _SELF_CLOSING.sub(r"<\1\2></\1>", out)
    return out


def _check(latex: str, mathml: str) -> None:
    try:
        root = ET.fromstring(mathml)
    except ET.ParseError as exc:  # e.g. "&" column separators outside an array
        raise ValueError(f"latex2mathml produced malformed MathML for {latex!r}: {exc}") from exc
    for element in root.iter():
        tag = element.tag
        if tag in _UNSUPPORTED:
            raise ValueError(f"{latex!r} produced <{tag}>, which Chromium does not render (not MathML Core)")
        if "style" in element.attrib:
            raise ValueError(f"{latex!r} produced a style attribute, which the CSP would block")
        if element.text and "\\" in element.text:  # a command latex2mathml does not know, left as text
            raise ValueError(f"{latex!r} left {element.text!r} unconverted (a LaTeX command latex2mathml does not "
                             f"know; \\operatorname{{...}} names a function)")


@functools.lru_cache(maxsize=None)
def to_mathml(latex: str, display: str = "inline") -> str:
    """Convert LaTeX to a MathML string (``display`` is ``"inline"`` or ``"block"``)."""
    if display not in ("inline", "block"):
        raise ValueError(f"display must be 'inline' or 'block', not {display!r}")
    source = _repair_jinja_escapes(str(latex)).strip()
    if not source:
        raise ValueError("empty formula")
    mathml = _postprocess(convert(source, display=display))
    _check(source, mathml)
    return mathml


def math(latex: str) -> Markup:
    """Inline formula: ``<math display="inline">...</math>``."""
    return Markup(to_mathml(str(latex), "inline"))


def display_math(latex: str) -> Markup:
    """Display formula: ``<math display="block">...</math>``."""
    return Markup(to_mathml(str(latex), "block"))


def register(env) -> None:
    """Add the ``math`` and ``display_math`` filters and globals to a Jinja environment."""
    env.filters["math"] = math
    env.filters["display_math"] = display_math
    env.globals["math"] = math
    env.globals["display_math"] = display_math



_MATH_THEN_PUNCTUATION = re.compile(r"(<math\b(?:(?!</math>).)*</math>)([.,;:!?)\]]+)", re.S)


def glue_punctuation(html: str) -> str:
    """A formula and the punctuation right after it, kept on one line (``<span class="keep-together">``,
    ``white-space: nowrap`` in site/style.css). Chromium lays an inline ``<math>`` out as one box
    and may break the line after it, which put a sentence's full stop at the start of the next
    line (a word joiner there does not stop it).

    >>> glue_punctuation("<math><mi>k</mi></math>. and <math><mi>q</mi></math> too")
    '<span class="keep-together"><math><mi>k</mi></math>.</span> and <math><mi>q</mi></math> too'
    """
    return _MATH_THEN_PUNCTUATION.sub(r'<span class="keep-together">\1\2</span>', html)
