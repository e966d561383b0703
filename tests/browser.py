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


def _with_executable(playwright, kwargs: dict) -> dict:
    """``kwargs`` with the executable_path chromium_executable() chooses (none for Playwright's own)."""
    path = chromium_executable(playwright)
    if path is not None:
        kwargs.setdefault("executable_path", path)
    return kwargs


def launch(playwright, **kwargs):
    """Launch headless Chromium chosen by chromium_executable()."""
    return playwright.chromium.launch(**_with_executable(playwright, kwargs))


def launch_persistent(playwright, user_data_dir, **kwargs):
    """The same Chromium with a profile on disk (its caches outlive each page): a persistent context."""
    return playwright.chromium.launch_persistent_context(user_data_dir, **_with_executable(playwright, kwargs))
