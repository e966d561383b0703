// Compile a stdlib zip's modules with the npm Pyodide, for sitebuild/stdlib_compile.py.
//   node sitebuild/stdlib_compile.mjs CODE  < source.zip  > compiled.zip
// CODE is Python: it reads /tmp/source.zip and writes /tmp/compiled.zip in Pyodide's file system.
// PYTHONNODEBUGRANGES=1 makes compile() leave out the column tables (see stdlib_compile.py);
// it has to be set before the interpreter starts, so it goes in loadPyodide's environment.
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const code = process.argv[2];
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const indexDir = resolve(repo, "node_modules", "pyodide");
const { loadPyodide } = await import(pathToFileURL(resolve(indexDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: indexDir + "/", env: { HOME: "/", PYTHONNODEBUGRANGES: "1" } });
pyodide.setStderr({ batched: (line) => process.stderr.write(line + "\n") });
// stdin read as a stream: readFileSync(0) fails with EAGAIN on a pipe bigger than its buffer
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
pyodide.FS.writeFile("/tmp/source.zip", new Uint8Array(Buffer.concat(chunks)));
try {
  pyodide.runPython(code);
} catch (err) {
  process.stderr.write(String(err.message ?? err) + "\n");
  process.exit(1);
}
process.stdout.write(pyodide.FS.readFile("/tmp/compiled.zip"));
