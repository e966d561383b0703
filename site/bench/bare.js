// Cold-start baseline for the benchmark: boot the self-hosted Pyodide core and nothing else.
// One file plays both roles so the bare page needs a single hashed script (CSP forbids inline JS):
// on the page it starts itself as a module worker; in the worker it loads Pyodide and reports.
if (typeof document !== "undefined") {
  const config = JSON.parse(document.getElementById("bench-config").textContent);
  // Resolve against the page so the worker gets an absolute URL whatever its own location.
  const indexURL = new URL(config.pyodideIndexURL, document.baseURI).href;
  const worker = new Worker(import.meta.url, { type: "module" });
  worker.onmessage = ({ data }) => {
    if (data.type === "ready") {
      // Page clock (ms since navigation start); the worker's own clock has a different origin.
      document.body.dataset.ready = performance.now().toFixed(1);
      document.body.dataset.boot = data.bootMs.toFixed(1);
      document.body.dataset.python = data.python;
      document.getElementById("status").textContent = `Pyodide ready after ${document.body.dataset.ready} ms`;
    } else {
      document.body.dataset.error = data.message;
      document.getElementById("status").textContent = `Pyodide failed: ${data.message}`;
    }
  };
  worker.postMessage({ indexURL });
} else {
  self.onmessage = async ({ data }) => {
    try {
      const t0 = performance.now();
      const { loadPyodide } = await import(`${data.indexURL}pyodide.mjs`);
      const pyodide = await loadPyodide({ indexURL: data.indexURL });
      const python = pyodide.runPython("import sys; '%d.%d.%d' % sys.version_info[:3]");
      if (pyodide.runPython("1 + 1") !== 2) throw new Error("1 + 1 != 2");
      self.postMessage({ type: "ready", now: performance.now(), bootMs: performance.now() - t0, python });
    } catch (err) {
      self.postMessage({ type: "error", message: String(err && err.message || err) });
    }
  };
}
