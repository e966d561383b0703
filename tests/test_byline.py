"""The byline and the maintainers' block of the built page."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_byline_cite_and_maintainers_block(built_site):
    html = (built_site / "index.html").read_text(encoding="utf-8")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    version, date = project["project"]["version"], project["tool"]["proofroom"]["date"]
    masthead = html[html.index('<header class="masthead">'):html.index("</header>")]
    assert f"Version {version}" in masthead and f'<time datetime="{date}">' in masthead
    assert 'href="#cite-this"' in masthead
    cite = html[html.index('<section id="cite-this"'):]
    bibtex = cite[cite.index("<pre><code>") + 11:cite.index("</code></pre>")]
    assert bibtex.startswith("@misc{") and f"version = {{{version}}}" in bibtex and f"year   = {{{date[:4]}}}" in bibtex
    assert bibtex.count("{") == bibtex.count("}")
    # the signatures stay in the page, folded into a closed block for maintainers
    block = re.search(r'<details class="audit-details maintainers">(.*?)</details>', html, re.S)
    assert block and "<summary>For maintainers" in block.group(1)
    for name in ("audit", "exact", "legacy"):
        assert f'data-signature="{name}"' in block.group(1)
