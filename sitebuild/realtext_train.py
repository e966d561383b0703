"""The real-text model at build time: corpus, training, cache.

The corpus is the Python standard library's source as the pinned Pyodide distribution ships it
(``node_modules/pyodide/python_stdlib.zip``, Pyodide 314.0.7, pinned by ``package-lock.json``): real
code and real technical English, the same bytes on every machine, under the Python Software
Foundation License. Every ``.py`` file is read in name order, except ``encodings/`` (codec tables:
hex literals, not language). Training (:func:`lab.realtext_training.build_model_file`: byte-level BPE, then
Kneser-Ney count tables) is deterministic, with every tie broken by token ids, and pure standard
library.

Pruning (the page's budget is 1.5 MB brotli for the model): :data:`MIN_COUNTS` per order (raw counts
at the highest order, continuation counts below). Measured with the corpus above: order 4 kept at
count >= 2 made the file 1.83 MB brotli; at >= 3 it fits.

The model file is cached in ``.cache/realtext/`` under a hash of the corpus zip, this file and the
trainer's part of ``lab/realtext_training.py`` (:data:`TRAINER_PARTS`, :data:`TRAINER_CONSTANTS`), like the
compiled standard library.
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from pathlib import Path

from lab import realtext

ROOT = Path(__file__).resolve().parent.parent  # the checkout: node_modules/ and .cache/ live here
MIN_COUNTS = {1: 1, 2: 1, 3: 2, 4: 3}
SKIPPED_PACKAGES = ("encodings/",)


def corpus_texts(stdlib_zip: bytes) -> tuple[list[str], str]:
    """The text of every .py file of the distribution's stdlib zip, in name order, and a note."""
    with zipfile.ZipFile(io.BytesIO(stdlib_zip)) as archive:
        names = sorted(info.filename for info in archive.infolist()
                       if info.filename.endswith(".py") and not info.filename.startswith(SKIPPED_PACKAGES))
        texts = [archive.read(name).decode("utf-8", errors="replace") for name in names]
    note = f"corpus {len(names)} files, {sum(len(t.encode()) for t in texts)} bytes of python_stdlib.zip (Pyodide)"
    return texts, note


def train(stdlib_zip: bytes) -> bytes:
    """The model file (zip bytes) trained on ``stdlib_zip``."""
    texts, note = corpus_texts(stdlib_zip)
    return realtext.build_model_file(texts, min_counts=MIN_COUNTS, note=note)


def stdlib_zip_path(root: Path) -> Path:
    return Path(root) / "node_modules" / "pyodide" / "python_stdlib.zip"


# What the model file depends on in lab/realtext_training.py: the trainer and the file format (not the
# decoder, which lives in other modules, so editing it does not retrain).
TRAINER_PARTS = ("Tokenizer", "train_merges", "count_tables", "encode_texts", "build_model_file", "pack_table",
                 "_pack_array")
TRAINER_CONSTANTS = ("FORMAT", "VOCABULARY_SIZE", "ORDER", "PRETOKEN", "DRAFT_MIN_COUNT")


def trainer_source(path: Path = ROOT / "lab" / "realtext_training.py") -> bytes:
    """The trainer's part of ``lab/realtext_training.py`` as the checkout has it (not as imported: the lab
    the browser gets is stripped of docstrings, and must find the same cache entry): the source
    of :data:`TRAINER_PARTS` and the assignments of :data:`TRAINER_CONSTANTS`."""
    import ast

    text = path.read_text(encoding="utf-8")
    parts = []
    for node in ast.parse(text).body:
        names = ([node.name] if isinstance(node, (ast.FunctionDef, ast.ClassDef))
                 else [t.id for t in node.targets if isinstance(t, ast.Name)] if isinstance(node, ast.Assign) else [])
        if any(name in TRAINER_PARTS or name in TRAINER_CONSTANTS for name in names):
            parts.append(ast.get_source_segment(text, node))
    return "\n".join(parts).encode()


def cache_key(stdlib_zip: bytes) -> str:
    """A hash of the corpus, this file and the trainer's source (:func:`trainer_source`)."""
    digest = hashlib.sha256()
    for part in (stdlib_zip, Path(__file__).read_bytes(), trainer_source()):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:32]


def cached_path(root: Path) -> Path:
    """Where the model file for ``root``'s distribution is cached (trained first if missing)."""
    root = Path(root)
    source = stdlib_zip_path(root)
    if not source.is_file():
        raise FileNotFoundError(f"{source} is missing: run npm ci (the corpus is Pyodide's standard library)")
    stdlib_zip = source.read_bytes()
    cached = root / ".cache" / "realtext" / f"{cache_key(stdlib_zip)}.zip"
    if not cached.is_file():
        data = train(stdlib_zip)
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_name(f"{cached.stem}.{os.getpid()}.partial")
        partial.write_bytes(data)
        partial.replace(cached)  # atomic: a build running beside this one never reads half a file
    return cached


def model_bytes(root: Path) -> bytes:
    """The model file for the distribution in ``root/node_modules``, trained once and cached."""
    return cached_path(root).read_bytes()


def prepare(root: Path = ROOT) -> bytes:
    """The model file (:func:`model_bytes`), also left where the lab of the checkout ``root`` reads it
    (``.cache/`` + :data:`lab.realtext.CHECKOUT_MODEL`, a link to the cached file) with the held-out texts
    beside it (:data:`lab.realtext.CHECKOUT_HELD_OUT`, JSON): the lab reads files, never this module."""
    import json

    root = Path(root)
    cached = cached_path(root)
    cache = root / ".cache"
    link = cache / realtext.CHECKOUT_MODEL
    if not (link.is_symlink() and link.resolve() == cached.resolve()):
        partial = link.with_name(f"{link.name}.{os.getpid()}.partial")
        partial.unlink(missing_ok=True)
        partial.symlink_to(os.path.relpath(cached, cache))
        partial.replace(link)  # atomic, as the cached file itself
    texts = json.dumps(held_out_texts(root), sort_keys=True).encode()
    held = cache / realtext.CHECKOUT_HELD_OUT
    if not held.is_file() or held.read_bytes() != texts:
        partial = held.with_name(f"{held.name}.{os.getpid()}.partial")
        partial.write_bytes(texts)
        partial.replace(held)
    return cached.read_bytes()


# Text the models never saw (they are trained on the standard library alone), for the widget's
# comparison of code with English: this repository's own lab modules as code, comments and
# docstrings stripped (code, not English), and the README files of pinned npm packages as English,
# fenced code, tables and markup removed. Each file gives its first HELD_OUT_CHARS characters.
HELD_OUT_CODE = ("lab/stats.py", "lab/ledger.py", "lab/exact.py", "lab/trees.py")
HELD_OUT_ENGLISH = ("node_modules/terser/README.md", "node_modules/ws/README.md", "node_modules/commander/Readme.md",
                    "node_modules/acorn/README.md")
HELD_OUT_CHARS = 2500


def markdown_prose(text: str) -> str:
    r"""The English of a README: fenced code blocks, tables, HTML, images and badges, link
    targets and definitions, emphasis and heading or list markers removed (inline code keeps its
    words).

    >>> markdown_prose("# Title\n\n[![b][i]][u] Use *the* `x` [here](http://a.b).\n\n```js\nf()\n```\n"
    ...                "| a | b |\n- one item\n[u]: http://c.d\n")
    'Title\n\nUse the x here.\n\none item'
    """
    import re

    link = r"(?:\([^)]*\)|\[[^\]]*\])"                                       # (target) or [reference]
    text = re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", text, flags=re.S | re.M)   # fenced code
    text = re.sub(r"<[^>]*>", "", text)                                      # HTML
    text = re.sub(r"\[?!\[[^\]]*\]" + link + r"(?:\]" + link + r")? ?", "", text)  # images, badges
    text = re.sub(r"\[([^\]]*)\]" + link, r"\1", text)                       # links: their words
    text = re.sub(r"[`*]+|(?<!\w)_+|_+(?!\w)", "", text)                     # code ticks, emphasis
    lines = []
    for line in text.splitlines():
        if (line.lstrip().startswith("|") or re.fullmatch(r"\s*[-=]{3,}\s*", line)
                or re.match(r"\s*\[[^\]]+\]:\s", line)):
            continue                                                          # tables, rules, link definitions
        lines.append(re.sub(r"^\s*(#+|[-+]|\d+\.)\s+", "", line).strip())
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def held_out_texts(root: Path = ROOT) -> dict:
    """``{"code": {...}, "english": {...}}``, each with ``text``, its ``sources`` and ``charsEach``
    (:data:`HELD_OUT_CHARS`): the texts above, as read in ``root`` (a checkout with ``node_modules``)."""
    import re

    from .pystrip import strip_source

    root = Path(root)
    code = [re.sub(r"\n\s*\n(\s*\n)+", "\n\n", strip_source((root / name).read_text(encoding="utf-8")).strip())
            for name in HELD_OUT_CODE]  # runs of blank lines: the stripped docstrings and comments
    english = [markdown_prose((root / name).read_text(encoding="utf-8")) for name in HELD_OUT_ENGLISH]
    return {kind: {"text": "\n\n".join(text[:HELD_OUT_CHARS] for text in texts), "sources": sources,
                   "charsEach": HELD_OUT_CHARS}
            for kind, texts, sources in (("code", code, HELD_OUT_CODE), ("english", english, HELD_OUT_ENGLISH))}


if __name__ == "__main__":
    # python -m sitebuild.realtext_train: train (once) and leave the model where the checkout's lab reads it
    prepare(ROOT)
    print(ROOT / ".cache" / realtext.CHECKOUT_MODEL)
