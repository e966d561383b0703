"""The format registry (lab/traces/formats.py) is whole, and the one place formats are listed.

Every row has a golden sample in lab/traces/samples/ that reads as the row's format, every sample
is claimed by a row, every format is named by a test of its own, and detection, the CLI, the widget
and the analysis read the registry. A format registered without its sample or its test fails here
first (docs/RECIPES.md, "An engine format").
"""

from __future__ import annotations

from pathlib import Path

from lab import traces
from lab.traces import formats

TESTS = Path(__file__).resolve().parent


def registry_gaps(registry, sample_files, test_texts) -> list[str]:
    """What the registry lacks, one line each: a row without a sample, a sample file missing, one
    that reads as another format, a sample without its source, a format no test names, a file in
    the samples folder no row claims, a name or a detection rank used twice."""
    gaps, claimed = [], set()
    for row in registry:
        if not row.samples:
            gaps.append(f"{row.name}: no sample (a Sample in its row, its file in lab/traces/samples/)")
        for sample in row.samples:
            claimed.add(sample.file)
            if sample.file not in sample_files:
                gaps.append(f"{row.name}: its sample {sample.file} is not in lab/traces/samples/")
            if sample.expected.get("format") != row.name:
                gaps.append(f"{row.name}: its sample {sample.file} is expected to read as "
                            f"{sample.expected.get('format')!r}")
            if not sample.source.strip():
                gaps.append(f"{row.name}: its sample {sample.file} does not say where it was read")
        if not any(f'"{row.name}"' in text or f"'{row.name}'" in text for text in test_texts):
            gaps.append(f"{row.name}: no test names it (a test of its own in tests/test_traces*.py)")
    gaps += [f"{name}: a sample no format claims" for name in sorted(set(sample_files) - claimed)]
    for what, values in (("name", [row.name for row in registry]), ("rank", [row.rank for row in registry])):
        gaps += [f"the {what} {value!r} is used twice" for value in sorted(set(values), key=str)
                 if values.count(value) > 1]
    return gaps


def _sample_files() -> set[str]:
    return {p.name for p in Path(traces.SAMPLES_DIR).iterdir()}


def _test_texts() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(TESTS.glob("test_traces*.py")) if p.name != Path(__file__).name]


def test_the_registry_is_whole():
    assert registry_gaps(formats.REGISTRY, _sample_files(), _test_texts()) == []


def test_a_format_registered_without_its_sample_or_its_test_fails_here():
    new = traces.Format("new-engine", "a new engine's log", "the new engine's log", object,
                        lambda line, stripped: False, 999, ())
    gaps = registry_gaps(formats.REGISTRY + (new,), _sample_files(), _test_texts())
    assert gaps == ["new-engine: no sample (a Sample in its row, its file in lab/traces/samples/)",
                    "new-engine: no test names it (a test of its own in tests/test_traces*.py)"]
    with_sample = new._replace(samples=(traces.Sample("new_engine.log", 3, None, {"format": "new-engine"}, ""),))
    gaps = registry_gaps(formats.REGISTRY + (with_sample,), _sample_files() | {"stray.log"},
                         _test_texts() + ['"new-engine"'])
    assert gaps == ["new-engine: its sample new_engine.log is not in lab/traces/samples/",
                    "new-engine: its sample new_engine.log does not say where it was read",
                    "stray.log: a sample no format claims"]


def test_every_sample_is_detected_as_its_rows_format():
    for row in formats.REGISTRY:
        for sample in row.samples:
            trace = traces.parse(traces.sample_text(sample.file), "auto", sample.lookahead, sample.model)
            assert trace.format == row.name, sample.file


def test_detection_goes_down_the_registry_in_rank_order():
    ranks = [row.rank for row in formats.REGISTRY]
    assert ranks == sorted(ranks) and traces.FORMATS == tuple(row.name for row in formats.REGISTRY)
    # a line of vLLM V0's /metrics is also an exposition line: the V0 row, ranked first, takes it
    line = 'vllm:spec_decode_num_emitted_tokens_total{model_name="m"} 10.0'
    assert [row.name for row in formats.REGISTRY if row.detect(line, line)] == ["vllm-v0-metrics", "prometheus"]
    assert traces.detect_line(line) == "vllm-v0-metrics"


def test_the_cli_the_widget_and_the_analysis_read_the_registry():
    import argparse

    from lab.commands import traces as command
    from lab.widgets import traces as widget

    commands = argparse.ArgumentParser().add_subparsers()
    command.add_parser(commands)
    [choice] = [action for parser in commands.choices.values() for action in parser._actions
                if "--format" in action.option_strings]
    assert tuple(choice.choices) == ("auto",) + traces.FORMATS
    assert list(widget.FORMAT.options) == ["auto", *traces.FORMATS]
    assert [f["name"] for f in widget.page_context()["formats"]] == list(traces.FORMATS)
    sample = formats.REGISTRY[0].samples[0]
    result = traces.analyse(traces.parse(traces.sample_text(sample.file), "auto", sample.lookahead, sample.model))
    assert result["formatName"] == formats.REGISTRY[0].title


def test_star_import_gives_every_public_name():
    namespace: dict = {}
    exec("from lab.traces import *", namespace)
    assert set(traces.__all__) <= set(namespace)


def test_no_module_of_the_trace_reader_is_over_1000_lines():
    root = TESTS.parent / "lab"
    modules = [*sorted((root / "traces").glob("*.py")), root / "checks" / "traces.py", root / "widgets" / "traces.py"]
    long = {p.name: n for p in modules if (n := len(p.read_text(encoding="utf-8").splitlines())) > 1000}
    assert not long, long


def test_every_engine_a_format_names_can_be_told_apart_inside_another_trace():
    """Each family module names its engine and the markers of its lines; an engine whose formats the registry
    holds but no module gives a marker for would pass unnamed inside another engine's trace."""
    assert all(hasattr(module, "ENGINE") and hasattr(module, "MARKERS") for module in formats.FAMILIES)
    named = {engine for engine in formats.ENGINE_OF.values() if engine}
    assert named == {engine for engine, markers in formats.ENGINE_MARKERS} == {"vLLM", "SGLang", "llama.cpp",
                                                                                 "TensorRT-LLM"}
    mixed = ("INFO 05-12 10:11:12 [metrics.py:101] SpecDecoding metrics: Mean acceptance length: 2.00, Accepted: 10 "
             "tokens, Drafted: 30 tokens, Per-position acceptance rate: 0.500, 0.300, 0.200, Avg Draft acceptance "
             "rate: 33.3%\n[2025-01-01 00:00:00] Decode batch. #running-req: 1, accept len: 2.50, gen throughput: 1\n")
    trace = traces.parse(mixed, lookahead=3)
    assert trace.format == "vllm-log" and any("line(s) of SGLang output" in note for note in trace.notes)
