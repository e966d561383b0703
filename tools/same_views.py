"""Byte-for-byte check of five widgets' views against another commit's lab (CPython only, standard library;
not part of lab/).

The real-text, exact sampler, deployment, serving and lookahead-policies widgets are rendered over the same slider states by this
checkout's ``lab/`` and by another commit's (``git archive`` of its ``lab/`` into a temporary directory), each in
its own process, and every response is compared as the worker sends it (``json.dumps({"kind": K, **view})``,
as :func:`lab.views.handle` does), by SHA-256. The states:

- the browser bench's slider plans (:func:`bench.browser.slider_plan`, each widget's range sliders round
  robin, every step from the state before: the caches warm as in the page; a log slider's typed twin follows
  it, as app.js sets it), three seeds and three widths, 150 steps each, each plan after the widget's default view;
- a grid of the real-text widget's controls (lookahead 1, 3, 7; T 0, 0.1, 0.5, 1, 1.4, 2; 8, 40 and 64
  tokens; every proposer and preset; and some stepped runs), shuffled;
- a grid of the exact sampler's sliders (certainty and match 0, 37 or 50, 64 or 72, 100; k 1, 5, 12;
  1, 96 and 256 tokens; two seeds; two widths), shuffled;
- 600 states of a grid of the serving widget's (every step model, with the roofline-only sliders moved under
  each; three targets, two GPUs, two lookaheads, batches and output lengths), shuffled;
- 300 states of a grid of the deployment panel's (three targets, drafts and engines, lookahead 1, 4 and 9,
  context 512, 8k and 128k), shuffled;
- 400 states of a grid of the policies widget's (every acceptance process; acceptance 1, 50, 74, 95 and 99; burst 0,
  30, 80 and 95; lookahead 1, 5 and 20; draft cost 0, 12 and 60; threshold 0, 40 and 100), shuffled;
- the policies' own numbers (:func:`lab.policies.evaluate_policies`, every policy's long-run figures, compared by
  ``repr``), for 20 processes, each priced four ways with one cache;
- and, since a view rounds what it shows (a float off in its last bit would seldom change a byte of
  it), the real-text decoder's own records (:func:`lab.realtext.generate`: every call's drafts, the
  p(x) and q(x) it checked and its first-draft chance, compared by ``repr``, so to the last bit) for
  every preset and proposer, T 0, 0.3, 0.7, 1, 1.3 and 2, k 2 and 5, seeds 1 and 2, 32 tokens.

    python tools/same_views.py                 # against main
    python tools/same_views.py --against REV   # against another commit

Exit status 0 when every state's response is the same bytes, 1 when one differs (the first few are
named), 2 when the comparison cannot run (no such commit, no real-text model in .cache/).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run in a child process with the lab under test first on sys.path and this checkout's bench/ after it.
_CHILD = r'''
import hashlib, itertools, json, random, sys
from bench.browser import slider_plan
from lab.jsformat import to_js_string
from lab import realtext
from lab.urlstate import EXACT_SLIDERS
from lab.widgets import deployment as DEP, exact as EX, policies as POL, realtext as RT, serving as SRV

def form(controls, extra):
    """The form's values as the page sends them: every control's default (a log slider's typed twin
    holds base ** its value), then ``extra``."""
    values = {}
    for c in controls:
        if hasattr(c, "minimum"):  # a slider
            values[c.name] = to_js_string(c.default)
            if getattr(c, "typed_key", ""):
                values[c.typed_name] = str(c.base ** int(c.default))
        elif hasattr(c, "default") and c.name not in values:  # a choice or a text field
            values[c.name] = c.default
    return {**values, **extra}

def moved(kind, state, name, value):
    """``state`` with slider ``name`` at ``value``: a log slider's typed twin follows it, as app.js sets it."""
    state = dict(state, **{name: value})
    slider = next(s for s in BASES[kind][0].SLIDERS if s.name == name)
    if getattr(slider, "typed_key", ""):
        state[slider.typed_name] = str(slider.base ** int(float(value)))
    return state

def specs(sliders):
    return [{"name": s.name, "min": s.minimum, "max": s.maximum, "step": s.step, "value": s.default}
            for s in sliders if s.control == "range"]

BASES = {"realtext": (RT, form(RT.SLIDERS, {"rtStep": "64", "rtPreset": RT.PRESET.default,
                                            "rtProposer": RT.DEFAULT_PROPOSER, "rtPrompt": ""})),
         "exact": (EX, form(EX.SLIDERS, {})),
         "deployment": (DEP, form(DEP.CONTROLS, {})),
         "policies": (POL, form(POL.CONTROLS, {})),
         # the serving form carries the exact widget's values too (data-with="exact")
         "serving": (SRV, form(SRV.CONTROLS, {f"exact.{k}": v for k, v in form(EXACT_SLIDERS, {}).items()}))}
out = []

def emit(kind, state):
    text = json.dumps({"kind": kind, **BASES[kind][0].view(state)})
    out.append([kind, json.dumps(state, sort_keys=True), hashlib.sha256(text.encode()).hexdigest()])

for kind, (widget, base) in BASES.items():
    for seed, width in ((20240611, "640"), (7, "390"), (11, "960")):
        state = dict(base, width=width)
        emit(kind, state)
        for name, value in slider_plan(specs(widget.SLIDERS), 150, random.Random(seed)):
            state = moved(kind, state, name, value)
            emit(kind, state)
grid = [dict(BASES["realtext"][1], rtLookahead=k, rtTemperature=t, rtTokens=n, rtProposer=proposer, rtPreset=preset,
             width="640")
        for k, t, n, proposer, preset in itertools.product(("1", "3", "7"), ("0", "0.1", "0.5", "1", "1.4", "2"),
                                                           ("8", "40", "64"), realtext.PROPOSERS, list(realtext.PRESETS))]
for step in ("1", "2", "5", "9"):
    grid += [dict(BASES["realtext"][1], rtStep=step, width="640"),
             dict(BASES["realtext"][1], rtStep=step, rtTemperature="0.7", rtSeed="5", width="640")]
random.Random(3).shuffle(grid)
for state in grid:
    emit("realtext", state)
grid = [dict(BASES["exact"][1], certainty=c, match=m, gamma=g, length=n, seed=s, draftCost="9", width=w)
        for c, m, g, n, s, w in itertools.product(("0", "37", "64", "100"), ("0", "50", "72", "100"), ("1", "5", "12"),
                                                  ("1", "96", "256"), ("23", "4"), ("640", "390"))]
random.Random(4).shuffle(grid)
for state in grid:
    emit("exact", state)
# the serving widget under every step model (the roofline-only sliders, which a per-operator model does not
# read, moved in each), on three targets and two GPUs, each state from the one before, so the caches are warm
grid = [dict(BASES["serving"][1], stepModel=m, target=t, gpu=g, lookahead=k, memEfficiency=e, flopEfficiency=f,
             overheadMs=o, batchExp=b, batch=str(2 ** int(b)), requestOutputTokens=n, width="640")
        for m, t, g, k, e, f, o, b, n in itertools.product(
            ("measured", "roofline", "operators"), ("llama-3-8b", "llama-3-70b", "deepseek-v3"), ("h100-sxm", "mi300x"),
            ("2", "5"), ("40", "80"), ("60", "95"), ("0.5", "3"), ("0", "6"), ("256", "1024"))]
random.Random(5).shuffle(grid)
for state in grid[:600]:
    emit("serving", state)
# the deployment panel over its choices and sliders, shuffled
grid = [dict(BASES["deployment"][1], target=t, draft=d, engine=e, lookahead=k, contextExp=c,
             context=str(2 ** int(c)), width="640")
        for t, d, e, k, c in itertools.product(("llama-3-8b", "llama-3-70b", "deepseek-v3"),
                                               ("llama-3.2-1b", "eagle-head", "ngram"), ("vllm-v1", "sglang", "trtllm"),
                                               ("1", "4", "9"), ("9", "13", "17"))]
random.Random(6).shuffle(grid)
for state in grid[:300]:
    emit("deployment", state)
# the policies widget over its processes and sliders, shuffled (its own plans above cover each step from the last)
grid = [dict(BASES["policies"][1], polProcess=p, acceptance=a, burst=b, lookahead=k, draftCost=c, threshold=t, width="640")
        for p, a, b, k, c, t in itertools.product(("bursty", "independent", "toy"), ("1", "50", "74", "95", "99"),
                                                  ("0", "30", "80", "95"), ("1", "5", "20"), ("0", "12", "60"),
                                                  ("0", "40", "100"))]
random.Random(7).shuffle(grid)
for state in grid[:400]:
    emit("policies", state)
# and the policies' own numbers (lab.policies.evaluate_policies), by repr, so to the last bit: each process priced
# at several costs, lookaheads and thresholds with one cache, as the widget keeps it
from lab import policies
for alpha, burst in itertools.product((0.05, 0.5, 0.74, 0.95, 0.99), (0, 30, 80, 95)):
    process, cache = policies.setting_process({"acceptance": alpha * 100, "burst": burst}), {}
    for draft, k, threshold in ((0.12, 5, 0.4), (0.6, 1, 0.0), (0.0, 20, 1.0), (0.12, 64, 0.4)):
        numbers = policies.evaluate_policies(process, policies.Costs(draft, 0.03, 0.01), k, threshold, cache)
        out.append(["policy", json.dumps([alpha, burst, draft, k, threshold]),
                    hashlib.sha256(repr(numbers).encode()).hexdigest()])
model = realtext.default_model()
for preset, (title, prompt) in realtext.PRESETS.items():
    tokens = model.tokenizer.encode(prompt)
    for proposer, t, k, seed in itertools.product(realtext.PROPOSERS, (0.0, 0.3, 0.7, 1.0, 1.3, 2.0), (2, 5), (1, 2)):
        cycles = realtext.generate(model, tokens, proposer, k, t, 32, seed)
        out.append(["run", json.dumps([preset, proposer, t, k, seed]), hashlib.sha256(repr(cycles).encode()).hexdigest()])
print(json.dumps(out))
'''


def _responses(lab_parent: Path, model: Path) -> list:
    env = {**os.environ, "PROOFROOM_REALTEXT_MODEL": str(model),
           "PYTHONPATH": os.pathsep.join([str(lab_parent), str(ROOT)])}
    done = subprocess.run([sys.executable, "-c", _CHILD], cwd=lab_parent, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"rendering with the lab in {lab_parent} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", default="main", help="the commit whose lab/ the views are compared with")
    args = parser.parse_args(argv)
    model = (ROOT / ".cache" / "realtext-model.zip").resolve()
    model = Path(os.environ.get("PROOFROOM_REALTEXT_MODEL") or model)
    if not model.is_file():
        print(f"no real-text model at {model}: build it first (python -m sitebuild.realtext_train), or set "
              "PROOFROOM_REALTEXT_MODEL to the model file", file=sys.stderr)
        return 2
    archive = subprocess.run(["git", "archive", args.against, "lab"], cwd=ROOT, capture_output=True)
    if archive.returncode:
        print(f"--against {args.against!r} is not a commit of this repository "
              f"(git: {archive.stderr.decode().strip()}); give a branch, tag or commit", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="same-views-") as other:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(other)
        theirs = _responses(Path(other), model)
    ours = _responses(ROOT, model)
    if [row[:2] for row in ours] != [row[:2] for row in theirs]:
        print("the two runs rendered different states (the plan or grid differs): nothing compared", file=sys.stderr)
        return 2
    differ = [(kind, state) for (kind, state, a), (_, _, b) in zip(ours, theirs) if a != b]
    counts = {kind: sum(1 for row in ours if row[0] == kind)
              for kind in ("realtext", "exact", "deployment", "serving", "policies", "policy", "run")}
    print(f"{len(ours)} states ({counts['realtext']} real-text views, {counts['exact']} exact sampler views, "
          f"{counts['deployment']} deployment panel views, {counts['serving']} serving views, "
          f"{counts['policies']} policies views, {counts['policy']} policies' numbers, "
          f"{counts['run']} real-text runs) against "
          f"{args.against}: {len(ours) - len(differ)} the same bytes, {len(differ)} different")
    for kind, state in differ[:5]:
        print(f"  differs: {kind} {state}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
