"""The lookahead policies' seeded simulation: cycles drawn one by one from a seeded generator, apart from
the exact Markov chains of :mod:`lab.policies` that it cross-checks (the checks and tests compare the
two within the simulation's standard error) and the source of the policies widget's time strip (the
heuristic's lookahead cycle by cycle). One idea: sampling, where :mod:`lab.policies` computes. Callers
import it by its own name: it imports :mod:`lab.policies`, so a re-export there would be an import cycle.
Standard library only.
"""

import math
import random

from .policies import HEURISTIC_START, THRESHOLD_CAP, Costs, Process

__all__ = ["simulate", "heuristic_strip"]


class _Path:
    """The hidden states of the real text's positions, drawn lazily from a seeded generator."""

    def __init__(self, process, rng):
        self.process, self.rng = process, rng
        law = process.stationary_law or [1 / process.size] * process.size
        self.states = [_draw(law, rng)]

    def __getitem__(self, position):
        while len(self.states) <= position:
            self.states.append(self.process.step(self.states[-1], self.rng))
        return self.states[position]


def _draw(weights, rng) -> int:
    u, total = rng.random(), 0.0
    for i, w in enumerate(weights):
        total += w
        if u < total:
            return i
    return max(i for i, w in enumerate(weights) if w > 0)


def _draft_token(process, state, depth, rng):
    """One draft token: (survives?, its confidence)."""
    levels = process.confidence_levels(state, depth)
    if not levels:
        return rng.random() < process.alpha(state, depth), 1.0
    index = _draw([w for w, _, _ in levels], rng)
    weight, confidence, accepted = levels[index]
    return rng.random() * weight < accepted, confidence


def _simulate_cycle(process, policy, memory, path, start, rng, threshold):
    """One cycle from position ``start``: (tokens, drafts, fully accepted?)."""
    if policy == "oracle":
        j = 0
        while rng.random() < process.alpha(path[start + j], j + 1):
            j += 1
        return j + 1, j, False
    if policy == "threshold":
        depth = 0
        while True:
            depth += 1
            ok, confidence = _draft_token(process, path[start + depth - 1], depth, rng)
            if not ok:
                drafts, state = depth, path[start + depth - 1]
                go_on = confidence >= threshold
                while go_on and drafts < THRESHOLD_CAP:   # the discarded continuation: a fork of the chain
                    drafts += 1
                    state = process.step(state, rng)
                    go_on = _draft_token(process, state, drafts, rng)[1] >= threshold
                return depth, drafts, False
            if confidence < threshold or depth == THRESHOLD_CAP:
                return depth + 1, depth, True
    k = memory["k"] if policy in ("static", "heuristic") else memory["ks"][path[start]]
    for depth in range(1, k + 1):
        if not rng.random() < process.alpha(path[start + depth - 1], depth):
            return depth, k, False
    return k + 1, k, True


def simulate(process: Process, policy: str, costs: Costs, cycles: int, seed: int, lookahead: int = 5,
             threshold: float = 0.4, batches: int = 20, ks=None) -> dict:
    """A seeded simulation (``random.Random(seed)``) of ``cycles`` cycles: speedup (total tokens /
    total cost) and a batch-means standard error over ``batches`` equal batches.

    ``policy`` is ``static`` (``lookahead``), ``heuristic``, ``threshold``, ``oracle`` or
    ``state-aware`` (its per-state ``ks``)."""
    rng = random.Random(seed)
    path = _Path(process, rng)
    memory = {"k": HEURISTIC_START if policy == "heuristic" else lookahead, "ks": ks}
    position, per_batch = 0, cycles // batches
    ratios, total_tokens, total_cost, total_drafts, total_cycles = [], 0, 0.0, 0, 0
    for _ in range(batches):
        tokens, cost = 0, 0.0
        for _ in range(per_batch):
            got, drafts, full = _simulate_cycle(process, policy, memory, path, position, rng, threshold)
            if policy == "heuristic":
                memory["k"] = memory["k"] + 2 if full else max(1, memory["k"] - 1)
            position += got
            tokens += got
            cost += costs.cycle(drafts)
            total_drafts += drafts
        ratios.append(tokens / cost)
        total_tokens += tokens
        total_cost += cost
        total_cycles += per_batch
        if position > 4096:   # forget the text behind us (the cycle never looks back)
            path[position]
            path.states, position = path.states[position:], 0
    mean = sum(ratios) / len(ratios)
    spread = math.sqrt(sum((r - mean) ** 2 for r in ratios) / (len(ratios) - 1)) if len(ratios) > 1 else math.inf
    return {"speedup": total_tokens / total_cost, "stderr": spread / math.sqrt(len(ratios)),
            "tokensPerCall": total_tokens / total_cycles, "meanLookahead": total_drafts / total_cycles}


def heuristic_strip(process: Process, cycles: int, seed: int) -> list[dict]:
    """A seeded run of the heuristic: per cycle its lookahead, the acceptance state at the
    cycle's start and the drafts accepted (the widget's time strip)."""
    rng = random.Random(seed)
    path = _Path(process, rng)
    k, position, strip = HEURISTIC_START, 0, []
    for _ in range(cycles):
        state = path[position]
        got, _, full = _simulate_cycle(process, "heuristic", {"k": k}, path, position, rng, 0)
        strip.append({"lookahead": k, "state": state, "accepted": got - 1})
        position += got
        k = k + 2 if full else max(1, k - 1)
    return strip
