"""The trimmed standard library the article's worker loads instead of Pyodide's full one.

Pyodide's `python_stdlib.zip` is 2.5 MB and barely compresses (its entries are already deflated),
yet the page imports a small part of it. The build writes a zip holding only:

1. what Pyodide's own start-up, the lab-zip unpack and error reporting import: the committed list
   `sitebuild/stdlib_runtime.txt`, found by tracing `sys.modules` under Node + Pyodide
   (`python -m sitebuild.stdlib --trace` regenerates it);
2. what the lab imports, computed at build time: every absolute import in every lab module the
   worker can load (all of `lab/` except the command line: `cli.py`, `__main__.py`, `commands/`),
   at any depth, so a new instrument's imports are picked up without anyone listing them;
3. the closure of 1 and 2 over the stdlib's own module-level imports (statements that run when
   the module is imported: not those inside functions, `except ImportError` fallbacks or
   `if TYPE_CHECKING:` blocks).

Modules built into the runtime (the list's `[frozen]` section) count for their imports but ship no
file; the section also names the stdlib modules a frozen one stands in for (`importlib._bootstrap` is
the frozen `_frozen_importlib`, which `importlib/__init__.py` registers under that name), whose files
nothing reads: leaving those two out saved 24 KB of every first visit (brotli, 5 December 2026).

What a static scan cannot see (an import inside a stdlib function the lab calls, a codec looked up
by name) is caught by `tests/test_stdlib_trim.py`: it traces, under Node + Pyodide with the full
stdlib, every module the worker's requests import and fails naming any stdlib module outside the
trimmed zip; then it runs the audits and every view with the trimmed zip. The fix is one step:
`python -m sitebuild.stdlib --trace` (adds what the trace saw to `stdlib_runtime.txt`), commit.

Entries are stored, not deflated: the server compresses the whole zip (brotli or gzip, across
files, which beats per-entry deflate), and zipimport then reads modules without inflating them.
The build publishes this zip compiled to bytecode (`sitebuild/stdlib_compile.py`).
The bare comparison page keeps the npm distribution's full `python_stdlib.zip`.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from . import pystrip

ROOT = Path(__file__).resolve().parent.parent
RUNTIME_LIST = Path(__file__).with_name("stdlib_runtime.txt")
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)

def read_list(path: Path = RUNTIME_LIST, section: str = "runtime") -> list[str]:
    """Module names of one section ("runtime" or "frozen"), one per line; '#' starts a comment
    and a line "[name]" starts a section."""
    names, current = [], "runtime"
    for line in Path(path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1]
        elif line and current == section:
            names.append(line)
    return names


def lab_imports(lab_dir: Path) -> set[str]:
    """Absolute, non-lab module names imported anywhere in the worker-side lab modules."""
    lab_dir = Path(lab_dir)
    found = set()
    for path in sorted(lab_dir.rglob("*.py")):
        relative = path.relative_to(lab_dir)
        if "__pycache__" in relative.parts or not pystrip.browser_module(relative.as_posix()):
            continue
        for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*")
    return {name for name in found if name.split(".")[0] != lab_dir.name}


# --- the stdlib side -----------------------------------------------------------------------------

# Pyodide's platform, for `if sys.platform == "win32":` and `if os.name == "nt":` blocks, which
# import only where their test holds.
_PLATFORM = {"sys": "platform", "_sys": "platform", "os": "name", "_os": "name"}
_PLATFORM_VALUES = {"platform": "emscripten", "name": "posix"}


def platform_test(test: ast.expr) -> bool | None:
    """The value of a test on sys.platform / os.name under Pyodide (and `__name__ == "__main__"`,
    false on import), or None for any other test."""
    if (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    attrs = [n for n in ast.walk(test) if isinstance(n, ast.Attribute)]
    names = [n for n in ast.walk(test) if isinstance(n, ast.Name)]
    if not names or any(n.id not in _PLATFORM for n in names):
        return None
    if any(a.attr not in ("platform", "name", "startswith") for a in attrs):
        return None
    namespace = {alias: type("m", (), {attr: _PLATFORM_VALUES[attr]}) for alias, attr in _PLATFORM.items()}
    try:
        return bool(eval(compile(ast.Expression(test), "<test>", "eval"), {"__builtins__": {}}, namespace))
    except Exception:
        return None


def _skip_handler(handler: ast.ExceptHandler) -> bool:
    """An `except ImportError:` fallback for a missing module: the primary is what Pyodide has."""
    if handler.type is None:
        return False
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    names = [k.id for k in kinds if isinstance(k, ast.Name)]
    return bool(names) and len(names) == len(kinds) and all(n in ("ImportError", "ModuleNotFoundError")
                                                            for n in names)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _resolver(package: str):
    def resolve(level: int, module: str | None) -> str:
        if not level:
            return module or ""
        base = package.split(".") if package else []
        if level > 1:
            base = base[: len(base) - (level - 1)]
        return ".".join(base + ([module] if module else []))
    return resolve


def _add_import(out: set, node, resolve) -> None:
    if isinstance(node, ast.Import):
        out.update(alias.name for alias in node.names)
    else:
        base = resolve(node.level, node.module)
        out.add(base)
        out.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")


def module_level_imports(source: bytes, package: str) -> set[str]:
    """Module names a module's import-time code imports (`package`: where relative ones resolve).

    Each `from X import y` yields X and X.y (y may be a submodule; names that are not modules
    simply resolve to no file). Skipped: function bodies, `except ImportError` fallbacks,
    `if TYPE_CHECKING:` blocks and the branch of a sys.platform / os.name test that Pyodide does
    not take."""
    resolve = _resolver(package)
    out: set[str] = set()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return _scan_lines(source.decode("utf-8", "replace"), resolve)

    def visit(nodes) -> None:
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue  # runs when called, not when imported
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                _add_import(out, node, resolve)
            elif isinstance(node, ast.If):
                taken = False if _is_type_checking(node.test) else platform_test(node.test)
                if taken is not True:
                    visit(node.orelse)
                if taken is not False:
                    visit(node.body)
                visit([node.test])
            elif isinstance(node, ast.ExceptHandler) and _skip_handler(node):
                continue
            else:
                visit(ast.iter_child_nodes(node))

    visit(tree.body)
    return {name for name in out if name}


def _scan_lines(text: str, resolve) -> set[str]:
    """The same rules, by indentation, for the few stdlib files this CPython cannot parse (their
    syntax is newer than the host's): each import statement whose enclosing block headers are
    none of def, an ImportError handler, TYPE_CHECKING or a platform branch Pyodide skips."""
    out: set[str] = set()
    stack: list[tuple[int, bool]] = []  # (indent, imports inside run at import time)
    in_string = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        stripped = line.strip()
        if in_string:
            if stripped.count(in_string) % 2 == 1:
                in_string = None
            continue
        if not stripped or stripped.startswith("#"):
            continue
        for quote in ('"""', "'''"):
            if stripped.count(quote) % 2 == 1:
                in_string = quote
        indent = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        live = all(ok for _, ok in stack)
        code = stripped.split("#", 1)[0].rstrip()
        if code.endswith(":") and not code.startswith(("import ", "from ")):
            ok = not code.startswith(("def ", "async def ", "lambda"))
            if code.startswith("except"):
                try:
                    handler = ast.parse(f"try:\n pass\n{code}\n pass\n").body[0].handlers[0]
                    ok = not _skip_handler(handler)
                except SyntaxError:
                    pass
            elif code.startswith(("if ", "elif ")):
                try:
                    test = ast.parse(code.split(" ", 1)[1][:-1], mode="eval").body
                    ok = not _is_type_checking(test) and platform_test(test) is not False
                except SyntaxError:
                    pass
            stack.append((indent, ok))
            continue
        if not live or not code.startswith(("import ", "from ")):
            continue
        statement = code
        while statement.count("(") > statement.count(")") and i < len(lines):
            statement += " " + lines[i].split("#", 1)[0].strip()
            i += 1
        try:
            node = ast.parse(statement).body[0]
        except SyntaxError:
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            _add_import(out, node, resolve)
    return {name for name in out if name}


class Stdlib:
    """A stdlib zip's .py entries, addressable by module name."""

    def __init__(self, data: bytes):
        self._zip = zipfile.ZipFile(io.BytesIO(data))
        self.names = set(self._zip.namelist())

    def file_of(self, module: str) -> tuple[str | None, bool]:
        """(entry name, is a package) or (None, False) for a builtin or unknown module."""
        path = module.replace(".", "/")
        if f"{path}/__init__.py" in self.names:
            return f"{path}/__init__.py", True
        if f"{path}.py" in self.names:
            return f"{path}.py", False
        return None, False

    def read(self, entry: str) -> bytes:
        return self._zip.read(entry)

    def closure(self, roots, frozen=()) -> dict[str, str]:
        """{module: entry} for `roots`, their parent packages and their module-level imports.
        Modules in `frozen` are built into the runtime: their imports count, their files do not."""
        frozen = set(frozen)
        found: dict[str, str] = {}
        seen: set[str] = set()
        todo = sorted(set(roots), reverse=True)
        while todo:
            dotted = todo.pop()
            parts = dotted.split(".")
            for i in range(1, len(parts) + 1):
                module = ".".join(parts[:i])
                if module in seen:
                    continue
                seen.add(module)
                entry, is_package = self.file_of(module)
                if entry is None:
                    continue
                if module not in frozen:
                    found[module] = entry
                package = module if is_package else module.rpartition(".")[0]
                todo.extend(sorted(module_level_imports(self.read(entry), package) - seen, reverse=True))
        return found


def trimmed_modules(stdlib_zip: bytes, lab_dir: Path, runtime: list[str] | None = None) -> dict[str, str]:
    """{module: zip entry} of everything the trimmed zip holds."""
    roots = set(read_list() if runtime is None else runtime) | lab_imports(lab_dir)
    return Stdlib(stdlib_zip).closure(roots, frozen=read_list(section="frozen"))


def trimmed_zip_bytes(stdlib_zip: bytes, lab_dir: Path, runtime: list[str] | None = None) -> bytes:
    """The trimmed stdlib zip: stored entries, sorted, fixed dates (byte-identical across builds)."""
    stdlib = Stdlib(stdlib_zip)
    entries = sorted(set(trimmed_modules(stdlib_zip, lab_dir, runtime).values()))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for entry in entries:
            info = zipfile.ZipInfo(entry, date_time=ZIP_EPOCH)
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_STORED
            zf.writestr(info, stdlib.read(entry))
    return buf.getvalue()


# --- tracing under Node + Pyodide --------------------------------------------------------------

# Python under the npm Pyodide in Node with a lab zip unpacked (the tests run lab code under Node with it too).
RUNNER = Path(__file__).with_name("run_lab.mjs")


# Python that reports the stdlib modules imported so far (by their zip origin), as JSON on stdout.
TRACE_REPORT = r"""
import json as _json, sys as _sys
def _stdlib_modules():
    out = {}
    for name, module in list(_sys.modules.items()):
        origin = getattr(getattr(module, "__spec__", None), "origin", None) or getattr(module, "__file__", None) or ""
        if origin.startswith("/lib/python3") and ".zip/" in origin:
            out[name] = origin.split(".zip/", 1)[1]
    return out
import _imp as _i
print("STDLIB-TRACE " + _json.dumps(_stdlib_modules(), sort_keys=True))
# A frozen module may stand in for a stdlib file under another name: _frozen_importlib is
# importlib._bootstrap (importlib/__init__.py puts it in sys.modules under that name, so the file is
# never read). find_frozen names the original; "<pkg" marks a package's __init__, not a module.
_frozen = [n for n in _i._frozen_module_names() if "hello" not in n]
_origins = [(_i.find_frozen(n) or (None, False, None))[2] for n in _frozen]
print("STDLIB-FROZEN " + _json.dumps(sorted(set(_frozen) | {o for o in _origins if o and not o.startswith("<")})))
"""

# What the worker does besides the lab's own requests: report errors. Pyodide formats a Python
# exception that reaches JavaScript with the traceback module; these exercise its paths
# (suggestions, chained causes, notes, syntax errors, a missing module).
ERROR_REPORTING = r"""
import sys, traceback
def _raise(kind):
    if kind == 0: 1 / 0
    if kind == 1: undefined_name_here
    if kind == 2: [].apend(1)
    if kind == 3: import no_such_module_anywhere
    if kind == 4: compile("def f(:\n", "<lab>", "exec")
    if kind == 5:
        try:
            {}["missing"]
        except KeyError as error:
            error.add_note("a note")
            raise ValueError("chained") from error
    if kind == 6: raise ExceptionGroup("group", [ValueError(1), TypeError(2)])
for kind in range(7):
    try:
        _raise(kind)
    except BaseException as error:
        traceback.format_exception(error)
        "".join(traceback.format_exception_only(error))
"""


# The worker's side of a reading: every request the page can send, for every widget on it (seed
# widgets and every registered instrument), with defaults, random slider values and junk, both
# audit suites, and every widget's page_context. Prints a line the test reads back.
WORKLOAD = r"""
import json, random
import lab.views as views
from lab import audit, instruments, urlstate
def _ask(request):
    view = json.loads(views.handle(json.dumps(request)))
    return view
_rng = random.Random(13)
_errors = []
for kind in instruments.widget_names():
    for request in ({"kind": kind, "op": "warm"}, {"kind": kind, "input": ""}, {"kind": kind, "input": "x=1&%zz=&seed=-1"},
                    {"kind": kind, "input": {"bogus": "1"}}):
        view = _ask(request)
        if "error" in view and request.get("input") == "":
            _errors.append(f"{kind}: {view['error']}")
for kind, sliders in (("ledger", urlstate.LEDGER_SLIDERS), ("exact", urlstate.EXACT_SLIDERS)):
    for _ in range(12):
        values = {s.name: f"{s.minimum + _rng.randrange(int(round((s.maximum - s.minimum) / s.step)) + 1) * s.step:g}"
                  for s in sliders}
        _ask({"kind": kind, "input": values})
        _ask({"kind": kind, "input": "&".join(f"{k}={v}" for k, v in values.items())})
seed = _ask({"kind": "audit"})
suite = _ask({"kind": "audit", "suite": "instruments"})
_ask({"kind": "nope"}); views.handle("not json"); views.handle("[]")
# each widget's page context (the build's lab.views.page_context adds the acceptance section's held-out table,
# lab.acceptance_validation, which is build-only and not in the browser's lab)
for kind in instruments.widget_names():
    instruments.part("widgets", kind).page_context()
print("LAB-RESULT " + json.dumps({"signatures": audit.signatures(), "seedCounter": seed.get("counter"),
                                  "seedPassed": seed.get("allPassed"), "suiteCounter": suite.get("counter"),
                                  "suitePassed": suite.get("allPassed"), "suiteSignature": suite.get("signature"),
                                  "errors": _errors}))
"""


def run_node(lab_zip: Path, code: str, stdlib: Path | None = None, timeout: int = 300) -> str:
    """Run `code` under Node + Pyodide with `lab_zip` unpacked (and `stdlib` as stdLibURL)."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node not on PATH")
    env = None
    if stdlib is not None:
        import os

        env = {**os.environ, "PYODIDE_STDLIB": str(Path(stdlib).resolve())}
    proc = subprocess.run([node, str(RUNNER), str(lab_zip), code], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"node exited {proc.returncode}:\n{proc.stderr}")
    return proc.stdout


def parse_trace(stdout: str) -> tuple[dict[str, str], list[str]]:
    """({module: zip entry}, frozen module names) from the runner's output."""
    def last(tag):
        lines = [line for line in stdout.splitlines() if line.startswith(tag + " ")]
        if not lines:
            raise RuntimeError(f"no {tag} line in the output:\n{stdout[-2000:]}")
        return json.loads(lines[-1][len(tag) + 1:])
    return last("STDLIB-TRACE"), last("STDLIB-FROZEN")


def trace_runtime(lab_zip: Path) -> tuple[dict[str, str], list[str]]:
    """What Pyodide's start-up, the lab-zip unpack and error reporting import (full stdlib)."""
    return parse_trace(run_node(lab_zip, ERROR_REPORTING + TRACE_REPORT))


# Codecs a locale or a stream may look up by name; tiny, and which one is used depends on the
# environment (Node, a browser worker), so they are listed whether or not a trace saw them.
ALWAYS = ("encodings.aliases", "encodings.ascii", "encodings.latin_1", "encodings.utf_8", "encodings.utf_8_sig",
          "encodings.utf_16", "encodings.utf_32", "encodings.cp437", "encodings.unicode_escape",
          "encodings.raw_unicode_escape")

HEADER = """\
# The trimmed standard library's committed half (sitebuild/stdlib.py builds the zip).
# [runtime]: modules Pyodide's start-up, the lab-zip unpack and error reporting import, found by
#   tracing sys.modules under Node + Pyodide with the full stdlib, a few codecs looked up by name,
#   and anything a trace of the lab's requests saw that the build's static scan of the lab missed.
#   What the lab imports is added at build time: a new instrument needs no entry here.
# [frozen]: modules built into Pyodide's binary, by their own names and by the stdlib names they
#   stand in for (_frozen_importlib is importlib._bootstrap); the zip needs none of their files.
# Regenerate after a Pyodide upgrade, or when tests/test_stdlib_trim.py names a missing module:
#   .venv/bin/python -m sitebuild.stdlib --trace      (then commit this file)
"""


def write_list(runtime, frozen, path: Path = RUNTIME_LIST) -> None:
    Path(path).write_text(HEADER + "[runtime]\n" + "".join(f"{name}\n" for name in sorted(set(runtime)))
                          + "\n[frozen]\n" + "".join(f"{name}\n" for name in sorted(set(frozen))))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sitebuild.stdlib", description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", action="store_true",
                        help="trace Pyodide's start-up, error reporting and the lab's requests under Node and "
                             "rewrite stdlib_runtime.txt (entries already there are kept)")
    parser.add_argument("--show", action="store_true", help="list the trimmed zip's modules")
    args = parser.parse_args(argv)
    import gzip
    import tempfile

    from sitebuild.assets import lab_zip_bytes

    full = (ROOT / "node_modules" / "pyodide" / "python_stdlib.zip").read_bytes()
    if args.trace:
        with tempfile.TemporaryDirectory() as tmp:
            lab_zip = Path(tmp) / "lab.zip"
            lab_zip.write_bytes(lab_zip_bytes(ROOT / "lab"))
            traced, frozen = trace_runtime(lab_zip)
            requests, _ = parse_trace(run_node(lab_zip, WORKLOAD + TRACE_REPORT))
        kept = read_list() if RUNTIME_LIST.exists() else []
        runtime = set(kept) | set(traced) | set(ALWAYS)
        roots = runtime | lab_imports(ROOT / "lab")
        static = set(Stdlib(full).closure(roots, frozen=frozen))
        extra = set(requests) - static - set(frozen)  # seen at run time, invisible to the static scan
        write_list(runtime | extra, frozen)
        print(f"{RUNTIME_LIST.relative_to(ROOT)}: {len(runtime | extra)} modules ({len(traced)} traced at "
              f"start-up, {len(extra)} only seen in the lab's requests: {', '.join(sorted(extra)) or 'none'}), "
              f"{len(frozen)} frozen")
    data = trimmed_zip_bytes(full, ROOT / "lab")
    print(f"trimmed stdlib: {len(data):,} bytes stored ({len(gzip.compress(data, 9)):,} gzip), "
          f"from {len(full):,} bytes")
    if args.show:
        for module, entry in sorted(trimmed_modules(full, ROOT / "lab").items()):
            print(f"  {module:40} {entry}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
