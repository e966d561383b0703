"use strict";
// The two counters: the seed audit re-run in this browser, and the instruments suite a family at a
// time as each widget is reached (its lab modules loaded first), with the button that runs the rest.
// A part of the page's script (site/app.js starts it once the document is parsed, with what of
// app.js it uses; `page.failed` and `page.booted` are read at use, as they change). It knows no widget
// by name: it acts on markup attributes.

(self.labParts ||= {}).audit = (page) => {
  const { REACH_MARGIN, REQUEST_TIMEOUT_MS, ViewError, call, fail, formOf, notice, reached, redrawForWidth, root,
          schedulers } = page;

  // --- the audit --------------------------------------------------------------------------------

  // A counter pre-rendered at build time, now re-run in this browser.
  // The worker's list leaves each check's description empty (li[data-check] > .check-description):
  // the description the page already shows for that check stays (text the worker does not carry,
  // which the build wrote from the docstrings the browser's lab is shipped without).
  const DESCRIPTION = "li[data-check] > .check-description";
  function swapKeeping(container, markup) {
    const kept = new Map([...container.querySelectorAll(DESCRIPTION)].map((el) => [el.parentElement.dataset.check, el]));
    container.innerHTML = markup;
    for (const slot of container.querySelectorAll(DESCRIPTION)) {
      const old = kept.get(slot.parentElement.dataset.check);
      if (old && !slot.hasChildNodes()) slot.replaceWith(old);
    }
  }

  function showCounter(counter, view) {
    counter.textContent = view.counter;
    counter.dataset.source = "browser";
    counter.classList.toggle("audit-pass", view.allPassed);
    counter.classList.toggle("audit-fail", !view.allPassed);
  }

  // The instruments suite runs a family at a time, each once its widget's modules are loaded. Until
  // every family has run, the list shows the browser's result for those that ran and the build's for
  // the rest, the counter counts that list (data-source="partial") and the mark says which ran;
  // then the suite's own view, signature included, as one run of the whole suite gives.
  function showInstrumentAudit(view) {
    const counter = document.querySelector("[data-instrument-counter]");
    const list = document.querySelector("[data-instrument-checks]");
    const mark = document.querySelector("[data-instrument-mark]");
    if (!view.progress) {
      showCounter(counter, view);
      const signature = document.querySelector('[data-signature="instruments"]');
      if (signature) signature.textContent = view.signature;
      if (list) swapKeeping(list, view.checksHtml);  // escaped by lab/figures.py
      if (mark) mark.textContent = view.allPassed ? "\u2713 verified in this browser" : "re-run in this browser: see the failing checks";
      return;
    }
    if (list) mergeChecks(list, view.checksHtml);
    const shown = list ? [...list.querySelectorAll("li.check")] : [];
    const passed = shown.filter((item) => item.classList.contains("check-pass")).length;
    counter.textContent = `${passed}/${shown.length} instrument checks passed`;
    counter.dataset.source = "partial";
    counter.classList.toggle("audit-pass", passed === shown.length);
    counter.classList.toggle("audit-fail", passed !== shown.length);
    if (mark) mark.replaceChildren(`${view.progress}. `, runRestButton());
  }

  // After the seed audit, the instruments' counter says its checks re-run as the reader reaches each
  // instrument, with a button that reaches them all now.
  function showFamiliesPending() {
    const counter = document.querySelector("[data-instrument-counter]");
    const mark = document.querySelector("[data-instrument-mark]");
    if (!mark || !counter || counter.dataset.source !== "build") return;
    mark.replaceChildren("computed when this page was built; each instrument's checks re-run in this browser " +
                         "when you reach it. ", runRestButton());
  }
  function runRestButton() {
    const run = document.createElement("button");
    run.type = "button";
    run.dataset.action = "run-checks";
    run.textContent = "Re-run the rest now";
    run.addEventListener("click", () => { for (const form of document.querySelectorAll("form[data-family]")) queueFamily(form.dataset.lab); });
    return run;
  }

  // The browser's checks of the families that ran take the places of the build's (each keeps its
  // description); a check the build did not list (a failed signature value) joins the end.
  function mergeChecks(list, markup) {
    const fresh = document.createElement("div");
    fresh.innerHTML = markup;  // escaped by lab/figures.py
    const ordered = list.querySelector("ol") || list;
    for (const item of fresh.querySelectorAll("li.check")) {
      const old = [...ordered.querySelectorAll("li.check")].find((li) => li.dataset.check === item.dataset.check);
      const description = old?.querySelector(":scope > .check-description");
      const slot = item.querySelector(":scope > .check-description");
      if (description && slot && !slot.hasChildNodes()) slot.replaceWith(description);
      if (old) old.replaceWith(item); else ordered.append(item);
    }
  }

  // A widget the reader nears (within REACH_MARGIN) or touches gets its lab modules, its Python module
  // imported (warm) and, for an instrument, its family of checks queued: a reader who never scrolls
  // to an instrument never pays for it, and one who does finds it loaded.
  const familyQueue = [];
  let familiesRunning = null;
  let seedAuditDone = null;  // resolves once the seed audit has run (the families wait for it)
  // <html data-lab-reached>: the widgets reached so far, space-separated; present (maybe empty) once
  // widgets can be reached (tests and the benchmark wait for it). Written here alone.
  function markReached() {
    root.dataset.labReached = [...reached].join(" ");
  }
  function reach(kind) {
    if (reached.has(kind) || page.failed || !formOf(kind)) return;
    reached.add(kind);
    markReached();
    call("request", { kind, op: "warm" }, REQUEST_TIMEOUT_MS).catch(() => { reached.delete(kind); });
    redrawForWidth(kind);
    // <html data-instrument-suite="manual"> (set before boot; the test harness sets it for tests that never
    // read the instruments counter): reaching a widget does not queue its family, so no suite run competes
    // with the page's renders; the counter's "Re-run the rest now" still runs them all
    if (root.dataset.instrumentSuite !== "manual") queueFamily(kind);
  }
  // An instrument's family of checks, queued once: its request loads the widget's modules first
  // (not its data files, which only the widget's own requests fetch).
  const familiesQueued = new Set();
  function queueFamily(kind) {
    if (familiesQueued.has(kind) || page.failed || !formOf(kind) || !("family" in formOf(kind).dataset)) return;
    if (!document.querySelector("[data-instrument-counter]")) return;
    familiesQueued.add(kind);
    familyQueue.push(kind);
    if (!familiesRunning) familiesRunning = runFamilies().catch((error) => fail(error.message)).finally(() => { familiesRunning = null; });
  }
  async function runFamilies() {
    await seedAuditDone;  // the seed audit runs first
    while (familyQueue.length && !page.failed) {
      const family = familyQueue.shift();
      // the widget's module first, as its own warm does, but not its data files (assets: false)
      await call("request", { kind: family, op: "warm", assets: false }, REQUEST_TIMEOUT_MS).catch(() => {});
      await runAudit({ kind: "audit", suite: "instruments", family, sliced: true }, "[data-instrument-counter]",
                     showInstrumentAudit);
    }
  }
  function reachOnApproach() {
    markReached();
    const forms = [...document.querySelectorAll("form[data-lab]")];
    for (const form of forms) {
      const widget = form.closest(".lab-widget") || form;
      for (const type of ["pointerdown", "focusin", "keydown"]) {
        widget.addEventListener(type, () => reach(form.dataset.lab), { passive: true });
      }
    }
    if (!("IntersectionObserver" in window)) { forms.forEach((form) => reach(form.dataset.lab)); return; }
    const kindOf = new Map(forms.map((form) => [form.closest(".lab-widget") || form, form.dataset.lab]));
    const observer = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer.unobserve(entry.target);
        reach(kindOf.get(entry.target));
      }
    }, { rootMargin: REACH_MARGIN });
    for (const target of kindOf.keys()) observer.observe(target);
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

  // Both counters: the seed audit re-runs at once, each instrument's family as its widget is reached.
  async function run() {
    let seedDone;
    seedAuditDone = new Promise((resolve) => { seedDone = resolve; });
    reachOnApproach();
    await runAudit({ kind: "audit", sliced: true }, "[data-audit-counter]", showAudit);
    showFamiliesPending();
    seedDone();
  }

  return { run };
};
