"""The one registry of formats: every engine family's rows (:class:`~lab.traces.common.Format`),
in detection order. Detection (:func:`lab.traces.reader.detect_line`), the parser for a chosen
format, the widget's format list, the CLI's ``--format`` and the analysis's wording all read it.

A new format is a row in its engine family's module (a new family: its module, added to
:data:`FAMILIES`), a sample in ``lab/traces/samples/`` named by the row, and a test
(docs/RECIPES.md, "An engine format"); ``tests/test_traces_registry.py`` fails first when one
of the three is missing.

>>> FORMATS[:3]
('vllm-v0-metrics', 'prometheus', 'sglang-metrics')
"""

from . import llamacpp, plain, prometheus, sglang, speculators, trtllm, vllm, vllm_bench, vllm_json

FAMILIES = (prometheus, vllm, vllm_bench, vllm_json, sglang, llamacpp, trtllm, speculators, plain)
REGISTRY = tuple(sorted((row for module in FAMILIES for row in module.FORMATS), key=lambda row: row.rank))
FORMATS = tuple(row.name for row in REGISTRY)
FORMAT_NAMES = {row.name: row.title for row in REGISTRY}
SHORT_NAMES = {row.name: row.short for row in REGISTRY}
PARSERS = {row.name: row.parser for row in REGISTRY}
JSON_FORMATS = tuple(row.name for row in REGISTRY if row.whole_json)  # parsed whole: their opening lines are kept
ENGINE_OF = {row.name: module.ENGINE for module in FAMILIES for row in module.FORMATS}  # None: no engine's
ENGINE_MARKERS = tuple((module.ENGINE, module.MARKERS) for module in FAMILIES if module.MARKERS)
# Lines an engine prints that look like a trace but hold no acceptance: when nothing else is read, the
# refusal says what such a line is and what to paste instead (each family module may name its own)
HINTS = tuple(hint for module in FAMILIES for hint in getattr(module, "HINTS", ()))
