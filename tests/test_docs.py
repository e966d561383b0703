"""The repository's own documents stay true to it: docs/ARCHITECTURE.md's module map lists every
module of lab/ and sitebuild/ and nothing that does not exist; docs/CONTRACT.md holds the strings
the tests pin; the lab cites the contract by a section that exists; no code or document refers to
the project's issues by number."""

import re
from pathlib import Path

from lab import instruments
from sitepage import EXPECTED_COUNTER, EXPECTED_SIGNATURES

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
CONTRACT = (ROOT / "docs" / "CONTRACT.md").read_text(encoding="utf-8")


def _module_map() -> dict[str, set[str]]:
    """Folder -> file names listed under it in the first code block of ARCHITECTURE.md (a line
    '  name.py ...' belongs to the folder line 'folder/ ...' above it; 'a.py + b.txt' lists both)."""
    block = ARCHITECTURE.split("```")[1]
    listed: dict[str, set[str]] = {}
    folder = None
    for line in block.splitlines():
        top = re.match(r"^(\S+/)\s", line)
        if top:
            folder = top[1]
            listed.setdefault(folder, set())
            continue
        entry = re.match(r"^  (\S+\.(?:py|txt|mjs))\b(.*)", line)
        if entry and folder:
            listed[folder].add(entry[1])
            listed[folder].update(re.findall(r"\+ (\S+\.(?:py|txt|mjs))", entry[2]))
    return listed


def test_every_listed_module_exists_and_every_module_is_listed():
    listed = _module_map()
    for folder in ("lab/", "sitebuild/"):
        names = listed[folder]
        patterns = {name for name in names if "NAME" in name}
        for name in names - patterns:
            assert (ROOT / folder / name).is_file(), f"ARCHITECTURE.md lists {folder}{name}, which does not exist"
        on_disk = {p.name for p in (ROOT / folder).glob("*.py") if p.name != "__init__.py"}
        # a package of one model (lab/traces/): each of its modules listed as 'traces/NAME.py'
        on_disk |= {p.relative_to(ROOT / folder).as_posix() for p in (ROOT / folder).glob("*/*.py")
                    if p.parent.name not in instruments.ROLES}
        assert not on_disk - names, f"ARCHITECTURE.md does not list {sorted(on_disk - names)} in {folder}"
    # lab/widgets, lab/checks, lab/commands hold one module per widget (checks: per instrument)
    assert {"widgets/NAME.py", "checks/NAME.py", "commands/NAME.py"} <= listed["lab/"]
    for role in instruments.ROLES:
        modules = {p.stem for p in (ROOT / "lab" / role).glob("*.py") if p.name != "__init__.py"}
        expected = set(instruments.NAMES if role == "checks" else instruments.widget_names())
        # a family's checks past a thousand lines continue in checks/NAME_PART.py, listed in ARCHITECTURE
        parts = {m for m in modules - expected if role == "checks" and m.split("_")[0] in expected
                 and f"checks/{m}.py" in listed["lab/"]}
        assert modules - parts == expected, (role, (modules - parts) ^ expected)


def test_the_architecture_names_every_widget():
    for name in instruments.widget_names():
        assert f"`{name}`" in ARCHITECTURE, name


def test_the_contract_holds_the_pinned_strings():
    assert EXPECTED_COUNTER in CONTRACT
    for signature in EXPECTED_SIGNATURES.values():
        assert signature in CONTRACT
    assert "K/K instrument checks passed" in CONTRACT


def test_the_lab_cites_the_contract_in_the_repository():
    sections = set(re.findall(r"^## (\d+)\. ", CONTRACT, re.M))
    cited = []
    for path in [*(ROOT / "lab").rglob("*.py"), *(ROOT / "tests").glob("*.py"), *(ROOT / "templates").rglob("*.j2")]:
        text = path.read_text(encoding="utf-8")
        if path.name == "test_docs.py":
            continue
        assert not re.search(r"SPEC (section|part) \d", text), f"{path} cites the spec, not docs/CONTRACT.md"
        for section in re.findall(r"docs/CONTRACT\.md section (\d+)", text):
            assert section in sections, (path, section)
            cited.append(section)
    assert cited


def test_no_code_or_document_refers_to_an_issue_by_number():
    """A project issue's number means nothing to someone who clones the repository; other projects' issues,
    cited as sources with their repository (club-3090 issue #105), are references, not ours."""
    ours = re.compile(r"\bissues? \d+", re.I)
    files = [p for pattern in ("lab/**/*.py", "tests/*.py", "sitebuild/*.py", "site/*.js", "templates/**/*.j2",
                               "docs/*.md", "*.md", "tests/data/**/*.md")
             for p in ROOT.glob(pattern)]
    assert files
    found = [f"{p.relative_to(ROOT)}: {m[0]}" for p in files for m in ours.finditer(p.read_text(encoding="utf-8"))]
    assert not found, found


def test_the_glossarys_functions_exist_and_acceptance_rate_is_not_alpha():
    """Every `lab.module.function` the glossary names exists; in the models and widgets that follow
    it, `acceptance_rate` (the engines' accepted / drafted) is never the name of alpha."""
    import importlib

    glossary = (ROOT / "docs" / "GLOSSARY.md").read_text(encoding="utf-8")
    named = re.findall(r"`(lab(?:\.\w+)+)(?:\(|`)", glossary)
    assert len(named) >= 8
    for dotted in named:
        module, _, attribute = dotted.rpartition(".")
        try:
            importlib.import_module(dotted)  # a module
        except ModuleNotFoundError:
            assert hasattr(importlib.import_module(module), attribute), dotted
    for name in ("ledger", "sampler", "exact", "audit", "policies", "trees", "stats", "widgets/ledger", "widgets/exact"):
        assert "acceptance_rate" not in (ROOT / "lab" / f"{name}.py").read_text(encoding="utf-8"), name


def test_gamma_names_the_lookahead_only_in_the_exact_contract():
    """The glossary's lookahead is `lookahead` or `k`; the exact-lab contract's input keeps its name `gamma`
    (lab/exact.py, the audit that checks it, and its widget). Elsewhere no name, argument or keyword in the
    lab is `gamma` (the contract's key read as a string, and math.gamma, are not names)."""
    import ast

    allowed = {"lab/exact.py", "lab/audit.py", "lab/widgets/exact.py"}
    found, read = [], 0
    for path in sorted((ROOT / "lab").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        names = []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name):
                names.append((node.id, node.lineno))
            elif isinstance(node, ast.arg):
                names.append((node.arg, node.lineno))
            elif isinstance(node, ast.keyword) and node.arg:
                names.append((node.arg, node.value.lineno))
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.append((node.name, node.lineno))
        read += relative in allowed and any(name == "gamma" for name, _ in names)
        if relative not in allowed:
            found += [f"{relative}:{line}" for name, line in names if name.lower() == "gamma"]
    assert read, "the exact contract's own modules name gamma: the scan reads what it should"
    assert not found, found


def test_reading_names_each_source_by_its_key():
    """docs/READING.md says where each source was read as "Source `key`", the key of the page's
    sources file; a number would go stale as soon as an entry is inserted before it (as 14 did)."""
    import sys

    sys.path.insert(0, str(ROOT))
    from sitebuild import sources

    reading = (ROOT / "docs" / "READING.md").read_text(encoding="utf-8")
    keys = set(sources.load().order)
    named = re.findall(r"Source `([^`]+)`", reading)
    assert len(named) >= 20, "the scan finds the notes' source keys"
    assert not re.findall(r"\bSource \d", reading), "a source named by number"
    assert sorted(set(named) - keys) == [], "a source key not in sitebuild/sources.toml"


def test_no_history_comment_in_the_lab():
    """A comment says why, not when: no "added for ...", "... are unchanged" or "older name" in lab/."""
    pattern = re.compile(r"added for the|are unchanged\)|always exported|older name|kept for old", re.I)
    found = [f"{path.relative_to(ROOT)}:{number}" for path in sorted((ROOT / "lab").rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert found == []


def test_review_status_counts_are_its_rows():
    """docs/REVIEW-STATUS.md's counts are its rows' statuses, per review: a row re-marked updates the count."""
    status = (ROOT / "docs" / "REVIEW-STATUS.md").read_text(encoding="utf-8")
    parts = status.split("\n## 2. Fact check")
    assert len(parts) == 2
    stated = re.findall(r"(\d+) rows: (\d+) fixed, (\d+) partly, (\d+) not, (\d+) disagree", parts[0])
    assert len(stated) == 2
    for part, (rows, *counts) in zip(parts, stated):
        found = [line.split("|")[3].strip() for line in part.splitlines()
                 if re.match(r"\| (CR-|N-|T3-|S\d|WP-)\S* \|", line)]
        kinds = [next((k for k in ("fixed", "partly", "not", "disagree") if cell.startswith(k)), cell[:20]) for cell in found]
        assert len(found) == int(rows)
        assert [kinds.count(k) for k in ("fixed", "partly", "not", "disagree")] == [int(c) for c in counts]


def test_tau_is_not_a_name_in_the_lab():
    """The glossary's mean acceptance length is never `tau` in the lab; only the plain-text reader
    keeps the word, as one of the labels a pasted line may carry (lab/traces/plain.py)."""
    found = [f"{path.relative_to(ROOT)}:{number}" for path in sorted((ROOT / "lab").rglob("*.py"))
             if path.relative_to(ROOT).as_posix() != "lab/traces/plain.py"
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"\btau\b", line)]
    assert found == []


def _anchor(heading: str) -> str:
    """A Markdown heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_reading_contents_lists_every_section_and_only_sections():
    """docs/READING.md is thousands of lines long; its Contents is how a newcomer finds the topic they touch and the
    dated log of searches. Every second-level section is listed there, and every link of the Contents lands on a
    heading, so a section added without its line (or renamed) fails here."""
    reading = (ROOT / "docs" / "READING.md").read_text(encoding="utf-8")
    contents = reading.split("## Contents\n", 1)[1].split("\n## ", 1)[0]
    links = re.findall(r"\]\(#([^)]+)\)", contents)
    headings = re.findall(r"^(#{2,3}) (.+)$", reading, re.M)
    anchors = {_anchor(text) for _, text in headings}
    sections = [_anchor(text) for level, text in headings if level == "##" and text != "Contents"]
    assert len(sections) >= 20
    assert sorted(set(sections) - set(links)) == [], "a section missing from docs/READING.md's Contents"
    assert sorted(set(links) - anchors) == [], "a Contents link to no heading"
    assert _anchor("the fifth curve search (the library 46 -> 56)") == "the-fifth-curve-search-the-library-46---56"


def test_the_lab_s_own_json_keys_name_counts_as_plural_nouns():
    """The glossary's rule for counts: a camelCase key the lab writes is never `numX` or `xCount`; the
    `num…` keys in the lab are TensorRT-LLM's own, which its reader looks up (an echo, not our name)."""
    engines_own = {"numDraftTokens", "numAcceptedTokens", "numRequestsWithDraftTokens"}
    keys = set()
    for path in sorted((ROOT / "lab").rglob("*.py")):
        keys |= set(re.findall(r"\"((?:num|n)[A-Z]\w*|[a-z]\w*Count)\"", path.read_text(encoding="utf-8")))
    assert keys >= engines_own and not keys - engines_own, sorted(keys - engines_own)
