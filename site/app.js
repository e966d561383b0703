"use strict";
// Main thread of the proofroom. It loads the lab in a Web Worker, forwards slider values and
// URL state to it, and swaps the returned markup into the page. It computes nothing: every
// number, sentence and SVG comes from lab.views in Python (the same code that pre-rendered
// the page at build time). It knows no widget by name: every form[data-lab="KIND"] on the page
// is a widget, its named controls are its inputs, and its [data-figure], [data-readout] and
// output[name=summary] elements are where the worker's view of KIND goes.

{
  const BOOT_TIMEOUT_MS = 90000;     // a slow network may take a while to bring ~4 MB of runtime
  const REQUEST_TIMEOUT_MS = 10000;  // no answer by then: the worker has died or hung
  const SLOW_NOTICE_MS = 1500;       // say so while a request is late, before giving up on it
  const LIVE_STATUS = "Live: the figures recompute in Python, in your browser, as you move the sliders.";
  const WARM_MARGIN = "800px";        // import a widget's Python module when it gets this close

  // A classic script in <head>, ahead of the stylesheets and without async or defer, on purpose:
  // it runs as soon as it arrives, before the body is parsed, so the worker and its downloads
  // start at once (the Python boot is the longest pole of the page). Everything that touches
  // the body waits for domReady. The block keeps every name out of the global scope.
  const config = JSON.parse(document.getElementById("lab-config").textContent);
  const root = document.documentElement;
  const domReady = document.readyState === "loading"
    ? new Promise((resolve) => document.addEventListener("DOMContentLoaded", resolve, { once: true }))
    : Promise.resolve();

  function setStatus(text, state) {
    const runtimeStatus = document.getElementById("runtime-status");
    if (!runtimeStatus) return;
    runtimeStatus.textContent = text;
    runtimeStatus.dataset.state = state;
  }

  // --- the worker, as request/response promises -------------------------------------------

  let worker = null;
  let failed = false;
  let nextId = 1;
  const waiting = new Map();

  function call(type, payload, timeoutMs) {
    return new Promise((resolve, reject) => {
      if (failed) return reject(new Error("the live lab has stopped"));
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error("the Python worker stopped responding"));
      }, timeoutMs);
      const slow = root.dataset.labState === "live" && payload.kind !== "audit" && setTimeout(() =>
        setStatus("Waiting for the Python worker to answer\u2026 the figures show your previous setting.", "slow"),
        SLOW_NOTICE_MS);
      waiting.set(id, { resolve, reject, timer, slow, sentAt: performance.now() });
      worker.postMessage({ id, type, payload });
    });
  }

  function onWorkerMessage(event) {
    const { id, type, payload, pythonMs } = event.data || {};
    const entry = waiting.get(id);
    if (!entry) return;
    waiting.delete(id);
    clearTimeout(entry.timer);
    clearTimeout(entry.slow);
    if (document.getElementById("runtime-status")?.dataset.state === "slow") setStatus(LIVE_STATUS, "live");
    if (type === "error" || (payload && payload.error)) entry.reject(new Error(payload.message || payload.error));
    else entry.resolve(Object.assign(payload, { timing: { sentAt: entry.sentAt, receivedAt: performance.now(), pythonMs } }));
  }

  function fail(reason) {
    if (failed) return;
    failed = true;
    for (const { reject, timer, slow } of waiting.values()) {
      clearTimeout(timer);
      clearTimeout(slow);
      reject(new Error(reason));
    }
    waiting.clear();
    if (worker) worker.terminate();
    domReady.then(() => {
      root.dataset.labState = "failed";
      setStatus(`The live lab is unavailable (${reason}). Everything on this page still shows the values ` +
                "computed when it was built; the sliders are paused.", "failed");
      for (const input of document.querySelectorAll("form[data-lab] input")) input.disabled = true;
    });
  }

  // --- rendering a view -----------------------------------------------------------------------

  function formOf(kind) { return document.querySelector(`form[data-lab="${CSS.escape(kind)}"]`); }
  function widgetOf(kind) { return formOf(kind).closest(".lab-widget") || formOf(kind); }
  function kinds() { return [...document.querySelectorAll("form[data-lab]")].map((form) => form.dataset.lab); }

  // The controls a widget sends to the worker: every named input, select and textarea of its
  // form, except file inputs and controls marked data-local (page-only, like a seed button).
  function controls(form) {
    return [...form.querySelectorAll("input[name], select[name], textarea[name]")]
      .filter((control) => control.type !== "file" && !("local" in control.dataset));
  }

  function formValues(form) {
    const values = {};
    for (const control of controls(form)) {
      if (control.type === "checkbox") values[control.name] = control.checked ? "1" : "0";
      else if (control.type === "radio") { if (control.checked) values[control.name] = control.value; }
      else values[control.name] = control.value;
    }
    return values;
  }

  function restoreControl(form, name, value) {
    for (const control of controls(form).filter((c) => c.name === name)) {
      if (control.type === "checkbox") control.checked = value === "1" || value === "true";
      else if (control.type === "radio") control.checked = control.value === String(value);
      else control.value = String(value);
    }
  }

  function showValue(form, name, value) {
    const output = form.querySelector(`output[data-value-for="${name}"]`);
    if (output) output.textContent = String(value);
  }

  function showNotes(kind, notes) {
    const box = document.querySelector(`[data-notes="${CSS.escape(kind)}"]`);
    if (!box) return;
    box.replaceChildren(...notes.map((note) => {
      const line = document.createElement("p");
      line.textContent = note;  // notes quote what the reader typed: text only, never markup
      return line;
    }));
  }

  const queries = {};
  const shownMarkup = new WeakMap();  // region -> the markup last put there by this script
  const heldMarkup = new WeakMap();   // region in a closed <details> -> the markup it will show when opened
  const watchedDetails = new WeakSet();

  // Put `markup` in `region` unless it is already there. A region inside a closed <details> is
  // not laid out for nobody: its latest markup waits until the <details> opens.
  function swapFigure(region, markup) {
    const closed = region.closest("details:not([open])");
    if (closed) {
      heldMarkup.set(region, markup);
      if (!watchedDetails.has(closed)) {
        watchedDetails.add(closed);
        closed.addEventListener("toggle", () => {
          if (!closed.open) return;
          for (const held of closed.querySelectorAll("[data-figure]")) {
            if (heldMarkup.has(held)) swapFigure(held, heldMarkup.get(held));
          }
        });
      }
      return;
    }
    heldMarkup.delete(region);
    if (shownMarkup.get(region) !== markup) {
      region.innerHTML = markup;
      shownMarkup.set(region, markup);
    }
  }

  function render(kind, view, { restoreInputs }) {
    const form = formOf(kind);
    const widget = widgetOf(kind);
    if (restoreInputs) {
      for (const [name, value] of Object.entries(view.shown || {})) {  // formatted by lab.views, as at build time
        restoreControl(form, name, value);
        showValue(form, name, value);
      }
    }
    // The markup is generated by lab/figures.py, which escapes every piece of text it embeds.
    // An unchanged figure is not swapped: parsing and laying out an SVG is most of a frame.
    for (const [name, markup] of Object.entries(view.figures || {})) {
      const region = widget.querySelector(`[data-figure="${name}"]`);
      if (region) swapFigure(region, markup);
    }
    for (const [name, text] of Object.entries(view.readouts || {})) {
      const cell = widget.querySelector(`[data-readout="${name}"]`);
      if (cell) cell.textContent = text;
    }
    const summaryOutput = form.querySelector('output[name="summary"]');
    if (summaryOutput && view.summary !== undefined) summaryOutput.value = view.summary;
    showNotes(kind, view.notes || []);
    if (view.query !== undefined) queries[kind] = view.query;
  }

  function writeUrl() {
    const query = kinds().map((kind) => queries[kind]).filter(Boolean).join("&");
    history.replaceState(null, "", `${location.pathname}?${query}${location.hash}`);
  }

  // --- one scheduler per widget: the latest input wins, stale ones are dropped -------------------

  let booted = null;

  function scheduler(kind) {
    let pending = null;  // { input, fromUrl, at }: only the newest input waits
    let running = null;  // the pump's promise while it runs
    async function pump() {
      await booted;
      while (pending && !failed) {
        const job = pending;
        pending = null;
        const view = await call("request", { kind, input: job.input }, REQUEST_TIMEOUT_MS);
        // Restoring from the URL moves the sliders, unless the reader has moved one since.
        render(kind, view, { restoreInputs: job.fromUrl && !pending });
        if (!job.fromUrl || location.search) writeUrl();  // canonical, clamped values in the address
        const swappedAt = performance.now();
        requestAnimationFrame(() => document.dispatchEvent(new CustomEvent("lab-rendered",
          { detail: { kind, requestedAt: job.at, paintedAt: performance.now(), swappedAt, ...view.timing } })));
      }
    }
    return {
      /** Queue `input` (a URL query string or slider values); resolves when the widget is idle. */
      submit(input, fromUrl = false) {
        pending = { input, fromUrl, at: performance.now() };
        if (!running) {
          running = pump().catch((error) => fail(error.message)).finally(() => { running = null; });
        }
        return running;
      },
      get queued() { return Boolean(pending || running); },
      idle() { return running || Promise.resolve(); },
    };
  }

  const schedulers = {};
  function schedulerFor(kind) { return schedulers[kind] || (schedulers[kind] = scheduler(kind)); }

  function wireWidgets() {
    for (const kind of kinds()) {
      const form = formOf(kind);
      queries[kind] = form.dataset.query;  // the pre-rendered settings, until a live render replaces them
      form.addEventListener("submit", (event) => event.preventDefault());
      const onChange = (event) => {
        const control = event.target;
        if (!controls(form).includes(control)) return;
        showValue(form, control.name, control.value);
        schedulerFor(kind).submit(formValues(form));  // before the runtime is up this waits; nothing is lost
      };
      form.addEventListener("input", onChange);
      // a select or checkbox may only fire "change"; a range or text control fires both, and the
      // scheduler drops the duplicate's work if the first is still pending
      form.addEventListener("change", (event) => { if (!["range", "text", "number", "textarea"].includes(event.target.type)) onChange(event); });
    }
    for (const button of document.querySelectorAll('[data-action="copy-link"]')) {
      button.addEventListener("click", async () => {
        const note = button.parentElement.querySelector("[data-copy-status]");
        try {
          await navigator.clipboard.writeText(location.href);
          note.textContent = "Link copied.";
        } catch {
          note.textContent = `Copy this link: ${location.href}`;
        }
      });
    }
  }

  // --- the audit --------------------------------------------------------------------------------

  function showInstrumentAudit(view) {
    const counter = document.querySelector("[data-instrument-counter]");
    counter.textContent = view.counter;
    counter.dataset.source = "browser";
    counter.classList.toggle("audit-pass", view.allPassed);
    counter.classList.toggle("audit-fail", !view.allPassed);
    const signature = document.querySelector('[data-signature="instruments"]');
    if (signature) signature.textContent = view.signature;
    const list = document.querySelector("[data-instrument-checks]");
    if (list) list.innerHTML = view.checksHtml;  // escaped by lab/figures.py
  }

  // Import each widget's Python module when the widget nears the viewport, so a reader who never
  // scrolls to an instrument never pays for it, and one who does finds it already loaded.
  function warmOnApproach() {
    const warm = (kind) => call("request", { kind, op: "warm" }, REQUEST_TIMEOUT_MS).catch(() => {});
    if (!("IntersectionObserver" in window)) { kinds().forEach(warm); return; }
    const observer = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer.unobserve(entry.target);
        warm(entry.target.dataset.lab);
      }
    }, { rootMargin: WARM_MARGIN });
    for (const form of document.querySelectorAll("form[data-lab]")) observer.observe(form);
  }

  function showAudit(view) {
    const counter = document.querySelector("[data-audit-counter]");
    counter.textContent = view.counter;
    counter.dataset.source = "browser";
    counter.classList.toggle("audit-pass", view.allPassed);
    counter.classList.toggle("audit-fail", !view.allPassed);
    document.querySelector("[data-audit-mark]").textContent =
      view.allPassed ? "\u2713 verified in this browser" : "re-run in this browser: see the failing checks";
    for (const [name, text] of Object.entries(view.signatures)) {
      document.querySelector(`[data-signature="${name}"]`).textContent = text;
    }
    document.querySelector("[data-audit-checks]").innerHTML = view.checksHtml;  // escaped by lab/figures.py
  }

  // --- start -------------------------------------------------------------------------------------

  function bootWorker() {
    try {
      worker = new Worker(config.workerURL, { type: "module" });
      performance.mark("lab:worker-created");  // user-timing marks let `make bench` see the phases
    } catch (error) {
      fail(`this browser cannot start a module worker: ${error.message}`);
      return new Promise(() => {});  // never settles: fail() has already shown the notice
    }
    worker.addEventListener("message", onWorkerMessage);
    worker.addEventListener("error", (event) => fail(event.message || "the Python worker failed to load"));
    const boot = call("boot", { pyodideIndexURL: config.pyodideIndexURL, stdlibURL: config.stdlibURL,
                                labZipURL: config.labZipURL }, BOOT_TIMEOUT_MS);
    boot.catch((error) => fail(error.message));
    return boot;
  }

  async function goLive() {
    try {
      await booted;
    } catch {
      return;
    }
    performance.mark("lab:booted");
    // First live render: the URL's settings, for each widget the reader has not already moved.
    // A plain visit needs none: the page already shows the defaults, computed by the same code
    // when it was built, so the lab is live as soon as it has loaded.
    const restore = location.search !== "";
    await Promise.all(kinds().map((kind) => schedulerFor(kind).queued ? schedulerFor(kind).idle()
                                           : restore ? schedulerFor(kind).submit(location.search, true) : null));
    if (failed) return;
    performance.mark("lab:live");
    root.dataset.labState = "live";
    root.dataset.labReadyMs = String(Math.round(performance.now()));
    setStatus(LIVE_STATUS, "live");
    try {
      if (!restore) {  // run the first-call paths of forms marked data-warm="render" before the reader moves
        await Promise.all([...document.querySelectorAll('form[data-lab][data-warm="render"]')]
          .map((form) => call("request", { kind: form.dataset.lab, input: "" }, REQUEST_TIMEOUT_MS)));
      }
      warmOnApproach();
      showAudit(await call("request", { kind: "audit" }, REQUEST_TIMEOUT_MS));
      if (document.querySelector("[data-instrument-counter]")) {
        showInstrumentAudit(await call("request", { kind: "audit", suite: "instruments" }, REQUEST_TIMEOUT_MS));
      }
    } catch (error) {
      fail(error.message);
    }
  }

  booted = bootWorker();
  domReady.then(() => {
    wireWidgets();
    if (!failed) {
      setStatus("Loading the Python runtime for the live figures\u2026 (the figures below were computed when the page was built)", "loading");
    }
    goLive();
  });
}
