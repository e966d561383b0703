// Minify the site's scripts with the pinned terser (package-lock.json), for sitebuild/jsmin.py.
// stdin: {"files": [{"name": "app.js", "code": "...", "module": false}, ...]}
// stdout: {"files": [{"name": "app.js", "code": "...", "map": "..."}, ...]}
import { readFileSync } from "node:fs";
import { minify } from "terser";

const { files } = JSON.parse(readFileSync(0, "utf8"));
const out = [];
for (const { name, code, module } of files) {
  const result = await minify({ [name]: code }, {
    module,            // a module's top level is private to it; a classic script's names are globals
    ecma: 2020,
    compress: { passes: 2 },
    mangle: true,
    format: { comments: false },
    sourceMap: { includeSources: true },
  });
  out.push({ name, code: result.code, map: result.map });
}
process.stdout.write(JSON.stringify({ files: out }));
