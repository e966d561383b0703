"""The lab as the browser gets it: the modules the worker can import, without comments or docstrings.

Docstrings and comments are most of the lab's bytes (they carry the formulas, the sources and the
doctests) and the worker needs none of them, with one exception: the audit shows each check's
docstring as the sentence saying what the check asserts, so the docstrings of the functions named
in a module's ``CHECKS`` table stay. The CLI (``lab/cli.py``, ``lab/__main__.py``,
``lab/commands/``) never runs in a browser and is left out.

Stripping keeps every remaining line where it was, so a traceback from the reader's browser names
the same line numbers as the repository's source. What changes is provably nothing but docstrings
and comments: :func:`strip_source` checks that the stripped syntax tree equals the original's with
those docstrings removed, and refuses otherwise.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import PurePosixPath

# Top-level entries of the package the worker never imports: the command line and its subcommands.
CLI_ONLY = ("cli.py", "__main__.py", "commands")


def browser_module(relative: str) -> bool:
    """Whether a module (path relative to the package, POSIX separators) ships to the browser.

    >>> browser_module("widgets/trees.py"), browser_module("cli.py"), browser_module("commands/trees.py")
    (True, False, False)
    """
    return PurePosixPath(relative).parts[0] not in CLI_ONLY


def check_function_names(tree: ast.Module) -> frozenset[str]:
    """Names of the functions a module-level ``CHECKS = ((name, function), ...)`` table lists
    (``Audit.method`` counts as ``method``): the docstrings the audit shows.

    >>> sorted(check_function_names(ast.parse("CHECKS = (('a', f), ('b', Audit.g))")))
    ['f', 'g']
    """
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "CHECKS" for t in node.targets):
            for entry in getattr(node.value, "elts", ()):
                function = entry.elts[1] if isinstance(entry, ast.Tuple) and len(entry.elts) == 2 else None
                if isinstance(function, ast.Attribute):
                    names.add(function.attr)
                elif isinstance(function, ast.Name):
                    names.add(function.id)
    return frozenset(names)


def _docstring(node) -> ast.Expr | None:
    body = getattr(node, "body", None)
    if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
            and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)):
        return body[0]
    return None


def _dropped_docstrings(tree: ast.Module, keep: frozenset[str]) -> list[tuple[ast.AST, ast.Expr]]:
    """(owner, docstring) for every docstring to remove: all but those of functions in ``keep``."""
    dropped = []
    for node in ast.walk(tree):
        doc = _docstring(node)
        if doc is not None and not (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in keep):
            dropped.append((node, doc))
    return dropped


def _without_docstrings(tree: ast.Module, keep: frozenset[str]) -> str:
    """ast.dump, positions included, of ``tree`` with the dropped docstrings removed: what the
    stripped source must parse to. A body left empty holds ``...`` where its docstring began."""
    for owner, doc in _dropped_docstrings(tree, keep):
        if len(owner.body) > 1:
            owner.body = owner.body[1:]
            continue
        end = doc.col_offset + 3
        owner.body = [ast.Expr(ast.Constant(..., lineno=doc.lineno, col_offset=doc.col_offset, end_lineno=doc.lineno,
                                            end_col_offset=end),
                               lineno=doc.lineno, col_offset=doc.col_offset, end_lineno=doc.lineno, end_col_offset=end)]
        if not isinstance(owner, ast.Module):
            owner.end_lineno, owner.end_col_offset = doc.lineno, end
    return ast.dump(tree, include_attributes=True)


def strip_source(source: str, keep: frozenset[str] | None = None) -> str:
    """``source`` without comments and docstrings, every other line where it was.

    ``keep`` names functions whose docstrings stay (default: those the module's ``CHECKS`` lists).
    A body that held only a docstring gets ``...`` on the docstring's first line.

    >>> print(strip_source('def f(x):  # why\\n    \"\"\"Doc.\\n\\n    More.\"\"\"\\n    return x\\n'), end="")
    def f(x):
    <BLANKLINE>
    <BLANKLINE>
    <BLANKLINE>
        return x
    """
    tree = ast.parse(source)
    if keep is None:
        keep = check_function_names(tree)
    lines = source.splitlines(keepends=True)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            row, column = token.start
            lines[row - 1] = lines[row - 1][:column].rstrip() + "\n"
    # Bottom-up, so the positions of docstrings still to cut stay valid.
    docs = sorted(_dropped_docstrings(tree, keep), key=lambda pair: (pair[1].lineno, pair[1].col_offset), reverse=True)
    for owner, doc in docs:
        first, last = doc.lineno - 1, doc.end_lineno - 1
        placeholder = "..." if len(owner.body) == 1 else ""
        head, tail = lines[first][:doc.col_offset], lines[last][doc.end_col_offset:]
        lines[first:last + 1] = [(head + placeholder + tail).rstrip() + "\n"] + ["\n"] * (last - first)
    stripped = "".join(lines)
    if len(stripped.splitlines()) != len(source.splitlines()):
        raise ValueError("stripping moved lines")
    # Positions included: every statement, expression and name must sit on its original line and column.
    if ast.dump(ast.parse(stripped), include_attributes=True) != _without_docstrings(ast.parse(source), keep):
        raise ValueError("stripping changed more than comments and docstrings")
    return stripped


def browser_files(package_files: dict[str, bytes]) -> dict[str, bytes]:
    """{relative path: source} of a package -> what the browser gets: CLI left out, sources stripped."""
    return {relative: strip_source(data.decode("utf-8")).encode("utf-8")
            for relative, data in package_files.items()
            if browser_module(relative)}
