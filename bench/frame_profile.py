"""Where a slider step's frame goes on the page's main thread: Chromium's trace (the DevTools timeline
categories) over a widget's slider steps, each trace event's thread CPU time (``tdur``, not wall time,
so another job on the machine moves it much less), less its children's, added up by name and grouped
into script, style, layout, paint, composite and HTML parsing, per step; and the CPU the other threads
of the renderer and the GPU process spent (raster, compositor, viz). Standalone, like
bench/trace_parse.py (nothing in ``make bench`` runs it):

    .venv/bin/python -m bench.frame_profile realtext exact      # the bench's own plan, 30 steps a widget
    FRAME_CSS='.table-wrap{mask-image:none}' .venv/bin/python -m bench.frame_profile realtext

``FRAME_ROOT`` builds another checkout's page (say /work/main's, with its own code, in an interpreter of
its own: bench.run._build_beside) and profiles it; ``FRAME_CSS`` adds a style sheet to the live page before the steps (a suspect switched off, to see
whether the frame's CPU moves); ``FRAME_REPLAY=1`` also replays the step's captured markup region by
region (``replay``), without the worker, to split the frame by region. The 5 December 2026 entry of
docs/PERFORMANCE.md is what it found.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline"]

# Trace event names (Chromium's, as its timeline writes them) by phase of the frame.
GROUPS = {
    "script": ("FunctionCall", "EvaluateScript", "v8.callFunction", "RunMicrotasks", "TimerFire", "EventDispatch",
               "FireAnimationFrame", "HandlePostMessage", "MessagePort::Accept"),
    "style": ("UpdateLayoutTree", "Document::recalcStyle", "Document::updateStyle", "Document::rebuildLayoutTree"),
    "layout": ("Layout", "LocalFrameView::performLayout", "InlineNode::ShapeTextIncludingFirstLine"),
    "paint": ("PrePaint", "Paint", "Blink.PrePaint.UpdateTime", "Blink.Paint.UpdateTime", "PaintImage",
              "LocalFrameView::RunPaintLifecyclePhase", "LocalFrameView::RunPrePaintLifecyclePhase"),
    "composite": ("Layerize", "Commit", "UpdateLayer", "ProxyMain::BeginMainFrame::commit",
                  "Blink.CompositingInputs.UpdateTime", "PaintArtifactCompositor::Update",
                  "LayerTreeHost::DoUpdateLayers", "Blink.CompositingCommit.UpdateTime"),
    "parse": ("ParseHTML", "HTMLDocumentParser::PumpTokenizer", "HTMLDocumentParser::~HTMLDocumentParser",
              "HTMLDocumentParser::HTMLDocumentParser"),
}


def _thread_names(events: list[dict]) -> dict:
    return {(e["pid"], e["tid"]): e.get("args", {}).get("name", "?")
            for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}


def _self_cpu(events: list[dict], key) -> tuple[float, dict]:
    """(top-level thread CPU, self thread CPU by event name) of one thread's complete ("X") events, in µs."""
    spans = sorted((e for e in events if (e.get("pid"), e.get("tid")) == key and e.get("ph") == "X"
                    and "tdur" in e and "dur" in e), key=lambda e: (e["ts"], -e["dur"]))
    own, stack, top = defaultdict(float), [], 0.0
    for e in spans:
        while stack and stack[-1][0] + stack[-1][1] <= e["ts"]:
            stack.pop()
        if stack:
            own[stack[-1][2]] -= e["tdur"]
        else:
            top += e["tdur"]
        own[e["name"]] += e["tdur"]
        stack.append((e["ts"], e["dur"], e["name"]))
    return top, own


def frame_split(events: list[dict], steps: int) -> dict:
    """Per step, in ms of thread CPU: the page's main thread (the CrRendererMain thread that spent the
    most) in total and by group (:data:`GROUPS`; what no group names is "other"), its ten largest event
    names, and the other busiest threads of the trace in total.

    >>> ev = [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "CrRendererMain"}},
    ...       {"ph": "X", "name": "Layout", "pid": 1, "tid": 2, "ts": 0, "dur": 9, "tdur": 4000},
    ...       {"ph": "X", "name": "Paint", "pid": 1, "tid": 2, "ts": 1, "dur": 2, "tdur": 1000}]
    >>> s = frame_split(ev, 2); (s["mainMs"], s["groups"]["layout"], s["groups"]["paint"])
    (2.0, 1.5, 0.5)
    """
    if steps < 1:
        raise ValueError(f"steps is {steps!r}: give the number of steps traced, 1 or more")
    names = _thread_names(events)
    per_thread = {key: _self_cpu(events, key) for key in names}
    mains = [key for key, name in names.items() if name == "CrRendererMain"]
    if not mains:
        raise ValueError("the trace has no CrRendererMain thread: trace a page with the timeline categories on")
    main = max(mains, key=lambda key: per_thread[key][0])
    top, own = per_thread[main]
    grouped = {group: sum(own.get(name, 0.0) for name in members) for group, members in GROUPS.items()}
    grouped["other"] = top - sum(grouped.values())
    threads = defaultdict(float)
    for key, (total, _) in per_thread.items():
        if key != main:
            threads[names[key]] += total
    ms = lambda us: round(us / 1000 / steps, 2)  # noqa: E731
    return {"mainMs": ms(top), "groups": {g: ms(v) for g, v in grouped.items()},
            "largest": {name: ms(v) for name, v in sorted(own.items(), key=lambda kv: -kv[1])[:10]},
            "otherThreadsMs": {name: ms(v) for name, v in sorted(threads.items(), key=lambda kv: -kv[1])[:6]}}


def _events(raw: bytes) -> list[dict]:
    data = json.loads(raw)
    return data["traceEvents"] if isinstance(data, dict) else data


def traced_steps(browser, page, kind: str, steps: int, rng: random.Random) -> dict:
    """``steps`` slider steps of ``kind`` (bench.browser.slider_steps, after 2 untraced), traced: the split
    per step and the wall-clock p50/p95 of the step (latencyMs) and of the frame after the swap."""
    from bench import browser as B
    from bench.stats import percentile

    B.slider_steps(page, kind, 2, warmup=0, rng=random.Random(1))
    browser.start_tracing(page=page, categories=CATEGORIES)
    result = B.slider_steps(page, kind, steps, warmup=0, rng=rng)
    split = frame_split(_events(browser.stop_tracing()), len(result["steps"]))
    after = [s["afterFrameAt"] - s["paintedAt"] for s in result["steps"]]
    latency = [s["latencyMs"] for s in result["steps"]]
    return {"steps": len(after), **split,
            "wall": {"latencyP50Ms": round(percentile(latency, 50), 2), "latencyP95Ms": round(percentile(latency, 95), 2),
                     "frameAfterSwapP50Ms": round(percentile(after, 50), 2),
                     "frameAfterSwapP95Ms": round(percentile(after, 95), 2)}}


_CAPTURE = """(kind) => [...(document.querySelector(`form[data-lab="${kind}"]`).closest(".lab-widget")
  .querySelectorAll("[data-figure]"))].map((r) => [r.dataset.figure, r.innerHTML])"""

# Put captured markup back region by region (only the named regions, or all), one view a frame, and
# time from the frame's rAF callback to a message posted there (it runs after the frame).
_REPLAY = """async ({ kind, views, only }) => {
  const widget = document.querySelector(`form[data-lab="${kind}"]`).closest(".lab-widget");
  widget.querySelector("form").scrollIntoView({ block: "center" });
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => {
    const t = performance.now(); const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve(performance.now() - t); channel.port2.postMessage(null); }));
  await frame(); await frame();
  const out = [];
  for (const view of views) {
    await new Promise((resolve) => setTimeout(resolve, 30));
    for (const [name, markup] of view) {
      if (only && !only.includes(name)) continue;
      const region = widget.querySelector(`[data-figure="${name}"]`);
      if (region.innerHTML !== markup) region.innerHTML = markup;
    }
    out.push(await frame());
  }
  return out.sort((a, b) => a - b)[out.length >> 1];
}"""


def replay(browser, page, kind: str, steps: int, rng: random.Random) -> dict:
    """The widget's markup after each of ``steps`` slider steps, put back without the worker (all its
    regions, then each alone; a region is put back only when its markup differs from what it shows):
    per region the split (:func:`frame_split`) and the wall-clock p50 of the frame."""
    from bench import browser as B

    plan = B.slider_plan(page.evaluate(B._SLIDERS, kind), steps, rng)
    views = []
    for step in plan:
        page.evaluate(B._STEPS, {"kind": kind, "steps": [step]})
        views.append(page.evaluate(_CAPTURE, kind))
    out = {}
    for only in [None, *([name] for name, _ in views[0])]:
        browser.start_tracing(page=page, categories=CATEGORIES)
        wall = page.evaluate(_REPLAY, {"kind": kind, "views": views, "only": only})
        split = frame_split(_events(browser.stop_tracing()), len(views))
        out["all" if only is None else only[0]] = {"frameP50Ms": round(wall, 2), **split}
    return out


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    from bench import browser as B
    from bench.run import ROOT, _build_beside, _serve
    from bench.server import ByteLog
    from sitebuild.pipeline import build_site

    kinds = argv or ["realtext", "exact"]
    steps = int(os.environ.get("FRAME_STEPS", "30"))
    tmp = Path(tempfile.mkdtemp(prefix="proofroom-frames-"))
    if os.environ.get("FRAME_ROOT"):  # another checkout's page, say main's
        _build_beside(Path(os.environ["FRAME_ROOT"]).resolve(), tmp / "site")
    else:
        build_site(tmp / "site", ROOT)
    server, url = _serve(tmp / "site", ByteLog())
    out = {"loadAverage": os.getloadavg()}
    try:
        with sync_playwright() as pw:
            browser = B.launcher()(pw)
            # the page's CSP allows no inline style: FRAME_CSS needs it bypassed
            page = browser.new_context(bypass_csp=bool(os.environ.get("FRAME_CSS"))).new_page()
            page.goto(url)
            B.wait_live(page)
            B.wait_audit(page)
            known = B.widgets(page)
            unknown = [kind for kind in kinds if kind not in known]
            if unknown:
                print(f"no widget with sliders named {', '.join(unknown)}; the page has: {', '.join(known)}",
                      file=sys.stderr)
                return 2
            if os.environ.get("FRAME_CSS"):
                page.add_style_tag(content=os.environ["FRAME_CSS"])
            for kind in kinds:
                out[kind] = traced_steps(browser, page, kind, steps, random.Random(f"20240611:{kind}"))
                if os.environ.get("FRAME_REPLAY"):
                    out[kind]["replay"] = replay(browser, page, kind, 16, random.Random(f"20240611:{kind}"))
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    out["loadAverageAfter"] = os.getloadavg()
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
