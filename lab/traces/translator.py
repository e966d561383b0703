"""The translator between alpha, the engines' acceptance rate and the mean acceptance length, and
the Prometheus exposition writer (for the round-trip check and tests).
"""

import math

from ..ledger import alpha_iid, expected_accepted_drafts

from .common import TraceError, _check_lookahead


def translate(lookahead: int, alpha=None, acceptance_rate=None, mean_acceptance_length=None) -> dict:
    """Any one of alpha, the engines' acceptance rate (accepted / drafted tokens) or the mean
    acceptance length gives the other two at lookahead ``k``, under the independent model:
    ``E = sum_{i=1..k} alpha^i``, ``rate = E / k``, ``meanAcceptanceLength = 1 + E``.

    The conversions assume full-length chain drafts: every call proposes k tokens in a chain.
    n-gram and suffix drafting propose fewer when nothing matches (the rate is then over fewer
    drafted tokens and rate = E / k no longer holds), dynamic or adaptive lookahead and
    llama.cpp's early stop change k call by call, and trees (topk > 1) verify several candidates
    per position, so none of them converts this way: read their counts. SGLang's ``accept rate``
    is ``L / (k + 1)`` in older versions and ``(L - 1) / k`` (this ``acceptanceRate``) in
    newer ones, L being the mean acceptance length (``sglangAcceptRateOld`` is the older).

    >>> t = translate(5, alpha=0.74)
    >>> round(t["acceptanceRate"], 4), round(t["meanAcceptanceLength"], 4)
    (0.4429, 3.2146)
    """
    lookahead = _check_lookahead(lookahead)
    if lookahead is None:
        raise TraceError("the lookahead is required")
    given = [(name, value) for name, value in (("alpha", alpha), ("acceptanceRate", acceptance_rate),
                                                ("meanAcceptanceLength", mean_acceptance_length)) if value is not None]
    if len(given) != 1:
        raise TraceError("give exactly one of alpha, acceptance rate, mean acceptance length")
    name, value = given[0]
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        raise TraceError(f"{name} must be a finite number, got {value!r}")
    if name == "alpha":
        if not 0 <= value <= 1:
            raise TraceError(f"alpha must be from 0 to 1, got {value}")
        mean_accepted = expected_accepted_drafts(value, lookahead)
        alpha_value = float(value)
    elif name == "acceptanceRate":
        if not 0 <= value <= 1:
            raise TraceError(f"the acceptance rate must be from 0 to 1, got {value}")
        mean_accepted = value * lookahead
        alpha_value = alpha_iid(mean_accepted, lookahead)
    else:
        if not 1 <= value <= lookahead + 1:
            raise TraceError(f"the mean acceptance length must be from 1 to k + 1 = {lookahead + 1}, got {value}")
        mean_accepted = value - 1
        alpha_value = alpha_iid(mean_accepted, lookahead)
    return {"lookahead": lookahead, "given": name, "alpha": alpha_value, "acceptanceRate": mean_accepted / lookahead,
            "meanAcceptanceLength": 1 + mean_accepted, "sglangAcceptLen": 1 + mean_accepted,
            "sglangAcceptRateOld": (1 + mean_accepted) / (lookahead + 1),
            "llamacppDraftAcceptanceRate": mean_accepted / lookahead}


# --- the exposition writer (for the round-trip check and tests) ----------------------------------

def render_exposition(drafts: int, draft_tokens: int, accepted: int, per_position,
                      label_sets=((("engine", "0"),),)) -> str:
    """Prometheus text exposition of the four vLLM counters, split over ``label_sets`` (a sequence
    of label-pair tuples); with several, each count is split as evenly as integers allow, and the
    parser must sum them back. Written the way prometheus_client writes counters: ``# HELP`` and
    ``# TYPE`` lines, ``_total`` samples and ``_created`` timestamps.

    >>> from lab.traces.reader import parse
    >>> parse(render_exposition(10, 30, 12, (7, 4, 1))).perPosition
    (7, 4, 1)
    """
    sets = [tuple(pairs) for pairs in label_sets] or [()]

    def split(total: int) -> list[int]:
        share, extra = divmod(total, len(sets))
        return [share + (1 if i < extra else 0) for i in range(len(sets))]

    def labels(pairs) -> str:
        body = ",".join(f'{key}="{value}"' for key, value in pairs)
        return "{" + body + "}" if body else ""

    lines = []
    for metric, total, documentation in (("vllm:spec_decode_num_drafts", drafts, "Number of spec decoding drafts."),
                                         ("vllm:spec_decode_num_draft_tokens", draft_tokens, "Number of draft tokens."),
                                         ("vllm:spec_decode_num_accepted_tokens", accepted, "Number of accepted tokens.")):
        lines += [f"# HELP {metric}_total {documentation}", f"# TYPE {metric}_total counter"]
        for pairs, value in zip(sets, split(total)):
            lines.append(f"{metric}_total{labels(pairs)} {float(value)}")
            lines.append(f"{metric}_created{labels(pairs)} 1.7567367987e+09")
    metric = "vllm:spec_decode_num_accepted_tokens_per_pos"
    lines += [f"# HELP {metric}_total Accepted tokens per draft position.", f"# TYPE {metric}_total counter"]
    for position, total in enumerate(per_position):
        for pairs, value in zip(sets, split(total)):
            lines.append(f"{metric}_total{labels(pairs + (('position', str(position)),))} {float(value)}")
    return "\n".join(lines) + "\n"


# --- presets: public traces, each with where its numbers were read -------------------------------
