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
  const REQUEST_TIMEOUT_MS = 10000;  // no answer by then: the worker has died or hung
  const SLOW_NOTICE_MS = 1500;       // say so while a request is late, before giving up on it
  const LIVE_STATUS = "Live: the figures recompute in Python, in your browser, as you move the sliders.";
  const WARM_MARGIN = "800px";        // import a widget's Python module when it gets this close
  const URL_REST_MS = 250;           // the address is rewritten once the settings rest this long

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

  function call(type, payload, timeoutMs) {
    return new Promise((resolve, reject) => {
      if (failed) return reject(new Error("the live lab has stopped"));
      const id = nextId++;
      if (type === "boot") bootId = id;
      const timer = expire(id, timeoutMs, reject);
      const slow = root.dataset.labState === "live" && payload.kind !== "audit" && setTimeout(() =>
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
    if (document.getElementById("runtime-status")?.dataset.state === "slow") setStatus(LIVE_STATUS, "live");
    if (type === "error") entry.reject(new Error(payload.message));  // the worker itself failed
    else if (payload && payload.error) entry.reject(new ViewError(payload.error));  // it answered: one view failed
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
      setStatus("The live figures could not start, so everything on this page shows the values computed " +
                "when it was built, and the controls are paused.", "failed");
      for (const kind of kinds()) {
        const form = formOf(kind);
        // The controls go back to the values the figures show, so nothing contradicts them.
        for (const [name, value] of Object.entries(shownValues[kind] || {})) {
          restoreControl(form, name, value);
          showValue(form, name, value);
        }
        setEnabled(form, false);
        showFailure(widgetOf(kind), reason);
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
  function showFailure(widget, reason) {
    widget.querySelector(".lab-notice[data-view-error]")?.remove();
    if (widget.querySelector(".lab-notice")) return;
    widget.querySelector("form[data-lab]").after(notice(
      "The live version of this figure could not load, so it shows the setting its controls show. " +
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
  }

  // A panel narrower than its figure scrolls; only then is it a Tab stop.
  function updateScrollers(widget) {
    for (const panel of widget.querySelectorAll(".figure-panel, .table-wrap")) {
      if (panel.scrollWidth > panel.clientWidth + 1) panel.setAttribute("tabindex", "0");
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

  // A note the page writes itself (a file read cancelled, too large, unreadable) stays until a render
  // asked for after it: a render requested before it (a width redraw in flight) brings no news of it.
  const localNotesAt = {};
  function showLocalNotes(kind, notes) {
    localNotesAt[kind] = performance.now();
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

  function render(kind, view, { restoreInputs, announce, requestedAt = Infinity }) {
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
        markOrigin(form, "linked");
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
    for (const [name, text] of Object.entries(view.readouts || {})) {
      const cell = widget.querySelector(`[data-readout="${name}"]`);
      if (cell) cell.textContent = text;
    }
    // output[name=X] shows the view's string X: the answer's one sentence ("lead") and the working
    // folded under it ("summary")
    for (const output of form.querySelectorAll("output[name]")) {
      const text = view[output.name];
      if (typeof text === "string") output.value = text;
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
    if (view.live) lastLive[kind] = view.live;
    if (live && announce && view.live && announceNow(form)) live.textContent = view.live;
    // "limits": {name: {min, max}} moves a control's bounds (a stepped run's length is known only
    // once the view has computed it); the steppers on the control follow.
    for (const [name, bounds] of Object.entries(view.limits || {})) {
      for (const control of controls(form).filter((c) => c.name === name)) {
        if (bounds.min !== undefined) control.min = String(bounds.min);
        if (bounds.max !== undefined) control.max = String(bounds.max);
      }
    }
    refreshSteppers(form);
    if ((view.notes || []).length || !(requestedAt < (localNotesAt[kind] ?? -Infinity))) showNotes(kind, view.notes || []);
    if (view.query !== undefined) queries[kind] = view.query;
    markStale(kind);
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
                             requestedAt: job.at });
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
        pending = { input, fromUrl, announce, at: performance.now() };
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
        markChanged(form);
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
      wireSteppers(form);
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
        const min = Number(target.min || 0), max = Number(target.max || 9999);
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
          if (widened && root.dataset.labState === "live" && widthChanged(kind)) {
            schedulerFor(kind).submit(formValues(formOf(kind)));
          }
        }
        resized.clear();
        widened = false;
      }, 150);
    });
    for (const kind of kinds()) {
      observer.observe(widgetOf(kind));
      for (const panel of widgetOf(kind).querySelectorAll(".figure-panel")) observer.observe(panel);
    }
  }

  // --- steppers: Play / Step / Stop on one control of a widget's form --------------------------

  // <button data-action="step|play|stop" data-for="ID"> in a widget's form, on its control ID (a
  // hidden input will do). The worker keeps no state: the control carries it, so every request
  // recomputes the view for that value. Step adds 1 up to the control's max (data-wrap: from max
  // back to min; data-to="N": straight to N) and sends the form as a reader's change. Play
  // (data-action="play") sets the control to data-from, then steps again after each render of the widget,
  // data-interval ms apart, until the control reaches its max. Stop ends play, and so does any
  // other change the reader makes in that widget. A view moves the bounds with "limits".
  const playing = new Map();  // control id -> { timer, interval } while it plays
  // While a stepper plays, its widget's live region speaks every PLAY_ANNOUNCE_EVERY-th step and on
  // Stop (or the end), not at every step: a step every few hundred ms would talk over itself.
  const PLAY_ANNOUNCE_EVERY = 5;
  const playSteps = new Map();  // form -> renders announced-or-skipped since play started
  const lastLive = {};          // kind -> the view's latest live sentence

  function announceNow(form) {
    if (![...playing.keys()].some((id) => form.contains(document.getElementById(id)))) return true;
    const count = (playSteps.get(form) || 0) + 1;
    playSteps.set(form, count);
    return count % PLAY_ANNOUNCE_EVERY === 0;
  }

  function stepperButtons(form, id) {
    return [...form.querySelectorAll('button[data-action="step"], button[data-action="play"], button[data-action="stop"]')]
      .filter((button) => !id || button.dataset.for === id);
  }

  function refreshSteppers(form) {
    if (failed) return;
    for (const button of stepperButtons(form)) {
      const control = document.getElementById(button.dataset.for);
      if (!control) continue;
      const atEnd = Number(control.value) >= Number(control.max || Infinity);
      const busy = playing.has(control.id);
      if (button.dataset.action === "stop") button.disabled = !busy;
      else if (button.dataset.action === "play") button.disabled = busy;
      else button.disabled = atEnd && !("wrap" in button.dataset) && button.dataset.to === undefined;
    }
  }

  function setStep(control, value) {
    const low = Number(control.min || 0), high = Number(control.max || Infinity);
    control.value = String(Math.min(high, Math.max(low, value)));
    control.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function stopPlaying(form, id) {
    const entry = playing.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    playing.delete(id);
    playSteps.delete(form);
    const live = widgetOf(form.dataset.lab).querySelector("[data-live]");
    if (live && lastLive[form.dataset.lab]) live.textContent = `Stopped. ${lastLive[form.dataset.lab]}`;
    const stop = stepperButtons(form, id).find((b) => b.dataset.action === "stop");
    const focusPlay = stop && document.activeElement === stop;  // keep the keyboard where it was
    refreshSteppers(form);
    if (focusPlay) stepperButtons(form, id).find((b) => b.dataset.action === "play")?.focus();
  }

  function wireSteppers(form) {
    const kind = form.dataset.lab;
    for (const button of stepperButtons(form)) {
      const id = button.dataset.for;
      const control = document.getElementById(id);
      if (!control) continue;
      button.addEventListener("click", () => {
        if (button.disabled || failed) return;
        const action = button.dataset.action;
        if (action === "stop") { stopPlaying(form, id); return; }
        if (action === "play") {
          playing.set(id, { timer: null, interval: Number(button.dataset.interval || 300) });
          refreshSteppers(form);
          stepperButtons(form, id).find((b) => b.dataset.action === "stop")?.focus();
          setStep(control, Number(button.dataset.from ?? control.min ?? 0));
          return;
        }
        stopPlaying(form, id);
        const value = Number(control.value);
        if (button.dataset.to !== undefined) setStep(control, Number(button.dataset.to));
        else if ("wrap" in button.dataset && value >= Number(control.max || Infinity)) setStep(control, Number(control.min || 0));
        else setStep(control, value + 1);
      });
    }
    // any other change the reader makes in this widget ends play
    const interrupt = (event) => {
      if (!event.isTrusted) return;
      for (const id of [...playing.keys()]) {
        if (event.target.id !== id && form.contains(document.getElementById(id))) stopPlaying(form, id);
      }
    };
    form.addEventListener("input", interrupt);
    form.addEventListener("change", interrupt);
    // after each render of this widget, a playing stepper takes its next step, or stops at the end
    document.addEventListener("lab-rendered", (event) => {
      if (event.detail.kind !== kind) return;
      for (const [id, entry] of playing) {
        const control = document.getElementById(id);
        if (!control || !form.contains(control)) continue;
        if (Number(control.value) >= Number(control.max || Infinity)) { stopPlaying(form, id); continue; }
        clearTimeout(entry.timer);
        entry.timer = setTimeout(() => { if (playing.has(id) && !failed) setStep(control, Number(control.value) + 1); },
                                 entry.interval);
      }
    });
    refreshSteppers(form);
  }

  // --- generic hand-offs and local files, driven by markup attributes ---------------------------

  // A link to the widget a hand-off went to, named by its heading (.widget-title), so the reader
  // can follow the change; none when the sender changed its own widget.
  function linkTo(widget, sender) {
    const title = widget.querySelector(".widget-title");
    if (!widget.id || !title || widget.contains(sender)) return "";
    const link = document.createElement("a");
    link.href = `#${widget.id}`;
    link.textContent = `Go to \u201c${title.textContent.trim()}\u201d`;
    return link;
  }

  // <button data-action="send" data-target="KIND" data-values='{"name": "value"}'>: set those controls
  // of widget KIND's form (hidden inputs included) and submit it, as if the reader had moved them.
  // <button data-action="send-all" data-sends='[{"target": "KIND", "values": {...}}, ...]'>: the same
  // for every widget listed (one that is not on the page is skipped).
  function sendTo(kind, values, sender) {
    const form = document.querySelector(`form[data-lab="${CSS.escape(kind || "")}"]`);
    if (!form || !values || typeof values !== "object") return null;
    for (const [name, value] of Object.entries(values)) {
      restoreControl(form, name, value);
      showValue(form, name, value);
    }
    openChanged(form);
    markSent(form, sender);
    schedulerFor(form.dataset.lab).submit(formValues(form), false, true);
    return form;
  }

  // <span data-origin data-sent="... {sender} ..." data-sent-changed="..." data-linked="..."
  // data-linked-changed="..."> in a form says what set its controls: a hand-off (data-sent, with
  // the sending widget's heading for {sender}) or the link the page was opened with (data-linked);
  // once the reader then moves a control, the same state's "-changed" text.
  // A sent state goes stale when the sender shows other settings than the ones it sent
  // (data-sent-stale, "-changed" likewise): a [data-action="resend"] button beside it sends the
  // sender's current values again, in place of the pull button. The form's hidden
  // input[name="origin"] tells the view it was sent ("sent") or not (""), so its lead can say why
  // its number differs from the sender's answer.
  const sentFrom = new Map();  // target kind -> { sender: kind, query: the sender's query when it sent }

  function showOrigin(origin) {
    const { state, changed, stale } = origin.dataset;
    const key = state + (stale ? "Stale" : "") + (changed ? "Changed" : "");
    const text = origin.dataset[key] || origin.dataset[state + (changed ? "Changed" : "")] || "";
    origin.textContent = text.replace("{sender}", origin.dataset.sender || "");
    const box = origin.closest(".lab-origin");
    const resend = box?.querySelector('button[data-action="resend"]');
    const pullButton = box?.querySelector('button[data-action="pull"]');
    if (resend) resend.hidden = !stale;
    if (pullButton) pullButton.hidden = Boolean(stale);
  }

  function markOrigin(form, state, sender = "") {
    const origin = form.querySelector("[data-origin]");
    const input = form.querySelector('input[name="origin"]');
    if (input) input.value = state === "sent" ? "sent" : "";
    if (state !== "sent") sentFrom.delete(form.dataset.lab);
    if (!origin) return;
    Object.assign(origin.dataset, { state, sender, changed: "", stale: "" });
    showOrigin(origin);
  }

  function markSent(form, sender) {
    const title = sender && sender.querySelector(".widget-title");
    const senderKind = sender && sender.querySelector("form[data-lab]")?.dataset.lab;
    if (!title) return;
    markOrigin(form, "sent", title.textContent.trim());
    if (senderKind && senderKind !== form.dataset.lab) {
      sentFrom.set(form.dataset.lab, { sender: senderKind, query: queries[senderKind] });
    }
  }

  function markChanged(form) {
    const origin = form.querySelector("[data-origin][data-state]");
    if (!origin) return;
    origin.dataset.changed = "1";
    showOrigin(origin);
  }

  // After a render of `kind`: every widget it sent to is stale while `kind` shows other settings than
  // it sent, fresh again if the reader puts them back; the sender's "Sent to ..." line is cleared.
  function markStale(kind) {
    for (const [target, entry] of sentFrom) {
      if (entry.sender !== kind) continue;
      const origin = formOf(target)?.querySelector("[data-origin]");
      const stale = queries[kind] !== entry.query ? "1" : "";
      if (stale) widgetOf(kind).querySelector("[data-send-status]")?.replaceChildren();
      if (!origin || origin.dataset.stale === stale) continue;
      origin.dataset.stale = stale;
      showOrigin(origin);
    }
  }

  // <button data-action="resend"> beside a stale origin: what its sender now holds for this widget.
  function resend(button) {
    const kind = button.closest("form[data-lab]")?.dataset.lab;
    const entry = sentFrom.get(kind);
    if (!entry) return;
    const sender = widgetOf(entry.sender);
    for (const source of sender.querySelectorAll('button[data-action="send"], button[data-action="send-all"]')) {
      const values = source.dataset.action === "send"
        ? (source.dataset.target === kind ? parsed(source.dataset.values, "{}") : null)
        : (parsed(source.dataset.sends, "[]") || []).find((send) => send && send.target === kind)?.values;
      if (values && sendTo(kind, values, sender)) {
        button.closest(".lab-origin")?.querySelector('button[data-action="pull"]:not([hidden])')?.focus();
        return;
      }
    }
  }

  // <button data-action="pull"> in a form: what a send-all button on the page (the deployment
  // panel's) holds for this form's widget, applied as that button would.
  function pull(button) {
    const kind = button.closest("form[data-lab]")?.dataset.lab;
    for (const source of document.querySelectorAll('button[data-action="send-all"]')) {
      const sends = parsed(source.dataset.sends, "[]");
      const send = Array.isArray(sends) ? sends.find((entry) => entry && entry.target === kind) : null;
      if (send && sendTo(kind, send.values, source.closest(".lab-widget"))) return;
    }
  }

  function parsed(text, fallback) {
    try { return JSON.parse(text || fallback); } catch { return null; }
  }

  function wireSendButtons() {
    document.addEventListener("click", (event) => {
      const button = event.target.closest && event.target.closest(
        'button[data-action="send"], button[data-action="send-all"], button[data-action="pull"], button[data-action="resend"]');
      if (!button) return;
      if (button.dataset.action === "pull") { pull(button); return; }
      if (button.dataset.action === "resend") { resend(button); return; }
      const status = button.closest(".lab-widget")?.querySelector("[data-send-status]");
      if (button.dataset.action === "send-all") {
        const sends = parsed(button.dataset.sends, "[]");
        const sender = button.closest(".lab-widget");
        const sent = (Array.isArray(sends) ? sends : []).filter((send) => send && sendTo(send.target, send.values, sender));
        // and a link to the first of them, as a single send links to its target
        const first = sent.length ? linkTo(widgetOf(sent[0].target), button) : "";
        if (status) status.replaceChildren(`Sent to ${sent.length} instrument${sent.length === 1 ? "" : "s"}. `, first);
        return;
      }
      const form = sendTo(button.dataset.target, parsed(button.dataset.values, "{}"), button.closest(".lab-widget"));
      const label = button.getAttribute("aria-label") || button.textContent.trim();
      if (form && status) status.replaceChildren(`Sent: ${label}. `, linkTo(widgetOf(form.dataset.lab), button));
    });
  }

  // <button data-action="copy" data-for="ID">: copies the text of the element ID (a configuration in a
  // <pre>, say) and says so in the [data-copy-status] beside it. Delegated: the button may arrive in a
  // swapped [data-figure].
  function wireCopyButtons() {
    document.addEventListener("click", async (event) => {
      const button = event.target.closest && event.target.closest('button[data-action="copy"]');
      if (!button) return;
      const source = document.getElementById(button.dataset.for);
      const note = button.parentElement.querySelector("[data-copy-status]");
      if (!source) return;
      try {
        await navigator.clipboard.writeText(source.textContent);
        if (note) note.textContent = "Copied.";
      } catch {
        if (note) note.textContent = "Select the text above and copy it.";
      }
    });
  }

  // <input type="file" data-chunked data-max-bytes="N"> in a widget's form: the file is read in
  // 1 MB slices (async, so the page stays responsive), each posted to the worker as the widget's
  // "chunk" operation; <progress data-progress-for="ID"> shows how far it got and
  // <button data-action="cancel" data-for="ID"> stops it. The file goes to this page's worker only.
  const SLICE_BYTES = 1 << 20;

  function wireChunkedFiles() {
    for (const input of document.querySelectorAll('form[data-lab] input[type="file"][data-chunked]')) {
      const form = input.closest("form[data-lab]");
      const kind = form.dataset.lab;
      const progress = document.querySelector(`progress[data-progress-for="${CSS.escape(input.id)}"]`);
      const cancel = document.querySelector(`button[data-action="cancel"][data-for="${CSS.escape(input.id)}"]`);
      let run = 0;
      const settle = () => {
        if (progress) progress.hidden = true;
        if (cancel) cancel.hidden = true;
        input.value = "";  // choosing the same file again reads it again
      };
      cancel?.addEventListener("click", () => {
        run += 1;
        settle();
        showLocalNotes(kind, ["Reading cancelled: nothing from the file was kept."]);
      });
      input.addEventListener("change", async () => {
        const file = input.files && input.files[0];
        if (!file) return;
        const limit = Number(input.dataset.maxBytes || Infinity);
        if (file.size > limit) {
          showLocalNotes(kind, [`${file.name} is ${(file.size / 1048576).toFixed(1)} MB; files up to ` +
                           `${(limit / 1048576).toFixed(0)} MB can be read here.`]);
          input.value = "";
          return;
        }
        const mine = ++run;
        const count = Math.max(1, Math.ceil(file.size / SLICE_BYTES));
        const decoder = new TextDecoder("utf-8");  // stream: a character split between slices survives
        if (progress) { progress.value = 0; progress.hidden = false; }
        if (cancel) cancel.hidden = false;
        try {
          await booted;
          for (let index = 0; index < count && mine === run; index++) {
            const bytes = await file.slice(index * SLICE_BYTES, (index + 1) * SLICE_BYTES).arrayBuffer();
            const text = decoder.decode(bytes, { stream: index < count - 1 });
            const reply = await call("request", { kind, op: "chunk", name: file.name, index, count, text,
                                                  input: { ...formValues(form), width: figureWidth(kind) } },
                                     REQUEST_TIMEOUT_MS);
            if (mine !== run) return;
            if (progress) progress.value = reply.progress;
            if (reply.done) {
              render(kind, reply, { restoreInputs: false });
              break;
            }
          }
        } catch (error) {
          if (mine === run) showLocalNotes(kind, [`The file could not be read: ${error.message}`]);
        } finally {
          if (mine === run) settle();
        }
      });
    }
  }

  // --- the audit --------------------------------------------------------------------------------

  // A counter pre-rendered at build time, now re-run in this browser.
  // Markup may leave an element empty but for data-keep="KEY": the element the page already
  // shows under that key stays (text the worker does not carry, like each check's description,
  // which the build wrote from the docstrings the browser's lab is shipped without).
  function swapKeeping(container, markup) {
    const kept = new Map([...container.querySelectorAll("[data-keep]")].map((el) => [el.dataset.keep, el]));
    container.innerHTML = markup;
    for (const slot of container.querySelectorAll("[data-keep]")) {
      const old = kept.get(slot.dataset.keep);
      if (old && !slot.hasChildNodes()) slot.replaceWith(old);
    }
  }

  function showCounter(counter, view) {
    counter.textContent = view.counter;
    counter.dataset.source = "browser";
    counter.classList.toggle("audit-pass", view.allPassed);
    counter.classList.toggle("audit-fail", !view.allPassed);
  }

  function showInstrumentAudit(view) {
    showCounter(document.querySelector("[data-instrument-counter]"), view);
    const signature = document.querySelector('[data-signature="instruments"]');
    if (signature) signature.textContent = view.signature;
    const list = document.querySelector("[data-instrument-checks]");
    if (list) swapKeeping(list, view.checksHtml);  // escaped by lab/figures.py
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

  // Resolves once no widget has a request queued or running: a sliced audit's next slice waits
  // for this, so the reader's renders go first.
  async function widgetsIdle() {
    while (Object.values(schedulers).some((s) => s.queued)) {
      await Promise.all(Object.values(schedulers).map((s) => s.idle()));
    }
  }

  // An audit whose request fails keeps the counter the build wrote and says so under it.
  // A sliced audit answers {pending: true} until its last slice; each further slice is asked
  // for with op "continue" once the widgets are idle.
  async function runAudit(request, counterSelector, show) {
    const counter = document.querySelector(counterSelector);
    counter.parentElement.querySelector(".lab-notice[data-view-error]")?.remove();
    try {
      let view = await call("request", request, REQUEST_TIMEOUT_MS);
      while (view.pending) {
        await widgetsIdle();
        view = await call("request", { ...request, op: "continue" }, REQUEST_TIMEOUT_MS);
      }
      show(view);
    } catch (error) {
      if (!(error instanceof ViewError)) throw error;
      const box = notice("This audit could not re-run in your browser, so the counter shows the result from when " +
        "the page was built.", error.message, () => runAudit(request, counterSelector, show).catch((e) => fail(e.message)));
      box.dataset.viewError = "";
      box.setAttribute("role", "status");
      counter.after(box);
    }
  }

  function showAudit(view) {
    showCounter(document.querySelector("[data-audit-counter]"), view);
    document.querySelector("[data-audit-mark]").textContent =
      view.allPassed ? "\u2713 verified in this browser" : "re-run in this browser: see the failing checks";
    for (const [name, text] of Object.entries(view.signatures)) {
      document.querySelector(`[data-signature="${name}"]`).textContent = text;
    }
    swapKeeping(document.querySelector("[data-audit-checks]"), view.checksHtml);  // escaped by lab/figures.py
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
                                labZipURL: config.labZipURL, dataAssets: config.dataAssets || {} }, BOOT_STALL_MS);
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
    for (const kind of kinds()) {
      if (!schedulerFor(kind).queued && widthChanged(kind)) {
        schedulerFor(kind).submit(formValues(formOf(kind)));
      }
    }
    performance.mark("lab:live");
    root.dataset.labState = "live";
    root.dataset.labReadyMs = String(Math.round(performance.now()));
    setStatus(LIVE_STATUS, "live");
    fitStatusOutOfView();
    watchWidths();
    try {
      if (!restore) {  // run the first-call paths of forms marked data-warm="render" before the reader moves
        await Promise.all([...document.querySelectorAll('form[data-lab][data-warm="render"]')]
          .map((form) => call("request", { kind: form.dataset.lab, input: "" }, REQUEST_TIMEOUT_MS)
            .catch((error) => { if (error instanceof ViewError) showViewError(form.dataset.lab, error.message); else throw error; })));
      }
      warmOnApproach();
      await runAudit({ kind: "audit", sliced: true }, "[data-audit-counter]", showAudit);
      // <html data-instrument-suite="manual"> (set before boot; the test harness sets it for tests that never
      // read this counter) leaves the counter as built, so no suite run competes with the page's renders.
      if (document.querySelector("[data-instrument-counter]") && root.dataset.instrumentSuite !== "manual") {
        await runAudit({ kind: "audit", suite: "instruments", sliced: true }, "[data-instrument-counter]",
                       showInstrumentAudit);
      }
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
    spyContents();
    wireWidgets();
    if (!failed) showProgress(received);  // the loading line and its bar, at once: the box keeps its height
    for (const kind of kinds()) updateScrollers(widgetOf(kind));
    wireSendButtons();
    wireCopyButtons();
    wireChunkedFiles();
    addEventListener("pagehide", flushUrl);
    document.addEventListener("visibilitychange", () => { if (document.hidden) flushUrl(); });
    goLive();
  });
}
