"""The engine preset for an engine name and the version a reader runs (``vllm==0.11.2`` -> ``vllm-v1-0.10``).

The serving model prices a cycle as each engine VERSION runs it (:data:`lab.serving_calibration.ENGINES`); a reader
knows "vLLM 0.11.2" or "SGLang 0.4.6.post1", not the presets' names. :func:`engine_for_version` maps one to the
other, by the boundaries docs/READING.md records under "Engines by version" (each quoted at its boundary below), and
:func:`engine_version_note` says what was decided where the version alone does not settle it (an environment
variable or flag of that version changes the answer). Where a range is not assigned by what READING records, the
engine's default in that version decides, and the note says so.

Versions are read leniently (:func:`parse_version`): ``0.10.1``, ``v0.10.1``, ``0.10.1.post1``, ``0.11.0rc2``,
``0.30.1rc1.dev418+g50319916a``. A release candidate or development build is taken as the release it leads to
(what it carries is that release's code, nearly); a ``.postN`` sorts after its release.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .errors import LabValueError
from .serving_calibration import ENGINES

__all__ = ["ENGINE_NAMES", "BOUNDARIES", "EngineVersion", "parse_version", "engine_name", "engine_for_version",
           "engine_version_note", "read_engine_version", "split_engine_spec", "resolve_engine"]

# The names a reader may give each engine (any case), each with the engine it means.
ENGINE_NAMES = {"vllm": "vllm", "sglang": "sglang", "trtllm": "trtllm", "tensorrt-llm": "trtllm",
                "tensorrt_llm": "trtllm", "tensorrtllm": "trtllm"}

# Each engine's versions, oldest first: (first version of the range, preset). A version before the first range is
# refused (no speculative decoding the model prices). Where each boundary was read (docs/READING.md, "Engines by
# version" and its entry "--engine by version"):
BOUNDARIES = {
    "vllm": (
        # vLLM's speculative decoding (V0's SpecDecodeWorker, --speculative-model) from 0.4.1: assumed, the first
        # release holding it not read; V0 is the only engine before 0.8.
        ((0, 4, 1, 0), "vllm-v0"),
        # V1 the default from 0.8.0 ("Starting from vLLM version 0.8.0, the V1 engine is used by default",
        # agentica-project/verl-pipeline issue #5, 2025-04-21; lab.serving_calibration's note above vllm-v0), with
        # synchronous scheduling while speculating until pull request 31998: so 0.8 to 0.13 are vllm-v1-0.10
        # (READING: "vllm-v1-0.10 (V1 0.8 to 0.13, as SpecDecode-Bench ran 0.10.1)"). VLLM_USE_V1=0 chose V0 until
        # 0.11.0 removed it (huggingface/optimum-neuron pull request 1027, 2025-11-18: "the V0 engine has been
        # completely removed form vLLM starting with version 0.11.0"): the note says so.
        ((0, 8, 0, 0), "vllm-v1-0.10"),
        # Asynchronous scheduling on by default with EAGLE and MTP: vLLM pull request 31998 (2026-01-08, in 0.14.0).
        ((0, 14, 0, 0), "vllm-v1"),
    ),
    "sglang": (
        # SGLang's EAGLE worker, pull request 2150 (merged at the turn of 2025: SafeAILab/EAGLE pull request 173,
        # 2025-01-02, "SGLang now has finished supported EAGLE speculative decoding"); 0.4.1 assumed its first
        # release, not read.
        ((0, 4, 1, 0), "sglang-eager-extend"),
        # The draft-extend pass in a CUDA graph: SGLang pull request 6606 (merged 2025-05-26). 0.4.7 assumed its first
        # release (0.4.6.post4's release, pull request 6256, came before it; 0.4.6.post5's date not read).
        ((0, 4, 7, 0), "sglang-no-overlap"),
        # The overlap scheduler with speculation by default: the V2 workers, opt-in through SGLANG_ENABLE_SPEC_V2=1
        # from pull request 11398 (2025-10-09), the default for an EAGLE, EAGLE3 or STANDALONE chain (topk 1) from
        # pull request 21062 ("Use spec v2 by default", opened 2026-03-21, merged 2026-04-29 as commit 79dbfe45; the
        # speculative hook then logs "Spec v2 is enabled by default for eagle/eagle3/standalone speculative decoding"
        # and falls back to V1, overlap off, for topk > 1: "spec v2 currently only supports topk = 1", code index ids
        # 58531480726 and 53285304199). Its first release, 0.5.11 (2026-05-05): its release notes' "Spec V2 by
        # default ... (#21062)" as two copies quote them (a daily digest of 2026-05-07 and a harness's comment
        # "v0.5.11 (2026-05-05): Spec V2 by default"; the notes themselves not read). Pull request 25464
        # (2026-05-16, "Deprecate Spec V1") came after it and moved trees (topk > 1) onto the V2 worker too
        # (READING, "Today's SGLang audited"; a release write-up dates that to 0.5.13): the note says so.
        ((0, 5, 11, 0), "sglang"),
    ),
    "trtllm": (
        # One preset: TensorRT-LLM's PyTorch backend with its one-model MTP as NVIDIA's spring-2025 blog ran it. The
        # PyTorch backend "is available in version 0.17 and later" (TensorRT-LLM docs, torch.md, read through the
        # docs corpus); earlier versions' speculation ran in the TensorRT engine, which the model does not price.
        ((0, 17, 0, 0), "trtllm"),
    ),
}

# A separate draft model on vLLM, by version: V0 ran it (and only V0 until V1 got one); V0 was removed in 0.11.0; V1's
# draft model came with vLLM pull request 24322 ("feat: spec decode with draft models", merged 2026-01-19, the week
# after 0.14.0 of 2026-01-17: deepjavalibrary/djl issue #3833), whose first release read is 0.15.0 (its API reference
# is the first read that lists vllm.v1.spec_decode.draft_model). Between, vLLM refused one: vllm-project/vllm issue
# #31883 (2026-01-07) on 0.13.0, "NotImplementedError: Speculative decoding with draft model is not supported yet".
# (The README's "not supported in vllm<=0.10.0", read earlier as "from 0.10.1 in V1", is not so: 0.13.0 refused.)
_VLLM_V0_REMOVED = (0, 11, 0, 0)
_VLLM_V1_DRAFT_MODEL = (0, 15, 0, 0)

# The lowest version of each engine the model prices, as a reader writes it (for the refusal).
_FIRST = {"vllm": "0.4.1", "sglang": "0.4.1", "trtllm": "0.17"}
_PRETTY = {"vllm": "vLLM", "sglang": "SGLang", "trtllm": "TensorRT-LLM"}

_VERSION = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.\d+)*"          # release: 0.10 / 0.10.1 / 1.0.0.1
                      r"(?:[-_.]?post(\d+))?"                                  # .post1
                      r"(?:[-_.]?(?:rc|a|b|alpha|beta|c|pre|preview)\d*)?"     # rc2, a1, b3 (the release it leads to)
                      r"(?:[-_.]?post(\d+))?"
                      r"(?:[-_.]?dev\d*)?"                                     # .dev418
                      r"(?:\+[0-9A-Za-z.\-_]+)?$")                             # +g50319916a (a local build)


class EngineVersion(NamedTuple):
    """An engine version read: ``engine`` (vllm, sglang or trtllm), ``version`` as given, the ``preset``
    (:data:`lab.serving_calibration.ENGINES`) it runs as and a ``note`` (what was decided, and when a flag of that
    version changes the answer; "" when nothing needs saying)."""
    engine: str
    version: str
    preset: str
    note: str


def _refusal(what: str) -> str:
    return (f"{what}; give an engine and its version, e.g. vllm==0.11.2, sglang 0.5.3, trtllm==1.0 (vLLM from "
            f"{_FIRST['vllm']}, SGLang from {_FIRST['sglang']}, TensorRT-LLM from {_FIRST['trtllm']}), or a preset name")


def parse_version(text: str) -> tuple[int, int, int, int]:
    """``(major, minor, patch, post)`` of a version string; a missing part is 0, a release candidate or development
    build is the release it leads to, a local ``+...`` tag is ignored. Unreadable: :class:`LabValueError`.

    >>> parse_version("v0.10.1"), parse_version("0.10.1.post1"), parse_version("0.11.0rc2")
    ((0, 10, 1, 0), (0, 10, 1, 1), (0, 11, 0, 0))
    >>> parse_version("0.30.1rc1.dev418+g50319916a"), parse_version("1.0")
    ((0, 30, 1, 0), (1, 0, 0, 0))
    """
    match = _VERSION.match(str(text).strip().lower())
    if match is None:
        raise LabValueError(_refusal(f"cannot read the version {str(text)[:40]!r} (valid: e.g. 0.10.1, v0.10.1, "
                                     f"0.10.1.post1, 0.11.0rc2)"))
    major, minor, patch, post, post_late = match.groups()
    return int(major), int(minor or 0), int(patch or 0), int(post or post_late or 0)


def engine_name(text: str) -> str:
    """The engine a reader's name means (vllm, sglang or trtllm; any case, TensorRT-LLM's spellings too).

    >>> engine_name("vLLM"), engine_name("TensorRT-LLM")
    ('vllm', 'trtllm')
    """
    key = str(text).strip().lower()
    if key not in ENGINE_NAMES:
        raise LabValueError(_refusal(f"unknown engine {str(text)[:40]!r} (valid: vllm, sglang, trtllm)"))
    return ENGINE_NAMES[key]


def engine_for_version(engine: str, version: str, draft_model: bool = False) -> str:
    """The preset an engine's version runs as: the last range of :data:`BOUNDARIES` whose first version is at or
    below it (its default settings; :func:`engine_version_note` says when a flag changes that). One exception by the
    draft: a separate draft model (``draft_model``) on vLLM ran on V0 up to 0.10.x, V1 having no draft-model
    speculation before pull request 24322 (first in 0.15.0, as read); from 0.11.0 (V0 removed) to 0.14.x no vLLM
    engine ran one, so those versions are refused with a draft model (:class:`LabValueError`).

    >>> engine_for_version("vllm", "0.11.2"), engine_for_version("vllm", "0.7.3"), engine_for_version("vllm", "0.14.0")
    ('vllm-v1-0.10', 'vllm-v0', 'vllm-v1')
    >>> engine_for_version("sglang", "0.4.6.post1"), engine_for_version("sglang", "0.5.3")
    ('sglang-eager-extend', 'sglang-no-overlap')
    >>> engine_for_version("vllm", "0.10.1", draft_model=True), engine_for_version("vllm", "0.15.0", draft_model=True)
    ('vllm-v0', 'vllm-v1')
    """
    name = engine_name(engine)
    key = parse_version(version)
    preset = None
    for first, candidate in BOUNDARIES[name]:
        if key >= first:
            preset = candidate
    if preset is None:
        raise LabValueError(_refusal(f"{_PRETTY[name]} {version} is older than any speculative decoding the model prices "
                                     f"(from {_FIRST[name]})"))
    if name == "vllm" and draft_model and key < _VLLM_V1_DRAFT_MODEL and preset != "vllm-v0":
        if key >= _VLLM_V0_REMOVED:
            raise LabValueError(f"vLLM {version} ran no separate draft model (V0, which ran one, was removed in 0.11.0; "
                                "V1's came with pull request 24322, first in 0.15.0): give vLLM 0.10.x or 0.15.0 on, "
                                "or another draft (an EAGLE or MTP head, n-gram lookup)")
        return "vllm-v0"
    return preset


def engine_version_note(engine: str, version: str, draft_model: bool = False) -> str:
    """What the default decided for this version, and the flag that changes it ("" when nothing needs saying).

    >>> engine_version_note("vllm", "0.9.2")
    'vLLM 0.9.2 ran V1 by default (from 0.8.0); with VLLM_USE_V1=0 use vllm-v0'
    >>> engine_version_note("vllm", "0.9.2", draft_model=True)[:66]
    'vLLM 0.9.2 ran a draft model on V0 only (V1 had none before 0.15.0'
    """
    name = engine_name(engine)
    key = parse_version(version)
    preset = engine_for_version(name, version, draft_model)
    if name == "vllm":
        if preset == "vllm-v0" and key >= (0, 8, 0, 0):
            # SpecDecode-Bench's fork builds a draft model in V1's gpu_model_runner.py in its later stored copies
            # (READING, suffix decoding's SpecDecode-Bench entry: 1867094e); upstream 0.10.x did not.
            # vLLM pull request 18265 ("Don't fall back to V0 when spec decoding is enabled", 2025-05-16): after it
            # V1 no longer fell back to V0 by itself, so a reader set VLLM_USE_V1=0 (a maintainer's review there)
            return (f"vLLM {version} ran a draft model on V0 only (V1 had none before 0.15.0, pull request 24322); "
                    "from pull request 18265 (May 2025) that took VLLM_USE_V1=0; a fork that gave V1 a draft model "
                    "(SpecDecode-Bench's runs one in its later copies) is vllm-v1-0.10")
        if preset == "vllm-v1-0.10" and key < (0, 11, 0, 0):
            return f"vLLM {version} ran V1 by default (from 0.8.0); with VLLM_USE_V1=0 use vllm-v0"
        if preset == "vllm-v1-0.10":
            return (f"vLLM {version} ran speculation with synchronous scheduling by default (asynchronous by default "
                    "from 0.14.0, pull request 31998); with --async-scheduling vllm-v1 is the closer preset")
        return ""
    if name == "sglang":
        # 0.5.4 assumed the first release holding pull request 11398's opt-in (2025-10-09; its description sets
        # SGLANG_ENABLE_SPEC_V2=1, and --enable-beta-spec is seen in pull request 12128 of 2025-10-25); not read.
        if preset == "sglang-no-overlap" and key >= (0, 5, 4, 0):
            return (f"SGLang {version} ran the overlap scheduler off with speculation by default (the V2 workers the "
                    "default for topk 1 from 0.5.11, pull request 21062); with SGLANG_ENABLE_SPEC_V2=1 and topk 1 use sglang")
        if preset == "sglang" and key < (0, 5, 13, 0):
            # trees stayed on the V1 worker until pull request 25464 (2026-05-16; 0.5.13 per a release write-up)
            return (f"SGLang {version} runs the overlap scheduler with a topk-1 chain by default (pull request 21062); "
                    "a tree (topk > 1) ran the V1 worker with it off until pull request 25464: use sglang-no-overlap "
                    "there, and with SGLANG_ENABLE_SPEC_V2=0 or --disable-overlap-schedule")
        if preset == "sglang":
            return f"SGLang {version} runs the overlap scheduler with speculation; with --disable-overlap-schedule use sglang-no-overlap"
        return ""
    return (f"TensorRT-LLM {version}: the one preset, its PyTorch backend's one-model MTP with the overlap scheduler on "
            "(the default from pull request 4174, 2025-05-09); the TensorRT engine's speculation is not priced")


def read_engine_version(engine: str, version: str, draft_model: bool = False) -> EngineVersion:
    """:func:`engine_for_version` and :func:`engine_version_note` together.

    >>> read_engine_version("SGLang", "0.5.13").preset
    'sglang'
    """
    name = engine_name(engine)
    return EngineVersion(name, str(version).strip(), engine_for_version(name, version, draft_model),
                         engine_version_note(name, version, draft_model))


def split_engine_spec(text: str) -> tuple[str, str] | None:
    """``(engine, version)`` of ``vllm==0.11.2``, ``vllm@0.11.2``, ``vllm 0.11.2`` or ``vllm-0.11.2`` (any case),
    or None when ``text`` names no engine and a separator (a preset name, say).

    >>> split_engine_spec("vLLM==0.11.2"), split_engine_spec("sglang-v0.4.6.post1"), split_engine_spec("vllm-v1")
    (('vllm', '0.11.2'), ('sglang', 'v0.4.6.post1'), None)
    >>> split_engine_spec("vllm==latest")   # read as a version, so the refusal names the version
    ('vllm', 'latest')
    """
    lowered = str(text).strip().lower()
    if lowered in ENGINES:
        return None  # a preset's own name (vllm-v1 is not vLLM version 1)
    for alias in sorted(ENGINE_NAMES, key=len, reverse=True):  # tensorrt-llm before a shorter name it starts with
        if not lowered.startswith(alias):
            continue
        rest = lowered[len(alias):]
        separator = re.match(r"^\s*(==|@|-|\s)\s*", rest)
        if separator is None or not rest[separator.end():]:
            return None
        version = str(text).strip()[len(alias) + separator.end():]
        if separator.group(1) == "-" and not re.match(r"^v?\d+\.\d", version.strip().lower()):
            return None  # vllm-v2, sglang-no-overlap: a preset's name mistyped, not a version (every release has a dot)
        return ENGINE_NAMES[alias], version.strip()
    return None


def resolve_engine(text: str, draft_model: bool = False) -> tuple[str, EngineVersion | None]:
    """``--engine``'s value as ``(preset, the version read or None)``: a preset's name (any case) as it is, else an
    engine and its version (:func:`split_engine_spec`, :func:`read_engine_version`); anything else is a
    :class:`LabValueError` of one line naming both forms.

    >>> resolve_engine("sglang-no-overlap")
    ('sglang-no-overlap', None)
    >>> preset, read = resolve_engine("vllm==0.11.2"); preset, read.version
    ('vllm-v1-0.10', '0.11.2')
    """
    key = str(text).strip()
    if key.lower() in ENGINES:
        return key.lower(), None
    spec = split_engine_spec(key)
    if spec is None:
        raise LabValueError(f"unknown engine {key[:40]!r}; valid: a preset ({', '.join(ENGINES)}) or an engine and "
                            f"its version, e.g. vllm==0.11.2, sglang 0.5.3, trtllm==1.0")
    read = read_engine_version(*spec, draft_model=draft_model)
    return read.preset, read
