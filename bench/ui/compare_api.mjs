// The same run served by two `aiprof ui` binaries: every answer below compared byte for byte,
// for a change that must leave them as they were (a memory or speed change of the server or
// of the analyses it reads). Answers: the run, the tracks, the analyses the Overview and its
// views read (analysis, advice, overlap, data preparation, communication, memory), the critical
// path (its summary; the pieces of the first, sixth and last steps; its lane over the whole run,
// one pixel, three steps, a 50 µs window inside the middle step and windows that cut steps;
// the what-ifs: none, data loading free, the top operator 50% faster, communication
// overlapped, compute 30% faster with the slowest rank at the median), slices and range
// statistics of a window. `ms` of Query answers is the only field that may differ; no Query is
// asked. Prints each path with "same" or where the answers first differ; exit 1 on any difference.
//   node bench/ui/compare_api.mjs <run dir> <reference aiprof> <aiprof>
import { spawn } from "node:child_process";
import { apiUrl, servingAddress } from "./ui_session.mjs";

const [dir, reference, candidate] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
if (!candidate) {
  console.error("usage: node bench/ui/compare_api.mjs <run dir> <reference aiprof> <aiprof>");
  process.exit(2);
}

async function get(url, path) {
  const response = await fetch(apiUrl(url, path));
  return `${response.status} ${await response.text()}`;
}

// The paths, from the reference's answers about the run and its steps.
async function pathsOf(url) {
  const run = JSON.parse((await get(url, "/api/run")).slice(4));
  const path = JSON.parse((await get(url, "/api/critical_path")).slice(4));
  const end = run.end;
  const steps = path.steps;
  const paths = ["/api/run", "/api/tracks", "/api/analysis", "/api/advice", `/api/overlap?t0=0&t1=${end}&px=2000`,
    "/api/dataprep", "/api/communication", "/api/memory?px=2000", "/api/critical_path"];
  const last = steps.length - 1;
  for (const step of [0, 5, last]) if (step >= 0 && step <= last) paths.push(`/api/critical_path/segments?step=${step}`);
  const lane = (t0, t1, px) => `/api/critical_path/lane?t0=${Math.floor(t0)}&t1=${Math.ceil(t1)}&px=${px}`;
  paths.push(lane(0, end, 2000), lane(0, end, 1));
  if (steps.length > 0) {
    // Steps of several threads may share their times: the middle one and the second after it
    // that starts later.
    const byBegin = [...steps].sort((a, b) => a.begin - b.begin);
    const middle = byBegin[Math.floor(byBegin.length / 2)];
    const later = byBegin.filter((s) => s.begin >= middle.begin + middle.duration);
    const third = later[Math.min(later.length - 1, 1)] ?? middle;
    const thirdEnd = third.begin + third.duration;
    paths.push(lane(middle.begin, thirdEnd, 1600));
    paths.push(lane(middle.begin, middle.begin + 50000, 1600));
    paths.push(lane(middle.begin + middle.duration / 2, third.begin + third.duration / 2, 800));
    paths.push(lane(middle.begin + middle.duration / 3, middle.begin + (2 * middle.duration) / 3, 3));
    const layout = JSON.parse((await get(url, "/api/tracks")).slice(4));
    const ids = layout.processes.flatMap((p) => p.threads.flatMap((t) => t.tracks.map((k) => k.id)));
    paths.push(`/api/slices?t0=${middle.begin}&t1=${middle.begin + 3000}&px=1000&tracks=${ids.join(",")}`);
    paths.push(`/api/range?t0=${middle.begin}&t1=${middle.begin + 3000}`);
  }
  const operator = path.what_ifs.find((w) => w.kind === "operator_faster")?.target;
  paths.push("/api/what_if", "/api/what_if?loader=1", "/api/what_if?comm=1", "/api/what_if?cat0_pct=30&rank=1");
  if (operator) paths.push(`/api/what_if?op=${encodeURIComponent(operator)}&op_pct=50`);
  return paths;
}

async function answers(binary, paths) {
  const child = spawn(binary, ["ui", dir, "--no-browser", "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const url = await servingAddress(child, `${binary} ui`);
    const wanted = paths ?? (await pathsOf(url));
    const bodies = [];
    for (const path of wanted) bodies.push(await get(url, path));
    return { paths: wanted, bodies };
  } finally {
    child.kill("SIGTERM");
    await new Promise((done) => child.on("exit", done));
  }
}

const before = await answers(reference);
const after = await answers(candidate, before.paths);
let differences = 0;
before.paths.forEach((path, i) => {
  const [a, b] = [before.bodies[i], after.bodies[i]];
  if (a === b) {
    console.log(`same       ${path} (${a.length} bytes)`);
    return;
  }
  ++differences;
  let at = 0;
  while (at < a.length && a[at] === b[at]) ++at;
  console.log(`DIFFERENT  ${path} at byte ${at}: ${JSON.stringify(a.slice(Math.max(0, at - 40), at + 60))} vs ${JSON.stringify(b.slice(Math.max(0, at - 40), at + 60))}`);
});
console.log(`${before.paths.length - differences} of ${before.paths.length} answers the same`);
process.exit(differences ? 1 : 0);
