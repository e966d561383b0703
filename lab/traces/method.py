"""Which drafter a pasted log ran, read from the configuration the engine printed beside its counts:
vLLM V1's ``SpeculativeConfig(method='ngram', ...)`` repr and its ``'speculative_config': {'method': ...}``
arguments, vLLM V0's ``speculative_model='[ngram]'``, SGLang's ``speculative_algorithm='EAGLE3'`` server
arguments and ``--speculative-algorithm`` flag, TensorRT-LLM's ``decoding_type: MTP``. The family
(:data:`lab.acceptance.FAMILIES`) says how the curve continues past the measured k (a copying drafter's
rises, a model drafter's falls: :func:`lab.acceptance.from_conditional`), where without it the log's
curve takes the pooled prior.

Standard library only. The names are the engines' own, read in their sources (docs/READING.md, "The drafter
named in a log").
"""

import re

__all__ = ["METHOD_FAMILIES", "MethodScan", "family_of_method"]

# An engine's name for its drafter -> the acceptance family. vLLM: SpeculativeConfig.method ("ngram", "ngram_gpu",
# "suffix", "eagle", "eagle3", "mtp" and its per-model MTP names, "draft_model", V0's "[ngram]"); SGLang:
# SpeculativeAlgorithm ("EAGLE", "EAGLE3", "NGRAM", "STANDALONE", "NEXTN": MTP as EAGLE); TensorRT-LLM:
# decoding_type ("MTP", "Eagle", "Eagle3", "NGram", "DraftTarget"). vLLM prints the V1 config as
# f"SpeculativeConfig({method=}, {model=}, {num_spec_tokens=})" (vllm-project/vllm vllm/config/speculative.py,
# SpeculativeConfig.__repr__, at f19b16d9), "dspark" and "dflash" among its block drafters (the library's "block"
# family: a drafter that proposes a block of positions in one pass; llama.cpp's --spec-type names them "draft-dflash"
# and "draft-dspark", its classic draft model "draft-simple", lab/engine_config.py). Names it does not know (medusa,
# mlp_speculator, custom_class) give no family.
METHOD_FAMILIES = {"ngram": "ngram", "[ngram]": "ngram", "ngram_gpu": "ngram", "lookahead": "ngram",
                   "suffix": "suffix", "suffix_remote": "suffix", "eagle": "eagle", "eagle3": "eagle",
                   "eagle-3": "eagle", "mtp": "mtp", "nextn": "mtp", "draft_model": "draft", "standalone": "draft",
                   "drafttarget": "draft", "draft_target": "draft", "draft-simple": "draft", "dspark": "block",
                   "dflash": "block", "draft-dspark": "block", "draft-dflash": "block"}

# The printed forms, each capturing the name (quotes optional where the engine printed none).
_PATTERNS = (
    re.compile(r"SpeculativeConfig\(\s*method\s*=\s*['\"]?([\w\[\]-]+)"),
    re.compile(r"""['"]method['"]\s*:\s*['"]([\w\[\]-]+)['"]"""),
    re.compile(r"speculative_model\s*=\s*['\"](\[ngram\])['\"]"),
    re.compile(r"--speculative[-_]model[= ]+['\"]?(\[ngram\])"),
    re.compile(r"speculative_algorithm\s*=\s*['\"]?([A-Za-z0-9_]+)"),
    re.compile(r"--speculative[-_]algorithm[= ]+['\"]?([A-Za-z0-9_]+)"),
    re.compile(r"decoding_type\s*[:=]\s*['\"]?([A-Za-z0-9_]+)"),
)
_MARKERS = ("SpeculativeConfig", "method", "speculative_model", "speculative-model", "speculative_algorithm",
            "speculative-algorithm", "decoding_type")

# The configured lookahead, printed beside the drafter: vLLM's SpeculativeConfig repr (``num_spec_tokens=6``) and
# its arguments (``'num_speculative_tokens': 6``, ``num_speculative_tokens=6``); SGLang's server_args
# (``speculative_num_steps=5, speculative_eagle_topk=1``: a chain of 5; with topk > 1 the drafts are a tree and
# the steps are not read) and its flags; TensorRT-LLM's ``max_draft_len`` and MTP's ``num_nextn_predict_layers``.
_K_PATTERNS = (
    re.compile(r"\bnum_spec_tokens\s*=\s*([0-9]{1,3})\b"),
    re.compile(r"""['"]?\bnum_speculative_tokens['"]?\s*[:=]\s*([0-9]{1,3})\b"""),
    re.compile(r"--num[-_]speculative[-_]tokens[= ]+([0-9]{1,3})\b"),
    re.compile(r"\bmax_draft_len['\"]?\s*[:=]\s*([0-9]{1,3})\b"),
    re.compile(r"\bnum_nextn_predict_layers['\"]?\s*[:=]\s*([0-9]{1,3})\b"),
    re.compile(r"--(?:spec-)?draft(?:-n)?-max[= ]+([0-9]{1,3})\b"),  # llama.cpp's --draft-max, 2026's --spec-draft-n-max
)
# llama.cpp clamps a DFlash drafter's n_max to its block ('n_max=16 -> clamped to 15'): the clamped value wins
_CLAMPED = re.compile(r"\bn_max\s*=\s*[0-9]+\s*->\s*clamped to\s*([0-9]{1,3})\b")
_SGLANG_STEPS = re.compile(r"(?:\bspeculative_num_steps\s*=\s*|--speculative[-_]num[-_]steps[= ]+)([0-9]{1,3})\b")
_SGLANG_TOPK = re.compile(r"(?:\bspeculative_eagle_topk\s*=\s*|--speculative[-_]eagle[-_]topk[= ]+)([0-9]{1,3})\b")
_K_MARKERS = ("num_spec_tokens", "num_speculative_tokens", "num-speculative-tokens", "max_draft_len",
              "num_nextn_predict_layers", "speculative_num_steps", "speculative-num-steps", "eagle_topk", "eagle-topk", "draft-max",
              "draft-n-max", "clamped to")


def family_of_method(name: str) -> str | None:
    """The acceptance family of an engine's drafter name, or None for a name it does not know (Medusa,
    an empty algorithm). Per-model MTP names (vLLM's ``deepseek_mtp``, ``qwen3_next_mtp``) are MTP.

    >>> family_of_method("eagle3"), family_of_method("NGRAM"), family_of_method("deepseek_mtp")
    ('eagle', 'ngram', 'mtp')
    >>> family_of_method("medusa") is None
    True
    """
    key = name.strip().lower()
    if key in METHOD_FAMILIES:
        return METHOD_FAMILIES[key]
    return "mtp" if key.endswith("_mtp") else None


class MethodScan:
    """The drafter names found in the lines fed to it (a log read once, batch by batch): ``family`` is
    the one family they name, or None when they name none or several (``seen`` holds each family with
    the first name that gave it, for the note).

    >>> scan = MethodScan()
    >>> scan.lines(["INFO ... speculative_config=SpeculativeConfig(method='ngram', model=None, num_spec_tokens=5)"])
    >>> scan.family, scan.note()
    ('ngram', "the drafter, read from the engine's configuration line: n-gram / prompt lookup ('ngram')")
    """

    def __init__(self):
        self.seen: dict[str, str] = {}
        self.lookaheads: dict[int, str] = {}  # a configured lookahead -> the text that printed it
        self.steps: dict[int, str] = {}       # SGLang's speculative_num_steps, read with its topk
        self.topks: set[int] = set()
        self.clamped: dict[int, str] = {}     # llama.cpp's n_max after a DFlash drafter's clamp

    def lines(self, batch):
        joined = "\n".join(batch)
        if any(marker in joined for marker in _K_MARKERS):
            for line in batch:
                if any(marker in line for marker in _K_MARKERS):
                    self._lookahead(line)
        if not any(marker in joined for marker in _MARKERS):
            return
        for line in batch:
            if not any(marker in line for marker in _MARKERS):
                continue
            for pattern in _PATTERNS:
                for match in pattern.finditer(line):
                    family = family_of_method(match.group(1))
                    if family is not None:
                        self.seen.setdefault(family, match.group(1))

    def _lookahead(self, line: str):
        for match in (match for pattern in _K_PATTERNS for match in pattern.finditer(line)):
            if int(match.group(1)) >= 1:
                self.lookaheads.setdefault(int(match.group(1)), match.group(0).strip())
        # SGLang: the steps and the topk, on one server_args line or on a command's lines (one flag a line)
        for match in _CLAMPED.finditer(line):
            self.clamped.setdefault(int(match.group(1)), match.group(0).strip())
        for match in _SGLANG_STEPS.finditer(line):
            self.steps.setdefault(int(match.group(1)), match.group(0).strip())
        self.topks.update(int(match.group(1)) for match in _SGLANG_TOPK.finditer(line))

    @property
    def lookahead(self) -> int | None:
        """The one lookahead the configuration lines give, or None (none, or several: a restart).

        >>> scan = MethodScan()
        >>> scan.lines(["[2026-07-21 08:21:32] server_args=ServerArgs(speculative_algorithm='EAGLE', "
        ...             "speculative_num_steps=5, speculative_eagle_topk=1, speculative_num_draft_tokens=6)"])
        >>> scan.lookahead, scan.lookahead_note()
        (5, "lookahead 5 read from the engine's configuration line ('speculative_num_steps=5')")
        """
        found = self._lookaheads()
        return next(iter(found)) if len(found) == 1 else None

    def _lookaheads(self) -> dict:
        if len(self.clamped) == 1:
            return dict(self.clamped)
        found = dict(self.lookaheads)
        if len(self.steps) == 1 and self.topks == {1}:  # a chain (topk 1): k = the draft steps
            found.update(self.steps)
        return found

    def lookahead_note(self) -> str:
        k, text = next(iter(self._lookaheads().items()))
        return f"lookahead {k} read from the engine's configuration line ({text!r})"

    @property
    def family(self) -> str | None:
        return next(iter(self.seen)) if len(self.seen) == 1 else None

    def note(self) -> str | None:
        """What was read, for the analysis's notes: the family and the engine's own name, or that the
        names disagree (then no family is used)."""
        from ..acceptance import FAMILY_NAMES

        if not self.seen:
            return None
        if len(self.seen) > 1:
            return ("the engine's configuration lines name several drafters (" + ", ".join(
                f"{name!r}" for name in self.seen.values()) + "): the curve past the measured k takes the pooled prior")
        family, name = next(iter(self.seen.items()))
        return f"the drafter, read from the engine's configuration line: {FAMILY_NAMES[family]} ({name!r})"
