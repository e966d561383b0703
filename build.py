#!/usr/bin/env python3
"""Build the static site: python build.py --out DIR  (the work lives in sitebuild.pipeline).

Every build writes precompressed .br/.gz siblings where they pay, and the static hosts' `_headers`."""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent  # run as a script, Python puts this directory first on sys.path


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage dump
        self.exit(2, f"{self.prog}: error: {message}\n")


def main(argv=None) -> int:
    parser = _Parser(prog="build.py", description=__doc__)
    parser.add_argument("--out", required=True, type=Path, help="output directory (created or replaced)")
    parser.add_argument("--quiet", action="store_true", help="do not print the asset manifest or the steps' times")
    args = parser.parse_args(argv)

    from sitebuild.pipeline import BuildError, build_site, manifest

    try:
        result = build_site(args.out, ROOT, log=None if args.quiet else lambda line: print(line, file=sys.stderr))
    except (BuildError, FileNotFoundError) as exc:
        print(f"build.py: error: {exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        print(manifest(result))
        print(f"built {args.out}/index.html")
    return 0


if __name__ == "__main__":
    sys.exit(main())
