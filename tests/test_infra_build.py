"""build.py / sitebuild: hashed layout, reproducibility, stale-file removal, the bare bench page."""

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from sitebuild import assets, palette
from sitebuild.pipeline import MARKER, BuildError, build_site

ROOT = Path(__file__).resolve().parent.parent


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_layout(built_site):
    names = {n for n in tree(built_site) if not n.endswith((".br", ".gz"))}  # siblings: below
    pyodide_dirs = {n.split("/")[0] for n in names if n.startswith("pyodide-")}
    assert len(pyodide_dirs) == 1
    (pdir,) = pyodide_dirs
    assert re.fullmatch(r"pyodide-[0-9a-f]{8}", pdir)
    # The core runtime only: no typings, docs, maps, consoles or CommonJS build.
    assert {n for n in names if n.startswith(pdir)} == {f"{pdir}/{f}" for f in assets.PYODIDE_CORE_FILES}
    assert "index.html" in names and MARKER in names and "bench/bare.html" in names and "_headers" in names
    for logical in ("app.js", "worker.js", "style.css", "widgets.css"):
        stem, ext = logical.rsplit(".", 1)
        assert any(re.fullmatch(rf"{stem}\.[0-9a-f]{{8}}\.{ext}", n) for n in names), logical
    assert any(re.fullmatch(r"lab\.[0-9a-f]{8}\.zip", n) for n in names)
    assert any(re.fullmatch(r"bench/bare\.[0-9a-f]{8}\.js", n) for n in names)


def test_config_points_at_real_files(built_site):
    html = (built_site / "index.html").read_text()
    match = re.search(r'<script type="application/json" id="lab-config">(.*?)</script>', html, re.S)
    assert match, "index.html lacks the lab-config JSON block"
    config = json.loads(match.group(1))
    assert (built_site / config["pyodideIndexURL"] / "pyodide.mjs").is_file()
    assert (built_site / config["labZipURL"]).is_file()
    assert (built_site / config["stdlibURL"]).is_file() and "/" not in config["stdlibURL"]
    assert (built_site / config["workerURL"]).is_file()


def test_lab_zip_is_stable_and_python_only():
    data = assets.lab_zip_bytes(ROOT / "lab")
    assert data == assets.lab_zip_bytes(ROOT / "lab")
    with zipfile.ZipFile(__import__("io").BytesIO(data)) as zf:
        infos = zf.infolist()
    names = [i.filename for i in infos]
    assert names == sorted(names) and "lab/__init__.py" in names
    assert all(n.startswith("lab/") and (n.endswith(".py") or n.startswith("lab/traces/samples/"))
               and "__pycache__" not in n for n in names)  # Python, and the golden files the checks parse
    assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
    assert {i.external_attr >> 16 for i in infos} == {0o100644}


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory):
    """(out, html_before_minification, logged_steps): a second whole build of the checkout, into a directory an
    earlier build left stale files in, with the page's HTML recorded as it went into
    assets.minify_html (whose output the build still writes, unchanged). One build serves both the
    reproducibility test and the minification test, which each made a build of their own."""
    from sitebuild import pipeline

    out = tmp_path_factory.mktemp("rebuild") / "again"
    out.mkdir()
    (out / MARKER).write_text("from an earlier build\n")
    (out / "app.00000000.js").write_text("stale")
    minify, seen, logged = pipeline.assets.minify_html, [], []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline.assets, "minify_html", lambda html: seen.append(html) or minify(html))
        build_site(out, ROOT, log=logged.append)
    assert len(seen) == 2, "the build minifies the article's HTML once, then the appendix page's"
    assert 'id="appendix-validation"' in seen[1] and 'id="appendix-validation"' not in seen[0]
    return out, seen[0], logged


def test_rebuild_is_byte_identical_and_drops_stale_files(built_site, rebuilt):
    out, _, _ = rebuilt
    assert tree(out) == tree(built_site)


def test_the_build_logs_each_named_step_with_its_time(rebuilt):
    """One line per step of sitebuild.pipeline._render_site, in order, each with its wall time."""
    *_, logged = rebuilt
    steps = [re.fullmatch(r"build: (.+?) +(\d+\.\d\d) s", line) for line in logged]
    assert all(steps), logged
    assert [step[1] for step in steps] == ["lab", "runtime", "scripts", "lab files", "stdlib", "data files", "config",
                                           "pages", "bench pages"]


def test_refuses_foreign_directory(tmp_path):
    (tmp_path / "precious.txt").write_text("not ours")
    with pytest.raises(BuildError, match="refusing"):
        build_site(tmp_path, ROOT)
    assert (tmp_path / "precious.txt").read_text() == "not ours"


@pytest.mark.parametrize("args", [[], ["--out"], ["--out", "x", "--bogus"]])
def test_build_cli_bad_flags(args):
    proc = subprocess.run([sys.executable, str(ROOT / "build.py"), *args],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_bare_page_boots_pyodide_under_csp(page):
    """Self-hosted Pyodide boots in a module worker with only 'wasm-unsafe-eval' allowed."""
    pg = page()
    pg.goto(pg.base_url + "bench/bare.html")
    # Predicates must be functions: a bare expression string is eval'd, which the CSP forbids.
    pg.wait_for_function("() => document.body.dataset.ready || document.body.dataset.error",
                         timeout=120_000)
    data = pg.evaluate("() => ({...document.body.dataset})")
    assert "error" not in data, data
    print(f"bare Pyodide ready at {data['ready']} ms (worker boot {data['boot']} ms), Python {data['python']}")
    assert tuple(map(int, data["python"].split("."))) >= (3, 11)
    assert pg.console_errors == []
    assert pg.foreign_requests() == []
    assert any(u.endswith("/pyodide.asm.wasm") for u in pg.requests)


@pytest.mark.parametrize("name", ["style.css", "widgets.css"])
def test_minified_css_parses_to_the_same_rules(browser, name):
    """Chromium reads the minified stylesheet into exactly the rules of the original (style.css with the palette
    the build writes into it, sitebuild/palette.py)."""
    original = (ROOT / "site" / name).read_text()
    if name == "style.css":
        original = palette.fill(original)
        assert "--k-draft" in original
    minified = assets.minify_css(original.encode()).decode()
    assert len(minified) < len(original)
    context = browser.new_context()
    try:
        pg = context.new_page()
        rules = []
        for css in (original, minified):
            pg.set_content("<!doctype html><title>css</title>")
            rules.append(pg.evaluate("""(css) => {
                const sheet = new CSSStyleSheet();
                sheet.replaceSync(css);
                return [...sheet.cssRules].map((rule) => rule.cssText);
            }""", css))
        # Custom properties keep their raw text, so "a, b" and "a,b" stay different there;
        # where they are used (font lists) the space after a comma means nothing.
        def normalise(texts):
            return [re.sub(r"\s*,\s*", ",", text) for text in texts]
        assert normalise(rules[0]) == normalise(rules[1])
        assert len(rules[0]) > 20
    finally:
        context.close()


def test_the_published_stylesheet_carries_the_palette(built_site):
    """The style.css the pages link holds the figures' colours the build wrote from lab/figures.py (each scheme's
    declarations, minified), and its hashed name is of those bytes."""
    (name,) = [n for n in tree(built_site) if re.fullmatch(r"style\.[0-9a-f]{8}\.css", n)]
    css = (built_site / name).read_bytes()
    assert name == assets.hashed_name("style.css", css)
    for scheme in ("light", "dark"):
        assert assets.minify_css(palette.declarations(scheme).encode()).strip() in css, scheme
    assert b"palette: " not in css  # the markers are gone
    for page in ("index.html", "appendix.html"):
        assert f'href="{name}"' in (built_site / page).read_text(), page


def test_the_build_refuses_a_stylesheet_without_its_palette_markers():
    from sitebuild.pipeline import _with_palette

    with pytest.raises(BuildError, match="palette: light"):
        _with_palette("style.css", b":root { --fg: #000; }")
    assert _with_palette("widgets.css", b"a{}") == b"a{}"


def test_minify_css_keeps_strings_and_drops_comments():
    css = b'a :focus { color : red; } /* x "q" */ .a > .b , .c{ font: 1rem "Segoe  UI" } .s::after { content: " > "; }'
    assert assets.minify_css(css) == b'a :focus{color : red;}.a>.b,.c{font: 1rem "Segoe  UI"}.s::after{content: " > ";}\n'


def test_precompressed_siblings(built_site):
    """Every build writes .br/.gz where they pay: each decodes to its file and saves MIN_SAVING."""
    import gzip

    import brotli

    from sitebuild import headers

    files = tree(built_site)
    decoders = {".br": brotli.decompress, ".gz": gzip.decompress}
    siblings = {name for name in files if name.endswith((".br", ".gz"))}
    for name in siblings:
        original = files[name[:-3]]
        assert decoders[name[-3:]](files[name]) == original, name
        assert len(files[name]) <= len(original) * (1 - headers.MIN_SAVING), name
        assert name[:-3].endswith(headers.COMPRESSED_SUFFIXES), name
    # The article's own files are gzipped by zopfli: smaller than zlib's best, still plain gzip.
    for name in ("index.html", next(n for n in files if n.startswith("lab.") and n.endswith(".zip"))):
        assert len(files[f"{name}.gz"]) < len(gzip.compress(files[name], 9, mtime=0)), name
    # What a visit fetches that compresses well has both; the runtime's wasm and the article too.
    for name in ("index.html", "bench/bare.html"):
        assert {f"{name}.br", f"{name}.gz"} <= siblings, name
    pdir = next(n.split("/")[0] for n in files if n.startswith("pyodide-"))
    for name in ("pyodide.asm.wasm", "pyodide.asm.mjs", "pyodide.mjs", "pyodide-lock.json", "python_stdlib.zip"):
        assert {f"{pdir}/{name}.br", f"{pdir}/{name}.gz"} <= siblings, name
    assert not any(n.startswith((".", "_")) or "/." in n for n in siblings)


def test_headers_file_follows_the_table(built_site):
    """`_headers` (Netlify, Cloudflare Pages): the security headers on /*, then one block per
    published file with the table's Content-Type and Cache-Control, no header in two blocks that
    match the same path (both hosts would join the values)."""
    from sitebuild import headers

    blocks, current = {}, None
    for line in (built_site / "_headers").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if not line.startswith(" "):
            assert line not in blocks, f"{line} twice"
            current = blocks[line] = {}
        else:
            name, _, value = line.strip().partition(": ")
            current[name] = value
    assert blocks.pop("/*") == headers.SECURITY_HEADERS
    published = sorted(n for n in tree(built_site)
                       if not n.endswith((".br", ".gz")) and headers.is_served("/" + n))
    assert sorted(blocks) == sorted(["/", *("/" + n for n in published)])
    for url, block in blocks.items():
        path = "/index.html" if url == "/" else url
        assert block == {"Content-Type": headers.content_type(path), "Cache-Control": headers.cache_control(url)}, url
        assert not set(block) & set(headers.SECURITY_HEADERS)
    assert blocks["/"]["Cache-Control"] == "no-cache"
    wasm = next(u for u in blocks if u.endswith(".wasm"))
    assert blocks[wasm] == {"Content-Type": "application/wasm", "Cache-Control": headers.IMMUTABLE}


def test_citations_are_numbered_like_the_sources_list(built_site):
    """Every [n] citation links to a listed source, and n is that source's place in the list
    (the template numbers citations by key; the list is numbered by the browser)."""
    import re

    html = (built_site / "index.html").read_text()
    sources = html[html.index('id="sources"'):]
    listed = re.findall(r'<li id="src-([a-z0-9-]+)">', sources)
    assert len(listed) == len(set(listed)) >= 8
    cites = re.findall(r'<a href="#src-([a-z0-9-]+)" id="cite-[a-z0-9-]+" aria-label="source (\d+): [^"]+">\[(\d+)\]</a>', html)
    assert cites, "no citation found"
    for key, label, shown in cites:
        assert key in listed, f"citation of unlisted source {key}"
        assert int(label) == int(shown) == listed.index(key) + 1, (key, label, shown)
    assert set(listed) == {key for key, _, _ in cites}, "a listed source is never cited"


def test_scripts_are_minified_with_a_map_back_to_the_source(built_site):
    """Each published script is terser's output plus a comment naming its map; the map holds the
    original source, so developer tools show site/*.js as written."""
    config = json.loads(re.search(r'id="lab-config">(.*?)</script>', (built_site / "index.html").read_text()).group(1))
    app = re.search(r'<script src="([^"]+)"></script>', (built_site / "index.html").read_text()).group(1)
    for published, source in ((app, "app.js"), (config["workerURL"], "worker.js")):
        code = (built_site / published).read_bytes()
        original = (ROOT / "site" / source).read_text()
        assert code.endswith(f"\n//# sourceMappingURL={published}.map\n".encode()), published
        assert len(code) < 0.6 * len(original.encode()), f"{published} is not minified"
        assert published == assets.hashed_name(source, code[:code.rindex(b"\n//#")])
        source_map = json.loads((built_site / f"{published}.map").read_text())
        assert source_map["sources"] == [source] and source_map["sourcesContent"] == [original]
        # one mappings group per line of the code, the map comment excluded
        assert source_map["mappings"].count(";") == code[:code.rindex(b"\n//#")].count(b"\n")


def test_minify_scripts_names_what_went_wrong(tmp_path):
    from sitebuild import jsmin

    with pytest.raises(jsmin.MinifyError, match="terser failed"):
        jsmin.minify_scripts({"bad.js": b"function ("}, ROOT)
    with pytest.raises(jsmin.MinifyError, match="make node_modules"):
        jsmin.minify_scripts({"a.js": b"f();"}, tmp_path)


def _page_structure(html: str) -> list:
    """Tags, attributes and text as a reader's browser sees them: runs of white space as one space
    (verbatim inside pre and textarea)."""
    from html.parser import HTMLParser

    class Reader(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.out, self.verbatim = [], 0

        def handle_starttag(self, tag, attrs):
            self.out.append(("<", tag, [(k, " ".join((v or "").split())) for k, v in attrs]))
            self.verbatim += tag in ("pre", "textarea")

        def handle_endtag(self, tag):
            self.out.append((">", tag))
            self.verbatim -= tag in ("pre", "textarea")

        def handle_data(self, data):
            text = data if self.verbatim else " ".join(data.split()) + (" " if data[-1:].isspace() else "")
            if text.strip() or self.verbatim:
                self.out.append(("text", text if self.verbatim else (" " if data[:1].isspace() else "") + text))

    reader = Reader()
    reader.feed(html)
    return reader.out


def test_html_minification_changes_nothing_a_reader_sees(built_site, rebuilt):
    _, original, _ = rebuilt  # the page as the build made it, before assets.minify_html
    published = (built_site / "index.html").read_text()
    assert len(published) < len(original)
    assert _page_structure(published) == _page_structure(original)


def test_no_latex_command_reaches_the_page(built_site):
    """Every formula on the page is MathML all through: no backslash command inside a <math>
    element (latex2mathml leaves a command it does not know, such as \\arg, as the text of an
    <mi>, which the page would show as it is), and the build refuses such a formula."""
    import re

    from sitebuild.mathml import to_mathml

    html = (built_site / "index.html").read_text()
    formulas = re.findall(r"<math\b.*?</math>", html, flags=re.S)
    assert len(formulas) > 50
    assert [f for f in formulas if "\\" in f] == []
    with pytest.raises(ValueError, match="unconverted"):
        to_mathml(r"p(\arg\max q)")
    assert "<mi>argmax</mi>" in to_mathml(r"p(\operatorname{argmax} q)")


def test_every_table_wrapper_can_be_scrolled_from_the_keyboard(built_site):
    """A table wider than its column scrolls sideways in its wrapper; each wrapper on the page (the
    article's and the widgets' pre-rendered ones) takes focus and has a name, so a keyboard can
    scroll it and a screen reader says what it holds (two of the article's own had neither)."""
    import re

    html = (built_site / "index.html").read_text()
    wrappers = re.findall(r'<div class="?table-wrap"?[^>]*>', html)
    assert len(wrappers) > 10
    assert [w for w in wrappers if 'tabindex="0"' not in w and "tabindex=0" not in w] == []
    assert [w for w in wrappers if "aria-label" not in w and "aria-labelledby" not in w] == []


def test_formulas_and_citations_keep_their_punctuation_and_word(built_site):
    """The build keeps a formula and the punctuation after it, and a word and the citations after
    it, in one unbreakable span (sitebuild.mathml.glue_punctuation, sitebuild.assets.glue_citations):
    Chromium otherwise broke the line after an inline <math> or a citation's inline-block link."""
    import re

    from sitebuild.assets import glue_citations
    from sitebuild.mathml import glue_punctuation

    html = (built_site / "index.html").read_text()
    assert re.findall(r"</math>[.,;:!?)\]]+(?![.,;:!?)\]]|</span>)", html) == []
    words = re.findall(r'(<span class="keep-together">)?[^\s<>]+<sup class="cite">', html)
    assert len(words) > 40 and all(words), words.count("")
    assert glue_punctuation("<math><mi>k</mi></math>, then") == \
        '<span class="keep-together"><math><mi>k</mi></math>,</span> then'
    assert glue_citations('see Leviathan<sup class="cite"><a>[1]</a></sup><sup class="cite"><a>[2]</a></sup>.') == \
        'see <span class="keep-together">Leviathan<sup class="cite"><a>[1]</a></sup><sup class="cite"><a>[2]</a></sup></span>.'


def test_the_sources_file_is_the_one_list_cite_reads(tmp_path):
    """sitebuild/sources.toml is the Sources list: every entry keyed, named and printed, no key twice;
    a malformed file is refused with one line naming the entry."""
    import pytest

    from sitebuild import sources

    data = sources.load()
    assert len(data.order) == len(set(data.order)) == len(data.entries) >= 50
    assert all(data.names[key] for key in data.order)
    assert any("Accessed" in entry["entry"] for entry in data.entries)
    twice = tmp_path / "s.toml"
    twice.write_text("[[source]]\nkey = 'a'\nname = 'A'\nentry = 'x'\n[[source]]\nkey = 'a'\nname = 'B'\nentry = 'y'\n")
    with pytest.raises(sources.SourcesError, match="key 'a' is listed twice"):
        sources.load(twice)
    unnamed = tmp_path / "u.toml"
    unnamed.write_text("[[source]]\nkey = 'b'\nentry = 'x'\n")
    with pytest.raises(sources.SourcesError, match="source 'b' has no name"):
        sources.load(unnamed)
