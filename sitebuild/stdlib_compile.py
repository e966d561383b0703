"""The trimmed standard library, compiled: the article's worker imports bytecode, not source.

Pyodide's distribution ships its standard library as source, so on every cold visit the runtime
compiles, in WebAssembly, each module its start-up imports (asyncio, ast, inspect, typing and about
a hundred more) before Python is ready. A Chromium trace of one cold load of the bare page showed a
single 1.5 to 2 s task on the worker after the wasm itself had compiled; most of it was that.
The article's zip (`sitebuild/stdlib.py` picks its modules) holds them compiled by the same Pyodide
the page runs, so the bytecode and its magic number are the runtime's own, and importing reads them
as they are. Pyodide's `zipimport` prefers `name.pyc` to `name.py` in a zip and loads one with no
source beside it.

Each module is compiled:
- with `optimize=2`, what `python -OO` writes: no docstrings, no asserts. `-OO` is a documented
  interpreter mode the standard library runs in, and Pyodide's own `_pyodide` package handles a
  missing `__doc__`. Brotli'd, the zip goes from 982 to 827 KB;
- without column tables (`PYTHONNODEBUGRANGES=1` in Pyodide's environment): the line table stays,
  so a traceback through a stdlib frame names the same file and line as with the source (a test
  checks it); only the `^^^` markers under the source line go, and a frame without source shows
  no line to mark anyway. 827 to 618 KB brotli'd (the source zip was 545 KB);
- as an unchecked hash-based pyc (PEP 552): no timestamp, so the zip is byte-identical across
  builds; unchecked, since there is no source beside it to check against;
- with the file name its source would have had (`/lib/python314.zip/json/decoder.py`), so
  tracebacks read as they do with the distribution's zip.

The lab itself stays source (`lab.zip`): its tracebacks show the repository's lines, and bytecode
would double its compressed size for a few tens of milliseconds of import.

Compiling needs Node and the npm Pyodide (both already needed by the build). The result depends
only on the source zip, the program below (`COMPILE`), `stdlib_compile.mjs` and the Pyodide
version, so it is cached under `.cache/stdlib-pyc/` by a hash of those.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

RUNNER = Path(__file__).with_name("stdlib_compile.mjs")

# Runs inside Pyodide: /tmp/source.zip (stored .py entries) -> /tmp/compiled.zip (stored .pyc).
COMPILE = r"""
import importlib._bootstrap_external as _external, importlib.util, io, sys, zipfile
prefix = next(path for path in sys.path if path.endswith(".zip"))  # where the runtime mounts the stdlib zip
columns = list(compile("x", "<probe>", "exec").co_positions())[0][2:]
if columns != (None, None):
    raise SystemExit(f"PYTHONNODEBUGRANGES did not reach the interpreter: column table {columns}")
source = zipfile.ZipFile("/tmp/source.zip")
buffer = io.BytesIO()
with zipfile.ZipFile(buffer, "w") as compiled:
    for info in source.infolist():
        data, name = source.read(info), info.filename
        if name.endswith(".py"):
            code = compile(data, f"{prefix}/{name}", "exec", dont_inherit=True, optimize=2)
            data = bytes(_external._code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False))
            name = name[:-3] + ".pyc"
        entry = zipfile.ZipInfo(name, date_time=info.date_time)
        entry.create_system, entry.external_attr = info.create_system, info.external_attr
        entry.compress_type = zipfile.ZIP_STORED
        compiled.writestr(entry, data)
with open("/tmp/compiled.zip", "wb") as out:
    out.write(buffer.getvalue())
"""

# PEP 552 header: magic (4 bytes), flags (4: bit 0 hash-based, bit 1 check source), source hash (8).
HASH_BASED_UNCHECKED = 0b01


class CompileError(RuntimeError):
    """Node or Pyodide is missing, or the compiled zip is not what the source zip asks for."""


def pyc_name(entry: str) -> str:
    """The compiled zip's entry for a source entry.

    >>> pyc_name("json/decoder.py"), pyc_name("json/__init__.py")
    ('json/decoder.pyc', 'json/__init__.pyc')
    """
    return entry[:-3] + ".pyc" if entry.endswith(".py") else entry


def check_compiled(source_zip: bytes, compiled_zip: bytes) -> None:
    """The compiled zip has one entry per source entry, each .py as an unchecked hash-based .pyc,
    all with one magic number, stored, in the same order and with the same dates."""
    with zipfile.ZipFile(io.BytesIO(source_zip)) as source, zipfile.ZipFile(io.BytesIO(compiled_zip)) as compiled:
        want = [(pyc_name(i.filename), i.date_time) for i in source.infolist()]
        got = [(i.filename, i.date_time) for i in compiled.infolist()]
        if want != got:
            raise CompileError(f"compiled zip entries differ from the source's: {sorted(set(want) ^ set(got))[:5]}")
        magics = set()
        for info in compiled.infolist():
            if info.compress_type != zipfile.ZIP_STORED:
                raise CompileError(f"{info.filename}: not stored")
            if info.filename.endswith(".pyc"):
                header = compiled.read(info)[:16]
                flags = int.from_bytes(header[4:8], "little")
                if len(header) < 16 or header[2:4] != b"\r\n" or flags != HASH_BASED_UNCHECKED:
                    raise CompileError(f"{info.filename}: not an unchecked hash-based pyc (header {header.hex()})")
                magics.add(header[:4])
        if len(magics) > 1:
            raise CompileError(f"compiled zip mixes magic numbers: {sorted(m.hex() for m in magics)}")


def cache_key(source_zip: bytes, root: Path) -> str:
    digest = hashlib.sha256()
    for part in (source_zip, COMPILE.encode(), RUNNER.read_bytes(),
                 (Path(root) / "node_modules" / "pyodide" / "package.json").read_bytes()):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


def compiled_zip_bytes(source_zip: bytes, root: Path, cache_dir: Path | None = None) -> bytes:
    """`source_zip` (stored .py entries) with every module compiled by the npm Pyodide."""
    root = Path(root)
    node = shutil.which("node")
    if node is None or not (root / "node_modules" / "pyodide" / "package.json").is_file():
        raise CompileError("compiling the standard library needs node and the npm Pyodide: run `make node_modules`")
    cache_dir = Path(cache_dir) if cache_dir else root / ".cache" / "stdlib-pyc"
    cached = cache_dir / f"{cache_key(source_zip, root)}.zip"
    if cached.is_file():
        data = cached.read_bytes()
        check_compiled(source_zip, data)
        return data
    done = subprocess.run([node, str(RUNNER), COMPILE], input=source_zip, capture_output=True, cwd=root, timeout=300)
    if done.returncode != 0:
        raise CompileError(f"compiling the standard library under Pyodide failed: "
                           f"{done.stderr.decode('utf-8', 'replace').strip()[-2000:]}")
    check_compiled(source_zip, done.stdout)
    cache_dir.mkdir(parents=True, exist_ok=True)
    partial = cached.with_name(f"{cached.stem}.{os.getpid()}.partial")
    partial.write_bytes(done.stdout)
    partial.replace(cached)  # atomic: a build running beside this one never reads half a file
    return done.stdout
