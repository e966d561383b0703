"""The figures' colours in the stylesheet, written by the build from ``lab.figures``: typed once.

``lab/figures.py`` holds every colour a figure draws with: :data:`lab.figures.COLOURS` (one per
concept, light and dark), :data:`lab.figures.INK` (labels and lines on a data colour),
:data:`lab.figures.HEATMAP_SCALE` and :data:`lab.figures.RING` (the heatmap's scale and its
selection's inner ring). ``site/style.css`` does not repeat them: its light ``:root`` block holds
the line ``/* palette: light */`` and its dark-scheme block ``/* palette: dark */``, and the build
(:func:`fill`, before the stylesheet is minified and named by its hash) puts in their places the
custom properties the figures' rules read:

- ``--k-<concept>``: ``COLOURS``, its light value in the light block and its dark one in the dark;
- ``--on-mark``: ``INK``, the same in both schemes (light block only, as the dark one inherits it);
- ``--heat-faster``, ``--heat-slower``, ``--heat-neutral``: ``HEATMAP_SCALE``, and ``--heat-ring``:
  ``RING`` (light block only: the heatmap is the same in both schemes).

The properties stay in the render-blocking stylesheet they were typed into before, so the page's
first paint, its requests and its Content-Security-Policy (``style-src 'self'``, no inline style)
are as they were; the file's hashed name follows its bytes, as for every asset. Hand-written CSS
reads these names and declares none of them (``tests/test_palette.py``).
"""

from __future__ import annotations

MARKERS = {"light": "/* palette: light */", "dark": "/* palette: dark */"}


def properties(scheme: str) -> dict[str, str]:
    """{custom property: colour} the build writes into ``scheme``'s block ("light" or "dark").

    >>> properties("dark")["--k-draft"], properties("light")["--k-draft"], "--on-mark" in properties("dark")
    ('#cf9cd9', '#b567c5', False)
    """
    from lab import figures

    if scheme not in MARKERS:
        raise ValueError(f"scheme {scheme!r}: valid schemes are {', '.join(MARKERS)}")
    index = list(MARKERS).index(scheme)
    values = {f"--k-{concept}": pair[index] for concept, pair in figures.COLOURS.items()}
    if scheme == "light":
        values["--on-mark"] = figures.INK
        values.update({f"--heat-{name}": colour for name, colour in figures.HEATMAP_SCALE.items()})
        values["--heat-ring"] = figures.RING
    return values


def declarations(scheme: str, indent: str = "") -> str:
    """``scheme``'s properties as CSS declarations, one a line, each line after the first indented.

    >>> declarations("dark").splitlines()[0]
    '--k-draft: #cf9cd9;'
    """
    return f"\n{indent}".join(f"{name}: {colour};" for name, colour in properties(scheme).items())


def fill(css: str) -> str:
    """``css`` (site/style.css) with each scheme's marker replaced by that scheme's declarations, at the
    marker's indentation. A stylesheet without each marker exactly once is refused: its figures would
    lose their colours.

    >>> fill("a {\\n  /* palette: light */\\n}\\nb {\\n  /* palette: dark */\\n}").splitlines()[1:3]
    ['  /* palette: lab/figures.py, written by the build (sitebuild/palette.py) */', '  --k-draft: #b567c5;']
    """
    for scheme, marker in MARKERS.items():
        count = css.count(marker)
        if count != 1:
            raise ValueError(f"site/style.css holds the marker {marker} {count} times; it must hold it once, "
                             f"in the {scheme} scheme's :root block, where the build writes the palette")
        line_start = css.rfind("\n", 0, css.index(marker)) + 1
        indent = css[line_start:css.index(marker)]
        written = f"/* palette: lab/figures.py, written by the build (sitebuild/palette.py) */\n{indent}"
        css = css.replace(marker, written + declarations(scheme, indent))
    return css
