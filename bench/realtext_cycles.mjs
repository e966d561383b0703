// One speculative decoding cycle on real text, and the widget's view over a plan of slider steps,
// timed in Pyodide under Node (the page's runtime, without a browser around it):
// node bench/realtext_cycles.mjs LAB_ZIP MODEL_ZIP [STDLIB_ZIP [PLAN_JSON]]
// Prints one JSON object: the cycle and view times in ms and what was run. PLAN_JSON: a list of
// [slider name, value] steps (bench/realtext.py makes it as the browser bench plans its steps).
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [labZip, modelZip, stdlibZip, planJson] = process.argv.slice(2);
if (!labZip || !modelZip) {
  process.stderr.write("usage: node realtext_cycles.mjs LAB_ZIP MODEL_ZIP [STDLIB_ZIP]\n");
  process.exit(2);
}
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const indexDir = resolve(repo, "node_modules", "pyodide");
const { loadPyodide } = await import(pathToFileURL(resolve(indexDir, "pyodide.mjs")).href);
const options = { indexURL: indexDir + "/" };
if (stdlibZip && stdlibZip !== "-") options.stdLibURL = resolve(stdlibZip);
const pyodide = await loadPyodide(options);
pyodide.unpackArchive(new Uint8Array(readFileSync(labZip)), "zip");
const path = pyodide.runPython("import lab.realtext; lab.realtext.MODEL_DATA_PATH");
pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
pyodide.FS.writeFile(path, new Uint8Array(readFileSync(modelZip)));
const cpuBefore = process.cpuUsage();
const out = pyodide.runPython(`
import json, time
from random import Random
from lab import realtext
started = time.perf_counter()
model = realtext.default_model()
load_ms = (time.perf_counter() - started) * 1000
times = []
settings = []
for preset, (_, prompt) in realtext.PRESETS.items():
    for proposer, temperature in (("draft", 1.0), ("draft", 0.7), ("ngram", 0.0)):
        rng = Random(1)
        tokens = model.tokenizer.encode(prompt)
        for _ in range(40):
            t = time.perf_counter()
            cycle = realtext.run_cycle(model, proposer, tokens, 5, temperature, rng)
            times.append((time.perf_counter() - t) * 1000)
            tokens.extend(cycle["committed"])
        settings.append(f"{preset}/{proposer}/T={temperature}")
json.dumps({"cycleMs": times, "modelLoadMs": load_ms, "lookahead": 5, "settings": settings})
`);
// Process CPU time over the cycles (model load included), per cycle: on a shared machine the
// wall-clock times above include waiting for a core; this does not.
const cpu = process.cpuUsage(cpuBefore);
// The widget's view (the Python of one request), after its first render: each slider step of the
// plan from the default settings on, then Step through the default run, one verifier call a request.
pyodide.globals.set("plan_json", planJson ? readFileSync(planJson, "utf8") : "[]");
pyodide.runPython("from lab.widgets import realtext as widget; widget.view(None)");
const cpuViews = process.cpuUsage();
const views = pyodide.runPython(`
import json, time
from lab.widgets import realtext as widget
state = {}
view_ms = []
for name, value in json.loads(plan_json):
    state[name] = value
    query = "&".join(f"{key}={state[key]}" for key in state)
    t = time.perf_counter()
    widget.view(query)
    view_ms.append((time.perf_counter() - t) * 1000)
step_ms = []
for step in range(1, widget.MAX_WIDGET_TOKENS + 1):
    t = time.perf_counter()
    answer = widget.view(f"rtStep={step}")
    step_ms.append((time.perf_counter() - t) * 1000)
    if answer.get("complete"):
        break
json.dumps({"viewMs": view_ms, "stepMs": step_ms})
`);
const cpuOfViews = process.cpuUsage(cpuViews);
const result = { ...JSON.parse(out), ...JSON.parse(views) };
result.cpuMsPerCycle = (cpu.user + cpu.system) / 1000 / result.cycleMs.length;
result.cpuMsPerView = (cpuOfViews.user + cpuOfViews.system) / 1000 / (result.viewMs.length + result.stepMs.length);
process.stdout.write(JSON.stringify(result) + "\n");
