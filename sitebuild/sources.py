"""The article's Sources as data: ``sitebuild/sources.toml``, one ``[[source]]`` table per entry
(``key``, ``name``, ``entry``), read at build time and handed to the templates, where ``cite(key)``
numbers a citation by the entry's place in the file and the Sources list prints the entries in the
same order. A source is added, reworded or re-dated in that file alone.

>>> sources = load()
>>> sources.order.index("leviathan") + 1, sources.names["leviathan"]
(1, 'Leviathan et al., 2023')
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import NamedTuple

SOURCES_FILE = Path(__file__).with_name("sources.toml")
KEY = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


class Sources(NamedTuple):
    """``order``: the keys in list order (a citation's number is its key's place + 1); ``names``:
    key -> how a screen reader names the citation; ``entries``: dicts with ``key`` and ``entry``
    (the list item's HTML, trusted: the project's own text)."""

    order: list
    names: dict
    entries: list


class SourcesError(ValueError):
    """A malformed sources file: the message names the entry and what is wrong."""


def load(path: Path = SOURCES_FILE) -> Sources:
    """The sources in ``path``, checked: every entry has a unique lower-case key, a name and an entry.

    >>> load().entries[0]["entry"].startswith("Y. Leviathan")
    True
    """
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    entries, seen = [], set()
    for i, source in enumerate(data.get("source", []), 1):
        key = source.get("key", "")
        if not KEY.fullmatch(key):
            raise SourcesError(f"{path.name}: source {i} has key {key!r}; a key is lower-case words joined by '-'")
        if key in seen:
            raise SourcesError(f"{path.name}: key {key!r} is listed twice")
        seen.add(key)
        for field in ("name", "entry"):
            if not str(source.get(field, "")).strip():
                raise SourcesError(f"{path.name}: source {key!r} has no {field}")
        entries.append({"key": key, "name": source["name"], "entry": source["entry"].strip("\n")})
    if not entries:
        raise SourcesError(f"{path.name}: no [[source]] entry")
    return Sources([e["key"] for e in entries], {e["key"]: e["name"] for e in entries}, entries)
