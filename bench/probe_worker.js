// Benchmark-only probe (copied into the benchmark's temporary build, never into the site):
// boots Pyodide and the lab exactly as site/worker.js does, timing each phase, then runs the
// Python probe the benchmark sends and posts its JSON report back.
self.onmessage = async ({ data }) => {
  try {
    const t0 = performance.now();
    const marks = {};
    const labZip = fetch(data.labZipURL).then((r) => {
      if (!r.ok) throw new Error(`lab zip: HTTP ${r.status}`);
      return r.arrayBuffer();
    });
    const { loadPyodide } = await import(`${data.pyodideIndexURL}pyodide.mjs`);
    marks.importLoaderMs = performance.now() - t0;
    const pyodide = await loadPyodide({ indexURL: data.pyodideIndexURL, stdLibURL: data.stdLibURL });
    marks.loadPyodideMs = performance.now() - t0;
    const buffer = await labZip;
    const t1 = performance.now();
    pyodide.unpackArchive(new Uint8Array(buffer), "zip");
    marks.unpackMs = performance.now() - t1;
    marks.bootMs = performance.now() - t0;
    // the seed audit's modules, which the page loads once live (not in the core): the probe renders
    // the exact sampler and runs the audit, both of which import them
    const t3 = performance.now();
    for (const url of data.auditURLs || []) {
      const r = await fetch(url);
      if (!r.ok) throw new Error(`lab chunk: HTTP ${r.status}`);
      pyodide.unpackArchive(new Uint8Array(await r.arrayBuffer()), "zip");
    }
    marks.auditModulesMs = performance.now() - t3;
    const t2 = performance.now();
    const report = JSON.parse(pyodide.runPython(data.python));
    marks.probeMs = performance.now() - t2;
    self.postMessage({ ok: true, marks, report });
  } catch (error) {
    self.postMessage({ ok: false, message: String((error && error.message) || error) });
  }
};
