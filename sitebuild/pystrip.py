"""The lab as the browser gets it: the modules the worker can import, without comments or docstrings.

Docstrings and comments are most of the lab's bytes (they carry the formulas, the sources and the
doctests) and the worker needs none of them. The one docstring the page shows, each audit check's
sentence saying what it asserts, is written into the HTML by the build; the browser's re-run leaves
that place empty and the page keeps the sentence (``lab.figures.audit_checks_html``
and ``site/app.js``). The CLI (``lab/cli.py``, ``lab/__main__.py``, ``lab/commands/``) never runs in a
browser and is left out.

Stripping keeps every remaining line where it was, so a traceback from the reader's browser names
the same line numbers as the repository's source. What changes is provably nothing but docstrings
and comments: :func:`strip_source` checks that the stripped syntax tree, positions included, equals
the original's with the docstrings removed, and refuses otherwise. Then :func:`reindent` indents each
block by one space instead of four (brotli leaves a few per cent of the lab in its indentation); it
checks the syntax tree, line numbers included, and moves no name, string or line.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import PurePosixPath

# Top-level entries of the package the worker never imports: the command line and its subcommands,
# the acceptance model's leave-one-out and page text, which only the build (lab.views.page_context) runs, the
# fused MoE kernel tables beside the lab's MoE layer, which only the tests and docs/READING.md read, and the engine
# versions --engine reads (the widgets take preset names only).
CLI_ONLY = ("cli.py", "__main__.py", "commands", "acceptance_validation.py", "serving_moe_kernel.py",
            "serving_engine_versions.py")


def browser_module(relative: str) -> bool:
    """Whether a module (path relative to the package, POSIX separators) ships to the browser.

    >>> browser_module("widgets/trees.py"), browser_module("cli.py"), browser_module("commands/trees.py")
    (True, False, False)
    >>> browser_module("acceptance.py"), browser_module("acceptance_validation.py")
    (True, False)
    """
    return PurePosixPath(relative).parts[0] not in CLI_ONLY


def _docstrings(tree: ast.Module) -> list[tuple[ast.AST, ast.Expr]]:
    """(owner, docstring) for every module, class and function docstring of ``tree``."""
    found = []
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            found.append((node, body[0]))
    return found


def _without_docstrings(tree: ast.Module) -> str:
    """ast.dump, positions included, of ``tree`` with its docstrings removed: what the stripped
    source must parse to. A body left empty holds ``...`` where its docstring began."""
    for owner, doc in _docstrings(tree):
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


def strip_source(source: str) -> str:
    """``source`` without comments and docstrings, every other line where it was.

    A body that held only a docstring gets ``...`` on the docstring's first line.

    >>> print(strip_source('def f(x):  # why\\n    \"\"\"Doc.\\n\\n    More.\"\"\"\\n    return x\\n'), end="")
    def f(x):
    <BLANKLINE>
    <BLANKLINE>
    <BLANKLINE>
        return x
    """
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            row, column = token.start
            lines[row - 1] = lines[row - 1][:column].rstrip() + "\n"
    # Bottom-up, so the positions of docstrings still to cut stay valid.
    docs = sorted(_docstrings(tree), key=lambda pair: (pair[1].lineno, pair[1].col_offset), reverse=True)
    for owner, doc in docs:
        first, last = doc.lineno - 1, doc.end_lineno - 1
        placeholder = "..." if len(owner.body) == 1 else ""
        head, tail = lines[first][:doc.col_offset], lines[last][doc.end_col_offset:]
        lines[first:last + 1] = [(head + placeholder + tail).rstrip() + "\n"] + ["\n"] * (last - first)
    stripped = "".join(lines)
    if len(stripped.splitlines()) != len(source.splitlines()):
        raise ValueError("stripping moved lines")
    # Positions included: every statement, expression and name must sit on its original line and column.
    if ast.dump(ast.parse(stripped), include_attributes=True) != _without_docstrings(ast.parse(source)):
        raise ValueError("stripping changed more than comments and docstrings")
    return stripped


def _string_rows(tokens) -> set[int]:
    """Rows (1-based) that begin inside a string: a multi-line string's second line onwards (and an
    f-string's, which Python 3.12+ tokenizes in pieces). Their leading white space is the string's."""
    rows, opened = set(), []
    for token in tokens:
        kind = tokenize.tok_name[token.type]
        if kind == "STRING":
            rows.update(range(token.start[0] + 1, token.end[0] + 1))
        elif kind == "FSTRING_START":
            opened.append(token.start[0])
        elif kind == "FSTRING_END":
            rows.update(range(opened.pop() + 1, token.end[0] + 1))
    return rows


def _lines_only(tree: ast.AST) -> str:
    """ast.dump with line numbers but no columns: what re-indenting must leave unchanged."""
    for node in ast.walk(tree):
        for attribute in ("col_offset", "end_col_offset"):
            if hasattr(node, attribute):
                setattr(node, attribute, 0)
    return ast.dump(tree, include_attributes=True)


def reindent(source: str) -> str:
    """``source`` with one space of indentation per block instead of four: a statement's line starts
    with as many spaces as blocks it is in, a line continuing a bracket or a backslash with as many as
    its statement's, a blank line is empty. Nothing else moves: names, strings (a multi-line string's
    lines are left exactly as they are) and line numbers stay, so a traceback names the repository's
    line and shows its code; only the columns of its ``^`` markers differ. Brotli'd, the lab's zips
    shrink by about 2.7% (285.7 to 278.1 KB, measured on 5 December 2026).

    It checks that the result parses to the same syntax tree, line numbers included, and refuses
    otherwise.

    >>> print(reindent("def f(x):\\n    if x:\\n        return [1,\\n                2]\\n\\n    s = '''a\\n    b'''\\n"), end="")
    def f(x):
     if x:
      return [1,
      2]
    <BLANKLINE>
     s = '''a
        b'''
    """
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    inside_string = _string_rows(tokens)
    depth, depth_of = 0, {}
    for token in tokens:
        if token.type == tokenize.INDENT:
            depth += 1
        elif token.type == tokenize.DEDENT:
            depth -= 1
        elif token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENDMARKER):
            depth_of.setdefault(token.start[0], depth)  # a row's first token, after its INDENT/DEDENTs
    lines = source.split("\n")  # as the tokenizer counts rows (splitlines would also split at \f, \x1c, ...)
    for row, line in enumerate(lines, 1):
        if row not in inside_string:
            body = line.lstrip(" \t\f")
            lines[row - 1] = " " * depth_of.get(row, 0) + body if body.strip() else ""
    out = "\n".join(lines)
    if _lines_only(ast.parse(out)) != _lines_only(ast.parse(source)):
        raise ValueError("re-indenting changed more than indentation")
    return out


def browser_files(package_files: dict[str, bytes]) -> dict[str, bytes]:
    """{relative path: source} of a package -> what the browser gets: CLI left out, sources stripped
    (:func:`strip_source`) and re-indented (:func:`reindent`)."""
    return {relative: reindent(strip_source(data.decode("utf-8"))).encode("utf-8")
            for relative, data in package_files.items()
            if browser_module(relative)}
