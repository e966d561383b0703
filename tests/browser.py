"""Which Chromium the Playwright tests (and the benchmark) drive.

Order: $PROOFROOM_CHROMIUM; Playwright's own download if present; the distribution's chromium.
Playwright's own build is launched without executable_path (it knows where it lives); any other
binary is passed explicitly.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

SYSTEM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")


def chromium_executable(playwright=None) -> str | None:
    """Path to pass as executable_path, or None to let Playwright use its own browser.

    Raises RuntimeError when no browser is available at all.
    """
    env = os.environ.get("PROOFROOM_CHROMIUM")
    if env:
        if not os.access(env, os.X_OK):
            raise RuntimeError(f"PROOFROOM_CHROMIUM={env} is not an executable file")
        return env
    if playwright is not None:
        try:
            if Path(playwright.chromium.executable_path).is_file():
                return None
        except Exception:  # older Playwright raises when its browser was never installed
            pass
    for candidate in (*SYSTEM_CANDIDATES, shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise RuntimeError(
        "no Chromium found: run `make chromium`, or set PROOFROOM_CHROMIUM=/path/to/chromium"
    )


def launch(playwright, **kwargs):
    """Launch headless Chromium chosen by chromium_executable()."""
    path = chromium_executable(playwright)
    if path is not None:
        kwargs.setdefault("executable_path", path)
    return playwright.chromium.launch(**kwargs)
