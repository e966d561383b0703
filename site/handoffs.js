"use strict";
// Hand-offs between widgets (send, send-all, pull, resend), copy buttons and local files read in slices.
// A part of the page's script (site/app.js starts it once the document is parsed, with what of
// app.js it uses; `page.failed` and `page.booted` are read at use, as they change). It knows no widget
// by name: it acts on markup attributes.

(self.labParts ||= {}).handoffs = (page) => {
  const { REQUEST_TIMEOUT_MS, call, controls, figureWidth, formOf, formValues, openChanged, queries, render, restoreControl, schedulerFor, send, showLocalNotes, showValue, widgetOf } = page;

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

  // The texts are written once, on the page's first origin line (templates/partials/_summary.html.j2).
  function showOrigin(origin) {
    const { state, changed, stale } = origin.dataset;
    const texts = document.querySelector("[data-origin][data-sent]")?.dataset || origin.dataset;
    const key = state + (stale ? "Stale" : "") + (changed ? "Changed" : "");
    const text = texts[key] || texts[state + (changed ? "Changed" : "")] || "";
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
          await page.booted;
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

  return { markChanged, markOrigin, markStale, wireChunkedFiles, wireCopyButtons, wireSendButtons };
};
