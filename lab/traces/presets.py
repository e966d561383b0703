"""Public traces the widget opens on, each with where its numbers were read, and the ledger's
measured-curve value.
"""

import re

from .common import MAX_LOOKAHEAD, Trace, TraceError, _rate, shortened
from .analysis import analyse, measured_curve
from .method import family_of_method
from .reader import parse


PRESETS = {
    "club3090-mtp": {
        "title": "Qwen3.6-27B with MTP on vLLM 0.20.1, k = 6 (club-3090 #105)",
        "label": "Qwen3.6-27B, MTP, vLLM",   # the select's option: short enough to show whole on a phone
        "model": "Minachist/Qwen3.6-27B-Mixed-AutoRound, multi-token prediction (MTP) drafts, 2x RTX 3090",
        "method": "MTP", "temperature": "not stated in the lines read",
        "source": "noonghunna/club-3090 issue #105, two consecutive vLLM log lines (05-08 16:25:09 and 16:25:19)",
        "note": ("Two SpecDecoding metrics lines copied verbatim from the thread (the log of one session); the parser "
                 "sums them."),
        "text": ("(APIServer pid=13026) INFO 05-08 16:25:09 [metrics.py:101] SpecDecoding metrics: Mean acceptance "
                 "length: 2.87, Accepted throughput: 48.90 tokens/s, Drafted throughput: 157.19 tokens/s, Accepted: "
                 "489 tokens, Drafted: 1572 tokens, Per-position acceptance rate: 0.740, 0.473, 0.309, 0.187, 0.099, "
                 "0.057, Avg Draft acceptance rate: 31.1%\n"
                 "(APIServer pid=13026) INFO 05-08 16:25:19 [metrics.py:101] SpecDecoding metrics: Mean acceptance "
                 "length: 2.72, Accepted throughput: 45.49 tokens/s, Drafted throughput: 158.98 tokens/s, Accepted: "
                 "455 tokens, Drafted: 1590 tokens, Per-position acceptance rate: 0.728, 0.445, 0.275, 0.151, 0.075, "
                 "0.042, Avg Draft acceptance rate: 28.6%\n"),
        "lookahead": None,
    },
    "vllm-26191-eagle3": {
        "title": "Llama-3.1-8B with EAGLE-3 on vLLM, MT-bench, temperature 0, k = 7 (vllm #26191)",
        "label": "Llama-3.1-8B, EAGLE-3, vLLM",
        "model": "meta-llama/Llama-3.1-8B-Instruct with yuhuili/EAGLE3-LLaMA3.1-Instruct-8B, 80 MT-bench prompts",
        "method": "EAGLE-3", "temperature": "0",
        "source": "vllm-project/vllm issue #26191, the 'Previous AL=3.53' output of examples/offline_inference/spec_decode.py",
        "note": ("Counts copied verbatim from the issue (num_drafts 4816, num_draft_tokens 33712, num_accepted_tokens "
                 "12208). The per-position lines that follow were cut off in the excerpt read, so this preset has "
                 "no curve: it shows what a format without per-position counts can and cannot tell."),
        "text": ("total_num_output_tokens: 16990\nnum_drafts: 4816\nnum_draft_tokens: 33712\n"
                 "num_accepted_tokens: 12208\nmean acceptance length: 3.53\n"),
        "lookahead": None,
    },
    "llamacpp-24536-eagle3": {
        "title": "EAGLE-3 on llama.cpp's server, k = 3 (llama.cpp #24536)",
        "label": "EAGLE-3, llama.cpp server",
        "model": "the EAGLE-3 draft of ggml-org/llama.cpp pull request #24536's test run (one request, 256 tokens)",
        "method": "EAGLE-3", "temperature": "not stated in the lines read",
        "source": "ggml-org/llama.cpp pull request #24536 (merged 2026-06-15), the server's print_timing lines",
        "note": ("Copied verbatim from the pull request (also lab/traces/samples/llamacpp_2026.log). The 2026 server "
                 "line prints the mean acceptance length and the per-position rates; the reader rebuilds the calls "
                 "from them, and the drafts averaged just under k = 3 (early stops)."),
        "text": ("0.06.895.998 I slot print_timing: id  1 | task 0 |        eval time =    2296.72 ms /   256 tokens "
                 "(    8.97 ms per token,   111.46 tokens per second)\n"
                 "0.06.896.015 I slot print_timing: id  1 | task 0 | draft acceptance = 0.64479 (  167 accepted /   "
                 "259 generated), mean acceptance length =  2.92, acceptance rate per position = (0.805, 0.632, "
                 "0.483)\n"),
        "lookahead": None,
    },
}
DEFAULT_PRESET = "club3090-mtp"

# Spec-Bench leaderboard, A100 80GB, Vicuna-7B-v1.3, greedy, FP16, batch size 1: mean accepted tokens
# per decoding step (counting the verifier's token, 1.00 for plain decoding) and overall speedup.
# Read from hemingkx/Spec-Bench Leaderboard.md, section "Leaderboard on A100", table "Vicuna-7B-v1.3", at
# commit fd2c1cd ("Leaderboard updated", 2025-04-22, the newest), where the authors re-ran every method (the table
# before it, commit 09244ff3, gave EAGLE 3.61 / 2.29x, Hydra 3.24 / 2.09x, Medusa 2.32 / 1.78x, PLD 1.73 / 1.59x,
# SpS 2.28 / 1.49x, REST 1.82 / 1.48x, Lookahead 1.66 / 1.27x). The same seven methods as before.
SPEC_BENCH = (
    ("EAGLE", 3.58, 2.10), ("Hydra", 3.26, 2.07), ("Medusa", 2.31, 1.71), ("PLD", 1.75, 1.66),
    ("SpS", 2.28, 1.52), ("REST", 1.82, 1.48), ("Lookahead", 1.64, 1.34),
)
SPEC_BENCH_SOURCE = ("hemingkx/Spec-Bench, Leaderboard.md at commit fd2c1cd (re-run of 22 April 2025), Leaderboard "
                     "on A100, Vicuna-7B-v1.3 (greedy, FP16, batch size 1)")


def preset_family(name: str) -> str | None:
    """The drafter family (:data:`lab.acceptance.FAMILIES`) a preset's ``method`` names, read by the reader that reads
    a pasted log's drafter (:func:`lab.traces.method.family_of_method`; the display name also without its hyphens and
    spaces, "EAGLE-3" as "EAGLE3"); None when it names no single family.

    >>> [preset_family(name) for name in PRESETS]
    ['mtp', 'eagle', 'eagle']
    """
    method = PRESETS[name]["method"]
    found = {family_of_method(method), family_of_method(re.sub(r"[\s-]", "", method))} - {None}
    return found.pop() if len(found) == 1 else None


def preset_trace(name: str) -> Trace:
    """The parsed trace of a preset (:data:`PRESETS`), its ``method`` the family the preset's method names
    (:func:`preset_family`), with a note saying so, as a pasted log naming that drafter gets.

    >>> preset_trace("club3090-mtp").method, preset_trace("club3090-mtp").notes[-1]
    ('mtp', "the drafter, named by the preset's source: MTP heads ('MTP')")
    """
    preset = PRESETS[name]
    trace = parse(preset["text"], "auto", preset["lookahead"])
    family = preset_family(name)
    if family is None or trace.method is not None:  # a configuration line in the text itself wins
        return trace
    from ..acceptance import FAMILY_NAMES

    note = f"the drafter, named by the preset's source: {FAMILY_NAMES[family]} ({preset['method']!r})"
    return trace._replace(method=family, notes=trace.notes + (note,))


def ledger_curve(value: str) -> tuple[list[float], str, bool]:
    """The ledger's ``trcCurve`` value as (conditional curve, label, linkable): a preset name
    (linkable), or ``custom:a1,a2,...`` from the reader's own data (not linkable: the address
    should not pretend it can reproduce a trace it does not carry).

    A preset name may end with its own drafter family (``club3090-mtp~mtp``, :func:`preset_family`), as the
    trace reader sends it; another family is refused.

    >>> ledger_curve("custom:0.9,0.5"), ledger_curve("custom:0.9,0.5,0.4@2")[0]
    (([0.9, 0.5], 'your own trace', False), [0.9, 0.5, 0.4])
    >>> ledger_curve("club3090-mtp~mtp")[2], ledger_curve("club3090-mtp~mtp")[0] == ledger_curve("club3090-mtp")[0]
    (True, True)
    >>> ledger_curve("club3090-mtp~ngram")
    Traceback (most recent call last):
    ...
    lab.traces.TraceError: preset club3090-mtp's drafter family is mtp (its method MTP): ~mtp or none, got ~ngram
    """
    name, mark, family = value.partition("~") if isinstance(value, str) else (value, "", "")
    if name in PRESETS and mark:
        own = preset_family(name)
        if family != own:
            raise TraceError(f"preset {name}'s drafter family is {own} (its method {PRESETS[name]['method']}): "
                             + (f"~{own} or none" if own else "no ~family") + f", got ~{shortened(family, 24)}")
        value = name
    if value in PRESETS:
        return measured_curve(analyse(preset_trace(value))), PRESETS[value]["title"], True
    if isinstance(value, str) and value.startswith("custom:"):
        from ..acceptance import split_measured  # custom:r1,...,rn@m: positions past m were extrapolated
        from ..errors import LabValueError

        try:
            parts = split_measured(value[len("custom:"):])[0].split(",")
        except LabValueError as error:
            raise TraceError(str(error)) from None
        if not 1 <= len(parts) <= MAX_LOOKAHEAD:
            raise TraceError(f"a curve has 1 to {MAX_LOOKAHEAD} rates, got {len(parts)}")
        return [_rate(part, "rate", "curve") for part in parts], "your own trace", False
    raise TraceError(f"{shortened(str(value), 40)!r} is not a preset (valid: {', '.join(PRESETS)}) or a custom: curve")
