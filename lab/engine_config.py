"""From the deployment's answer to an engine's settings: the flag and key names of vLLM, SGLang,
TensorRT-LLM and llama.cpp, each pinned to where it is defined in that engine's source, and the
configuration text built from them.

Every name a configuration prints is a row of :data:`ENGINES` (a flag, a JSON or YAML key, or a
value such as an algorithm's name) with the file, the commit of the copy read and the line that
defines it, so a renamed flag is found by reading that line again. The rows were read on
2026-12-03 through the code index (stored copies of each repository; where the copy's commit is
not known, its length and the character offset of the line are recorded instead, ``locator``).
A name that could not be read in the engine's source is not here and is never printed:

* TensorRT-LLM: ``acceptance_rate_threshold`` (a test constructs ``MTPDecodingConfig`` with it,
  but the copy of ``llm_args.py`` read has ``acceptance_window`` / ``acceptance_length_threshold``
  instead), and the ``decoding_type`` of a separate draft model or of n-gram lookup: for those
  pairs no TensorRT-LLM configuration is written. Nor for an EAGLE-1 head: ``decoding_type`` ``Eagle``
  (``EagleDecodingConfig``) runs EAGLE-3's modes on the PyTorch backend (its ``spec_dec_mode`` is
  ``EAGLE3_ONE_MODEL`` or ``EAGLE3``) and an EAGLE(-1/-2) head only on the deprecated TensorRT-engine
  backend (``TrtLlmArgs.validate_speculative_config``), whose flag no row here holds.
* llama.cpp: an EAGLE-1 head. ``--spec-type`` lists ``draft-eagle3`` and no other EAGLE type at the
  commit read, so for an EAGLE-1 head no llama.cpp configuration is written.
* llama.cpp: ``--draft-max`` and ``--draft-min`` (the issue's names) are removed at the commit
  read ("the argument has been removed. use --spec-draft-n-max ..."); the configuration uses
  ``--spec-draft-n-max``, ``--spec-draft-n-min`` and ``--spec-draft-p-min`` (``--draft-p-min``
  remains an alias of the last).
* Tensor parallelism is left to the reader (a comment names the GPU count): no engine's
  tensor-parallel flag was read.

Schedules by batch (k = 0 past the crossover):

* vLLM ``num_speculative_tokens_per_batch_size``: a list of inclusive ``[from, to, k]`` ranges,
  the first starting at batch 1, sorted and not overlapping, k >= 0; a batch in a gap takes the
  previous range's k and one past the last range the last k; every k is capped at
  ``num_speculative_tokens`` (vllm/v1/spec_decode/dynamic/utils.py,
  ``validate_and_normalize_dynamic_sd_schedule`` and ``build_dynamic_sd_schedule_lookup``).
* TensorRT-LLM ``draft_len_schedule``: ``{batch: k}`` where a key is the largest batch its k
  applies to (from the previous key + 1) and a batch past the largest key drafts 0 tokens
  (tensorrt_llm/_torch/speculative/utils.py ``get_draft_len_for_batch_size``, ``bisect_left``;
  ``min_draft_len`` 0 by default). Its validator (llm_args.py
  ``validate_draft_len_schedule_and_sort``) wants the smallest key's k equal to ``max_draft_len``
  and no k above it, so where the best k rises above batch 1's (a mixture of experts can) the
  schedule is capped there and says so (:func:`trtllm_capped`). Vanilla MTP with more than one
  MTP module ignores the schedule.
* SGLang NGRAM: ``--speculative-ngram-max-bfs-breadth 1`` (``speculative_ngram_max_bfs_breadth``, default 10,
  read on 2026-12-04 at the same commit): at its default NGRAM drafts a tree over its trie, so the
  configuration asks for the chain the serving model prices.
* SGLang: no schedule by batch. ``--speculative-adaptive`` "dynamically adjusts num_steps based
  on acceptance rate", not on the batch; the configuration runs the k best at the reader's batch.
* llama.cpp: no schedule by batch (slots draft independently; ``--spec-draft-n-min`` /
  ``--spec-draft-p-min`` cut a draft by the draft's own confidence); the reader's batch's k.

Standard library only.
"""

import json
from typing import NamedTuple

__all__ = ["Source", "Engine", "ENGINES", "CONFIG_ENGINES", "configuration", "names_in", "vllm_schedule",
           "trtllm_schedule", "trtllm_capped", "schedule_k_at", "MTP_TARGETS"]


class Source(NamedTuple):
    """Where a name is defined: repository, file, the commit of the copy read (or ``locator``
    when the copy's commit is unknown: the code index's record of the copy, kept here and in
    docs/READING.md, never printed on the page), the defining line as read, and ``note``: what
    else the reader should know about it (printed after it)."""

    repo: str
    path: str
    commit: str
    definition: str
    locator: str = ""
    note: str = ""


class Engine(NamedTuple):
    """One engine's table: its label, the version whose names the configuration follows, what it
    supports as a schedule by batch, and every name a configuration may print, with its source."""

    name: str
    label: str
    version: str
    schedule: str
    names: dict


_VLLM_SPEC = "002e77c1f0ef9b19cff8b9e21cfbd6feb3d6b443"
_VLLM_DSD = "14b450ca590cbff96e7004bdb147a5d3acf5a4f6"
_SGLANG = "001067fffe33427bee0ed2f007fb7551a1d76b44"
_TRTLLM_UTILS = "011d0933dcb5e592f5fa2626beaf42a96324c578"
_TRTLLM_ARGS_COPY = "stored copy of 256,191 characters (code index id 55143598664)"
_LLAMA = "00dc8057ab28c9cb4c79a6dd6dfce07fe779f63b"


def _src(repo, path, commit, definition, locator="", note=""):
    return Source(repo, path, commit, definition, locator, note)


def _vllm(definition):
    return _src("vllm-project/vllm", "vllm/config/speculative.py", _VLLM_SPEC, definition)


# Arctic Inference 0.1.1 (2025-11-05; 0.1.0 of 2025-10-21 differs only in its plugin's log line): the plugin that ran
# suffix decoding on vLLM 0.10.1 (lab.serving_suffix.SUFFIX_LOOPS)
_ARCTIC = "db565372cae711a7ec9b1bbcfed1ca675238d9ed"


def _arctic(path, definition, note=""):
    return _src("snowflakedb/ArcticInference", path, _ARCTIC, definition, note=note)


def _sglang(definition):
    return _src("sgl-project/sglang", "python/sglang/srt/server_args.py", _SGLANG, definition)


def _trt(definition, where):
    return _src("NVIDIA/TensorRT-LLM", "tensorrt_llm/llmapi/llm_args.py", "", definition, f"{_TRTLLM_ARGS_COPY}, {where}")


def _llama(definition):
    return _src("ggml-org/llama.cpp", "tools/server/README.md (generated from common/arg.cpp between HELP_START and "
                "HELP_END)", _LLAMA, definition)


ENGINES = {
    "vllm": Engine(
        "vllm", "vLLM", "vLLM main at commit 002e77c1 (2026); the batch schedule since pull request #32374 "
        "(Dynamic SD, 2026), in the 0.26.1rc1 nightlies (issue #51510)",
        "num_speculative_tokens_per_batch_size: inclusive [from, to, k] ranges, k = 0 off",
        {
            "--speculative-config": _src(
                "vllm-project/vllm", "vllm/engine/arg_utils.py", "",
                'vllm_group.add_argument("--speculative-config", "-sc", **vllm_kwargs["speculative_config"])',
                "stored copy of 387,529 characters (code index id 60142659630), character 52,232",
                "the value is parsed with json.loads"),
            "method": _vllm("method: SpeculativeMethod | None = None"),
            "model": _vllm("model: str | None = None"),
            "num_speculative_tokens": _vllm("num_speculative_tokens: int = Field(default=None, gt=0)"),
            "num_speculative_tokens_per_batch_size": _src(
                "vllm-project/vllm", "vllm/config/speculative.py", _VLLM_SPEC,
                "num_speculative_tokens_per_batch_size: list[tuple[int, int, int]] | None = None",
                note=f"its rules: vllm/v1/spec_decode/dynamic/utils.py at {_VLLM_DSD[:10]}"),
            "prompt_lookup_max": _vllm("prompt_lookup_max: int | None = Field(default=None, ge=1)"),
            "eagle": _vllm('EagleModelTypes = Literal["eagle", "eagle3", "extract_hidden_states", MTPModelTypes, '
                           'DFlashModelTypes]'),
            "eagle3": _vllm('EagleModelTypes = Literal["eagle", "eagle3", "extract_hidden_states", MTPModelTypes, '
                            'DFlashModelTypes]'),
            "mtp": _vllm('MTPModelTypes = Literal["deepseek_mtp", ..., "mtp", ...]'),
            "draft_model": _vllm('SpeculativeMethod = Literal["ngram", "medusa", "mlp_speculator", "draft_model", ...]'),
            "ngram": _vllm('SpeculativeMethod = Literal["ngram", "medusa", "mlp_speculator", "draft_model", ...]'),
            # suffix decoding (vLLM pull request 25784): its method and the keys SuffixDecodingProposer reads
            # (vllm/v1/spec_decode/suffix_decoding.py: config.suffix_decoding_max_tree_depth, _max_spec_factor,
            # _min_token_prob, _max_cached_requests), each defined in speculative.py at the commit read
            "suffix": _vllm('SpeculativeMethod = Literal["ngram", "medusa", "mlp_speculator", "draft_model", "suffix", '
                            '...]'),
            "suffix_decoding_max_tree_depth": _vllm("suffix_decoding_max_tree_depth: int = 24"),
            "suffix_decoding_max_spec_factor": _vllm("suffix_decoding_max_spec_factor: float = 1.0"),
            "suffix_decoding_min_token_prob": _vllm("suffix_decoding_min_token_prob: float = 0.1"),
            "suffix_decoding_max_cached_requests": _vllm("suffix_decoding_max_cached_requests: int = 10000"),
            # suffix decoding on vLLM 0.10.1 (the vllm-v1-0.10 engine), before pull request 25784: Arctic Inference's
            # plugin (arctic-inference 0.1.0 and 0.1.1 pin vllm==0.10.1), its switch and the keys its
            # SpeculativeConfig patch adds or sets (arctic_inference/vllm/config.py, lines 57-110)
            "ARCTIC_INFERENCE_ENABLED": _arctic("arctic_inference/envs.py",
                                                '"ARCTIC_INFERENCE_ENABLED": lambda: os.getenv("ARCTIC_INFERENCE_ENABLED", '
                                                '"0") == "1"', "the plugin does nothing without it"),
            "suffix_cache_max_depth": _arctic("arctic_inference/vllm/config.py", "suffix_cache_max_depth: int = 64",
                                              "the plugin sets num_speculative_tokens to it"),
            "disable_by_batch_size": _arctic("arctic_inference/vllm/config.py", "self.disable_by_batch_size = 64",
                                             "vLLM 0.10.1's own key, which the plugin sets to 64 for suffix when "
                                             "unset; past it no request drafts"),
        }),
    "sglang": Engine(
        "sglang", "SGLang", "SGLang main at commit 001067ff (2026); each field of ServerArgs is the flag of its "
        "name with dashes",
        "none by batch: --speculative-adaptive adjusts num_steps by acceptance rate, not batch",
        {
            "--speculative-algorithm": _sglang("speculative_algorithm: A[Optional[str], \"Speculative algorithm. "
                                               "Builtins: EAGLE, EAGLE3, NEXTN, STANDALONE, NGRAM, DFLASH, DSPARK. ...\"]"),
            "--speculative-draft-model-path": _sglang("speculative_draft_model_path: A[Optional[str], Arg(help=..., "
                                                      "aliases=[\"--speculative-draft-model\"])]"),
            "--speculative-num-steps": _sglang("speculative_num_steps: A[Optional[int], \"The number of steps "
                                               "sampled from draft model in Speculative Decoding.\"]"),
            "--speculative-eagle-topk": _sglang("speculative_eagle_topk: A[Optional[int], \"The number of tokens "
                                                "sampled from the draft model in eagle2 each step.\"]"),
            "--speculative-num-draft-tokens": _sglang("speculative_num_draft_tokens: A[Optional[int], \"The number "
                                                      "of tokens sampled from the draft model in Speculative Decoding.\"]"),
            "EAGLE": _sglang("Builtins: EAGLE, EAGLE3, NEXTN, STANDALONE, NGRAM, DFLASH, DSPARK"),
            "EAGLE3": _sglang("Builtins: EAGLE, EAGLE3, NEXTN, STANDALONE, NGRAM, DFLASH, DSPARK"),
            "NEXTN": _sglang("Builtins: EAGLE, EAGLE3, NEXTN, STANDALONE, NGRAM, DFLASH, DSPARK"),
            "STANDALONE": _sglang("Builtins: EAGLE, EAGLE3, NEXTN, STANDALONE, NGRAM, DFLASH, DSPARK"),
            "NGRAM": _sglang("Builtins: EAGLE, EAGLE3, NEXTN, STANDALONE, NGRAM, DFLASH, DSPARK"),
            # NGRAM drafts a tree by default (BFS over its trie, up to 10 wide): breadth 1 makes it the chain priced
            "--speculative-ngram-max-bfs-breadth": _sglang("speculative_ngram_max_bfs_breadth: A[int, \"The maximum "
                                                           "breadth for BFS (Breadth-First Search) in ngram speculative "
                                                           "decoding.\", NS(\"spec\")] = 10"),
        }),
    "trtllm": Engine(
        "trtllm", "TensorRT-LLM", "TensorRT-LLM main (2026): DecodingBaseConfig as in the copy of llm_args.py read, "
        "the schedule's rule at commit 011d0933",
        "draft_len_schedule: {largest batch: k}, speculation off past the largest key",
        {
            "speculative_config": _src("NVIDIA/TensorRT-LLM", "tensorrt_llm/llmapi/llm_args.py", "",
                                       'speculative_config: SpeculativeConfig = Field(default=None, '
                                       'description="Speculative decoding config.")',
                                       "stored copy of 121,745 characters (code index id 1090804222), character 62,888"),
            "decoding_type": _trt('decoding_type: Literal["Eagle3"] = Field(default="Eagle3")',
                                  "in the page read from character 82,000 to 98,000"),
            "max_draft_len": _trt("EagleDecodingConfig.validate_eagle_config: 'if self.max_draft_len is None or "
                                  "self.max_draft_len == 0: raise ValueError(\"max_draft_len must be > 0 for Eagle\")'",
                                  "in the page read from character 82,000 to 98,000"),
            "speculative_model": _trt("speculative_model: Optional[Union[str, Path]] = Field(default=None, "
                                      "validation_alias=AliasChoices(\"speculative_model\", \"speculative_model_dir\"))",
                                      "in the excerpt ending at character 69,405"),
            "draft_len_schedule": _src(
                "NVIDIA/TensorRT-LLM", "tensorrt_llm/llmapi/llm_args.py", "",
                "draft_len_schedule: Optional[dict[int, int]] = Field(default=None, description=\"... {4:4, 8:2, 32:1} "
                "- Batch sizes 1-4: use draft_len=4 ... 33+: use draft_len=0 (implicit, speculation disabled)\")",
                f"{_TRTLLM_ARGS_COPY}, character 69,405; its validator validate_draft_len_schedule_and_sort in the "
                f"page read from character 70,400 to 86,400 (smallest key's k == max_draft_len, no k above it)",
                f"its rule: tensorrt_llm/_torch/speculative/utils.py get_draft_len_for_batch_size at {_TRTLLM_UTILS[:10]}"),
            "Eagle3": _trt('class Eagle3DecodingConfig(EagleDecodingConfig): decoding_type: Literal["Eagle3"]',
                           "in the page read from character 82,000 to 98,000"),
            # named only in the reason no EAGLE-1 configuration is written (never in a configuration's text)
            "Eagle": _trt('class EagleDecodingConfig(DecodingBaseConfig): decoding_type: Literal["Eagle"] = '
                          'Field(default="Eagle") ... def spec_dec_mode(self): ... if self.eagle3_one_model: return '
                          'TorchSpeculativeDecodingMode.EAGLE3_ONE_MODEL; return TorchSpeculativeDecodingMode.EAGLE3',
                          "in the page read from character 82,000 to 98,000; TrtLlmArgs.validate_speculative_config "
                          "(\"decoding_type 'Eagle3' is only supported on the PyTorch backend. Use decoding_type "
                          "'Eagle' for the TensorRT backend.\"; EagleDecodingConfig there sets SpeculativeDecodingMode."
                          "EAGLE) in the page read from character 176,000 to 192,000"),
            "MTP": _src("NVIDIA/TensorRT-LLM", "tensorrt_llm/llmapi/llm_args.py", "",
                        'class MTPDecodingConfig(DecodingBaseConfig): decoding_type: ClassVar[str] = "MTP"',
                        "stored copy of 95,434 characters (code index id 1520735490), character 18,257"),
            # MTP's draft count: its validator overwrites max_draft_len with this field (default 1), so a
            # configuration that set max_draft_len alone would run one draft token (read on 2026-12-04)
            "num_nextn_predict_layers": _src(
                "NVIDIA/TensorRT-LLM", "tensorrt_llm/llmapi/llm_args.py", "",
                'MTPDecodingConfig: num_nextn_predict_layers: PositiveInt = Field(default=1, description="Number of MTP '
                'modules. Each module predicts the next token, so N modules produce N draft tokens."); '
                "@model_validator(mode=\"after\") def set_max_total_draft_tokens(self): self.max_draft_len = "
                "self.num_nextn_predict_layers",
                "stored copy of 139,423 characters (code index id 7019226376), characters 48,000 to 52,000"),
        }),
    "llamacpp": Engine(
        "llamacpp", "llama.cpp", "llama.cpp master at commit 00dc8057 (2026), llama-server",
        "none by batch (each slot drafts alone; --spec-draft-p-min cuts a draft by the draft's confidence)",
        {
            "--spec-draft-model": _llama("| `--spec-draft-model, -md, --model-draft FNAME` | draft model for speculative "
                                         "decoding (default: unused) |"),
            "--spec-type": _llama("| `--spec-type none,draft-simple,draft-eagle3,draft-mtp,draft-dflash,draft-dspark,"
                                  "ngram-simple,...` | comma-separated list of types of speculative decoding to use |"),
            "--spec-draft-n-max": _llama("| `--spec-draft-n-max N` | number of tokens to draft for speculative "
                                         "decoding (default: 3) |"),
            "--spec-draft-n-min": _llama("| `--spec-draft-n-min N` | minimum number of draft tokens to use for "
                                         "speculative decoding (default: 0) |"),
            "--spec-draft-p-min": _llama("| `--spec-draft-p-min, --draft-p-min P` | minimum speculative decoding "
                                         "probability (greedy) (default: 0.00) |"),
            "draft-simple": _llama("--spec-type none,draft-simple,draft-eagle3,draft-mtp,..."),
            "draft-mtp": _llama("--spec-type none,draft-simple,draft-eagle3,draft-mtp,..."),
            "draft-eagle3": _llama("--spec-type none,draft-simple,draft-eagle3,draft-mtp,..."),
            "ngram-simple": _llama("--spec-type ...,ngram-simple,ngram-map-k,ngram-map-k4v,ngram-mod,ngram-cache"),
        }),
}
CONFIG_ENGINES = tuple(ENGINES)
# A draft is configured as what the serving model prices it as: the "EAGLE or MTP head" as an EAGLE(-1) head
# (vLLM eagle, SGLang EAGLE; TensorRT-LLM's PyTorch backend and llama.cpp run no EAGLE-1 head, which their
# configurations say) unless the target carries its own multi-token-prediction module, and the EAGLE-3 head as
# EAGLE-3 (vLLM eagle3, SGLang EAGLE3, TensorRT-LLM Eagle3, llama.cpp draft-eagle3) on every target.
# Targets whose checkpoints carry their own multi-token-prediction module (the "EAGLE or MTP head"
# draft then means that module): lab.serving_presets.MTP_TARGETS, the very module the serving model prices as the draft.
from .figures import plural  # noqa: E402
from .serving_presets import DRAFT_LABELS, MTP_TARGETS  # noqa: E402  (standard library only below it)


def _draft_name(plan) -> str:
    """The draft as the panel names it ("EAGLE or MTP head (1 layer)"), not its key ("eagle-head")."""
    return DRAFT_LABELS.get(plan["draft"], plan["draft"])


def vllm_schedule(ranges) -> list:
    """vLLM's ``num_speculative_tokens_per_batch_size`` from ``(from, to, k)`` ranges covering
    batches 1..N: the ranges as lists (the last range's k also holds past N, as vLLM applies it).

    >>> vllm_schedule([(1, 12, 4), (13, 95, 2), (96, 420, 0)])
    [[1, 12, 4], [13, 95, 2], [96, 420, 0]]
    """
    return [[low, high, k] for low, high, k in ranges]


def trtllm_schedule(ranges) -> dict:
    """TensorRT-LLM's ``draft_len_schedule`` from the same ranges: each range's last batch keyed to
    its k; ranges of k = 0 at the end are dropped, since a batch past the largest key drafts 0.

    >>> trtllm_schedule([(1, 12, 4), (13, 95, 2), (96, 420, 0)])
    {12: 4, 95: 2}
    """
    kept = list(ranges)
    while kept and kept[-1][2] == 0:
        kept.pop()
    return {high: k for _, high, k in kept}


def schedule_k_at(engine: str, schedule, batch: int, num_tokens: int) -> int:
    """The k an engine runs at ``batch`` under the schedule as printed, by the engine's own rule
    (module docstring): what the checks compare with the serving model's best k.

    >>> schedule_k_at("vllm", [[1, 12, 4], [13, 95, 2]], 200, 4), schedule_k_at("trtllm", {12: 4, 95: 2}, 96, 4)
    (2, 0)
    """
    if engine == "vllm":
        k = None
        for low, _high, value in schedule:
            if batch >= low:
                k = value
        return min(num_tokens, k)
    for key in sorted(schedule):
        if batch <= key:
            return schedule[key]
    return 0


# the kinds whose draft is a checkpoint of its own (the engine is given its path); an MTP module ships in the target's
_SEPARATE_CHECKPOINT = ("eagle", "eagle3", "draft-model")


def _draft_kind(target: str, draft: str) -> str:
    """The kind of draft an engine is configured for: what the serving model prices ``draft`` as on ``target``.

    >>> [_draft_kind("llama-3-8b", d) for d in ("eagle-head", "eagle3-head", "ngram", "suffix", "llama-3.2-1b")]
    ['eagle', 'eagle3', 'ngram', 'suffix', 'draft-model']
    >>> _draft_kind("deepseek-v3", "eagle-head"), _draft_kind("deepseek-v3", "eagle3-head")
    ('mtp', 'eagle3')
    """
    from .serving import EAGLE, EAGLE3, NGRAM, SUFFIX

    if draft in (NGRAM, SUFFIX):  # the model-free proposers, each its engines' own method
        return draft
    if draft == EAGLE3:  # named as such: the reader runs an EAGLE-3 head, whatever the checkpoint carries
        return "eagle3"
    if draft == EAGLE:  # priced as the target's MTP module where it ships one, else as an EAGLE-1 head
        return "mtp" if target in MTP_TARGETS else "eagle"
    return "draft-model"


def configuration(engine: str, plan: dict) -> dict:
    """One engine's configuration for ``plan`` (``target``, ``draft``, ``gpus``, ``lookahead``: the
    largest k the schedule runs, ``ranges``: ``(from, to, k)`` by batch, ``batch``, ``batchK``: the
    k best at the reader's batch, ``speedup``, ``bestSpeedup``): ``lines`` (each ``text`` with
    ``why``, the number of the answer it comes from), ``text`` (what the reader copies),
    ``names`` (every flag, key and value printed, each a row of :data:`ENGINES`), ``schedule``
    (as the engine takes it, or None) and ``supported`` (False with ``reason`` where no name
    could be verified)."""
    table = ENGINES[engine]
    kind = _draft_kind(plan["target"], plan["draft"])
    k_max = max([k for _, _, k in plan["ranges"]] + [plan["lookahead"]])
    header = [f"# {table.label}: names as in {table.version}",
              f"# {plural(plan['gpus'], 'GPU')}: set your engine's tensor-parallel size to {plan['gpus']}"]
    why_k = (f"k = {k_max}: the largest k the schedule runs (the serving model's best k at batch "
             f"{plan['ranges'][0][0]}-{plan['ranges'][0][1]})")
    maker = {"vllm": _vllm_lines, "sglang": _sglang_lines, "trtllm": _trtllm_lines, "llamacpp": _llama_lines}[engine]
    result = maker(plan, kind, k_max, why_k)
    if not result["supported"]:
        return {"engine": engine, "label": table.label, "version": table.version, "supported": False,
                "reason": result["reason"], "lines": [], "text": "", "names": [], "schedule": None,
                "scheduleSupport": table.schedule, "capped": []}
    lines = [{"text": text, "why": ""} for text in header] + result["lines"]
    return {"engine": engine, "label": table.label, "version": table.version, "supported": True, "reason": "",
            "lines": lines, "text": "\n".join(line["text"] for line in lines), "names": result["names"],
            "schedule": result["schedule"], "scheduleSupport": table.schedule,
            "capped": [{"from": low, "to": high, "lookahead": k} for low, high, k in result.get("lowered", [])]}


def _fixed_k(plan: dict) -> tuple[int, str]:
    """The one k an engine without a batch schedule runs: the best k at the reader's batch."""
    k = plan["batchK"]
    return k, (f"k = {k}: the serving model's best k at your batch {plan['batch']} "
               f"({plan['bestSpeedup']:.2f}x)" if k else
               f"speculation off: at your batch {plan['batch']} no k pays (best {plan['bestSpeedup']:.2f}x)")


def _vllm_lines(plan, kind, k_max, why_k):
    if kind == "suffix":
        return _vllm_suffix_lines(plan)
    if k_max == 0:
        return {"supported": False, "reason": "no k pays at any batch: run vLLM without --speculative-config"}
    method = {"eagle": "eagle", "eagle3": "eagle3", "mtp": "mtp", "draft-model": "draft_model", "ngram": "ngram"}[kind]
    config = {"method": method}
    names = ["--speculative-config", "method", method, "num_speculative_tokens"]
    if kind in _SEPARATE_CHECKPOINT:
        config["model"] = "DRAFT_CHECKPOINT"
        names.append("model")
    config["num_speculative_tokens"] = k_max
    if kind == "ngram":
        config["prompt_lookup_max"] = 4
        names.append("prompt_lookup_max")
    from .production import SCHEDULE_TOLERANCE

    schedule = vllm_schedule(plan["ranges"])
    if len({k for _, _, k in plan["ranges"]}) > 1:
        config["num_speculative_tokens_per_batch_size"] = schedule
        names.append("num_speculative_tokens_per_batch_size")
    else:
        schedule = None
    lines = [{"text": f"vllm serve TARGET_MODEL --speculative-config '{json.dumps(config)}'",
              "why": f"method {method} for the draft, {_draft_name(plan)}; {why_k}"
                     + (f"; the schedule: the serving model's best k by batch, kept from rising back for a gain under "
                        f"{100 * SCHEDULE_TOLERANCE:.0f}%, 0 past the crossover" if schedule
                        else "; one k at every batch, so no schedule")}]
    if schedule:  # the Dynamic SD page's Limitations (docs/READING.md)
        lines.append({"text": "# with --data-parallel-size > 1 vLLM turns the schedule off and drafts num_speculative_tokens "
                              "at every batch",
                      "why": "vLLM's Dynamic Speculative Decoding page, Limitations: each DP rank would pick its own K"})
    return {"supported": True, "lines": lines, "names": names, "schedule": schedule}


# The reason an engine other than vLLM gets no suffix-decoding configuration (lab.serving_suffix.SUFFIX_ENGINES).
_NO_SUFFIX = {
    "sglang": "SGLang's --speculative-algorithm builtins (EAGLE, EAGLE3, NEXTN, STANDALONE, NGRAM, DFLASH, DSPARK at the "
              "commit read) have no suffix decoding, so no configuration is written: vLLM runs it",
    "trtllm": "no suffix-decoding decoding_type was read in TensorRT-LLM's source, so no configuration is written: "
              "vLLM runs it",
    "llamacpp": "--spec-type lists no suffix-tree type at the commit read (its n-gram types are ngram-simple, "
                "ngram-map-k, ngram-map-k4v, ngram-mod, ngram-cache), so no configuration is written: vLLM runs it",
}


def _vllm_suffix_lines(plan):
    """vLLM's configuration for suffix decoding: ``method`` ``suffix`` and ``num_speculative_tokens``, the k best at
    the reader's batch. No schedule by batch: SuffixDecodingProposer caps every request at its
    ``num_speculative_tokens`` (vllm/v1/spec_decode/suffix_decoding.py), and whether the Dynamic SD schedule reaches
    it was not read. The proposer's own keys are left at their defaults and named in a comment: it drafts at most k,
    fewer where its match is short or a token's estimated probability is low."""
    k, why = _fixed_k(plan)
    if k == 0:
        return {"supported": False, "reason": why + ": run vLLM without --speculative-config"}
    config = {"method": "suffix", "num_speculative_tokens": k}
    names = ["--speculative-config", "method", "suffix", "num_speculative_tokens"]
    lines = [{"text": f"vllm serve TARGET_MODEL --speculative-config '{json.dumps(config)}'",
              "why": f"method suffix for the draft, {_draft_name(plan)} (vLLM V1 since pull request 25784; needs the "
                     f"arctic-inference package); {why}; one k at every batch: the proposer caps each request at "
                     "num_speculative_tokens, and no schedule by batch was read for it"},
             {"text": "# suffix decoding drafts up to k a request, fewer where its match is short "
                      "(suffix_decoding_max_spec_factor, default 1.0) or a token's estimated probability is under "
                      "suffix_decoding_min_token_prob (default 0.1); the serving model prices the k it is capped at",
              "why": "SuffixDecodingProposer.propose passes max_spec_factor and min_token_prob to Arctic Inference's "
                     "speculate"}]
    names += ["suffix_decoding_max_spec_factor", "suffix_decoding_min_token_prob"]
    lines += _arctic_suffix_lines(plan, k)
    names += ["ARCTIC_INFERENCE_ENABLED", "suffix_cache_max_depth", "disable_by_batch_size"]
    return {"supported": True, "lines": lines, "names": names, "schedule": None}


from .serving_suffix import ARCTIC_SUFFIX_BATCH_LIMIT  # noqa: E402  (the plugin's default, where it was read)


def _arctic_suffix_lines(plan, k: int) -> list:
    """The same draft on vLLM 0.10.1 (the serving model's ``vllm-v1-0.10``), a comment: vLLM had no suffix method of
    its own then, Arctic Inference's plugin ran it. Its keys differ from vLLM's: the plugin sets
    ``num_speculative_tokens`` to ``suffix_cache_max_depth`` (default 64) and caps a draft at the rejection sampler's
    ``MAX_SPEC_LEN`` and at ``suffix_max_spec_factor`` (1.0) times a match of at most that depth, so the depth is
    the cap ``k``; and it drafts nothing past ``disable_by_batch_size`` requests (64 unless set,
    :data:`ARCTIC_SUFFIX_BATCH_LIMIT`), so a batch above that sets it to the batch.

    >>> lines = _arctic_suffix_lines({"batch": 128}, 12)
    >>> '"suffix_cache_max_depth": 12' in lines[0]["text"], '"disable_by_batch_size": 128' in lines[0]["text"]
    (True, True)
    >>> "disable_by_batch_size" in _arctic_suffix_lines({"batch": 64}, 12)[0]["text"]
    False
    """
    config = {"method": "suffix", "suffix_cache_max_depth": k}
    if plan["batch"] > ARCTIC_SUFFIX_BATCH_LIMIT:
        config["disable_by_batch_size"] = plan["batch"]
    return [{"text": "# on vLLM 0.10.1 (engine vllm-v1-0.10), before vLLM's own method: Arctic Inference's plugin "
                     "(arctic-inference 0.1.0 or 0.1.1) runs it: ARCTIC_INFERENCE_ENABLED=1 vllm serve TARGET_MODEL "
                     f"--speculative-config '{json.dumps(config)}'",
             "why": "the plugin's SpeculativeConfig patch sets num_speculative_tokens to suffix_cache_max_depth and its "
                    "proposer caps a draft at MAX_SPEC_LEN and at suffix_max_spec_factor (1.0) times a match of at "
                    f"most that depth, so the depth is the cap k = {k} (a shorter match too); it turns speculation "
                    f"off past disable_by_batch_size requests ({ARCTIC_SUFFIX_BATCH_LIMIT} unless set)"
                    + (f", so your batch {plan['batch']} sets it" if "disable_by_batch_size" in config else "")}]


def _sglang_lines(plan, kind, k_max, why_k):
    if kind == "suffix":
        return {"supported": False, "reason": _NO_SUFFIX["sglang"]}
    k, why = _fixed_k(plan)
    if k == 0:
        return {"supported": False, "reason": why + ": run SGLang without --speculative-algorithm"}
    algorithm = {"eagle": "EAGLE", "eagle3": "EAGLE3", "mtp": "NEXTN", "draft-model": "STANDALONE",
                 "ngram": "NGRAM"}[kind]
    parts = ["--speculative-algorithm", algorithm]
    names = ["--speculative-algorithm", algorithm]
    if kind in _SEPARATE_CHECKPOINT:
        parts += ["--speculative-draft-model-path", "DRAFT_CHECKPOINT"]
        names.append("--speculative-draft-model-path")
    if kind != "ngram":
        parts += ["--speculative-num-steps", str(k), "--speculative-eagle-topk", "1"]
        names += ["--speculative-num-steps", "--speculative-eagle-topk"]
    else:  # its default breadth (10) drafts a tree of k + 1 tokens, not the chain the serving model priced
        parts += ["--speculative-ngram-max-bfs-breadth", "1"]
        names.append("--speculative-ngram-max-bfs-breadth")
    parts += ["--speculative-num-draft-tokens", str(k + 1)]
    names.append("--speculative-num-draft-tokens")
    lines = [{"text": "python -m sglang.launch_server --model-path TARGET_MODEL " + " ".join(parts),
              "why": f"{algorithm} for the draft, {_draft_name(plan)}; {why}; a chain: "
                     + ("BFS breadth 1 (its default, 10, drafts a tree)" if kind == "ngram" else "top-k 1")
                     + f", k + 1 = {k + 1} tokens verified; SGLang has no schedule by batch"}]
    return {"supported": True, "lines": lines, "names": names, "schedule": None}


def trtllm_capped(ranges) -> tuple[list, list]:
    """TensorRT-LLM's validator wants the smallest key's k equal to ``max_draft_len`` and no k above
    it (``validate_draft_len_schedule_and_sort``): the ranges with every k capped at batch 1's k,
    runs merged, and the ranges where the cap lowered the serving model's best k.

    >>> trtllm_capped([(1, 2, 4), (3, 9, 6), (10, 20, 2)])
    ([(1, 9, 4), (10, 20, 2)], [(3, 9, 6)])
    """
    cap = ranges[0][2]
    capped, lowered = [], [r for r in ranges if r[2] > cap]
    for low, high, k in ranges:
        k = min(k, cap)
        if capped and capped[-1][2] == k:
            capped[-1] = (capped[-1][0], high, k)
        else:
            capped.append((low, high, k))
    return capped, lowered


def _trtllm_lines(plan, kind, k_max, why_k):
    if kind == "suffix":
        return {"supported": False, "reason": _NO_SUFFIX["trtllm"]}
    if k_max == 0:
        return {"supported": False, "reason": "no k pays at any batch: run TensorRT-LLM without speculative_config"}
    if kind == "eagle":
        return {"supported": False, "reason": "its PyTorch backend runs no EAGLE-1 head (decoding_type Eagle runs "
                                              "EAGLE-3's modes there, EagleDecodingConfig.spec_dec_mode; an EAGLE-1 "
                                              "head runs only on the deprecated TensorRT-engine backend), so no "
                                              "configuration is written: the EAGLE-3 head has one"}
    if kind not in ("eagle3", "mtp"):
        return {"supported": False, "reason": "the decoding_type of a separate draft model or of n-gram lookup was "
                                              "not read in TensorRT-LLM's source, so no configuration is written"}
    ranges, lowered = trtllm_capped(plan["ranges"])
    first = ranges[0][2]
    if first == 0:
        return {"supported": False, "reason": "speculation does not pay at batch 1, and TensorRT-LLM's schedule must "
                                              "give batch 1 its max_draft_len (> 0 for Eagle and MTP)"}
    decoding = "Eagle3" if kind == "eagle3" else "MTP"
    # MTP takes its draft count as num_nextn_predict_layers and sets max_draft_len from it (its validator)
    length_key = "num_nextn_predict_layers" if kind == "mtp" else "max_draft_len"
    rows = ["speculative_config:", f"  decoding_type: {decoding}", f"  {length_key}: {first}"]
    names = ["speculative_config", "decoding_type", decoding, length_key]
    if kind == "eagle3":
        rows.append("  speculative_model: DRAFT_CHECKPOINT")
        names.append("speculative_model")
    schedule = trtllm_schedule(ranges)
    if len({k for _, _, k in ranges}) > 1:
        rows.append("  draft_len_schedule: {" + ", ".join(f"{key}: {value}" for key, value in schedule.items()) + "}")
        names.append("draft_len_schedule")
    else:
        schedule = None
    why = (f"{decoding} for the draft, {_draft_name(plan)}; k = {first}: the serving model's best k at batch 1, which "
           + ("TensorRT-LLM's MTP takes as num_nextn_predict_layers (its validator sets max_draft_len from it; "
              "max_draft_len alone would be overwritten with the default 1)" if kind == "mtp"
              else "TensorRT-LLM makes max_draft_len")
           + ("; the schedule: each key the last batch of its k, 0 past the largest key" if schedule else ""))
    lines = [{"text": row, "why": why if i == 0 else ""} for i, row in enumerate(rows)]
    if lowered:
        lines.append({"text": "# capped at max_draft_len = " + str(first) + " where the best k is larger: batches "
                              + ", ".join(f"{low}-{high} (k = {k})" for low, high, k in lowered),
                      "why": "TensorRT-LLM's schedule validator: the smallest key's k is max_draft_len, no k above it"})
    if kind == "mtp" and schedule:
        lines.append({"text": "# vanilla MTP with more than one MTP module ignores draft_len_schedule (MTP-Eagle follows it)",
                      "why": "tensorrt_llm/_torch/speculative/utils.py"})
    return {"supported": True, "lines": lines, "names": names, "schedule": schedule, "lowered": lowered}


def _llama_lines(plan, kind, k_max, why_k):
    if kind == "suffix":
        return {"supported": False, "reason": _NO_SUFFIX["llamacpp"]}
    k, why = _fixed_k(plan)
    if k == 0:
        return {"supported": False, "reason": why + ": run llama-server without --spec-type"}
    if kind == "eagle":
        return {"supported": False, "reason": "--spec-type lists draft-eagle3 and no EAGLE-1 type, so no configuration "
                                              "is written for an EAGLE-1 head: the EAGLE-3 head has one"}
    spec = {"eagle3": "draft-eagle3", "mtp": "draft-mtp", "draft-model": "draft-simple", "ngram": "ngram-simple"}[kind]
    parts = ["--spec-type", spec]
    names = ["--spec-type", spec]
    if kind in _SEPARATE_CHECKPOINT:
        parts += ["--spec-draft-model", "DRAFT_CHECKPOINT"]
        names.append("--spec-draft-model")
    if kind != "ngram":
        parts += ["--spec-draft-n-max", str(k), "--spec-draft-n-min", "0", "--spec-draft-p-min", "0"]
        names += ["--spec-draft-n-max", "--spec-draft-n-min", "--spec-draft-p-min"]
    lines = [{"text": "llama-server -m TARGET_MODEL.gguf " + " ".join(parts),
              "why": f"{spec} for the draft, {_draft_name(plan)}; {why}; p-min 0 keeps every draft to k, as the model "
                     "assumes; llama.cpp has no schedule by batch"}]
    return {"supported": True, "lines": lines, "names": names, "schedule": None}


def names_in(text: str, engine: str) -> list:
    """The rows of ``engine``'s table that appear in ``text`` as whole words (a test reads every
    configuration back through it).

    >>> names_in("--spec-type draft-mtp --spec-draft-n-max 3", "llamacpp")
    ['--spec-type', '--spec-draft-n-max', 'draft-mtp']
    """
    import re

    return [name for name in ENGINES[engine].names
            if re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text)]
