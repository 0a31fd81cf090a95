// `aiprof ui` on a large run, in headless Chromium: generates the export bench's synthetic
// raw data (bench_export --generate-only), then measures
//   server ready   spawn of `aiprof ui` → URL printed (model loaded + LOD index built)
//   memory         server RSS vs the model's size (/api/run counts.model_bytes)
//   first frame    navigation start → first timeline frame drawn with data
//   frames         draw time of pan (A/D) and zoom (W/S) frames at full zoom-out and deep zoom
//   fetch          /api/slices latency for the visible tracks at both zooms
//   node bench/ui/bench_ui.mjs <build dir> [--events=N] [--dir=PATH] [--keep]
import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const require = createRequire(new URL("../../web/package.json", import.meta.url));
const { chromium } = require("playwright-core");

const build = resolve(process.argv[2] ?? "build");
const option = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback;
const events = Number(option("events", "10000000"));
const dir = option("dir", join(tmpdir(), `aiprof_bench_ui_${process.pid}`));
const keep = process.argv.includes("--keep");

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)];
const rssKb = (pid, field) =>
  Number(readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`${field}:\\s+(\\d+)`))[1]);

const generated = spawnSync(join(build, "bin/bench_export"), [`--events=${events}`, `--dir=${dir}`, "--generate-only"], { encoding: "utf8" });
if (generated.status !== 0) throw new Error(`bench_export: ${generated.stderr}`);
process.stdout.write(generated.stdout);

const started = performance.now();
const server = spawn(join(build, "bin/aiprof"), ["ui", dir, "--no-browser", "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise((resolveUrl, reject) => {
  let out = "";
  server.stdout.on("data", (d) => {
    out += d;
    const match = out.match(/serving (http:\/\/\S+)/);
    if (match) resolveUrl(match[1]);
  });
  server.on("exit", (code) => reject(new Error(`aiprof ui exited ${code}`)));
});
const readySeconds = (performance.now() - started) / 1000;
const readyRss = rssKb(server.pid, "VmRSS");

const browser = await chromium.launch({ executablePath: process.env.AIPROF_CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox"] });
try {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  await page.goto(`${url}#timeline`);
  await page.waitForSelector('#view[data-ready="1"]', { timeout: 120000 });
  await page.waitForFunction(() => window.__aiprofTimeline?.firstDataFrameAt > 0);
  const firstFrameMs = await page.evaluate(() => window.__aiprofTimeline.firstDataFrameAt);
  const run = await page.evaluate(() => fetch("/api/run").then((r) => r.json()));
  await page.click("#timeline-canvas", { position: { x: 800, y: 5 } });

  async function frames(label) {
    await page.evaluate(() => (window.__aiprofTimeline.frames.length = 0));
    for (let i = 0; i < 20; i++) {
      await page.keyboard.press(i % 2 ? "a" : "d");
      await page.keyboard.press(i % 2 ? "s" : "w");
    }
    await page.waitForTimeout(500);
    const times = await page.evaluate(() => [...window.__aiprofTimeline.frames]);
    const fetch = await page.evaluate(async () => {
      const [t0, t1] = window.__aiprofTimeline.window();
      const layout = await (await fetch("/api/tracks")).json();
      const ids = layout.processes.flatMap((p) => p.threads.flatMap((t) => t.tracks.map((k) => k.id)));
      const begin = performance.now();
      const body = await (await fetch(`/api/slices?t0=${Math.floor(t0)}&t1=${Math.ceil(t1)}&px=4000&tracks=${ids.join(",")}`)).text();
      return { ms: performance.now() - begin, bytes: body.length };
    });
    console.log(`${label}: ${times.length} frames, draw median ${median(times).toFixed(2)} ms, p95 ${p95(times).toFixed(2)} ms, max ${Math.max(...times).toFixed(2)} ms; /api/slices ${fetch.ms.toFixed(0)} ms, ${(fetch.bytes / 1024).toFixed(0)} KiB`);
  }
  await frames("full zoom-out");
  await page.evaluate(() => {
    const [t0, t1] = window.__aiprofTimeline.window();
    const mid = (t0 + t1) / 2;
    window.__aiprofTimeline.setWindow(mid, mid + 50000);  // 50 µs
  });
  await page.waitForTimeout(1500);
  await frames("deep zoom (50 µs)");
  const peak = rssKb(server.pid, "VmHWM");
  const model = run.counts.model_bytes;
  console.log(`data: ${run.counts.slices} slices, ${run.counts.counter_samples} counter samples, ${run.counts.records} records`);
  console.log(`server ready: ${readySeconds.toFixed(2)} s (model loaded + index built)`);
  console.log(`first timeline frame: ${firstFrameMs.toFixed(0)} ms after navigation start`);
  console.log(`memory: model ${(model / 2 ** 20).toFixed(0)} MiB, LOD index ${(run.counts.index_bytes / 2 ** 20).toFixed(0)} MiB, server RSS ${(readyRss / 1024).toFixed(0)} MiB at ready, peak ${(peak / 1024).toFixed(0)} MiB = ${((peak * 1024) / model).toFixed(2)}x the model`);
} finally {
  await browser.close();
  server.kill("SIGTERM");
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
