"""build_site(): render the article and lay out every asset under content-hashed names.

The output is assembled in a fresh sibling directory and swapped in at the end, so stale hashed
files from earlier builds never linger and a failed build leaves the previous output untouched.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, NamedTuple

from . import assets, headers, jsmin, labsplit, palette, sources, stdlib, stdlib_compile
from .compress import Compressor
from .csp import META_CONTENT_SECURITY_POLICY

ROOT = Path(__file__).resolve().parent.parent

# Written into every output dir; a non-empty dir without it is not ours and is never deleted.
MARKER = ".proofroom-build"
MARKER_TEXT = "Built by build.py; this directory is replaced wholesale on every build.\n"


class BuildError(Exception):
    """A problem the user can fix (bad output dir, missing inputs); printed without traceback."""


def check_out_dir(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise BuildError(f"{out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise BuildError(
            f"refusing to overwrite {out}: it is not empty and was not made by build.py "
            f"(no {MARKER} file); choose another --out or empty it yourself"
        )
    if out.resolve() in (ROOT, Path.home().resolve(), Path("/")) or out.resolve() in ROOT.parents:
        raise BuildError(f"refusing to build into {out}")


def _jinja_env(template_dir: Path):
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    return env


class _Writer:
    """Writes a file and its precompressed siblings; remembers what it wrote (for `_headers`)."""

    def __init__(self, stage: Path, compressor: Compressor | None, sizer: Compressor | None = None):
        self.stage, self.compressor, self.files = stage, compressor, []
        self.sizer = sizer or compressor  # measures what travels even when no siblings are written

    def wire_size(self, name: str, data: bytes) -> int:
        """Bytes on the wire for `data` served as `name` by a server that compresses: its smallest
        sibling (written or not: the page says the same in every build), or itself."""
        packed = self.sizer.siblings(name, data) if self.sizer is not None else {}
        return min([len(data), *(len(value) for value in packed.values())])

    def __call__(self, path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.files.append(path.relative_to(self.stage).as_posix())
        if self.compressor is not None:
            for suffix, packed in self.compressor.siblings(path.name, data).items():
                Path(f"{path}{suffix}").write_bytes(packed)


# The runtime files loadPyodide() fetches (the .mjs files are imported, not fetched).
# The article fetches its own trimmed standard library instead of the runtime's python_stdlib.zip,
# and no pyodide-lock.json: see article_lock_file.
BOOT_FETCHED = ("pyodide.asm.wasm",)

# The appendix page (templates/appendix.html.j2), beside index.html.
APPENDIX = "appendix.html"


def article_lock_file(lock_json: bytes) -> dict:
    """The package index the article's worker boots with (loadPyodide's ``lockFileContents``): the
    distribution's ``info`` and no packages. The lab is standard library only and loads no package,
    so the worker needs none of the distribution's 357 entries (pyodide-lock.json, about 22 KB as
    brotli, a request of its own on every cold visit); Pyodide checks only ``info.abi_version``
    against its own and reads ``packages``. The file stays in the runtime directory for the bare page.

    >>> article_lock_file(b'{"info": {"abi_version": "2026_0"}, "packages": {"numpy": {}}}')
    {'info': {'abi_version': '2026_0'}, 'packages': {}}
    """
    return {"info": json.loads(lock_json)["info"], "packages": {}}


def publication(root: Path) -> dict:
    """The byline's facts, from pyproject.toml: title, version, the date of this version
    (``[tool.proofroom] date``, so that a rebuild of the same version is byte-identical), and the
    author and address the BibTeX cites (``author``, ``url``; an empty one stops the build, since a
    citation without them cannot be followed)."""
    import tomllib

    data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    project, extra = data["project"], data.get("tool", {}).get("proofroom", {})
    import datetime

    date = datetime.date.fromisoformat(extra["date"])
    for key in ("author", "url"):
        if not str(extra.get(key, "")).strip():
            raise BuildError(f"pyproject.toml: [tool.proofroom] {key} is empty; the article's BibTeX needs it")
    return {"title": extra.get("title", project["name"]), "version": project["version"],
            "date": date.isoformat(), "dateText": f"{date.day} {date:%B %Y}", "url": extra["url"],
            "author": extra["author"]}


def widget_data_files(root: Path) -> list[tuple[str, str, bytes, str]]:
    """(widget kind, logical asset name, bytes, path in the worker's file system) of every data file
    a widget loads lazily. A widget declares its own in ``DATA_FILES`` (``lab/widgets/NAME.py``):
    ``(asset name, worker path, "module:function")``, the function building the bytes from the
    checkout's root at build time (the real-text models: trained from the corpus, cached). The
    lab stays free of build code: the builder is named, and imported only here."""
    import importlib

    from lab import instruments

    files = []
    for kind in instruments.widget_names():
        for name, path, builder in getattr(instruments.part("widgets", kind), "DATA_FILES", ()):
            module, _, function = builder.partition(":")
            files.append((kind, name, getattr(importlib.import_module(module), function)(root), path))
    return files


@contextmanager
def _step(log: Callable[[str], None] | None, name: str):
    """One named step of the build, logged with its wall time when there is a log (build.py's stderr)."""
    start = time.perf_counter()
    yield
    if log is not None:
        log(f"build: {name:<12} {time.perf_counter() - start:6.2f} s")


def _render_site(stage: Path, root: Path, _write: _Writer, split_lab: bool = True,
                 log: Callable[[str], None] | None = None) -> dict:
    """The whole site into `stage`, one named step after another: each writes its files and adds what
    it published to `published` (logical name -> hashed name), which the page config and the pages read."""
    published: dict[str, str] = {}
    with _step(log, "lab"):
        lab_views = _import_lab(root)
    with _step(log, "runtime"):
        pyodide_dirname, core = _write_runtime(stage, root, _write)
    with _step(log, "scripts"):
        _write_scripts(stage, root, _write, published)
    with _step(log, "lab files"):
        pieces = _write_lab(stage, root, _write, published, split_lab)
    with _step(log, "stdlib"):
        trimmed = _write_stdlib(stage, root, _write, published, core)
    with _step(log, "data files"):
        data_assets = _write_data_files(stage, root, _write, published)
    with _step(log, "config"):
        config = _page_config(pyodide_dirname, core, published, pieces, trimmed, data_assets, _write)
    with _step(log, "pages"):
        _write_pages(stage, root, _write, published, config, pieces.widget_modules, lab_views)
    with _step(log, "bench pages"):
        _render_bench(stage, root, pyodide_dirname, _write)
    # The static hosts' header rules, from the same table the servers use (not compressed, not served).
    (stage / "_headers").write_text(headers.netlify_headers(_write.files))
    return {"assets": published, "config": config}


def _import_lab(root: Path):
    """lab.views, imported from `root`'s lab/: the page is rendered by the lab it ships. The caller
    puts `root` first on sys.path (build.py is run from it; the tests, `python -m bench` and the
    editable install do the same); a build of another checkout runs in an interpreter of its own
    (bench.run._build_beside), since this one may already hold a lab."""
    import lab
    import lab.figures  # noqa: F401  (the page config's figure widths)
    import lab.views

    where = Path(lab.__file__).resolve().parent
    if where != root / "lab":
        raise BuildError(f"this interpreter's lab is {where}, not {root / 'lab'}: build {root} from its own "
                         f"directory (cd {root} && python build.py --out DIR)")
    return lab.views


def _write_runtime(stage: Path, root: Path, _write: _Writer) -> tuple[str, dict[str, bytes]]:
    """The self-hosted Pyodide runtime (its hashed directory's name and files, by name)."""
    pyodide_dirname, core = assets.pyodide_core(root / "node_modules" / "pyodide")
    for name, data in core.items():
        _write(stage / pyodide_dirname / name, data)
    return pyodide_dirname, core


def _with_palette(name: str, data: bytes) -> bytes:
    """style.css with the figures' colours written in from lab.figures (sitebuild/palette.py); other files
    as they are."""
    if name != "style.css":
        return data
    try:
        return palette.fill(data.decode("utf-8")).encode("utf-8")
    except ValueError as exc:
        raise BuildError(str(exc)) from None


def _write_scripts(stage: Path, root: Path, _write: _Writer, published: dict[str, str]) -> None:
    """site/'s files under hashed names, the scripts minified with a source map beside each, style.css with
    the figures' colours the build writes into it (_with_palette)."""
    files = assets.site_files(root / "site", _with_palette)
    scripts = jsmin.minify_scripts({n: d for n, d in files.items() if n.endswith(".js")}, root)
    for name, data in files.items():
        if name in scripts:
            # Named by the minified code's hash; the map-comment appended is a function of that name.
            code, source_map = scripts[name]
            published[name] = assets.hashed_name(name, code)
            _write(stage / f"{published[name]}.map", source_map)
            data = jsmin.with_map_comment(code, f"{published[name]}.map")
        else:
            published[name] = assets.hashed_name(name, data)
        _write(stage / published[name], data)


class _Lab(NamedTuple):
    zip: bytes                              # the core (the whole lab when not split)
    chunks: dict[str, list[str]]            # each chunk's published name -> its module paths
    widget_modules: dict[str, list[str]]    # widget kind -> the published chunks it loads
    audit: list[str]                        # the chunks the seed audit needs beyond the core


def _write_lab(stage: Path, root: Path, _write: _Writer, published: dict[str, str], split_lab: bool) -> _Lab:
    """The lab in pieces (sitebuild/labsplit.py): the core the worker boots on, and a chunk per set of
    widgets sharing modules, fetched when one of them nears the viewport (each form's data-modules)."""
    from lab import instruments

    lab_zip, chunks, parts = assets.lab_split_zips(root / "lab", instruments.SEED, instruments.widget_names())
    if not split_lab:  # the whole lab in the first load, as before the split (make bench compares the two)
        lab_zip, chunks = assets.lab_zip_bytes(root / "lab"), {}
        parts = parts._replace(chunks={}, widgets={kind: () for kind in parts.widgets}, audit=())
    published["lab.zip"] = assets.hashed_name("lab.zip", lab_zip)
    _write(stage / published["lab.zip"], lab_zip)
    lab_chunks: dict[str, list[str]] = {}
    for name, data in chunks.items():
        published[f"{name}.zip"] = assets.hashed_name(f"{name}.zip", data)
        _write(stage / published[f"{name}.zip"], data)
        lab_chunks[published[f"{name}.zip"]] = labsplit.module_paths(parts.chunks[name], "lab")
    widget_modules = {kind: [published[f"{name}.zip"] for name in names] for kind, names in parts.widgets.items()}
    return _Lab(lab_zip, lab_chunks, widget_modules, [published[f"{name}.zip"] for name in parts.audit])


def _write_stdlib(stage: Path, root: Path, _write: _Writer, published: dict[str, str], core: dict[str, bytes]) -> bytes:
    """The article's worker loads only the stdlib modules it imports (sitebuild/stdlib.py), compiled
    (sitebuild/stdlib_compile.py); the distribution's full python_stdlib.zip, source as shipped,
    stays in the runtime directory for the bare page. Returns the published zip's bytes."""
    source = stdlib.trimmed_zip_bytes(core["python_stdlib.zip"], root / "lab")
    trimmed = stdlib_compile.compiled_zip_bytes(source, root)
    published["python_stdlib.zip"] = assets.hashed_name("python_stdlib.zip", trimmed)
    _write(stage / published["python_stdlib.zip"], trimmed)
    return trimmed


def _write_data_files(stage: Path, root: Path, _write: _Writer, published: dict[str, str]) -> dict[str, list[dict]]:
    """Files a widget reads that are not part of the page's first load: the worker fetches a kind's
    files before its first request (warm, sent as the widget comes near) and writes each where the
    lab reads it. Returns the page config's dataAssets."""
    data_assets: dict[str, list[dict]] = {}
    for kind, name, data, path in widget_data_files(root):
        published[name] = assets.hashed_name(name, data)
        _write(stage / published[name], data)
        data_assets.setdefault(kind, []).append({"url": published[name], "path": path})
    return data_assets


def _page_config(pyodide_dirname: str, core: dict[str, bytes], published: dict[str, str], pieces: _Lab,
                 trimmed: bytes, data_assets: dict[str, list[dict]], _write: _Writer) -> dict:
    """The JSON the front end reads from <script id="lab-config"> (docs/ARCHITECTURE.md, "Seams")."""
    import lab.figures as figures

    return {
        "pyodideIndexURL": f"{pyodide_dirname}/",
        "stdlibURL": published["python_stdlib.zip"],
        "labZipURL": published["lab.zip"],
        # the package index the worker boots with, in place of fetching pyodide-lock.json
        "pyodideLock": article_lock_file(core["pyodide-lock.json"]),
        "workerURL": published.get("worker.js", ""),
        # what the worker fetches to boot (uncompressed, as a response body reads), for the
        # progress line: the runtime's fetched files, the trimmed standard library and the lab
        "bootBytes": sum(len(core[name]) for name in BOOT_FETCHED if name in core) + len(pieces.zip) + len(trimmed),
        # the same files as they travel to a browser that takes brotli (what the servers send), so
        # the progress line can name the download's real size
        "bootWireBytes": sum(_write.wire_size(name, data) for name, data in
                             [*((n, core[n]) for n in BOOT_FETCHED if n in core),
                              ("lab.zip", pieces.zip), ("python_stdlib.zip", trimmed)]),
        "dataAssets": data_assets,
        # module -> the chunk that holds it, by chunk: the worker loads a chunk when an import misses
        # (an import inside a core function that only some settings reach)
        "labChunks": pieces.chunks,
        # the chunks the seed audit (and the exact sampler's first render) needs beyond the core: the
        # page loads them once it is live, before it asks for either
        "labAudit": pieces.audit,
        # the figure widths the page may ask the lab for (app.js reads them; lab.figures clamps to them)
        "figureWidths": {"min": figures.MIN_WIDTH, "max": figures.MAX_WIDTH, "step": figures.WIDTH_STEP},
    }


def _write_pages(stage: Path, root: Path, _write: _Writer, published: dict[str, str], config: dict,
                 widget_modules: dict[str, list[str]], lab_views) -> None:
    """index.html (the article, every widget pre-rendered by lab.views.page_context()) and the appendix
    page: the long tables of rows the article's folds link to (APPENDIX), out of its first load; not
    hashed, since the article's plain links name it."""
    from lab import instruments

    from . import mathml

    env = _jinja_env(root / "templates")
    mathml.register(env)
    context, byline = lab_views.page_context(), publication(root)   # both pages read them
    html = env.get_template("article.html.j2").render(
        lab=context,
        assets=published,
        config=config,
        csp=META_CONTENT_SECURITY_POLICY,
        publication=byline,
        sources=sources.load(root / "sitebuild" / "sources.toml"),
    )
    html = labsplit.mark_widgets(html, widget_modules, instruments.NAMES)
    _write(stage / "index.html", assets.minify_html(assets.glue_citations(mathml.glue_punctuation(html))).encode("utf-8"))
    appendix = env.get_template("appendix.html.j2").render(lab=context, assets=published,
                                                           csp=META_CONTENT_SECURITY_POLICY,
                                                           publication=byline)
    missing = [part for part in re.findall(r'data-appendix="([^"]+)"', html) if f'id="{part}"' not in appendix]
    if missing:
        raise BuildError(f"the article links to appendix parts the appendix page lacks: {', '.join(missing)}")
    _write(stage / APPENDIX, assets.minify_html(appendix).encode("utf-8"))


def _render_bench(stage: Path, root: Path, pyodide_dirname: str, _write: _Writer) -> None:
    """bench/bare.html: boots the same self-hosted Pyodide and nothing else (cold-start baseline)."""
    src = root / "site" / "bench"
    script = (src / "bare.js").read_bytes()
    script_name = assets.hashed_name("bare.js", script)
    _write(stage / "bench" / script_name, script)
    html = _jinja_env(src).get_template("bare.html.j2").render(
        csp=META_CONTENT_SECURITY_POLICY,
        script=script_name,
        config={"pyodideIndexURL": f"../{pyodide_dirname}/"},
    )
    _write(stage / "bench" / "bare.html", html.encode("utf-8"))


def build_site(out: Path, root: Path = ROOT, compress: bool = True, cache_dir: Path | None = None,
               split_lab: bool = True, log: Callable[[str], None] | None = None) -> dict:
    """Build into `out` (replacing a previous build there); return the assets/config mapping.

    compress: write .br/.gz siblings (see sitebuild.compress), cached in `cache_dir` (default
    ROOT/.cache/compressed). split_lab: the lab in a core and chunks (sitebuild/labsplit.py); False
    ships it whole in the first load, the page before the split, which `make bench` measures beside it.
    log: called with one line per named step and its wall time (build.py passes stderr's print)."""
    out = Path(out).absolute()
    root = Path(root).resolve()
    sizer = Compressor(cache_dir or root / ".cache" / "compressed")
    compressor = sizer if compress else None
    check_out_dir(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    try:
        result = _render_site(stage, root, _Writer(stage, compressor, sizer), split_lab, log)
        (stage / MARKER).write_text(MARKER_TEXT)
        # mkdtemp makes 0700; a static site dir should be world-readable like everything inside.
        os.chmod(stage, 0o755)
        if out.exists():
            trash = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            out.rename(trash / "old")
            stage.rename(out)
            shutil.rmtree(trash)
        else:
            stage.rename(out)
    finally:
        if stage.exists():
            shutil.rmtree(stage)
    return result


def manifest(result: dict) -> str:
    return json.dumps(result, indent=2, sort_keys=True)
