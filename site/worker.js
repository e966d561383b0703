// The lab's Web Worker: boots Pyodide, loads the `lab` package, answers view requests.
// It computes nothing itself; every number and every SVG comes from lab.views in Python.

let handle = null;
let pyodide = null;

// Data files a widget reads that are not part of the first load (the page config's dataAssets:
// kind -> [{url, path}]): fetched before that kind's first request and written where the lab
// reads them. A failed fetch is forgotten (the next request tries again) and the request goes on:
// the widget's view says what is missing.
let dataAssets = {};
const assetsLoaded = new Map();
function ensureAssets(kind) {
  const files = Object.hasOwn(dataAssets, kind) ? dataAssets[kind] : null;
  if (!files || !pyodide) return Promise.resolve();
  if (!assetsLoaded.has(kind)) {
    assetsLoaded.set(kind, Promise.all(files.map(async ({ url, path }) => {
      const response = await fetch(new URL(url, self.location.href).href);
      if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
      const bytes = new Uint8Array(await response.arrayBuffer());
      pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")) || "/");
      pyodide.FS.writeFile(path, bytes);
    })).catch(() => { assetsLoaded.delete(kind); }));
  }
  return assetsLoaded.get(kind);
}

// Boot progress: every response fetched while booting is cloned and its clone read as it
// arrives, so the page can say how many bytes have come in (and keep waiting while they do).
// The original response goes to Pyodide untouched.
// At most one report per PROGRESS_EVERY_MS (and one when a response ends): each report is a task
// and a repaint on the page's main thread, which competes with the runtime's compilation for the
// cores while the worker boots.
const PROGRESS_EVERY_MS = 100;
let received = 0;
let reportedAt = -Infinity;
function reportProgress(final = false) {
  const now = performance.now();
  if (!final && now - reportedAt < PROGRESS_EVERY_MS) return;
  reportedAt = now;
  self.postMessage({ type: "progress", payload: { received } });
}
function countBytes(response) {
  if (!response.body) return response;
  const reader = response.clone().body.getReader();
  (function pump() {
    reader.read().then(({ done, value }) => {
      if (done) { reportProgress(true); return; }
      received += value.byteLength;
      reportProgress();
      pump();
    }, () => {});
  })();
  return response;
}

// The lab arrives in pieces (sitebuild/labsplit.py): the core at boot, then each chunk a widget
// needs (its form's data-modules; the page asks for each chunk once, in a "load" message, and
// waits for it before that widget's requests). A chunk is fetched once (one promise per chunk,
// kept) and unpacked beside the core; a failed fetch is forgotten, so the next load tries again.
// labChunks (chunk URL -> its modules) lets an import that misses (a core function that only some
// settings reach, such as a curve the ledger is asked for) load its chunk and the request run again.
let labChunks = {};
let labHome = ".";  // where the core was unpacked (on sys.path)
const chunksLoaded = new Map();
// The path finders forget their directory listings, so a module a chunk just wrote is found even
// when its directory was listed in the same clock tick. Not importlib.invalidate_caches(): in
// Python 3.14 that also imports importlib.metadata, which the site's trimmed standard library
// leaves out, so it raised after unpacking and every chunk's load was reported failed.
const FORGET_LISTINGS = "import sys\n[finder.invalidate_caches() for finder in list(sys.path_importer_cache.values())" +
  " if hasattr(finder, 'invalidate_caches')]";
function loadChunk(url) {
  if (!chunksLoaded.has(url)) {
    chunksLoaded.set(url, (async () => {
      const response = await fetch(new URL(url, self.location.href).href);
      if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
      // beside the core, wherever the working directory has moved since
      pyodide.unpackArchive(new Uint8Array(await response.arrayBuffer()), "zip", { extractDir: labHome });
      pyodide.runPython(FORGET_LISTINGS);
    })().catch((error) => { chunksLoaded.delete(url); throw error; }));
  }
  return chunksLoaded.get(url);
}
// Every chunk asked for, each settled (unpacked or failed) before the answer: the first failure is
// reported only once none is still in flight, so the page never runs a request beside a chunk
// still arriving.
async function loadChunks(urls) {
  const asked = (Array.isArray(urls) ? urls : []).filter((url) => typeof url === "string");
  const failure = (await Promise.allSettled(asked.map(loadChunk))).find((result) => result.status === "rejected");
  if (failure) throw failure.reason;
}
// The module an import missed: "No module named 'a.b'", or "cannot import name 'b' from 'a'" (a
// `from . import b` whose file has not arrived).
function missingModule(error) {
  const named = /^ModuleNotFoundError: No module named '([\w.]+)'/.exec(error || "");
  if (named) return named[1];
  const from = /^ImportError: cannot import name '(\w+)' from '([\w.]+)'/.exec(error || "");
  return from ? `${from[2]}.${from[1]}` : null;
}
function chunkOf(error) {
  const missing = missingModule(error);
  if (!missing) return null;
  return Object.keys(labChunks).find((chunk) => labChunks[chunk].includes(missing)) || null;
}
// One request to the lab; an import that missed a module of a chunk loads that chunk (or waits
// for it, if it is on its way) and asks again, once per chunk.
async function answer(payload) {
  const tried = new Set();
  for (;;) {
    const reply = JSON.parse(handle(JSON.stringify(payload)));
    const url = chunkOf(reply && reply.error);
    if (!url || tried.has(url)) return reply;
    tried.add(url);
    try {
      await loadChunk(url);
    } catch {
      return reply;  // the chunk did not come: the view's error stands, and its Retry asks again
    }
  }
}

async function boot(paths) {
  const started = performance.now();
  // Paths in the page config are relative to the site root, where this worker lives.
  const pyodideIndexURL = new URL(paths.pyodideIndexURL, self.location.href).href;
  const labZipURL = new URL(paths.labZipURL, self.location.href).href;
  const realFetch = self.fetch;
  self.fetch = (...args) => realFetch(...args).then(countBytes);
  // The site's trimmed standard library (only what start-up, the lab and error reporting import);
  // without one, Pyodide's full python_stdlib.zip from the runtime directory.
  const stdLibURL = paths.stdlibURL ? new URL(paths.stdlibURL, self.location.href).href : undefined;
  // Fetch the lab while the runtime boots: the two downloads overlap.
  const labZip = self.fetch(labZipURL).then((response) => {
    if (!response.ok) throw new Error(`lab package: HTTP ${response.status}`);
    return response.arrayBuffer();
  });
  const { loadPyodide } = await import(`${pyodideIndexURL}pyodide.mjs`);
  dataAssets = paths.dataAssets && typeof paths.dataAssets === "object" ? paths.dataAssets : {};
  labChunks = paths.labChunks && typeof paths.labChunks === "object" ? paths.labChunks : {};
  try {
    // The page config's package index (no packages: the lab is standard library only) saves the
    // fetch of the runtime's pyodide-lock.json; without one, Pyodide fetches it.
    const lock = paths.pyodideLock && typeof paths.pyodideLock === "object" ? { lockFileContents: paths.pyodideLock } : {};
    pyodide = await loadPyodide({ indexURL: pyodideIndexURL, stdLibURL, ...lock });
  } finally {
    self.fetch = realFetch;
  }
  pyodide.unpackArchive(new Uint8Array(await labZip), "zip");
  labHome = pyodide.FS.cwd();
  handle = pyodide.pyimport("lab.views").handle;
  return { bootMs: performance.now() - started, python: pyodide.runPython("import sys; sys.version.split()[0]") };
}

self.addEventListener("message", async (event) => {
  const { id, type, payload } = event.data || {};
  try {
    if (type === "boot") {
      self.postMessage({ id, type: "ready", payload: await boot(payload) });
    } else if (type === "load") {
      if (!handle) throw new Error("the lab is not loaded yet");
      await loadChunks(payload && payload.urls);
      self.postMessage({ id, type: "response", payload: { loaded: true } });
    } else if (type === "request") {
      if (!handle) throw new Error("the lab is not loaded yet");
      if (!(payload && payload.assets === false)) await ensureAssets(payload && payload.kind);
      const started = performance.now();
      const reply = await answer(payload);
      const pythonMs = performance.now() - started;  // reported so the page can show where time goes
      self.postMessage({ id, type: "response", payload: reply, pythonMs });
    }
  } catch (error) {
    self.postMessage({ id, type: "error", payload: { message: String(error && error.message || error) } });
  }
});
