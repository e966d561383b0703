"use strict";
// Main thread of the proofroom. It loads the lab in a Web Worker, forwards slider values and
// URL state to it, and swaps the returned markup into the page. It computes nothing: every
// number, sentence and SVG comes from lab.views in Python (the same code that pre-rendered
// the page at build time). It knows no widget by name: every form[data-lab="KIND"] on the page
// is a widget, its named controls are its inputs, and its [data-figure], [data-readout] and
// output[name] elements are where the worker's view of KIND goes. Its controls ship
// disabled (with JavaScript off they could only contradict the figures) and are enabled here.

{
  const BOOT_STALL_MS = 45000;       // boot gives up only after this long with no byte arriving
  const REQUEST_TIMEOUT_MS = 10000;  // no answer by then, and no other reply meanwhile: the worker has died or hung
  const SLOW_NOTICE_MS = 1500;       // say so while a request is late, before giving up on it
  const LIVE_STATUS = "Live: the figures recompute in Python, in your browser, as you move the sliders.";
  const WARM_MARGIN = "800px";        // a far widget owes its data-with renders until it gets this close
  const REACH_MARGIN = "1600px 0px";  // load a widget's lab modules (and run its checks) when it gets this close
  const LOAD_TIMEOUT_MS = 45000;     // a chunk of the lab that has not arrived by then is asked for again later
  const URL_REST_MS = 250;           // the address is rewritten once the settings rest this long
  const RESIZE_REST_MS = 150;        // figures are redrawn for a new width once the resizing rests this long
  const SEED_MAX = 9999;             // a "new seed" draws up to this when its control names no max

  // A classic script in <head>, ahead of the stylesheets and without async or defer, on purpose:
  // it runs as soon as it arrives, before the body is parsed, so the worker and its downloads
  // start at once (the Python boot is the longest pole of the page). Everything that touches
  // the body waits for domReady. The block keeps every name out of the global scope.
  const config = JSON.parse(document.getElementById("lab-config").textContent);
  // Figure widths the page asks for (px): lab.figures' MIN_WIDTH, MAX_WIDTH and WIDTH_STEP, written
  // into the config by the build, so the page and the lab cannot disagree.
  const { min: MIN_WIDTH, max: MAX_WIDTH, step: WIDTH_STEP } = config.figureWidths;
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

  // A fold whose long table lives on the appendix page (templates/appendix.html.j2) holds a plain link
  // to it (p.appendix-link, a[data-appendix=PART]). When the fold opens, the page fetches the appendix
  // once and puts that part (its .appendix-body's children) in place of the link, so the article reads
  // as if the table were in it; a failed fetch leaves the link, and the next opening tries again.
  let appendix = null;
  document.addEventListener("toggle", (event) => {
    const fold = event.target;
    if (!(fold instanceof HTMLDetailsElement) || !fold.open) return;
    for (const link of fold.querySelectorAll(":scope > .appendix-link > a[data-appendix]")) {
      appendix ??= fetch(link.href.split("#")[0]).then((response) => {
        if (!response.ok) throw new Error(`appendix: HTTP ${response.status}`);
        return response.text();
      }).then((text) => new DOMParser().parseFromString(text, "text/html"));
      appendix.then((page) => {
        const body = page.getElementById(link.dataset.appendix)?.querySelector(".appendix-body");
        if (body && link.isConnected) link.parentElement.replaceWith(...document.adoptNode(body).childNodes);
      }, () => { appendix = null; });
    }
  }, true);

  // Once live, the status box gives back the height it kept for the loading line (reader audit N4-18), at the
  // moment it is out of view: the browser's scroll anchoring then keeps what the reader sees where it was.
  function fitStatusOutOfView() {
    const box = document.getElementById("runtime-status");
    if (!box || !("IntersectionObserver" in window)) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => !entry.isIntersecting) && root.dataset.labState === "live") {
        box.dataset.fit = "";
        observer.disconnect();
      }
    });
    observer.observe(box);
  }

  // "Loading ... 43% of 3.6 MB", with a progress bar; bytes come from the worker as they arrive. The
  // share is of the unpacked bodies the worker reads; the size is the compressed download's.
  function showProgress(received) {
    const runtimeStatus = document.getElementById("runtime-status");
    if (!runtimeStatus || root.dataset.labState) return;
    const total = config.bootBytes || 0;  // as the worker counts them: unpacked response bodies
    const wire = config.bootWireBytes || total;  // what travels, compressed
    const share = Math.min(received, total) / total;
    const text = total ? `Loading Python for the live figures: ${Math.floor(100 * share)}% of ${(wire / 1e6).toFixed(1)} MB. ` +
      "Until then the figures show the default settings."
      : "Loading Python for the live figures\u2026";
    let line = runtimeStatus.querySelector("[data-progress-text]");
    let bar = runtimeStatus.querySelector("progress");
    if (!line || !bar) {
      line = document.createElement("span");
      line.dataset.progressText = "";
      bar = document.createElement("progress");
      bar.setAttribute("aria-label", "Python runtime download");
      runtimeStatus.replaceChildren(line, bar);
    }
    line.textContent = text;
    if (total) { bar.max = total; bar.value = Math.min(received, total); }
    root.dataset.bootReceived = String(received);  // for tests and the benchmark
    runtimeStatus.dataset.state = "loading";
  }

  // --- the worker, as request/response promises -------------------------------------------

  // A reply saying one request failed (lab.views.handle caught the exception): the worker is alive,
  // so only the widget that asked says so. Every other error (no boot, a timeout, a worker that
  // died) is the runtime's and goes to fail().
  class ViewError extends Error {}

  let worker = null;
  let failed = false;
  let nextId = 1;
  let bootId = null;
  let received = 0;
  const waiting = new Map();

  function expire(id, timeoutMs, reject) {
    return setTimeout(() => {
      waiting.delete(id);
      reject(new Error(id === bootId ? "no data arrived for the Python runtime for " +
                                       `${Math.round(timeoutMs / 1000)} s` : "the Python worker stopped responding"));
    }, timeoutMs);
  }

  // A widget's request (or its family's checks) first loads the lab modules the widget needs beyond
  // the core (its form's data-modules, written by the build), once; the seed audit's, the modules
  // the build named for it (config labAudit).
  function call(type, payload, timeoutMs) {
    const kind = type === "request" && payload ? (payload.kind === "audit" ? payload.family : payload.kind) : null;
    const seedAudit = type === "request" && payload?.kind === "audit" && !payload.family;
    const ready = kind ? loadModules(kind) : seedAudit ? loadAuditModules() : null;
    return ready ? ready.then(() => send(type, payload, timeoutMs)) : send(type, payload, timeoutMs);
  }

  // The chunks of the lab a widget needs beyond the core (its form's data-modules, written by the
  // build): one promise per chunk, kept, and a widget's request waits until each of its chunks has
  // settled. A chunk that failed is forgotten (the request goes on, its view says what is missing,
  // and its Retry loads again).
  const chunkLoads = new Map();
  function loadChunk(url) {
    if (!chunkLoads.has(url)) {
      chunkLoads.set(url, booted.then(() => send("load", { urls: [url] }, LOAD_TIMEOUT_MS))
        .catch((error) => { chunkLoads.delete(url); throw error; }));
    }
    return chunkLoads.get(url);
  }
  // Every chunk of urls settled (each loaded once), or null when there is none to wait for.
  function loadChunks(urls) {
    return urls.length ? Promise.allSettled(urls.map(loadChunk)) : null;
  }
  function loadModules(kind) {
    const form = typeof kind === "string" && document.readyState !== "loading" ? formOf(kind) : null;
    return loadChunks((form?.dataset.modules || "").split(/\s+/).filter(Boolean));
  }
  // The seed audit's modules: no part of the first load (the page is live before the audit runs).
  function loadAuditModules() {
    return loadChunks(Array.isArray(config.labAudit) ? config.labAudit.filter((url) => typeof url === "string") : []);
  }

  function send(type, payload, timeoutMs) {
    return new Promise((resolve, reject) => {
      if (failed) return reject(new Error("the live lab has stopped"));
      const id = nextId++;
      if (type === "boot") bootId = id;
      const timer = expire(id, timeoutMs, reject);
      const slow = root.dataset.labState === "live" && type === "request" && payload.kind !== "audit" && setTimeout(() =>
        setStatus("Waiting for the Python worker to answer\u2026 the figures show your previous setting.", "slow"),
        SLOW_NOTICE_MS);
      waiting.set(id, { resolve, reject, timer, slow, timeoutMs, sentAt: performance.now() });
      worker.postMessage({ id, type, payload });
    });
  }

  function onWorkerMessage(event) {
    const { id, type, payload, pythonMs } = event.data || {};
    if (type === "progress") {  // bytes are flowing: the boot is slow, not stuck
      received = payload.received;
      const boot = waiting.get(bootId);
      if (boot) {
        clearTimeout(boot.timer);
        boot.timer = expire(bootId, boot.timeoutMs, boot.reject);
      }
      domReady.then(() => showProgress(received));
      return;
    }
    const entry = waiting.get(id);
    if (!entry) return;
    waiting.delete(id);
    clearTimeout(entry.timer);
    clearTimeout(entry.slow);
    // The worker answers one message at a time, so a reply shows it alive and working through its queue: each
    // request still waiting gets its whole time again (a long queue on a slow device is not a hung worker).
    for (const [otherId, other] of waiting) {
      clearTimeout(other.timer);
      other.timer = expire(otherId, other.timeoutMs, other.reject);
    }
    if (document.getElementById("runtime-status")?.dataset.state === "slow") setStatus(LIVE_STATUS, "live");
    if (type === "error") entry.reject(new Error(payload.message));  // the worker itself failed
    else if (payload && payload.error) entry.reject(new ViewError(payload.error));  // it answered: one view failed
    else entry.resolve(Object.assign(payload, { timing: { sentAt: entry.sentAt, receivedAt: performance.now(), pythonMs } }));
  }

  function fail(reason) {
    if (failed) return;
    failed = true;
    const started = root.dataset.labState === "live";  // the runtime ran: it stopped, it did not fail to start
    for (const { reject, timer, slow } of waiting.values()) {
      clearTimeout(timer);
      clearTimeout(slow);
      reject(new Error(reason));
    }
    waiting.clear();
    if (worker) worker.terminate();
    domReady.then(() => {
      root.dataset.labState = "failed";
      setStatus(started
        ? "The live figures stopped: the Python runtime behind them failed, so each figure keeps the last values " +
          "it computed, and the controls are paused. Reloading the page starts them again."
        : "The live figures could not start, so everything on this page shows the values computed " +
          "when it was built, and the controls are paused.", "failed");
      for (const kind of kinds()) {
        const form = formOf(kind);
        // The controls go back to the values the figures show, so nothing contradicts them.
        for (const [name, value] of Object.entries(shownValues[kind] || {})) {
          restoreControl(form, name, value);
          showValue(form, name, value);
        }
        setEnabled(form, false);
        showFailure(widgetOf(kind), reason, started);
      }
    });
  }

  // What happened in plain words, a Retry button, the technical reason folded away.
  function notice(message, reason, onRetry) {
    const box = document.createElement("div");
    box.className = "lab-notice";
    const text = document.createElement("p");
    text.textContent = message;
    const retry = document.createElement("button");
    retry.type = "button";
    retry.textContent = "Retry";
    retry.addEventListener("click", onRetry);
    const details = document.createElement("details");
    const summary = document.createElement("summary");
    summary.textContent = "Technical detail";
    const detail = document.createElement("p");
    detail.textContent = reason;  // text only, never markup
    details.append(summary, detail);
    box.append(text, retry, details);
    return box;
  }

  // In each widget when the runtime is gone (not an alert: the page status already announces it).
  function showFailure(widget, reason, started) {
    widget.querySelector(".lab-notice[data-view-error]")?.remove();
    if (widget.querySelector(".lab-notice")) return;
    widget.querySelector("form[data-lab]").after(notice(started
      ? "The live version of this figure stopped with the Python runtime, so it shows the setting its controls show."
      : "The live version of this figure could not load, so it shows the setting its controls show. " +
        "Your connection may have dropped, or this browser may block the Python runtime.", reason, () => location.reload()));
  }

  // In one widget when its own request failed: the rest of the page stays live, and Retry sends
  // the widget's current settings again. A later render of the widget removes the note.
  function showViewError(kind, reason) {
    const widget = widgetOf(kind);
    widget.querySelector(".lab-notice[data-view-error]")?.remove();
    const box = notice("This figure could not be computed for these settings, so it still shows the last ones " +
      "it could. The other figures on the page are live.", reason,
      () => schedulerFor(kind).submit(formValues(formOf(kind)), false, true));
    box.dataset.viewError = "";
    box.setAttribute("role", "status");  // nothing else announces it: the page status stays live
    formOf(kind).after(box);
  }

  function clearViewError(kind) { widgetOf(kind).querySelector(".lab-notice[data-view-error]")?.remove(); }

  // --- rendering a view -----------------------------------------------------------------------

  const shownValues = {};  // kind -> the control values its figures show now

  function setEnabled(form, enabled) {
    for (const control of form.querySelectorAll("input, select, textarea, button")) control.disabled = !enabled;
  }

  // Buttons outside a form (copy a link, hand-offs in a figure's markup) ship disabled too: with
  // JavaScript off they could do nothing. This script acts on them, so it enables them.
  function enableActions(container) {
    if (failed) return;
    for (const button of container.querySelectorAll("button[data-action]:disabled")) {
      if (!button.closest("form[data-lab]")) button.disabled = false;
    }
  }

  // A widget's generic buttons ("Copy a link to these settings", "Use your deployment", "Send again")
  // are named with the widget's heading too, so a list of the page's buttons tells them apart; the
  // visible words stay at the start of the name.
  function nameActions(widget) {
    const title = widget.querySelector(".widget-title")?.textContent.trim();
    if (!title) return;
    for (const button of widget.querySelectorAll(
      'button[data-action="copy-link"], button[data-action="pull"], button[data-action="resend"]')) {
      if (!button.hasAttribute("aria-label")) button.setAttribute("aria-label", `${button.textContent.trim()}: ${title}`);
    }
  }

  // The width the figures of a widget should be drawn for: its figure panel's width, in steps
  // of WIDTH_STEP so that small resizes do not redraw, within what lab.figures accepts.
  // Measured once and kept until a ResizeObserver sees a widget or panel change width (watchWidths):
  // reading clientWidth right after a slider moved would force a layout on every step.
  const panelWidths = new Map();
  function figureWidth(kind) {
    if (!panelWidths.has(kind)) {
      const widget = widgetOf(kind);
      const panel = widget.querySelector(".figure-panel") || widget;
      const stepped = Math.floor(panel.clientWidth / WIDTH_STEP) * WIDTH_STEP;
      panelWidths.set(kind, String(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, stepped))));
    }
    return panelWidths.get(kind);
  }

  // Whether a widget's figures were drawn for another width than its panel's. A form without
  // data-width draws nothing for a width (until a render gives it one), so it is not redrawn.
  function widthChanged(kind) {
    const drawn = formOf(kind).dataset.width;
    return drawn !== undefined && figureWidth(kind) !== drawn;
  }  // A widget drawn for another width than its panel's is redrawn, but one whose lab modules are not
  // loaded only once the reader reaches it (nobody sees it meanwhile, and the redraw would fetch them).
  const reached = new Set();  // widgets the reader has neared or touched (site/audit.js's reach)
  function redrawForWidth(kind) {
    if (formOf(kind).dataset.modules && !reached.has(kind)) return;
    // a render in flight (a widget's first, while its modules load) may carry the old width: look again after it
    if (schedulerFor(kind).queued) { schedulerFor(kind).idle().then(() => redrawForWidth(kind)); return; }
    if (!widthChanged(kind)) return;
    schedulerFor(kind).submit(formValues(formOf(kind)));
  }


  // A panel narrower than its figure scrolls; only then is it a Tab stop. A panel of fixed height
  // (data-scroll-y: its content scrolls inside, and whether it overflows changes with each step) always is.
  function updateScrollers(widget) {
    for (const panel of widget.querySelectorAll(".figure-panel, .table-wrap")) {
      if (panel.hasAttribute("data-scroll-y") || panel.scrollWidth > panel.clientWidth + 1) panel.setAttribute("tabindex", "0");
      else panel.removeAttribute("tabindex");
    }
  }

  // aria-valuetext: the value with its unit ("74%", "5 tokens"), as the build writes it. A log
  // slider (data-base) shows base ** value: "1,024 tokens", not the exponent.
  function shownNumber(control, value) {
    return control.dataset.base ? (Number(control.dataset.base) ** Number(value)).toLocaleString("en-US") : String(value);
  }
  // A plural word unit reads in the singular at exactly 1 ("1 sequence", "1 draft", "8 tokens"; "1 ms"
  // stays), by the same rule as the build's partials/_slider.html.j2.
  function unitFor(control, shown) {
    const unit = control.dataset.unit || "";
    return shown === "1" && /^[a-z]{3,}s$/.test(unit) ? unit.slice(0, -1) : unit;
  }
  function valueText(control) {
    const value = shownNumber(control, control.value);
    const unit = unitFor(control, value);
    return unit ? `${value}${unit.startsWith("%") ? "" : " "}${unit}` : value;
  }

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
    const values = ownValues(form);
    // data-with="KIND ...": the named widgets' current values travel along as "KIND.name"
    for (const other of withKinds(form)) {
      for (const [name, value] of Object.entries(ownValues(formOf(other)))) values[`${other}.${name}`] = value;
    }
    return values;
  }

  function ownValues(form) {
    const values = {};
    for (const control of controls(form)) {
      if (control.type === "checkbox") values[control.name] = control.checked ? "1" : "0";
      else if (control.type === "radio") { if (control.checked) values[control.name] = control.value; }
      else values[control.name] = control.value;
    }
    return values;
  }

  function withKinds(form) {
    return (form.dataset.with || "").split(/\s+/).filter((kind) => kind && kind !== form.dataset.lab && formOf(kind));
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
    const ranges = controls(form).filter((c) => c.name === name && c.type === "range");
    if (output) output.textContent = ranges.length ? shownNumber(ranges[0], value) : String(value);
    for (const control of ranges) control.setAttribute("aria-valuetext", valueText(control));
    const unit = form.querySelector(`[data-unit-for="${name}"]`);
    if (unit && ranges.length) unit.textContent = unitFor(ranges[0], shownNumber(ranges[0], value));
    for (const range of ranges) {  // a log slider's typed twin (input[data-log-for]) holds the exact count:
      const typed = range.id && form.querySelector(`input[data-log-for="${CSS.escape(range.id)}"]`);
      if (!typed) continue;        // it keeps a count whose nearest stop is the slider's (48 at 64), else base ** value
      if (!(Number(typed.value) > 0) || nearestStop(range, Number(typed.value)) !== Number(value)) {
        typed.value = String(Number(range.dataset.base) ** Number(value));
      }
      const count = Number(typed.value).toLocaleString("en-US"), unit = unitFor(range, count);
      range.setAttribute("aria-valuetext", unit ? `${count} ${unit}` : count);  // "48 sequences", what is computed
    }
  }

  // A log slider's nearest stop to a count: round(log_base n) within its range (lab.urlstate.read_typed).
  function nearestStop(range, number) {
    const exponent = Math.round(Math.log(number) / Math.log(Number(range.dataset.base)));
    return Math.min(Number(range.max), Math.max(Number(range.min), exponent));
  }

  // A log slider's typed twin (partials/_slider.html.j2): a committed whole number in range is the exact
  // count the model computes at (a batch of 48), and the slider moves to its nearest stop; one out of
  // range or not whole gets one note naming the valid values and the nearest valid count.
  function wireTypedTwins(form) {
    for (const typed of form.querySelectorAll("input[data-log-for]")) {
      typed.addEventListener("change", () => {
        const range = document.getElementById(typed.dataset.logFor), base = Number(range.dataset.base);
        const number = Number(typed.value), low = base ** Number(range.min), high = base ** Number(range.max);
        const count = number > 0 ? Math.min(high, Math.max(low, Math.round(number))) : base ** Number(range.value);
        const label = form.querySelector(`label[for="${CSS.escape(range.id)}"]`)?.textContent || range.name;
        const said = (n, withUnit = true) => [n.toLocaleString("en-US"), withUnit && unitFor(range, n.toLocaleString("en-US"))].filter(Boolean).join(" ");
        typed.value = String(count);
        range.value = String(nearestStop(range, count));
        for (const type of ["input", "change"]) range.dispatchEvent(new Event(type, { bubbles: true }));  // as a drag ends
        if (count !== number) {
          showLocalNotes(form.dataset.lab, [`${label}: ${number > 0 ? said(number) : "that"} is not a whole number from ${said(low, false)} to ${said(high, false)}; using ${said(count)}`]);
        }
        showValue(form, range.name, range.value);
      });
    }
  }

  // A folded group of controls (<details> in a form) opens when a link or a hand-off set one of them
  // away from its default, so nothing the figures depend on is out of sight.
  function openChanged(form) {
    const changed = (c) => c.tagName === "SELECT" ? !c.selectedOptions[0]?.defaultSelected
                                                   : c.type !== "hidden" && c.value !== c.defaultValue;
    for (const group of form.querySelectorAll("details:not([open])")) {
      if (controls(group).some(changed)) group.open = true;
    }
  }

  // A note the page writes itself (a file read cancelled, too large, unreadable, a typed count out of
  // range) stays until a render asked for after it: a render requested before it (a width redraw in
  // flight, the typed count's own render) brings no news of it. "After" is a count, not a clock:
  // performance.now() is coarsened (100 us in Chromium), so a render submitted a line before the note
  // could carry the note's own time and clear it.
  let lastOrder = 0;
  const nextOrder = () => ++lastOrder;
  const localNotesOrder = {};
  function showLocalNotes(kind, notes) {
    localNotesOrder[kind] = nextOrder();
    showNotes(kind, notes);
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
      enableActions(region);
    }
  }

  function render(kind, view, { restoreInputs, announce, order = Infinity }) {
    const form = formOf(kind);
    const widget = widgetOf(kind);
    if (restoreInputs) {
      for (const [name, value] of Object.entries(view.shown || {})) {  // formatted by lab.views, as at build time
        restoreControl(form, name, value);
        showValue(form, name, value);
      }
      openChanged(form);
      // settings of this widget's own in the link: they are the link's, not the widget's defaults
      if (changedPairs(kind, view.query).length) {
        parts.handoffs.markOrigin(form, "linked");
      }
    }
    // "restore": controls the view read from what the reader gave (a log pasted into a number field
    // becomes the number, its unit and its k): the fields show what the figures now show.
    for (const name of view.restore || []) {
      if (view.shown && name in view.shown) { restoreControl(form, name, view.shown[name]); showValue(form, name, view.shown[name]); }
    }
    // The markup is generated by lab/figures.py, which escapes every piece of text it embeds.
    // An unchanged figure is not swapped: parsing and laying out an SVG is most of a frame.
    for (const [name, markup] of Object.entries(view.figures || {})) {
      const region = widget.querySelector(`[data-figure="${name}"]`);
      if (region) swapFigure(region, markup);
    }
    // A readout or output that shows the same text is left alone: rewriting it would still dirty its layout.
    for (const [name, text] of Object.entries(view.readouts || {})) {
      const cell = widget.querySelector(`[data-readout="${name}"]`);
      if (cell && cell.textContent !== text) cell.textContent = text;
    }
    // output[name=X] shows the view's string X: the answer's one sentence ("lead") and the working
    // folded under it ("summary")
    for (const output of form.querySelectorAll("output[name]")) {
      const text = view[output.name];
      if (typeof text === "string" && output.value !== text) output.value = text;
    }
    // One short sentence per change for screen readers; the summary paragraph itself is not live.
    let live = widget.querySelector("[data-live]");
    if (!live && view.live) {  // a widget without its own region gets one
      live = document.createElement("p");
      live.className = "visually-hidden";
      live.dataset.live = "";
      live.setAttribute("aria-live", "polite");
      form.after(live);
    }
    if (view.live) parts.steppers.lastLive[kind] = view.live;
    if (live && announce && view.live && parts.steppers.announceNow(form)) live.textContent = view.live;
    // "limits": {name: {min, max}} moves a control's bounds (a stepped run's length is known only
    // once the view has computed it); the steppers on the control follow.
    for (const [name, bounds] of Object.entries(view.limits || {})) {
      for (const control of controls(form).filter((c) => c.name === name)) {
        if (bounds.min !== undefined) control.min = String(bounds.min);
        if (bounds.max !== undefined) control.max = String(bounds.max);
      }
    }
    parts.steppers.refreshSteppers(form);
    if ((view.notes || []).length || !(order < (localNotesOrder[kind] ?? -Infinity))) showNotes(kind, view.notes || []);
    if (view.query !== undefined) queries[kind] = view.query;
    parts.handoffs.markStale(kind);
    shownValues[kind] = Object.assign(formValues(form), view.shown || {});
    if (view.width !== undefined && String(view.width) !== form.dataset.width) {
      form.dataset.width = String(view.width);
      requestAnimationFrame(() => updateScrollers(widget));  // after layout, not forcing it now
    }
  }

  // The address follows the settings, but off the path from a slider to its figures:
  // history.replaceState costs Chromium about 5 ms of main thread per call (19 ms with the CPU
  // slowed to a mid-range phone's; measured with `make bench`'s profiler), more than the swap
  // itself. So it waits until the settings have rested for URL_REST_MS (once per drag, not once
  // per step), and happens at once when the address is about to be read or the page hidden.
  // While a write waits, <html data-url-pending> says so.
  // The address holds only what differs from the settings the page was built with (each form's
  // data-query): a view reads a missing key as its default, so the same numbers come back.
  const builtPairs = {};  // kind -> the "key=value" pairs of its defaults
  // The "key=value" pairs of a widget's query that are not its defaults.
  function changedPairs(kind, query) {
    return (query || "").split("&").filter((pair) => pair && !(builtPairs[kind] || new Set()).has(pair));
  }
  function changedQuery(kindList) {
    return kindList.flatMap((kind) => changedPairs(kind, queries[kind])).join("&");
  }

  let urlTimer = null;
  function writeUrl() {
    clearTimeout(urlTimer);
    urlTimer = null;
    delete root.dataset.urlPending;
    const query = changedQuery(kinds());
    history.replaceState(null, "", `${location.pathname}${query ? `?${query}` : ""}${location.hash}`);
  }
  function scheduleUrlWrite() {
    clearTimeout(urlTimer);
    root.dataset.urlPending = "";
    urlTimer = setTimeout(writeUrl, URL_REST_MS);
  }
  function flushUrl() { if (urlTimer !== null) writeUrl(); }

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
        let view;
        try {
          view = await call("request", { kind, input: job.input }, REQUEST_TIMEOUT_MS);
        } catch (error) {
          if (!(error instanceof ViewError)) throw error;  // the runtime's failure: fail() below
          showViewError(kind, error.message);
          continue;
        }
        clearViewError(kind);
        // Restoring from the URL moves the sliders, unless the reader has moved one since.
        render(kind, view, { restoreInputs: job.fromUrl && !pending, announce: job.announce && !pending,
                             order: job.order });
        // Canonical, clamped values in the address: after the reader's own change, or to tidy a link
        // they came by. A render only for the panel's width changes no setting, so no address.
        if (job.announce || job.fromUrl || location.search) scheduleUrlWrite();
        const swappedAt = performance.now();
        // final: no render is queued after this one, in this widget or any other (a key press in a
        // widget that others read, data-with, renders it first and them after: only the last is final)
        const final = !pending && !Object.values(schedulers).some((other) => other !== self && other.queued);
        requestAnimationFrame(() => document.dispatchEvent(new CustomEvent("lab-rendered",
          { detail: { kind, requestedAt: job.at, paintedAt: performance.now(), swappedAt, final, ...view.timing } })));
      }
    }
    const self = {
      /** Queue `input` (a URL query string or slider values); resolves when the widget is idle.
       *  The figure width goes with it; `announce` says whether the reader caused the change. */
      submit(input, fromUrl = false, announce = false) {
        const width = figureWidth(kind);
        input = typeof input === "string" ? { query: input, width } : { ...input, width };
        // The newest input wins, but a reader's change it replaces still counts as one (a resize
        // redraw must not swallow the address update or the live sentence of a key press).
        announce = announce || Boolean(pending && pending.announce);
        pending = { input, fromUrl, announce, at: performance.now(), order: nextOrder() };
        if (!running) {
          running = pump().catch((error) => fail(error.message)).finally(() => { running = null; });
        }
        return running;
      },
      get queued() { return Boolean(pending || running); },
      idle() { return running || Promise.resolve(); },
    };
    return self;
  }

  const schedulers = {};
  function schedulerFor(kind) { return schedulers[kind] || (schedulers[kind] = scheduler(kind)); }

  // A widget that reads another's values (data-with) and is far from the viewport does not re-render
  // for a change there until it comes within WARM_MARGIN: nobody sees it meanwhile, and its render
  // (which may re-run the other widget's model many times over) would otherwise hold the worker
  // after the key press, ahead of the reader's next one. Until the observer has reported, a widget
  // counts as near (a change is never left unrendered for want of a report).
  const farKinds = new Set();    // data-with widgets the observer last saw outside the margin
  const staleKinds = new Set();  // far widgets that owe a render for another widget's change
  function showStale() {  // <html data-deferred-renders>, for tests and the benchmark
    if (staleKinds.size) root.dataset.deferredRenders = [...staleKinds].join(" ");
    else delete root.dataset.deferredRenders;
  }
  function renderWhenNear(kind) {
    if (!farKinds.has(kind)) {
      schedulerFor(kind).submit(formValues(formOf(kind)), false, true);
      return;
    }
    staleKinds.add(kind);
    showStale();
  }
  function watchDependents() {
    const dependents = new Map(kinds().filter((kind) => withKinds(formOf(kind)).length)
      .map((kind) => [widgetOf(kind), kind]));
    if (!dependents.size || !("IntersectionObserver" in window)) return;
    const observer = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        const kind = dependents.get(entry.target);
        if (!entry.isIntersecting) { farKinds.add(kind); continue; }
        farKinds.delete(kind);
        if (!staleKinds.delete(kind)) continue;
        showStale();
        // not announced: the reader's change was in the other widget, and this one only now comes into view
        if (!failed) schedulerFor(kind).submit(formValues(formOf(kind)));
      }
    }, { rootMargin: WARM_MARGIN });
    for (const widget of dependents.keys()) observer.observe(widget);
  }

  function wireWidgets() {
    for (const kind of kinds()) {
      const form = formOf(kind);
      queries[kind] = form.dataset.query;  // the pre-rendered settings, until a live render replaces them
      builtPairs[kind] = new Set(form.dataset.query.split("&"));
      form.addEventListener("submit", (event) => event.preventDefault());
      const onChange = (event) => {
        const control = event.target;
        if (!controls(form).includes(control)) return;
        showValue(form, control.name, control.value);
        parts.handoffs.markChanged(form);
        schedulerFor(kind).submit(formValues(form), false, true);  // before the runtime is up this waits
      };
      form.addEventListener("input", onChange);
      // a select or checkbox may only fire "change"; a range or text control fires both, and the
      // scheduler drops the duplicate's work if the first is still pending
      form.addEventListener("change", (event) => { if (!["range", "text", "number", "textarea"].includes(event.target.type)) onChange(event); });
      // a widget that reads another's values re-renders when that one's change is committed (not on every
      // input), at once if it is near the viewport, else when it comes near (renderWhenNear)
      for (const other of withKinds(form)) {
        formOf(other).addEventListener("change", () => renderWhenNear(kind));
      }
      shownValues[kind] = formValues(form);
      if (!failed) setEnabled(form, true);
      parts.steppers.wireSteppers(form);
      wireTypedTwins(form);
      enableActions(widgetOf(kind));
      nameActions(widgetOf(kind));
      wireTips(widgetOf(kind));
      // a table folded in a <details> has no width until it opens
      widgetOf(kind).addEventListener("toggle", () => updateScrollers(widgetOf(kind)), true);
    }
    watchDependents();
    // A "new seed" button sets the control it names to a fresh random value in its range.
    for (const button of document.querySelectorAll('button[data-action="new-seed"]')) {
      button.addEventListener("click", () => {
        const target = document.getElementById(button.dataset.for);
        if (!target || target.disabled) return;
        const min = Number(target.min || 0), max = Number(target.max || SEED_MAX);
        let value = target.value;
        while (String(value) === target.value && max > min) value = String(min + Math.floor(Math.random() * (max - min + 1)));
        target.value = value;
        target.dispatchEvent(new Event("input", { bubbles: true }));
      });
    }
    // "Copy a link": this widget's own changed settings (and those of the widgets it reads, data-with)
    // and its fragment, so the link opens on this widget showing these numbers.
    for (const button of document.querySelectorAll('[data-action="copy-link"]')) {
      button.addEventListener("click", async () => {
        const note = button.parentElement.querySelector("[data-copy-status]");
        const widget = button.closest(".lab-widget");
        const form = widget?.querySelector("form[data-lab]");
        flushUrl();
        const query = form ? changedQuery([form.dataset.lab, ...withKinds(form)]) : location.search.slice(1);
        const link = `${location.origin}${location.pathname}${query ? `?${query}` : ""}${widget?.id ? `#${widget.id}` : ""}`;
        try {
          await navigator.clipboard.writeText(link);
          note.textContent = "Link copied.";
        } catch {
          note.textContent = `Copy this link: ${link}`;
        }
      });
    }
  }

  // Pointing (mouse, pen or tap) at a figure mark with data-tip shows that text in the widget's
  // [data-tip-readout]. A grid of values is one mark with data-tip-values (row by row, from the
  // top), data-tip-rows, data-tip-cols and data-tip-format ("{row}", "{col}", "{value}").
  function tipAt(mark, event) {
    if (mark.dataset.tip !== undefined) return mark.dataset.tip;
    const cols = mark.dataset.tipCols.split(" "), rows = mark.dataset.tipRows.split(" ");
    const values = mark.dataset.tipValues.split(" ");
    const box = mark.getBoundingClientRect();
    const c = Math.min(cols.length - 1, Math.max(0, Math.floor((event.clientX - box.left) / box.width * cols.length)));
    const r = Math.min(rows.length - 1, Math.max(0, Math.floor((event.clientY - box.top) / box.height * rows.length)));
    return mark.dataset.tipFormat.replace("{row}", rows[r]).replace("{col}", cols[c])
      .replace("{value}", values[r * cols.length + c]);
  }

  function wireTips(widget) {
    const readout = widget.querySelector("[data-tip-readout]");
    if (!readout) return;
    readout.textContent = "Point at or tap the figure to read a value here.";
    const show = (event) => {
      const mark = event.target.closest && event.target.closest("[data-tip], [data-tip-values]");
      if (mark && widget.contains(mark)) readout.textContent = tipAt(mark, event);
    };
    widget.addEventListener("pointermove", show);
    widget.addEventListener("click", show);
  }

  // Redraw a widget's figures when its panel changes width by a step (rotation, window resize).
  // Only a change of width forgets the measured panel widths: a widget that grows taller (a longer
  // summary after a render) would otherwise make the reader's next key force a layout of the whole
  // page to measure a width that has not changed (25 ms of main thread at 4x CPU throttling).
  function watchWidths() {
    if (!("ResizeObserver" in window)) return;
    let timer = null;
    let widened = false;               // some observed width changed since the timer last ran
    const seenWidths = new WeakMap();  // observed element -> its content width when last reported
    const resized = new Set();         // widgets whose size changed since the timer last ran
    const observer = new ResizeObserver((entries) => {
      for (const entry of entries) {
        const width = Math.round(entry.contentRect.width);
        if (seenWidths.get(entry.target) !== width) {
          widened = true;
          panelWidths.clear();
        }
        seenWidths.set(entry.target, width);
        resized.add(entry.target.closest(".lab-widget") || entry.target);
      }
      clearTimeout(timer);
      timer = setTimeout(() => {
        for (const kind of kinds()) {
          if (resized.has(widgetOf(kind))) updateScrollers(widgetOf(kind));
          if (widened && root.dataset.labState === "live") redrawForWidth(kind);
        }
        resized.clear();
        widened = false;
      }, RESIZE_REST_MS);
    });
    for (const kind of kinds()) {
      observer.observe(widgetOf(kind));
      for (const panel of widgetOf(kind).querySelectorAll(".figure-panel")) observer.observe(panel);
    }
  }

  // --- the page's other parts ----------------------------------------------------------------------

  // Three responsibilities live in files of their own, each a deferred script from this origin that
  // registers a factory in self.labParts: site/steppers.js, site/handoffs.js and site/audit.js. They
  // start once the document is parsed (deferred scripts have run by then), given what of this file
  // they use.
  const PARTS = ["steppers", "handoffs", "audit"];
  let parts = null;
  function startParts() {
    const registry = self.labParts || {};
    const missing = PARTS.filter((name) => typeof registry[name] !== "function");
    if (missing.length) throw new Error(`a part of the page's script did not load (${missing.join(", ")})`);
    const page = {
      REACH_MARGIN, REQUEST_TIMEOUT_MS, ViewError, call, controls, fail, figureWidth, formOf, formValues, notice,
      openChanged, queries, reached, redrawForWidth, render, restoreControl, root, schedulerFor, schedulers, send,
      showLocalNotes, showValue, widgetOf,
      get failed() { return failed; },
      get booted() { return booted; },
    };
    parts = Object.fromEntries(PARTS.map((name) => [name, registry[name](page)]));
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
                                labZipURL: config.labZipURL, pyodideLock: config.pyodideLock,
                                dataAssets: config.dataAssets || {},
                                labChunks: config.labChunks || {} }, BOOT_STALL_MS);
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
    // A plain visit needs none: the page already shows the defaults, computed by the same code,
    // so it is live at once; figures drawn for another width than their panel's are redrawn
    // right after, without holding the reader up (they show the right numbers meanwhile).
    const restore = location.search !== "";
    await Promise.all(kinds().map((kind) => schedulerFor(kind).queued ? schedulerFor(kind).idle()
                                           : restore ? schedulerFor(kind).submit(location.search, true) : null));
    if (failed) return;
    for (const kind of kinds()) redrawForWidth(kind);
    performance.mark("lab:live");
    root.dataset.labState = "live";
    root.dataset.labReadyMs = String(Math.round(performance.now()));
    setStatus(LIVE_STATUS, "live");
    fitStatusOutOfView();
    watchWidths();
    try {
      // the seed audit's modules, before the first-call paths (the exact sampler's imports them too)
      await loadAuditModules();
      if (!restore) {  // run the first-call paths of forms marked data-warm="render" before the reader moves
        await Promise.all([...document.querySelectorAll('form[data-lab][data-warm="render"]')]
          .map((form) => call("request", { kind: form.dataset.lab, input: "" }, REQUEST_TIMEOUT_MS)
            .catch((error) => { if (error instanceof ViewError) showViewError(form.dataset.lab, error.message); else throw error; })));
      }
      await parts.audit.run();
    } catch (error) {
      fail(error.message);
    }
  }

  // The contents entry of the part or instrument the reader is in gets aria-current="location" (the
  // innermost target in the top 40% of the window), so the sticky contents say where one is.
  function spyContents() {
    const links = [...document.querySelectorAll('.toc a[href^="#"]')];
    const byTarget = new Map(links.map((link) => [document.getElementById(decodeURIComponent(link.hash.slice(1))), link])
      .filter(([target]) => target));
    if (!byTarget.size || !("IntersectionObserver" in window)) return;
    const inView = new Set();
    const observer = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (entry.isIntersecting) inView.add(entry.target); else inView.delete(entry.target);
      }
      const current = [...byTarget.keys()].filter((target) => inView.has(target)).pop();
      for (const [target, link] of byTarget) {
        if (target === current) link.setAttribute("aria-current", "location");
        else link.removeAttribute("aria-current");
      }
    }, { rootMargin: "0px 0px -60% 0px" });
    for (const target of byTarget.keys()) observer.observe(target);
  }

  booted = bootWorker();
  domReady.then(() => {
    try {
      startParts();
    } catch (error) {
      fail(error.message);
      return;
    }
    spyContents();
    wireWidgets();
    if (!failed) showProgress(received);  // the loading line and its bar, at once: the box keeps its height
    for (const kind of kinds()) updateScrollers(widgetOf(kind));
    parts.handoffs.wireSendButtons();
    parts.handoffs.wireCopyButtons();
    parts.handoffs.wireChunkedFiles();
    addEventListener("pagehide", flushUrl);
    document.addEventListener("visibilitychange", () => { if (document.hidden) flushUrl(); });
    goLive();
  });
}
