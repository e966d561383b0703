"""The checkout passes its linter: `ruff check` with pyproject.toml's [tool.ruff] (pyflakes' F rules: unused
imports and variables, undefined names, redefinitions; E9 and W6: what does not parse, invalid escapes; B: bugbear)
finds nothing in lab/, sitebuild/, tools/, bench/, tests/ or build.py. The ruff is the one beside this Python (the
venv's, pinned in the [test] extras); without it the test fails saying how to install it, it never skips."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PIN = next(req for req in PYPROJECT["project"]["optional-dependencies"]["test"] if req.startswith("ruff=="))
VERSION = PIN.removeprefix("ruff==")


def _ruff() -> Path:
    """The ruff installed beside sys.executable (its venv's bin/ or Scripts/), or a failure saying how to get it."""
    here = Path(sys.executable).parent
    for name in ("ruff", "ruff.exe"):
        if (here / name).is_file():
            return here / name
    pytest.fail(f"ruff is not installed beside {sys.executable} (looked in {here}); install the pinned one with "
                f"`{sys.executable} -m pip install {PIN}` (or `make venv`: it is in pyproject.toml's [test] extras)",
                pytrace=False)


def _check(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    # --no-cache: a test run leaves no .ruff_cache behind; concise output: one line per finding
    return subprocess.run([str(_ruff()), "check", "--no-cache", "--output-format", "concise", *args], cwd=cwd,
                          capture_output=True, text=True)


def test_the_ruff_beside_this_python_is_the_pinned_one():
    out = subprocess.run([str(_ruff()), "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.split() == ["ruff", VERSION], (
        f"{out.stdout.strip() or out.stderr.strip()}: pyproject.toml pins {PIN}; install it with "
        f"`{sys.executable} -m pip install {PIN}`")


def test_the_lint_rules_are_configured():
    lint = PYPROJECT["tool"]["ruff"]["lint"]
    assert {"F", "E9", "W6"} <= set(lint["select"]), lint
    assert not {rule for rule in lint.get("ignore", []) if rule.startswith(("F", "E9", "W6"))}, lint["ignore"]
    # a file may leave out one named rule (with its reason beside it in pyproject.toml), never a whole family
    assert all(len(rule) == 4 for rules in lint.get("per-file-ignores", {}).values() for rule in rules), lint
    assert PYPROJECT["tool"]["ruff"]["line-length"] == 120 and PYPROJECT["tool"]["ruff"]["target-version"] == "py311"


def test_ruff_finds_nothing_in_the_checkout():
    result = _check(".")
    assert result.returncode == 0, (f"ruff check found problems (fix them, or add `# noqa: CODE (why)` where the "
                                    f"rule is wrong):\n{result.stdout}{result.stderr}")


def test_ruff_with_the_project_s_rules_finds_an_unused_import_and_an_undefined_name(tmp_path):
    """The check above can fail: the same rules on a file with an unused import and an undefined name name both."""
    planted = tmp_path / "planted.py"
    planted.write_text("import os\n\n\ndef f():\n    return undefined_name\n", encoding="utf-8")
    result = _check("--config", str(ROOT / "pyproject.toml"), str(planted), cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "planted.py:1:8: F401" in result.stdout and "planted.py:5:12: F821" in result.stdout, result.stdout
