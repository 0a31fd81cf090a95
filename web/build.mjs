// Bundles the front end into one folder the aiprof server serves: index.html, app.js,
// app.css. Usage: node build.mjs <out dir>   (CMake passes build/web).
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] ?? join(here, "dist");
mkdirSync(out, { recursive: true });

await build({
  entryPoints: [join(here, "src/main.ts")],
  bundle: true,
  minify: true,
  sourcemap: false,
  target: ["chrome100", "firefox100", "safari15"],
  outfile: join(out, "app.js"),
  logLevel: "warning",
});
const css =
  readFileSync(join(here, "node_modules/uplot/dist/uPlot.min.css"), "utf8") +
  "\n" +
  readFileSync(join(here, "src/style.css"), "utf8");
writeFileSync(join(out, "app.css"), css);
copyFileSync(join(here, "src/index.html"), join(out, "index.html"));
