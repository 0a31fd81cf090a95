// `aiprof ui` on a large run, in headless Chromium: generates the export bench's synthetic
// raw data (bench_export --generate-only), then measures
//   server ready   spawn of `aiprof ui` → URL printed (model loaded + LOD index built)
//   memory         server RSS vs the model's size (/api/run counts.model_bytes); the peak is
//                  read once /api/advice has answered (the analyses and the advice are done)
//                  and /api/critical_path too (the path the Overview and the lane show)
//   first frame    navigation start → first timeline frame drawn with data (with the page's
//                  performance marks: script started, /api/run answered, layout, data), and the same for a
//                  --baseline-events run (default 100,000) started the same way just before:
//                  the browser's own cost on this machine at this load, which the 10 M figure
//                  should approach
//   frames         draw time of --frames pan (A/D) and zoom (W/S) frames (default 120) at full
//                  zoom-out and at deep zoom, then as many panning right at deep zoom (new data
//                  every ~10 frames): median, p95, p99 and max, and the slowest frames with
//                  whether new data had just arrived (the first frame drawn from an answer)
//   fetch          /api/slices latency for the visible tracks at both zooms
//   node bench/ui/bench_ui.mjs <build dir> [--events=N] [--baseline-events=N] [--frames=N]
//                              [--web-dir=DIR] [--dir=PATH] [--keep]
// --web-dir serves another build of the front end (aiprof ui --web-dir): a before/after
// comparison of two front ends on one server binary, back to back.
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiUrl, generate, openTimeline, option, quantile, startUi } from "./ui_session.mjs";

const events = Number(option("events", "10000000"));
const baselineEvents = Number(option("baseline-events", "100000"));
const dir = option("dir", join(tmpdir(), `aiprof_bench_ui_${process.pid}`));
const frameCount = Number(option("frames", "120"));
const webDir = option("web-dir", "");
const keep = process.argv.includes("--keep");

const rssKb = (pid, field) =>
  Number(readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`${field}:\\s+(\\d+)`))[1]);

// A fresh browser each time, as a user's first page would have.
async function firstFrame(address) {
  const { browser, page } = await openTimeline(address);
  // The page's own marks (web/src/main.ts, views/timeline.ts) say where the time went.
  const steps = await page.evaluate(() =>
    performance.getEntriesByType("mark").map((m) => `${m.name.replace("aiprof:", "")} ${m.startTime.toFixed(0)}`).join(", "),
  );
  return { browser, page, steps, ms: await page.evaluate(() => window.__aiprofTimeline.firstDataFrameAt) };
}

const baselineDir = `${dir}_baseline`;
generate(baselineEvents, baselineDir);
const baseline = await startUi(baselineDir, webDir);
const baselineFrame = await firstFrame(baseline.address);
await baselineFrame.browser.close();
baseline.child.kill("SIGTERM");
rmSync(baselineDir, { recursive: true, force: true });

process.stdout.write(generate(events, dir));
const started = performance.now();
const { child: server, address: url } = await startUi(dir, webDir);
const readySeconds = (performance.now() - started) / 1000;
const readyRss = rssKb(server.pid, "VmRSS");
const sinceReady = () => (performance.now() - started) / 1000 - readySeconds;
// The analyses start when the server is ready, on a thread at the lowest priority;
// /api/advice answers when they and the advice are done.
const analysed = fetch(apiUrl(url, "/api/advice")).then((r) => r.text()).then(sinceReady);

const { browser, page, steps: firstFrameSteps, ms: firstFrameMs } = await firstFrame(url);
try {
  const run = await page.evaluate(() => fetch("/api/run").then((r) => r.json()));
  await page.click("#timeline-canvas", { position: { x: 800, y: 5 } });

  const modeStarts = [];
  // Which frames drew an answer first: the count of answers at each frame.
  await page.evaluate(() => {
    const timeline = window.__aiprofTimeline;
    timeline.fetchesAtFrame = [];
    const push = timeline.frames.push.bind(timeline.frames);
    timeline.frames.push = (ms) => (timeline.fetchesAtFrame.push(timeline.fetches), push(ms));
  });
  // Alternating pan (A/D) and zoom (W/S) stays inside the cached window; `sweep` pans right
  // only, leaving the cache every ~10 frames, so that frames draw answers just arrived.
  async function frames(label, sweep = false) {
    modeStarts.push(sinceReady());
    await page.evaluate(() => {
      window.__aiprofTimeline.frames.length = 0;
      window.__aiprofTimeline.fetchesAtFrame.length = 0;
    });
    const fetchesBefore = await page.evaluate(() => window.__aiprofTimeline.fetches);
    for (let i = 0; i < frameCount / 2; i++) {
      await page.keyboard.press(sweep || i % 2 === 0 ? "d" : "a");
      await page.keyboard.press(sweep ? "d" : i % 2 ? "s" : "w");
    }
    await page.waitForTimeout(500);
    const { times, fetchesAt } = await page.evaluate(() => ({
      times: [...window.__aiprofTimeline.frames],
      fetchesAt: window.__aiprofTimeline.fetchesAtFrame,
    }));
    const fresh = times.map((_, i) => fetchesAt[i] !== (i ? fetchesAt[i - 1] : fetchesBefore));
    const slowest = times
      .map((ms, i) => ({ ms, i }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 5)
      .map(({ ms, i }) => `#${i} ${ms.toFixed(1)}${fresh[i] ? " (new data)" : ""}`);
    const fetch = await page.evaluate(async () => {
      const [t0, t1] = window.__aiprofTimeline.window();
      const layout = await (await fetch("/api/tracks")).json();
      const ids = layout.processes.flatMap((p) => p.threads.flatMap((t) => t.tracks.map((k) => k.id)));
      const begin = performance.now();
      const body = await (await fetch(`/api/slices?t0=${Math.floor(t0)}&t1=${Math.ceil(t1)}&px=4000&tracks=${ids.join(",")}`)).text();
      return { ms: performance.now() - begin, bytes: body.length };
    });
    const f = (q) => quantile(times, q).toFixed(2);
    console.log(`${label}: ${times.length} frames (${fresh.filter(Boolean).length} with new data), draw median ${f(0.5)} ms, p95 ${f(0.95)} ms, p99 ${f(0.99)} ms, max ${Math.max(...times).toFixed(2)} ms; slowest ${slowest.join(", ")}; /api/slices ${fetch.ms.toFixed(0)} ms, ${(fetch.bytes / 1024).toFixed(0)} KiB`);
  }
  await frames("full zoom-out");
  // 50 µs from the start of the middle step, where slices are (the middle of the run may
  // fall in a gap between steps); the middle of the run when there are no steps.
  await page.evaluate(({ steps, end }) => {
    const begin = steps.length ? [...steps].sort((a, b) => a[1] - b[1])[Math.floor(steps.length / 2)][1] : end / 2;
    window.__aiprofTimeline.setWindow(begin, begin + 50000);
  }, { steps: run.steps, end: run.end });
  await page.waitForTimeout(1500);
  await frames("deep zoom (50 µs)");
  await frames("deep zoom, panning right", true);
  // The peak counts only once the analyses and the advice are done, and the critical path
  // the Overview and the timeline's lane show (solved on first use) with them.
  const analysedSeconds = await analysed;
  const criticalPathSeconds = await fetch(apiUrl(url, "/api/critical_path")).then((r) => r.text()).then(sinceReady);
  const peak = rssKb(server.pid, "VmHWM");
  const model = run.counts.model_bytes;
  console.log(`data: ${run.counts.slices} slices, ${run.counts.counter_samples} counter samples, ${run.counts.records} records`);
  console.log(`server ready: ${readySeconds.toFixed(2)} s (model loaded + index built)`);
  console.log(`analyses and advice done: ${analysedSeconds.toFixed(2)} s after ready (at the lowest priority, beside the page load and the frames; modes started ${modeStarts.map((t) => t.toFixed(1)).join(", ")} s after ready)`);
  console.log(`critical path solved: ${criticalPathSeconds.toFixed(2)} s after ready`);
  console.log(`first timeline frame: ${firstFrameMs.toFixed(0)} ms after navigation start (a ${baselineEvents}-record run just before: ${baselineFrame.ms.toFixed(0)} ms)`);
  console.log(`first page steps (ms after navigation start): ${firstFrameSteps}`);
  console.log(`memory: model ${(model / 2 ** 20).toFixed(1)} MiB, LOD index ${(run.counts.index_bytes / 2 ** 20).toFixed(0)} MiB, server RSS ${(readyRss / 1024).toFixed(0)} MiB at ready, peak ${(peak / 1024).toFixed(1)} MiB = ${((peak * 1024) / model).toFixed(3)}x the model`);
} finally {
  await browser.close();
  server.kill("SIGTERM");
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
