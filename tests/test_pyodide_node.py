"""The lab gives the same signatures under Pyodide (Python 3.14, wasm) as under this CPython.

Uses the exact zip the build publishes (sitebuild.assets.lab_zip_bytes) and the npm Pyodide the
site self-hosts, run by Node, so a stdlib or float difference between the two Pythons shows up here
before it shows up in a reader's browser.
"""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from sitebuild.assets import lab_zip_bytes
from sitebuild.stdlib import RUNNER

ROOT = Path(__file__).resolve().parent.parent
CODE = (
    "import json, sys, lab.audit as a\n"
    "print(json.dumps({'version': list(sys.version_info[:3]), 'signatures': a.signatures()}))\n"
)


def _require(ok: bool, why: str):
    # `make test` installs Node's Pyodide; without it this comparison cannot run, which is a
    # broken setup, not a reason to pass quietly.
    if not ok:
        pytest.fail(why)


@pytest.fixture(scope="module")
def pyodide_result(tmp_path_factory):
    node = shutil.which("node")
    _require(node is not None, "node not on PATH")
    _require((ROOT / "node_modules" / "pyodide" / "pyodide.mjs").is_file(), "run `make node_modules`")
    zip_path = tmp_path_factory.mktemp("labzip") / "lab.zip"
    zip_path.write_bytes(lab_zip_bytes(ROOT / "lab"))
    proc = subprocess.run(
        [node, str(RUNNER), str(zip_path), CODE],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_pyodide_is_a_supported_python(pyodide_result):
    version = tuple(pyodide_result["version"])
    print(f"Pyodide Python {'.'.join(map(str, version))}")
    assert version >= (3, 11)


def test_signatures_match_cpython(pyodide_result):
    import lab.audit

    assert pyodide_result["signatures"] == lab.audit.signatures()
    assert set(pyodide_result["signatures"]) >= {"audit", "exact", "legacy"}
