"""Recompute the acceptance interval's residual quantiles from the library and write them into lab/acceptance_rates.py.

``lab.acceptance.RESIDUAL_QUANTILES`` are frozen constants (the leave-one-out behind them is too heavy to run at every
slider step in the browser): the 10th and 90th percentiles of each library curve's held-out error per extrapolated
position, from one figure and from two (lab.acceptance_validation.residual_quantiles). A curve added to the library
moves them, and tests/test_acceptance_validation.py fails until they are refreshed:

    .venv/bin/python tools/refresh_interval_quantiles.py            # rewrite the constant's line, print old and new
    .venv/bin/python tools/refresh_interval_quantiles.py --check    # exit 1 when the constant is stale, nothing written

Then rerun the acceptance tests and update what docs/READING.md quotes of them.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RATES = ROOT / "lab" / "acceptance_rates.py"
LINE = re.compile(r"^RESIDUAL_QUANTILES = \{.*\}$", re.M)
DECIMALS = 6   # the printed precision the test compares at


def current_line() -> str:
    """The constant's line as lab/acceptance_rates.py should hold it, recomputed from the library."""
    sys.path.insert(0, str(ROOT))  # run by path: this checkout's lab/, whatever lab an installed package points at
    from lab.acceptance_validation import residual_quantiles

    found = residual_quantiles()
    body = ", ".join(f"{figures}: ({low:.{DECIMALS}f}, {high:.{DECIMALS}f})" for figures, (low, high) in sorted(found.items()))
    return "RESIDUAL_QUANTILES = {" + body + "}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Refresh lab.acceptance.RESIDUAL_QUANTILES from the library.")
    parser.add_argument("--check", action="store_true", help="exit 1 when the constant is stale; write nothing")
    args = parser.parse_args(argv)
    text = RATES.read_text(encoding="utf-8")
    found = LINE.findall(text)
    if len(found) != 1:
        print(f"{RATES.relative_to(ROOT)} holds {len(found)} 'RESIDUAL_QUANTILES = {{...}}' lines, not one", file=sys.stderr)
        return 2
    new = current_line()
    if found[0] == new:
        print(f"up to date: {new}")
        return 0
    print(f"stale: {found[0]}\nfresh: {new}")
    if args.check:
        return 1
    RATES.write_text(text.replace(found[0], new), encoding="utf-8")
    print(f"rewrote {RATES.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
