"use strict";
// Steppers: Play / Step / Stop on one control of a widget's form.
// A part of the page's script (site/app.js starts it once the document is parsed, with what of
// app.js it uses; `page.failed` and `page.booted` are read at use, as they change). It knows no widget
// by name: it acts on markup attributes.

(self.labParts ||= {}).steppers = (page) => {
  const { render, widgetOf } = page;

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
    if (page.failed) return;
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
        if (button.disabled || page.failed) return;
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
        entry.timer = setTimeout(() => { if (playing.has(id) && !page.failed) setStep(control, Number(control.value) + 1); },
                                 entry.interval);
      }
    });
    refreshSteppers(form);
  }

  return { announceNow, lastLive, refreshSteppers, wireSteppers };
};
