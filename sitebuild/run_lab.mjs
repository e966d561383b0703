// Run Python under the npm Pyodide in Node with a lab zip unpacked, printing Python's stdout.
//   node sitebuild/run_lab.mjs LAB_ZIP [CODE]     (CODE from stdin when omitted)
// PYODIDE_STDLIB=path/to/stdlib.zip loads that standard library (the site's trimmed one) instead
// of the distribution's python_stdlib.zip, exactly as the page's worker does with stdLibURL.
// Exit 1 with the Python traceback on stderr if the code raises.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [zipPath, codeArg] = process.argv.slice(2);
if (!zipPath) {
  process.stderr.write("usage: node run_lab.mjs LAB_ZIP [CODE]\n");
  process.exit(2);
}
const code = codeArg ?? readFileSync(0, "utf8");

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const indexDir = process.env.PYODIDE_DIR ?? resolve(repo, "node_modules", "pyodide");
const { loadPyodide } = await import(pathToFileURL(resolve(indexDir, "pyodide.mjs")).href);

const options = { indexURL: indexDir + "/" };
if (process.env.PYODIDE_STDLIB) options.stdLibURL = resolve(process.env.PYODIDE_STDLIB);
const pyodide = await loadPyodide(options);
pyodide.setStdout({ batched: (line) => process.stdout.write(line + "\n") });
pyodide.setStderr({ batched: (line) => process.stderr.write(line + "\n") });
// unpackArchive wants a typed array; a Node Buffer is rejected.
pyodide.unpackArchive(new Uint8Array(readFileSync(zipPath)), "zip");
try {
  await pyodide.runPythonAsync(code);
} catch (err) {
  process.stderr.write(String(err.message ?? err) + "\n");
  process.exit(1);
}
