// `aiprof ui`'s start and memory without a browser, so that the server's own work can be told
// from the machine's load: on a run already on disk, per start of each binary given (runs
// alternated between them, so that a before/after pair sees the same load)
//   ready      spawn → URL printed (parse + LOD index), wall, and the process's user + system
//              CPU time at that moment (/proc/<pid>/stat)
//   memory     RSS at ready and the peak (VmHWM) once /api/advice has answered (the analyses
//              and the advice done), against the model (/api/run counts.model_bytes)
//   load       the 1-minute load average before and after each start
// Prints each start and the medians per binary.
//   node bench/ui/bench_ui_start.mjs <run dir> <aiprof binary>... [--runs=N]
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { apiUrl, option, quantile, servingAddress } from "./ui_session.mjs";

const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const [dir, ...binaries] = args;
const runs = Number(option("runs", "3"));
const ticksPerSecond = 100;  // USER_HZ on Linux

const status = (pid, field) => Number(readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`${field}:\\s+(\\d+)`))[1]);
const cpuSeconds = (pid) => {
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
};
const load = () => Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
const MiB = (kb) => kb / 1024;

async function start(binary) {
  const loadBefore = load();
  const began = performance.now();
  const child = spawn(binary, ["ui", dir, "--no-browser", "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const address = await servingAddress(child, `${binary} ui`);
  const wall = (performance.now() - began) / 1000;
  const cpu = cpuSeconds(child.pid);
  const readyKb = status(child.pid, "VmRSS");
  await fetch(apiUrl(address, "/api/advice")).then((r) => r.text());
  const analysed = (performance.now() - began) / 1000 - wall;
  const peakKb = status(child.pid, "VmHWM");
  const run = await fetch(apiUrl(address, "/api/run")).then((r) => r.json());
  const modelKb = run.counts.model_bytes / 1024;
  child.kill("SIGTERM");
  await new Promise((done) => child.on("exit", done));
  return { wall, cpu, readyKb, peakKb, modelKb, analysed, load: [loadBefore, load()] };
}

const results = new Map(binaries.map((b) => [b, []]));
for (let i = 0; i < runs; i++) {
  for (const binary of binaries) {
    const r = await start(binary);
    results.get(binary).push(r);
    console.log(
      `${binary}: ready ${r.wall.toFixed(2)} s wall, ${r.cpu.toFixed(2)} s CPU; RSS at ready ${MiB(r.readyKb).toFixed(1)} MiB = ${(r.readyKb / r.modelKb).toFixed(3)}x, ` +
        `peak ${MiB(r.peakKb).toFixed(1)} MiB = ${(r.peakKb / r.modelKb).toFixed(3)}x (model ${MiB(r.modelKb).toFixed(1)} MiB); analyses and advice ${r.analysed.toFixed(2)} s after ready; load ${r.load.join(" → ")}`,
    );
  }
}
for (const [binary, rs] of results) {
  const median = (f) => quantile(rs.map(f), 0.5);
  console.log(
    `median of ${rs.length}, ${binary}: ready ${median((r) => r.wall).toFixed(2)} s wall, ${median((r) => r.cpu).toFixed(2)} s CPU; ` +
      `at ready ${median((r) => r.readyKb / r.modelKb).toFixed(3)}x, peak ${median((r) => r.peakKb / r.modelKb).toFixed(3)}x; ` +
      `load ${Math.min(...rs.flatMap((r) => r.load))}–${Math.max(...rs.flatMap((r) => r.load))}`,
  );
}
