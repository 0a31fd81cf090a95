// What the slow timeline frames are: records a Chrome trace (playwright-core's
// browser.startTracing) while bench_ui's pan/zoom frames are drawn on a large run, and
// prints per draw (each draw() is a user-timing measure in the trace) its wall time, the
// renderer main thread's CPU time in the task around it, the garbage collections inside it,
// and for the slowest draws how much CPU Chromium's other threads took meanwhile: a draw whose
// wall time is far above its CPU time waited for a core that another process held.
//   node bench/ui/trace_frames.mjs <build dir> [--events=N] [--frames=N] [--web-dir=DIR]
//                                  [--slow=MS] [--out=trace.json]
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generate, openTimeline, option, quantile, startUi } from "./ui_session.mjs";

const events = Number(option("events", "10000000"));
const frameCount = Number(option("frames", "120"));
const webDir = option("web-dir", "");
const slow = Number(option("slow", "4"));
const out = option("out", "");
const dir = join(tmpdir(), `aiprof_trace_frames_${process.pid}`);

generate(events, dir);
const { child: server, address: url } = await startUi(dir, webDir);
let trace;
let browser;
try {
  let page;
  ({ browser, page } = await openTimeline(url));
  await page.click("#timeline-canvas", { position: { x: 800, y: 5 } });
  await page.evaluate(() => {
    const frames = window.__aiprofTimeline.frames;
    const push = frames.push.bind(frames);
    frames.push = (ms) => {
      const end = performance.now();
      performance.measure(`draw ${ms}`, { start: end - ms, end });
      return push(ms);
    };
  });
  await browser.startTracing(page, { categories: ["devtools.timeline", "v8", "v8.gc", "blink.user_timing", "toplevel"] });
  const press = async () => {
    for (let i = 0; i < frameCount / 2; i++) {
      await page.keyboard.press(i % 2 ? "a" : "d");
      await page.keyboard.press(i % 2 ? "s" : "w");
    }
    await page.waitForTimeout(500);
  };
  await press();
  const run = await page.evaluate(() => fetch("/api/run").then((r) => r.json()));
  await page.evaluate(({ steps, end }) => {
    const begin = steps.length ? [...steps].sort((a, b) => a[1] - b[1])[Math.floor(steps.length / 2)][1] : end / 2;
    window.__aiprofTimeline.setWindow(begin, begin + 50000);
  }, { steps: run.steps, end: run.end });
  await page.waitForTimeout(1500);
  await press();
  trace = JSON.parse((await browser.stopTracing()).toString());
  if (out) writeFileSync(out, JSON.stringify(trace));
} finally {
  await browser?.close();
  server.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
}

const all = trace.traceEvents;
const threadName = new Map();
for (const e of all) if (e.ph === "M" && e.name === "thread_name") threadName.set(`${e.pid}:${e.tid}`, e.args.name);
const nameOf = (e) => threadName.get(`${e.pid}:${e.tid}`) ?? `${e.pid}:${e.tid}`;
const draws = [];
const begins = new Map();
for (const e of all) {
  if (!e.name?.startsWith("draw ")) continue;
  const id = e.id2?.local ?? e.id;
  if (e.ph === "b") begins.set(id, e);
  else if (e.ph === "e" && begins.has(id)) draws.push({ ms: Number(e.name.slice(5)), ts: begins.get(id).ts, end: e.ts });
}
draws.sort((a, b) => a.ts - b.ts);
const complete = all.filter((e) => e.ph === "X" && e.tdur !== undefined);
const main = complete.filter((e) => nameOf(e) === "CrRendererMain");
const isGc = (e) => e.name === "MinorGC" || e.name === "MajorGC";
// Per thread, its outermost events: the CPU they took without counting nested ones twice.
const outermost = [];
const byThread = new Map();
for (const e of complete) {
  if (!byThread.has(nameOf(e))) byThread.set(nameOf(e), []);
  byThread.get(nameOf(e)).push(e);
}
for (const [thread, list] of byThread) {
  list.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  let end = -1;
  for (const e of list) {
    if (e.ts < end) continue;
    outermost.push({ thread, ts: e.ts, dur: e.dur, tdur: e.tdur });
    end = e.ts + e.dur;
  }
}
const rows = draws.map((d) => {
  const around = main.filter((e) => e.ts <= d.ts + 50 && e.ts + e.dur >= d.end - 50).sort((a, b) => a.dur - b.dur)[0];
  const gcs = main.filter((e) => isGc(e) && e.ts >= d.ts && e.ts < d.end);
  const gc = gcs.reduce((sum, e) => sum + e.dur / 1000, 0);
  return { ...d, cpu: around ? around.tdur / 1000 : NaN, gc, gcKinds: [...new Set(gcs.map((e) => e.name))].join("+") };
});
const summary = (xs) => `median ${quantile(xs, 0.5).toFixed(2)}, p95 ${quantile(xs, 0.95).toFixed(2)}, p99 ${quantile(xs, 0.99).toFixed(2)}, max ${Math.max(...xs).toFixed(2)} ms`;
console.log(`${rows.length} draws; wall: ${summary(rows.map((r) => r.ms))}`);
const cpus = rows.map((r) => r.cpu).filter((c) => !Number.isNaN(c));
console.log(`renderer main thread CPU of the task around each draw (${cpus.length} found): ${summary(cpus)}`);
console.log(`draws with a GC inside: ${rows.filter((r) => r.gc > 0).length}, GC time in them ${rows.reduce((s, r) => s + r.gc, 0).toFixed(1)} ms, longest ${Math.max(...rows.map((r) => r.gc)).toFixed(2)} ms`);
rows.forEach((r, i) => {
  if (r.ms < slow) return;
  const busy = new Map();
  for (const e of outermost) {
    const overlap = Math.min(e.ts + e.dur, r.end) - Math.max(e.ts, r.ts);
    if (overlap > 0 && e.dur > 0) busy.set(e.thread, (busy.get(e.thread) ?? 0) + ((e.tdur / e.dur) * overlap) / 1000);
  }
  const others = [...busy].filter(([t]) => t !== "CrRendererMain").sort((a, b) => b[1] - a[1]).slice(0, 3);
  console.log(`draw #${i}: wall ${r.ms.toFixed(1)} ms, task CPU ${r.cpu.toFixed(1)} ms, GC ${r.gc.toFixed(1)} ms${r.gcKinds ? ` (${r.gcKinds})` : ""}; meanwhile ${others.map(([t, c]) => `${t} ${c.toFixed(1)}`).join(", ")} ms CPU`);
});
