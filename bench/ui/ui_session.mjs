// The set-up bench_ui.mjs and trace_frames.mjs share: their command line, the synthetic raw
// data (bench_export --generate-only), `aiprof ui` started on it, its API's token, and a
// headless Chromium on the timeline until the first frame with data is drawn.
import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

const require = createRequire(new URL("../../web/package.json", import.meta.url));
const { chromium } = require("playwright-core");

// argv[2] is the build directory; `--name=value` options, `fallback` where absent.
export const build = resolve(process.argv[2] ?? "build");
export const option = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback;

export const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(Math.floor(xs.length * q), xs.length - 1)];

// Writes `count` synthetic records into `into`; returns bench_export's report.
export function generate(count, into) {
  const made = spawnSync(join(build, "bin/bench_export"), [`--events=${count}`, `--dir=${into}`, "--generate-only"], { encoding: "utf8" });
  if (made.status !== 0) throw new Error(`bench_export: ${made.stderr}`);
  return made.stdout;
}

// `aiprof ui` on `into` (serving the front end in `webDir` when given), once it prints its URL.
export async function startUi(into, webDir = "") {
  const child = spawn(join(build, "bin/aiprof"), ["ui", into, "--no-browser", "--port", "0", ...(webDir ? ["--web-dir", resolve(webDir)] : [])], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return { child, address: await servingAddress(child, "aiprof ui") };
}

// The URL a started `aiprof ui` prints once it serves (rejects if `what` exits first).
export function servingAddress(child, what) {
  return new Promise((resolveUrl, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const match = out.match(/serving (http:\/\/\S+)/);
      if (match) resolveUrl(match[1]);
    });
    child.on("exit", (code) => reject(new Error(`${what} exited ${code}`)));
  });
}

// An API path of the server at `address`, with the token its URL carries (fetches from outside
// the page need it).
export function apiUrl(address, path) {
  const url = new URL(path, address);
  url.searchParams.set("token", new URL(address).searchParams.get("token"));
  return url;
}

// A fresh browser (as a user's first page would have) on the timeline of `address`, returned
// once the page is ready and its first frame with data is drawn.
export async function openTimeline(address) {
  const browser = await chromium.launch({ executablePath: process.env.AIPROF_CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    await page.goto(`${address}#timeline`);
    await page.waitForSelector('#view[data-ready="1"]', { timeout: 120000 });
    await page.waitForFunction(() => window.__aiprofTimeline?.firstDataFrameAt > 0, null, { timeout: 120000 });
    return { browser, page };
  } catch (error) {
    await browser.close();
    throw error;
  }
}
