"""The Playwright measurements: cold starts, slider latency, the audit in Pyodide, bytes on the
wire, and an in-worker probe that times the lab's import and first renders."""

from __future__ import annotations

import importlib.util
import json
import random
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBE_JS = Path(__file__).with_name("probe_worker.js")
PROBE_URL = "bench/probe.js"  # where run.py copies PROBE_JS inside the temporary build

BOOT_TIMEOUT_MS = 120_000

# A reader on a decent connection: Chromium's network emulation (applied to the page and, through
# it, to its dedicated worker's fetches): 20 Mbit/s each way, 40 ms round trip.
NETWORK = {"offline": False, "latency": 40, "downloadThroughput": 20e6 / 8, "uploadThroughput": 20e6 / 8}
# A mid-range phone: Chromium's CPU throttling. It slows the page's main thread only (Chromium
# refuses it for worker targets), so the worker's Python runs at the machine's speed.
CPU_THROTTLE = 4


def launcher():
    """tests/browser.py's launch(), loaded by path (tests/ is not a package)."""
    spec = importlib.util.spec_from_file_location("proofroom_test_browser", ROOT / "tests" / "browser.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.launch


# --- cold starts ---------------------------------------------------------------------------------

# Injected before the page's own scripts (CDP init scripts are not subject to the page's CSP): wraps
# Worker to timestamp, on the page clock, when the worker is created and when each message arrives,
# so a cold start splits into "page until the worker starts", "worker boot" and "first renders".
_WORKER_MARKS = """(() => {
  const Native = window.Worker;
  const marks = (window.__benchWorkerMarks = []);
  window.Worker = class extends Native {
    constructor(url, options) {
      super(url, options);
      marks.push({ what: "created", at: performance.now() });
      this.addEventListener("message", (event) => {
        const data = event.data || {};
        const payload = data.payload || {};
        const what = data.type === "ready" ? "ready" : `${data.type}:${payload.kind || ""}`;
        marks.push({ what, at: performance.now(), bootMs: payload.bootMs ?? data.bootMs ?? null });
      });
    }
  };
})();"""


def _worker_marks(page) -> dict:
    marks = page.evaluate("() => window.__benchWorkerMarks || []")
    out = {}
    for mark in marks:
        out.setdefault(mark["what"], mark["at"])
        if mark["what"] == "ready" and mark.get("bootMs") is not None:
            out["workerBootMs"] = mark["bootMs"]
    return out

def _emulate_network(context, page, network: dict | None) -> None:
    if network:
        session = context.new_cdp_session(page)
        session.send("Network.enable")
        session.send("Network.emulateNetworkConditions", network)


@contextmanager
def _cold_page(browser, url: str, network: dict | None):
    """A page opened at ``url`` in a fresh context (empty HTTP cache) that records the worker's marks,
    with ``network`` emulated when given; the context is closed on leaving. Both cold starts use it."""
    context = browser.new_context()
    context.add_init_script(_WORKER_MARKS)
    try:
        page = context.new_page()
        _emulate_network(context, page, network)
        page.goto(url)
        yield page
    finally:
        context.close()


def cold_bare(browser, base: str, network: dict | None = None) -> dict:
    """bench/bare.html in a fresh context (empty HTTP cache): page-clock ms until Pyodide is up."""
    with _cold_page(browser, base + "bench/bare.html", network) as page:
        page.wait_for_function("() => document.body.dataset.ready || document.body.dataset.error",
                               timeout=BOOT_TIMEOUT_MS)
        data = page.evaluate("() => ({...document.body.dataset})")
        if data.get("error"):
            raise RuntimeError(f"bare page: {data['error']}")
        return {"readyMs": float(data["ready"]), "workerBootMs": float(data["boot"]), **page.evaluate(_NAV_TIMING),
                "marks": _worker_marks(page)}


_NAV_TIMING = """() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const res = Object.fromEntries(performance.getEntriesByType("resource").map(
      (e) => [e.name.split("/").pop(), Math.round(e.responseEnd)]));
  return { domContentLoadedMs: Math.round(nav.domContentLoadedEventEnd), loadMs: Math.round(nav.loadEventEnd),
           resourceEnds: res };
}"""


def wait_live(page) -> None:
    page.wait_for_function(
        "() => ['live', 'failed'].includes(document.documentElement.dataset.labState)", timeout=BOOT_TIMEOUT_MS)
    state = page.evaluate("() => document.documentElement.dataset.labState")
    if state != "live":
        status = page.evaluate("() => (document.getElementById('runtime-status') || {}).textContent")
        raise RuntimeError(f"the lab did not go live: {status}")


def wait_audit(page) -> str:
    """Wait until the browser has run both suites, then return the seed counter's text. The
    instruments suite runs after the seed audit, a family as each widget is reached, in slices
    between the reader's renders: the counter's "Re-run the rest now" (clicked by script, so the page
    does not scroll) loads every widget and runs the rest, and until it ends the worker is not idle."""
    page.wait_for_function(
        "() => document.querySelector('[data-action=\"run-checks\"]')"
        " || (document.querySelector('[data-instrument-counter]') || {dataset: {source: 'browser'}}).dataset.source === 'browser'"
        " || document.documentElement.dataset.labState === 'failed'", timeout=BOOT_TIMEOUT_MS)
    page.evaluate("() => document.querySelector('[data-action=\"run-checks\"]')?.click()")
    page.wait_for_function(
        "() => (document.querySelector('[data-audit-counter]').dataset.source === 'browser'"
        " && (document.querySelector('[data-instrument-counter]') || {dataset: {source: 'browser'}})"
        ".dataset.source === 'browser')"
        " || document.documentElement.dataset.labState === 'failed'", timeout=BOOT_TIMEOUT_MS)
    return page.evaluate("() => document.querySelector('[data-audit-counter]').textContent.trim()")


def cold_article(browser, base: str, network: dict | None = None) -> dict:
    """The article in a fresh context: navigation start to the lab live (dataset.labReadyMs)."""
    with _cold_page(browser, base, network) as page:
        wait_live(page)
        ready = float(page.evaluate("() => document.documentElement.dataset.labReadyMs"))
        return {"labReadyMs": ready, **page.evaluate(_NAV_TIMING), "marks": _worker_marks(page)}


# --- bytes on the wire, as the browser counts them ------------------------------------------------

class EncodedBytes:
    """Sums Chromium's encodedDataLength (headers plus the body as it travelled, compressed or
    not) of every response to the page and to its workers. Workers are separate DevTools targets:
    they are auto-attached (paused at start until their Network domain is on) and spoken to
    through the page's session."""

    def __init__(self, context, page):
        self.session = session = context.new_cdp_session(page)
        self.entries: dict[str, dict] = {}
        self._urls: dict[str, str] = {}
        session.on("Network.requestWillBeSent", lambda e: self._request("page", e))
        session.on("Network.loadingFinished", lambda e: self._finished("page", e))
        session.on("Target.attachedToTarget", self._attached)
        session.on("Target.receivedMessageFromTarget", self._from_target)
        session.send("Network.enable")
        session.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": False})

    def _request(self, target, event):
        self._urls[f"{target}:{event['requestId']}"] = event["request"]["url"]

    def _finished(self, target, event):
        key = f"{target}:{event['requestId']}"
        self.entries[key] = {"url": self._urls.get(key, "?"), "bytes": int(event["encodedDataLength"])}

    def _attached(self, event):
        session_id = event["sessionId"]
        for number, method in enumerate(("Network.enable", "Runtime.runIfWaitingForDebugger"), 1):
            self.session.send("Target.sendMessageToTarget", {
                "sessionId": session_id, "message": json.dumps({"id": number, "method": method, "params": {}})})

    def _from_target(self, event):
        message = json.loads(event["message"])
        method = message.get("method")
        if method == "Network.requestWillBeSent":
            self._request(event["sessionId"], message["params"])
        elif method == "Network.loadingFinished":
            self._finished(event["sessionId"], message["params"])

    def lab_zips(self) -> list[str]:
        """The lab's zips fetched so far (the core and any chunk), by file name."""
        names = (entry["url"].rsplit("/", 1)[-1] for entry in self.entries.values())
        return sorted(name for name in names if name.startswith("lab") and name.endswith(".zip"))

    def take(self) -> dict:
        entries, self.entries = self.entries, {}
        rows = sorted(entries.values(), key=lambda e: -e["bytes"])
        return {"bytes": sum(e["bytes"] for e in rows), "requests": len(rows),
                "transfers": [{"path": e["url"].split("/", 3)[-1], "bytes": e["bytes"]} for e in rows]}


# --- slider latency --------------------------------------------------------------------------------

_WIDGETS = """() => [...document.querySelectorAll("form[data-lab]")]
  .filter((form) => form.querySelector("input[type=range][name]")).map((form) => form.dataset.lab)"""


def widgets(page) -> list[str]:
    """Every widget on the page with a range input (form[data-lab]), in page order."""
    return page.evaluate(_WIDGETS)


def cpu_throttle(context, page, rate: float):
    """Throttle the page's main thread `rate` times (1 restores it); returns the CDP session."""
    session = context.new_cdp_session(page)
    session.send("Emulation.setCPUThrottlingRate", {"rate": rate})
    return session


_SLIDERS = """(kind) => [...document.querySelectorAll(`form[data-lab="${kind}"] input[type=range]`)].map(
  (i) => ({ name: i.name, min: +i.min, max: +i.max, step: +i.step || 1, value: +i.value }))"""

_STEPS = """async ({ kind, steps }) => {
  const form = document.querySelector(`form[data-lab="${kind}"]`);
  form.scrollIntoView({ block: "center" });  // as a reader would: the widget on screen
  const regions = [...(form.closest(".lab-widget") || form).querySelectorAll("[data-figure]")];
  const out = [];
  for (const [name, value] of steps) {
    const input = form.querySelector(`input[name="${name}"]`);
    // swappedAt: the microtask after app.js replaced a figure (worker round trip + DOM swap done).
    let swappedAt = null;
    const observer = new MutationObserver(() => { if (swappedAt === null) swappedAt = performance.now(); });
    for (const region of regions) observer.observe(region, { childList: true });
    const rendered = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no lab-rendered for ${kind} ${name}=${value}`)), 15000);
      const onRendered = (event) => {
        if (event.detail.kind !== kind) return;
        document.removeEventListener("lab-rendered", onRendered);
        clearTimeout(timer);
        // A message posted from the rAF callback runs after that frame's style, layout and paint.
        const channel = new MessageChannel();
        channel.port1.onmessage = () => resolve({ ...event.detail, afterFrameAt: performance.now() });
        channel.port2.postMessage(null);
      };
      document.addEventListener("lab-rendered", onRendered);
    });
    const dispatchedAt = performance.now();
    input.value = String(value);
    input.dispatchEvent(new Event("input", { bubbles: true }));
    const detail = await rendered;
    observer.disconnect();
    out.push({ name, value: input.value, dispatchedAt, requestedAt: detail.requestedAt, swappedAt,
               paintedAt: detail.paintedAt, afterFrameAt: detail.afterFrameAt, pythonMs: detail.pythonMs ?? null,
               sentAt: detail.sentAt ?? null, receivedAt: detail.receivedAt ?? null,
               latencyMs: detail.paintedAt - detail.requestedAt });
  }
  return out;
}"""


def _grid_value(slider: dict, k: int) -> str:
    value = slider["min"] + k * slider["step"]
    return f"{round(value, 10):g}"


def slider_plan(sliders: list[dict], count: int, rng: random.Random) -> list[tuple[str, str]]:
    """`count` steps round-robin over the sliders, each to a random other value on its grid."""
    current = {s["name"]: round((s["value"] - s["min"]) / s["step"]) for s in sliders}
    plan = []
    for i in range(count):
        slider = sliders[i % len(sliders)]
        size = round((slider["max"] - slider["min"]) / slider["step"]) + 1
        k = current[slider["name"]]
        if size > 1:
            while k == current[slider["name"]]:
                k = rng.randrange(size)
        current[slider["name"]] = k
        plan.append((slider["name"], _grid_value(slider, k)))
    return plan


def slider_steps(page, kind: str, count: int, warmup: int, rng: random.Random, chunk: int = 25) -> dict:
    sliders = page.evaluate(_SLIDERS, kind)
    plan = slider_plan(sliders, warmup + count, rng)
    results = []
    for start in range(0, len(plan), chunk):
        results += page.evaluate(_STEPS, {"kind": kind, "steps": plan[start:start + chunk]})
    bad = [r for r in results if r["requestedAt"] < r["dispatchedAt"]]
    if bad:
        raise RuntimeError(f"{kind}: {len(bad)} renders answered an earlier request")
    return {"sliders": [s["name"] for s in sliders], "warmup": results[:warmup], "steps": results[warmup:]}


# A key press, to the last render it causes: "input" then "change" on the slider (what a key on a
# range input fires), then every lab-rendered event until one says final (app.js: no render of any
# widget queued after it; a widget that others read, data-with, renders first and they after).
_FINAL_STEPS = """async ({ kind, steps }) => {
  const form = document.querySelector(`form[data-lab="${kind}"]`);
  form.scrollIntoView({ block: "center" });
  // two frames, as a reader's scroll comes before their key: the page's IntersectionObservers
  // (which widgets are near the viewport) report the new position before the first step
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  const out = [];
  for (const [name, value] of steps) {
    const input = form.querySelector(`input[name="${name}"]`);
    const dispatchedAt = performance.now();
    const renders = [];
    const settled = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no final lab-rendered for ${kind} ${name}=${value}`)), 15000);
      const onRendered = (event) => {
        if (event.detail.requestedAt < dispatchedAt) return;  // a render asked for before this key
        renders.push({ kind: event.detail.kind, paintedAt: event.detail.paintedAt, final: event.detail.final,
                       pythonMs: event.detail.pythonMs ?? 0, receivedAt: event.detail.receivedAt,
                       swappedAt: event.detail.swappedAt });
        if (!event.detail.final) return;
        document.removeEventListener("lab-rendered", onRendered);
        clearTimeout(timer);
        resolve(event.detail);
      };
      document.addEventListener("lab-rendered", onRendered);
    });
    input.value = String(value);
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
    const last = await settled;
    // the next key waits for this frame's style, layout and paint (a message posted from a rAF
    // callback runs after them), so one step's time never holds the last one's paint
    await new Promise((resolve) => requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = resolve;
      channel.port2.postMessage(null);
    }));
    const own = renders.find((r) => r.kind === kind);
    out.push({ name, value: input.value, dispatchedAt, renders: renders.length,
               widgets: [...new Set(renders.map((r) => r.kind))],
               firstMs: own ? own.paintedAt - dispatchedAt : null, finalMs: last.paintedAt - dispatchedAt,
               // the worker's Python time, summed over the step's renders (where a slow step's time goes)
               pythonMs: renders.reduce((sum, r) => sum + r.pythonMs, 0),
               // the last render's reply arrived, its markup was swapped in (then style, layout, paint)
               receivedMs: last.receivedAt - dispatchedAt, swappedMs: last.swappedAt - dispatchedAt });
  }
  return out;
}"""


def final_steps(page, kind: str, count: int, warmup: int, rng: random.Random, chunk: int = 25) -> dict:
    """`count` key-press-like steps of one widget's sliders (after `warmup`), each timed from the
    key to the final render of the page (:data:`_FINAL_STEPS`)."""
    sliders = page.evaluate(_SLIDERS, kind)
    plan = slider_plan(sliders, warmup + count, rng)
    results = []
    for start in range(0, len(plan), chunk):
        results += page.evaluate(_FINAL_STEPS, {"kind": kind, "steps": plan[start:start + chunk]})
    return {"sliders": [s["name"] for s in sliders], "warmup": results[:warmup], "steps": results[warmup:]}


_DOM_COSTS = """({ reps }) => {
  // Re-assign each figure's current markup (same bytes, so the page does not change) and force
  // style + layout: what one render costs the main thread per figure, without the worker.
  const out = {};
  const median = (v) => { const s = [...v].sort((a, b) => a - b); const m = s.length >> 1;
                          return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
  for (const region of document.querySelectorAll("[data-figure]")) {
    const form = region.closest(".lab-widget")?.querySelector("form[data-lab]");
    const kind = form ? form.dataset.lab : "page";
    const markup = region.innerHTML;
    const parse = [], layout = [];
    for (let i = 0; i < reps; i++) {
      const t0 = performance.now();
      region.innerHTML = markup;
      const t1 = performance.now();
      region.getBoundingClientRect(); document.body.offsetHeight;
      parse.push(t1 - t0); layout.push(performance.now() - t1);
    }
    out[`${kind}.${region.dataset.figure}`] = { bytes: markup.length, parseMs: +median(parse).toFixed(2),
                                                styleLayoutMs: +median(layout).toFixed(2),
                                                elements: region.getElementsByTagName("*").length };
  }
  // The worker's JSON.parse and the postMessage clone of a ledger-sized response, main thread.
  const figures = {};
  for (const region of document.querySelectorAll("[data-figure]")) figures[region.dataset.figure] = region.innerHTML;
  const text = JSON.stringify({ figures });
  const parse = [], clone = [];
  for (let i = 0; i < reps; i++) {
    let t = performance.now(); const obj = JSON.parse(text); parse.push(performance.now() - t);
    t = performance.now(); structuredClone(obj); clone.push(performance.now() - t);
  }
  out.allFiguresJson = { bytes: text.length, jsonParseMs: +median(parse).toFixed(2), structuredCloneMs: +median(clone).toFixed(2) };
  const t = performance.now();
  for (let i = 0; i < reps; i++) history.replaceState(null, "", location.href);
  out.historyReplaceStateMs = +((performance.now() - t) / reps).toFixed(3);
  return out;
}"""


def dom_costs(page, reps: int = 15) -> dict:
    return page.evaluate(_DOM_COSTS, {"reps": reps})


# --- a fast drag ------------------------------------------------------------------------------------

# A slider dragged across its whole range, `perFrame` input events per animation frame, for at least
# `frames` frames and until the widget rendered twice during the drag (or `maxFrames`), then set to
# `final`. Counted in frames, not milliseconds, so what it asserts in tests/test_site_hardening.py
# does not depend on the machine's speed; the largest gap between two frames (a main-thread stall)
# is measured here, in the benchmark (fastDrag), where timing belongs.
DRAG = """({ selector, frames, maxFrames, perFrame, final }) => {
    const input = document.querySelector(selector);
    const kind = input.form.dataset.lab;
    const stats = { events: 0, frames: 0, renders: 0, rendersDuringDrag: 0, maxFrameGap: 0, lastLatency: null };
    const onRender = (e) => {
        if (e.detail.kind !== kind) return;
        stats.renders++;
        if (!stats.done) stats.rendersDuringDrag++;
        stats.lastLatency = e.detail.paintedAt - e.detail.requestedAt;
    };
    document.addEventListener('lab-rendered', onRender);
    let last = null;
    window.__dragStats = stats;
    window.__drag = new Promise((resolve) => {
        function frame(now) {
            if (last !== null) stats.maxFrameGap = Math.max(stats.maxFrameGap, now - last);
            last = now;
            if (stats.frames >= maxFrames || (stats.frames >= frames && stats.rendersDuringDrag >= 2)) {
                input.value = String(final);
                input.dispatchEvent(new Event('input', { bubbles: true }));
                stats.events++;
                stats.done = true;
                resolve(stats);
                return;
            }
            stats.frames++;
            for (let i = 0; i < perFrame; i++) {  // sweep the whole range back and forth
                input.value = String(Math.round(50 + 50 * Math.sin(stats.events / 9)));
                input.dispatchEvent(new Event('input', { bubbles: true }));
                stats.events++;
            }
            requestAnimationFrame(frame);
        }
        requestAnimationFrame(frame);
    });
}"""


def fast_drag(page, selector: str = "#ledger-acceptance", frames: int = 120, per_frame: int = 8) -> dict:
    """One fast drag of a slider (:data:`DRAG`), its last value 37: events, frames, renders during and
    after it, and the largest gap between two animation frames in ms (maxFrameGap: a long stall)."""
    page.locator(selector).focus()
    page.evaluate(DRAG, {"selector": selector, "frames": frames, "maxFrames": 50 * frames, "perFrame": per_frame,
                         "final": 37})
    return page.evaluate("() => window.__drag")


# --- the audit in Pyodide, in fresh workers started from the live page ----------------------------

_WORKER_CALLS = """async ({ repeats, mirrorPage }) => {
  const config = JSON.parse(document.getElementById("lab-config").textContent);
  const worker = new Worker(config.workerURL, { type: "module" });
  let nextId = 1;
  const call = (type, payload) => new Promise((resolve, reject) => {
    const id = nextId++;
    const timer = setTimeout(() => reject(new Error(`worker: no answer to ${type}`)), 60000);
    const onMessage = (event) => {
      if (!event.data || event.data.id !== id) return;
      worker.removeEventListener("message", onMessage);
      clearTimeout(timer);
      if (event.data.type === "error") reject(new Error(event.data.payload.message));
      else if (event.data.payload && event.data.payload.error) reject(new Error(event.data.payload.error));
      else resolve(event.data.payload);
    };
    worker.addEventListener("message", onMessage);
    worker.postMessage({ id, type, payload });
  });
  try {
    let t = performance.now();
    const boot = await call("boot", { pyodideIndexURL: config.pyodideIndexURL, stdlibURL: config.stdlibURL,
                                     labZipURL: config.labZipURL, labChunks: config.labChunks || {} });
    const bootRoundTripMs = performance.now() - t;
    // as the page does once live: the seed audit's modules (not in the core), then its warm-up renders
    t = performance.now();
    if (mirrorPage && (config.labAudit || []).length) await call("load", { urls: config.labAudit });
    const auditModulesMs = performance.now() - t;
    const firstRenders = {};
    if (mirrorPage) {  // the page renders its data-warm="render" widgets before it asks for the audit
      for (const kind of [...document.querySelectorAll('form[data-lab][data-warm="render"]')].map((f) => f.dataset.lab)) {
        t = performance.now();
        await call("request", { kind, input: "" });
        firstRenders[kind] = performance.now() - t;
      }
    }
    const audits = [];
    let counter = "";
    for (let i = 0; i < repeats; i++) {
      t = performance.now();
      const view = await call("request", { kind: "audit" });
      audits.push(performance.now() - t);
      counter = view.counter;
    }
    return { bootRoundTripMs, workerBootMs: boot.bootMs, auditModulesMs, firstRenders, audits, counter };
  } finally {
    worker.terminate();
  }
}"""


def worker_audits(page, workers: int, repeats: int) -> list[dict]:
    """Per fresh worker (booted from the HTTP cache): the first audit after the page's warm-up
    renders, exactly the reader's situation, then `repeats - 1` repeats (memoised helpers warm)."""
    return [page.evaluate(_WORKER_CALLS, {"repeats": repeats, "mirrorPage": True}) for _ in range(workers)]


# --- the probe ---------------------------------------------------------------------------------------

PROBE_PY = r"""
import sys, time
pc = time.perf_counter
out = {"python": sys.version.split()[0]}
# PRE (set by the benchmark on a second run): stdlib modules to import, timed, before anything else
pre = {}
for name in PRE:
    s = pc(); __import__(name); pre[name] = round((pc() - s) * 1e3, 2)
out["preImportMs"] = pre
imports = {}
new_modules = {}
def _fresh(before):
    return sorted(m for m in sys.modules if m not in before and not m.startswith("lab"))
for name in ("lab.jsformat", "lab.urlstate", "lab.ledger", "lab.sampler", "lab.exact", "lab.audit",
             "lab.figures", "lab.views", "lab.widgets.ledger", "lab.widgets.exact"):
    before = set(sys.modules)
    s = pc(); __import__(name); imports[name] = round((pc() - s) * 1e3, 2)
    new_modules[name] = _fresh(before)
out["importMs"] = imports
out["importTotalMs"] = round(sum(imports.values()), 2)
import lab.views as V
from lab import urlstate
from lab.widgets import exact as exact_widget, ledger as ledger_widget

parts = {}
def wrap(module, name):
    fn = getattr(module, name)
    def timed(*args, **kwargs):
        s = pc()
        try:
            return fn(*args, **kwargs)
        finally:
            parts.setdefault(name, []).append((pc() - s) * 1e3)
    setattr(module, name, timed)
for name in ("heatmap_svg", "heatmap_selection_svg", "heatmap_table_html", "breakdown_svg"):
    wrap(ledger_widget, name)
for name in ("distributions_svg", "outputs_svg", "trace_svg"):
    wrap(exact_widget, name)
for name in ("ledger", "best_lookahead", "speedup_grid"):
    wrap(ledger_widget, name)
import lab.exact
wrap(lab.exact, "evaluate")  # the exact widget calls it through the module (imported on first use)

def handle(request):
    # the request as a literal string: json is not imported before the lab imports it itself
    parts.clear()
    s = pc(); text = V.handle(request); ms = (pc() - s) * 1e3
    import json
    view = json.loads(text)
    if "error" in view:
        raise RuntimeError(view["error"])
    return {"handleMs": round(ms, 2), "responseBytes": len(text.encode()),
            "parts": {k: round(sum(v), 2) for k, v in parts.items()}}, view

first = {}
for kind in ("ledger", "exact"):
    before = set(sys.modules)
    first[kind], view = handle('{"kind": "%s", "input": ""}' % kind)
    new_modules[f"first {kind} render"] = _fresh(before)
    first[kind]["figureBytes"] = {k: len(v.encode()) for k, v in view["figures"].items()}
out["firstRender"] = first
out["stdlibImportedBy"] = new_modules
out["secondRender"] = {kind: handle('{"kind": "%s", "input": ""}' % kind)[0] for kind in ("ledger", "exact")}
import json, random
def _median(values):  # the page's trimmed stdlib has no statistics module
    v = sorted(values); m = len(v) // 2
    return v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2

rng = random.Random(2024)
sliders = {"ledger": urlstate.LEDGER_SLIDERS, "exact": urlstate.EXACT_SLIDERS}
random_views = {}
for kind, specs in sliders.items():
    values = {s.name: f"{s.default:g}" for s in specs}
    samples, partial = [], {}
    for i in range(40):
        s = specs[i % len(specs)]
        k = rng.randrange(int(round((s.maximum - s.minimum) / s.step)) + 1)
        values[s.name] = f"{round(s.minimum + k * s.step, 10):g}"
        timing, _ = handle(json.dumps({"kind": kind, "input": dict(values)}))
        samples.append(timing["handleMs"])
        for name, ms in timing["parts"].items():
            partial.setdefault(name, []).append(ms)
    samples.sort()
    random_views[kind] = {
        "n": len(samples), "medianMs": round(_median(samples), 2),
        "p95Ms": round(samples[int(0.95 * (len(samples) - 1))], 2), "maxMs": round(samples[-1], 2),
        "partsMedianMs": {k: round(_median(v), 2) for k, v in partial.items()},
    }
out["sliderLikeViews"] = random_views

audit_first, _ = handle('{"kind": "audit"}')
audit_second, _ = handle('{"kind": "audit"}')
out["audit"] = {"firstMs": audit_first["handleMs"], "repeatMs": audit_second["handleMs"],
                "responseBytes": audit_first["responseBytes"],
                "note": "after 80 slider-like views, so some memoised helpers are already warm"}
json.dumps(out)
"""

_RUN_PROBE = """async ({ probeURL, python }) => {
  const config = JSON.parse(document.getElementById("lab-config").textContent);
  const abs = (u) => new URL(u, document.baseURI).href;
  const worker = new Worker(abs(probeURL), { type: "module" });
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("probe timed out")), 120000);
      worker.onmessage = ({ data }) => { clearTimeout(timer); data.ok ? resolve(data) : reject(new Error(data.message)); };
      worker.onerror = (event) => { clearTimeout(timer); reject(new Error(event.message || "probe worker failed")); };
      worker.postMessage({ pyodideIndexURL: abs(config.pyodideIndexURL), labZipURL: abs(config.labZipURL),
                          auditURLs: (config.labAudit || []).map(abs),
                          stdLibURL: config.stdlibURL ? abs(config.stdlibURL) : undefined, python });
    });
  } finally {
    worker.terminate();
  }
}"""


def probe(page, pre_import: tuple[str, ...] = ()) -> dict:
    """Boot a probe worker from `page` and run PROBE_PY; `pre_import` stdlib modules are imported
    (and timed) first, which is how the cost of the lab's lazy imports is isolated."""
    python = f"PRE = {list(pre_import)!r}\n" + PROBE_PY
    result = page.evaluate(_RUN_PROBE, {"probeURL": PROBE_URL, "python": python})
    return {"workerMarks": {k: round(v, 1) for k, v in result["marks"].items()}, **result["report"]}


def settle(seconds: float = 0.3) -> None:
    """Let the last responses finish on the server side before the byte log is read."""
    time.sleep(seconds)
