"""Content-hashed assets: the Pyodide core runtime, the lab zip, and the site's JS/CSS.

Every function here is deterministic (sorted iteration, fixed zip metadata, no timestamps) so two
builds of the same tree are byte-identical and a file's name changes exactly when its bytes do.
"""

from __future__ import annotations

import hashlib
import io
import re
import zipfile
from pathlib import Path

from . import pystrip

# What loadPyodide() actually reads (checked by tracing file opens under Node and requests in
# Chromium): the loader, the Emscripten module, the wasm binary, the stdlib and the package lock
# (fetched at startup even when no packages are loaded). Everything else in the npm package is
# docs, typings, source maps, consoles or the CommonJS build.
PYODIDE_CORE_FILES = (
    "pyodide-lock.json",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "pyodide.mjs",
    "python_stdlib.zip",
)

# Site files that get a content hash in their name. Sub-directories (site/bench/) are separate.
HASHED_SUFFIXES = (".js", ".mjs", ".css", ".svg", ".png", ".webp", ".ico", ".woff2")

# 1980-01-01 is the earliest date a zip entry can hold; fixed so the archive never carries mtimes.
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


def hash8(data: bytes) -> str:
    """First 8 hex digits of the SHA-256 of the bytes (`sha256sum file | cut -c1-8`)."""
    return hashlib.sha256(data).hexdigest()[:8]


def tree_hash8(files: dict[str, bytes]) -> str:
    """hash8 over (name, bytes) pairs in name order, length-prefixed so boundaries count."""
    h = hashlib.sha256()
    for name in sorted(files):
        for part in (name.encode(), files[name]):
            h.update(len(part).to_bytes(8, "big"))
            h.update(part)
    return h.hexdigest()[:8]


def hashed_name(name: str, data: bytes) -> str:
    """'app.js' -> 'app.1a2b3c4d.js' (hash inserted before the last suffix)."""
    stem, dot, ext = name.rpartition(".")
    if not dot:
        return f"{name}.{hash8(data)}"
    return f"{stem}.{hash8(data)}.{ext}"


def browser_lab_files(package_dir: Path) -> dict[str, bytes]:
    """{relative path: stripped source} of the browser's part of a package (see :mod:`sitebuild.pystrip`)."""
    package_dir = Path(package_dir)
    files = {
        p.relative_to(package_dir).as_posix(): p.read_bytes()
        for p in sorted(package_dir.rglob("*.py"))
        if p.is_file() and "__pycache__" not in p.relative_to(package_dir).parts
    }
    if not files:
        raise FileNotFoundError(f"no .py files under {package_dir}")
    return pystrip.browser_files(files)


def zip_bytes(files: dict[str, bytes], package: str) -> bytes:
    """``files`` ({relative path: bytes}) as a zip of ``<package>/<relative path>`` entries, stable to the
    byte: sorted, fixed dates and permissions, stored (see :func:`lab_zip_bytes`)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for relative, data in sorted(files.items()):
            info = zipfile.ZipInfo(f"{package}/{relative}", date_time=ZIP_EPOCH)
            info.create_system = 3  # unix, so external_attr means the same on every host
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_STORED
            zf.writestr(info, data)
    return buf.getvalue()


def lab_zip_bytes(package_dir: Path) -> bytes:
    """Zip the browser's part of a package (see :mod:`sitebuild.pystrip`), stable to the byte:
    sorted, fixed dates and permissions, CLI left out, comments and docstrings stripped.

    Entries are named '<package>/<relative path>' so unpacking at the Pyodide home directory (which
    is on sys.path) makes the package importable. They are stored, not deflated: the server sends
    the archive brotli- or gzip-compressed as a whole, which is smaller than per-file deflate
    (31 KB brotli against 41 KB deflated) and leaves nothing to inflate in the worker.
    The page itself loads the lab in pieces (:func:`lab_split_zips`); this whole zip is what the
    tests run under Node.
    """
    return zip_bytes({**browser_lab_files(package_dir), **package_data_files(package_dir)}, Path(package_dir).name)


def package_data_files(package_dir: Path) -> dict[str, bytes]:
    """{relative path: bytes} of the data the lab reads, shipped as it is: every file under a
    ``samples/`` folder (the golden trace files, which the checks and the tests parse)."""
    package_dir = Path(package_dir)
    return {p.relative_to(package_dir).as_posix(): p.read_bytes()
            for p in sorted(package_dir.rglob("samples/*")) if p.is_file()}


def _data_owner(relative: str, python_paths) -> str:
    """The module a data file travels with: the ``__init__.py`` of the nearest package above it.

    >>> _data_owner("traces/samples/a.log", {"__init__.py", "traces/__init__.py"})
    'traces/__init__.py'
    """
    folder = relative.rpartition("/")[0]
    while folder:
        if f"{folder}/__init__.py" in python_paths:
            return f"{folder}/__init__.py"
        folder = folder.rpartition("/")[0]
    return "__init__.py"


def lab_split_zips(package_dir: Path, seed, widgets):
    """(core zip, {chunk name: zip}, the :class:`sitebuild.labsplit.Split`) of the browser's lab: what
    the page boots on, and what each widget adds (see :mod:`sitebuild.labsplit`)."""
    from . import labsplit

    package = Path(package_dir).name
    files = browser_lab_files(package_dir)
    parts = labsplit.split(files, package, seed, widgets)
    data = package_data_files(package_dir)

    def with_data(members):
        """The members' sources and the data files whose package is among them."""
        chosen = {relative: files[relative] for relative in members}
        chosen.update({relative: blob for relative, blob in data.items() if _data_owner(relative, files) in chosen})
        return chosen

    core = zip_bytes(with_data(parts.core), package)
    chunks = {name: zip_bytes(with_data(members), package) for name, members in parts.chunks.items()}
    return core, chunks, parts


def pyodide_core(pyodide_dir: Path) -> tuple[str, dict[str, bytes]]:
    """Return ('pyodide-<hash8>', {file name: bytes}) for the core runtime files."""
    pyodide_dir = Path(pyodide_dir)
    missing = [n for n in PYODIDE_CORE_FILES if not (pyodide_dir / n).is_file()]
    if missing:
        raise FileNotFoundError(
            f"Pyodide runtime incomplete in {pyodide_dir} (missing {', '.join(missing)}); "
            "run `npm ci` (or `make node_modules`)"
        )
    files = {n: (pyodide_dir / n).read_bytes() for n in PYODIDE_CORE_FILES}
    return f"pyodide-{tree_hash8(files)}", files


def site_files(site_dir: Path, prepare=None) -> dict[str, bytes]:
    """Top-level site files to publish under hashed names, keyed by logical name (CSS minified).

    ``prepare(name, data)``, if given, returns a file's bytes as published, before a stylesheet is
    minified (the build writes the palette into style.css with it: :mod:`sitebuild.palette`)."""
    files = {}
    for p in sorted(Path(site_dir).iterdir()):
        if p.is_file() and p.suffix in HASHED_SUFFIXES and not p.name.startswith("."):
            data = p.read_bytes() if prepare is None else prepare(p.name, p.read_bytes())
            files[p.name] = minify_css(data) if p.suffix == ".css" else data
    return files


# Scanned left to right, so a quote inside a comment or "/*" inside a string is not misread.
_CSS_STRING_OR_COMMENT = re.compile(rb"""("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|/\*.*?\*/""", re.S)
_CSS_SPACE = re.compile(rb"\s+")
_CSS_AROUND = re.compile(rb"\s*([{};,>])\s*")


def minify_css(css: bytes) -> bytes:
    """Drop comments and the white space around ``{ } ; , >``; fold the rest to one space.

    Deliberately conservative: strings are left untouched, and a space before ``:`` can be a
    descendant combinator (``a :focus``), so colons keep theirs. ``tests/test_infra_build.py``
    checks in Chromium that every rule parses to the same CSS as the original's."""
    out, code, position = [], [], 0

    def flush():
        out.append(_CSS_AROUND.sub(rb"\1", _CSS_SPACE.sub(b" ", b"".join(code))))
        code.clear()

    for match in _CSS_STRING_OR_COMMENT.finditer(css):
        code.append(css[position:match.start()])
        if match.group(1):  # a string: kept exactly
            flush()
            out.append(match.group(1))
        else:               # a comment separates tokens like a space
            code.append(b" ")
        position = match.end()
    code.append(css[position:])
    flush()
    return b"".join(out).strip() + b"\n"


# Elements whose white space is content: left exactly as rendered.
_HTML_VERBATIM = re.compile(r"(<(pre|textarea|script|style)\b.*?</\2>)", re.S | re.I)
_HTML_INDENT = re.compile(r"\n[ \t]+")


_WORD_THEN_CITATIONS = re.compile(r'([^\s<>]+)((?:<sup class="cite">(?:(?!</sup>).)*</sup>)+)', re.S)


def glue_citations(html: str) -> str:
    """A citation (or a run of them) kept on the line of the word before it (``<span
    class="keep-together">``, ``white-space: nowrap``): its link is an inline block, after which
    Chromium may break the line, which left a bare "[22]" at the start of a line.

    >>> glue_citations('as Medusa<sup class="cite"><a>[8]</a></sup> does')
    'as <span class="keep-together">Medusa<sup class="cite"><a>[8]</a></sup></span> does'
    """
    return _WORD_THEN_CITATIONS.sub(r'<span class="keep-together">\1\2</span>', html)


def minify_html(html: str) -> str:
    """Drop the templates' indentation: a newline followed by spaces becomes the newline alone.

    Outside ``pre``, ``textarea``, ``script`` and ``style`` a run of white space renders as one
    space whatever it holds, so the page reads and lays out the same (the stylesheets use
    ``pre-wrap`` only on ``pre``); inside them nothing changes.

    >>> minify_html("<p>\\n    one\\n    two</p>\\n<pre>\\n  kept</pre>")
    '<p>\\none\\ntwo</p>\\n<pre>\\n  kept</pre>'
    """
    parts = _HTML_VERBATIM.split(html)
    # split() with two groups yields [text, whole element, tag name, text, ...]
    out = []
    for index, part in enumerate(parts):
        kind = index % 3
        if kind == 0:
            out.append(_HTML_INDENT.sub("\n", part))
        elif kind == 1:
            out.append(part)
    return "".join(out)
