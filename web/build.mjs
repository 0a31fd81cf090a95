// Bundles the front end into one folder the aiprof server serves: index.html, app.js (an ES
// module: the shell and the timeline), the other views as chunks app.js imports when they
// are opened, and app.css. Usage: node build.mjs <out dir>   (CMake passes build/web).
//
// Why chunks: uPlot (two thirds of the code) creates Intl formatters when its module is
// evaluated, and a fresh renderer's first Intl formatter loads ICU data (0.05-0.2 s here).
// Only the chart views need it, so the timeline's first frame does not wait for it.
import { build } from "esbuild";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] ?? join(here, "dist");
mkdirSync(out, { recursive: true });
// Chunk names carry a content hash: drop the previous build's so the server serves only these.
for (const name of readdirSync(out)) if (name.endsWith(".js")) rmSync(join(out, name));

const result = await build({
  entryPoints: { app: join(here, "src/main.ts") },
  bundle: true,
  splitting: true,
  format: "esm",
  minify: true,
  sourcemap: false,
  target: ["chrome100", "firefox100", "safari15"],
  outdir: out,
  chunkNames: "chunk-[hash]",
  logLevel: "warning",
  metafile: true,
});
const css =
  readFileSync(join(here, "node_modules/uplot/dist/uPlot.min.css"), "utf8") +
  "\n" +
  readFileSync(join(here, "src/style.css"), "utf8");
writeFileSync(join(out, "app.css"), css);
// app.js imports the chunks it shares with the views (the API client, formatting): preloading
// them from the page fetches them beside app.js instead of after it.
const [, app] = Object.entries(result.metafile.outputs).find(([path]) => basename(path) === "app.js");
const shared = app.imports;
const preloads = shared
  .filter((i) => i.kind === "import-statement")
  .map((i) => `    <link rel="modulepreload" href="${basename(i.path)}" />\n`)
  .join("");
const page = readFileSync(join(here, "src/index.html"), "utf8");
writeFileSync(join(out, "index.html"), page.replace("  </head>", `${preloads}  </head>`));
