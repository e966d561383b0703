"""--engine by version (lab.serving_engine_versions): each boundary on both sides, the spellings, the refusals and the
JSON of `serving` and `deployment`."""

from __future__ import annotations

import json

import pytest

from lab import cli
from lab.errors import LabValueError
from lab.serving_calibration import ENGINES
from lab.serving_engine_versions import (BOUNDARIES, engine_for_version, engine_version_note, parse_version,
                                         resolve_engine, split_engine_spec)

SERVING = ["serving", "--target", "llama-3.1-8b", "--draft", "eagle-head", "--gpu", "h100-sxm", "--batch", "8",
           "--context", "1024", "--lookahead", "3", "--acceptance", "70"]


# Each boundary READING records, the last version before it and the first at it (docs/READING.md, "--engine by
# version"): the preset on each side.
SIDES = [
    ("vllm", "0.7.3", "vllm-v0", "0.8.0", "vllm-v1-0.10"),          # V1 the default from 0.8.0
    ("vllm", "0.13.9", "vllm-v1-0.10", "0.14.0", "vllm-v1"),        # async scheduling by default (pull request 31998)
    ("sglang", "0.4.6.post5", "sglang-eager-extend", "0.4.7", "sglang-no-overlap"),  # pull request 6606
    ("sglang", "0.5.10", "sglang-no-overlap", "0.5.11", "sglang"),   # the V2 workers the default (pull request 21062)
]


@pytest.mark.parametrize("engine,before,preset_before,at,preset_at", SIDES)
def test_each_boundary_on_both_sides(engine, before, preset_before, at, preset_at):
    assert engine_for_version(engine, before) == preset_before
    assert engine_for_version(engine, at) == preset_at


@pytest.mark.parametrize("engine", sorted(BOUNDARIES))
def test_below_the_first_version_is_refused_with_one_line(engine):
    major, minor, patch, _ = BOUNDARIES[engine][0][0]
    below = f"{major}.{minor - 1}.9" if minor else f"{major - 1}.99"
    with pytest.raises(LabValueError) as raised:
        engine_for_version(engine, below)
    message = str(raised.value)
    assert "\n" not in message and "older than" in message and "vllm==0.11.2" in message
    assert engine_for_version(engine, f"{major}.{minor}.{patch}") == BOUNDARIES[engine][0][1]


def test_every_preset_a_range_names_exists_and_the_ranges_rise():
    for engine, ranges in BOUNDARIES.items():
        firsts = [first for first, _ in ranges]
        assert firsts == sorted(firsts) and len(set(firsts)) == len(firsts), engine
        assert all(preset in ENGINES for _, preset in ranges), engine


def test_a_draft_model_on_vllm_ran_on_v0_to_0_10_none_ran_it_to_0_14_and_v1_from_0_15():
    """V1 had no draft model before pull request 24322 (first in 0.15.0; vLLM 0.13.0 raised NotImplementedError, issue
    #31883) and V0 was gone from 0.11.0: docs/READING.md, "the last session's figures checked against their sources"."""
    assert engine_for_version("vllm", "0.10.0", draft_model=True) == "vllm-v0"
    assert engine_for_version("vllm", "0.10.2", draft_model=True) == "vllm-v0"
    assert engine_for_version("vllm", "0.10.2") == "vllm-v1-0.10"
    assert engine_for_version("vllm", "0.7.3", draft_model=True) == "vllm-v0"
    for version in ("0.11.0", "0.13.0", "0.14.1"):
        with pytest.raises(LabValueError) as raised:
            engine_for_version("vllm", version, draft_model=True)
        message = str(raised.value)
        assert "\n" not in message and "24322" in message and "0.15.0" in message
        assert engine_for_version("vllm", version) in ("vllm-v1-0.10", "vllm-v1")   # other drafts still run
    assert engine_for_version("vllm", "0.15.0", draft_model=True) == "vllm-v1"
    assert "VLLM_USE_V1=0" in engine_version_note("vllm", "0.9.2", draft_model=True)


@pytest.mark.parametrize("text,expected", [
    ("0.10.1", (0, 10, 1, 0)), ("v0.10.1", (0, 10, 1, 0)), ("0.10.1.post1", (0, 10, 1, 1)),
    ("0.11.0rc2", (0, 11, 0, 0)), ("0.30.1rc1.dev418+g50319916a", (0, 30, 1, 0)), ("1.0", (1, 0, 0, 0)),
    ("V0.4.6.post1", (0, 4, 6, 1)), ("0.5.3.post1", (0, 5, 3, 1))])
def test_versions_are_read_leniently(text, expected):
    assert parse_version(text) == expected


@pytest.mark.parametrize("text", ["", "latest", "0.x", "1..2", "0.10.1 beta", "-1.0"])
def test_an_unreadable_version_is_one_line_naming_what_is_valid(text):
    with pytest.raises(LabValueError) as raised:
        parse_version(text)
    assert "\n" not in str(raised.value) and "0.10.1.post1" in str(raised.value)


@pytest.mark.parametrize("text,version", [("vllm==0.11.2", "0.11.2"), ("vllm@0.11.2", "0.11.2"),
                                          ("vllm 0.11.2", "0.11.2"), ("vllm-0.11.2", "0.11.2"),
                                          ("VLLM==0.11.2", "0.11.2"), ("vLLM @ 0.11.2", "0.11.2"),
                                          ("vllm-v0.11.2", "v0.11.2")])
def test_the_spellings_of_an_engine_and_version(text, version):
    assert split_engine_spec(text) == ("vllm", version)
    assert resolve_engine(text)[0] == "vllm-v1-0.10"


@pytest.mark.parametrize("text,preset", [("sglang==0.5.3", "sglang-no-overlap"), ("trtllm==1.0", "trtllm"),
                                         ("TensorRT-LLM 1.1.0rc2", "trtllm"), ("SGLang@0.4.6.post1",
                                                                               "sglang-eager-extend")])
def test_other_engines_spellings(text, preset):
    assert resolve_engine(text)[0] == preset


def test_preset_names_stay_presets():
    for name in ENGINES:
        assert split_engine_spec(name) is None
        assert resolve_engine(name) == (name, None)
        assert resolve_engine(name.upper()) == (name, None)


@pytest.mark.parametrize("text,says", [("vllm", "unknown engine"), ("vllm==", "unknown engine"),
                                       ("foo==1.0", "unknown engine"), ("vllm-v2", "unknown engine"),
                                       ("vllm==latest", "cannot read the version 'latest'"),
                                       ("sglang@0.x", "cannot read the version '0.x'")])
def test_anything_else_is_one_line(text, says):
    with pytest.raises(LabValueError) as raised:
        resolve_engine(text)
    message = str(raised.value)
    assert "\n" not in message and "vllm==0.11.2" in message and says in message


def test_the_notes_name_the_flag_that_changes_the_answer():
    assert "VLLM_USE_V1=0 use vllm-v0" in engine_version_note("vllm", "0.9.2")
    assert "VLLM_USE_V1" not in engine_version_note("vllm", "0.11.2")   # V0 gone from 0.11.0
    assert "--async-scheduling" in engine_version_note("vllm", "0.11.2")
    assert engine_version_note("vllm", "0.14.0") == "" and engine_version_note("vllm", "0.7.3") == ""
    assert "SGLANG_ENABLE_SPEC_V2=1" in engine_version_note("sglang", "0.5.6")
    assert engine_version_note("sglang", "0.5.3") == ""                 # before the V2 workers
    assert "--disable-overlap-schedule" in engine_version_note("sglang", "0.5.13")
    tree_note = engine_version_note("sglang", "0.5.11")   # a chain runs V2 from 21062, a tree only from 25464
    assert "21062" in tree_note and "25464" in tree_note and "topk > 1" in tree_note
    assert "topk > 1" not in engine_version_note("sglang", "0.5.13")
    assert "PyTorch backend" in engine_version_note("trtllm", "1.0")


def _main(capsys, argv):
    status = cli.main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


def test_serving_json_names_the_preset_and_the_version(capsys):
    status, out, _ = _main(capsys, SERVING + ["--engine", "vllm==0.11.2", "--json"])
    assert status == 0
    document = json.loads(out)
    assert document["params"]["engine"] == "vllm-v1-0.10"
    assert document["engineVersion"]["engine"] == "vllm" and document["engineVersion"]["version"] == "0.11.2"
    assert document["engineVersion"]["preset"] == "vllm-v1-0.10"
    status, out, _ = _main(capsys, SERVING + ["--engine", "vllm-v1-0.10", "--json"])
    by_preset = json.loads(out)
    assert "engineVersion" not in by_preset
    assert by_preset["speedup"] == document["speedup"]   # the same preset answers the same


def test_serving_text_says_the_preset(capsys):
    status, out, _ = _main(capsys, SERVING + ["--engine", "sglang 0.4.6.post1"])
    assert status == 0
    assert "note: engine: sglang 0.4.6.post1 runs as the preset sglang-eager-extend" in out


def test_serving_with_a_draft_model_on_vllm_0_9_runs_v0(capsys):
    argv = [a if a != "eagle-head" else "llama-3.2-1b" for a in SERVING]
    status, out, _ = _main(capsys, argv + ["--engine", "vllm==0.9.2", "--json"])
    assert status == 0 and json.loads(out)["params"]["engine"] == "vllm-v0"


def test_serving_with_a_draft_model_on_vllm_0_12_is_refused_in_one_line(capsys):
    argv = [a if a != "eagle-head" else "llama-3.2-1b" for a in SERVING]
    status, out, err = _main(capsys, argv + ["--engine", "vllm==0.12.0"])
    assert status == 2 and out == "" and err.strip().count("\n") == 0 and "24322" in err


def test_deployment_json_names_the_preset_and_the_version(capsys):
    status, out, _ = _main(capsys, ["deployment", "--alpha", "70", "--engine", "SGLang==0.5.3", "--json"])
    assert status == 0
    document = json.loads(out)
    assert document["deployment"]["engine"] == "sglang-no-overlap"
    assert document["engineVersion"] == {"engine": "sglang", "version": "0.5.3", "preset": "sglang-no-overlap",
                                         "note": ""}


@pytest.mark.parametrize("command", [SERVING, ["deployment", "--alpha", "70"]])
@pytest.mark.parametrize("value", ["vllm==0.3.0", "vllm==banana", "llamacpp==1.0"])
def test_a_bad_engine_is_one_line_exit_2(capsys, command, value):
    status, out, err = _main(capsys, command + ["--engine", value])
    assert status == 2 and out == ""
    assert err.strip().count("\n") == 0 and err.startswith("--engine: ")


@pytest.mark.parametrize("command", ["serving", "deployment"])
def test_help_says_engine_takes_a_version(capsys, command):
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "vllm==0.11.2" in out and "sglang==0.5.3" in out
