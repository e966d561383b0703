"""The site's scripts, minified by terser (pinned in package-lock.json) with a source map each.

`site/app.js` and `site/worker.js` are written to be read: their comments say why. Readers'
browsers need none of that, so the build publishes terser's output (about half the compressed
bytes) and a source map beside each script (`app.1a2b3c4d.js.map`, with the original source
inside it), which browsers fetch only when their developer tools are open: a maintainer debugging
the live page still sees `site/app.js` as written, line for line.

One Node process minifies every script (`sitebuild/jsmin.mjs`). Terser is deterministic, so the
same sources and terser version give the same bytes, and the hashed names stay stable.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

RUNNER = Path(__file__).with_name("jsmin.mjs")

# Scripts loaded as ES modules (`new Worker(url, {type: "module"})`): their top-level names are
# private to them, so terser may rename those too. Every other script is a classic one, whose
# top-level names are globals and keep their spelling.
MODULE_SCRIPTS = ("worker.js",)


class MinifyError(RuntimeError):
    """Node or terser is missing, or terser rejected a script."""


def minify_scripts(scripts: dict[str, bytes], root: Path) -> dict[str, tuple[bytes, bytes]]:
    """{name: source} -> {name: (minified code, source map JSON)}, in one terser run."""
    if not scripts:
        return {}
    node = shutil.which("node")
    if node is None or not (Path(root) / "node_modules" / "terser" / "package.json").is_file():
        raise MinifyError("minifying the site's scripts needs node and terser: run `make node_modules`")
    request = {"files": [{"name": name, "code": data.decode("utf-8"), "module": name in MODULE_SCRIPTS}
                         for name, data in sorted(scripts.items())]}
    done = subprocess.run([node, str(RUNNER)], input=json.dumps(request), capture_output=True, text=True,
                          cwd=root, timeout=300)
    if done.returncode != 0:
        raise MinifyError(f"terser failed: {done.stderr.strip()[-2000:]}")
    return {entry["name"]: (entry["code"].encode("utf-8"), entry["map"].encode("utf-8"))
            for entry in json.loads(done.stdout)["files"]}


def with_map_comment(code: bytes, map_name: str) -> bytes:
    """The published script: terser's code, then the comment that points developer tools at its map.

    >>> with_map_comment(b"f();", "app.1a2b3c4d.js.map")
    b'f();\\n//# sourceMappingURL=app.1a2b3c4d.js.map\\n'
    """
    return code + f"\n//# sourceMappingURL={map_name}\n".encode()
