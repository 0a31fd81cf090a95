// End-to-end test of `aiprof ui` in headless Chromium (playwright-core driving Debian's
// chromium): profiles the sample training job, starts the UI on it, opens every view,
// checks that there are no console errors, that the numbers shown equal the exported CSVs',
// that the timeline zooms, pans and finds a slice by name, that its ruler's ticks print the
// digits their step needs, and (on ui_e2e_fixture's run, which has operators, allocations and
// kernels) that the Operators, Kernels and Memory tables equal op_statistic and
// operator_memory_top, the Advice view advice.json's findings, and the Compare view
// (`--compare`) the top regression `aiprof compare` finds; on a 4-rank gloo job
// (ui_e2e_fixture --cluster) the Communication view equals each rank's communication.json and
// draws the rank × step heatmap, and on a 2-rank send/recv job (--p2p) the matrix equals
// communication_matrix.json; on examples/train sampled with --sys-cpu-profiling=on the CPU
// view's flame graph holds cpu_stacks.folded's total and zooms on a click. The timeline's
// navigation (timeline_checks.mjs), Resources and Query (views_checks.mjs) are checked on
// examples/train, the links from question to evidence on the DataLoader-bound PyTorch run of
// issue 29 (links_checks.mjs). Screenshots land in <build>/web-e2e/ (test artifacts).
//   node e2e/ui_e2e.mjs <build dir>
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { checkTorchLinks } from "./links_checks.mjs";
import { aiprof, artifacts, build, check, counts, findChromium, findExport, openView, readCsv, rowsByTitle, run, startUi, stopUi, work } from "./support.mjs";
import { checkTimelineNavigation } from "./timeline_checks.mjs";
import { checkQuery, checkResources } from "./views_checks.mjs";

// A multi-rank job ui_e2e_fixture writes (`flag`: --cluster, --p2p) into <work>/<flag's name>,
// exported, served, and its Communication view opened (screenshot `shot`); `checks(parent)`
// then reads the page.
async function withCommunicationFixture(page, flag, shot, checks) {
  const parent = join(work, flag.slice(2));
  run(join(build, "bin/ui_e2e_fixture"), [parent, flag]);
  run(aiprof, ["export", `--output=${parent}`]);
  const { child, url } = await startUi(parent);
  try {
    await openView(page, url, "communication", shot, { fullPage: true });
    await checks(parent);
  } finally {
    await stopUi(page, child);
  }
}

// The timeline after a link was followed: its selected slice and the details' name.
async function openedOnTimeline(page) {
  await page.waitForSelector('#view[data-view="timeline"][data-ready="1"]', { timeout: 20000 }).catch(() => {});
  await page.waitForFunction(() => (window.__aiprofTimeline?.selected ?? -1) >= 0, null, { timeout: 10000 }).catch(() => {});
  const selected = await page.evaluate(() => window.__aiprofTimeline?.selected ?? -1);
  const name = await page.textContent("#timeline-details-name").catch(() => "");
  return { selected, name: name ?? "" };
}

// Ruler labels "<value> <unit>" read well when there are at least two, in one unit with the
// same decimals (two at most), one step apart, and that step is 1, 2 or 5 of the last decimal
// printed (a coarser step would not need it), or whole seconds.
function ticksReadWell(labels) {
  const parsed = labels.map((label) => label.match(/^(\d+)(?:\.(\d+))? (ns|µs|ms|s)$/));
  if (labels.length < 2 || parsed.some((m) => !m)) return false;
  const decimals = parsed[0][2]?.length ?? 0;
  const unit = parsed[0][3];
  if (decimals > 3 || parsed.some((m) => m[3] !== unit || (m[2]?.length ?? 0) !== decimals)) return false;
  const lastDigits = parsed.map((m) => Number(m[1] + (m[2] ?? "")));
  const step = lastDigits[1] - lastDigits[0];
  const even = lastDigits.every((v, i) => v - lastDigits[0] === i * step);
  // With decimals the step is 1, 2 or 5 in the last digit (no digit the step does not need);
  // without, 1, 2 or 5 times a power of ten.
  const mantissa = decimals > 0 || step <= 0 ? step : step / 10 ** Math.floor(Math.log10(step));
  return even && [1, 2, 5].includes(mantissa);
}

// Operators, Kernels and Memory on a run that has them: examples/train records no framework
// operators, allocations or kernels, so ui_e2e_fixture writes a PROF_* directory with torch
// operators, allocator events and CUDA kernels (the CUDA source's records, written by a test
// double: no GPU here). Each table must show the numbers of the CSV `aiprof export` writes.
async function checkTablesEqualCsvs(page) {
  const parent = join(work, "fixture");
  const prof = run(join(build, "bin/ui_e2e_fixture"), [parent]).trim();
  run(aiprof, ["export", `--output=${prof}`]);
  const opStatistic = readCsv(findExport(prof, /^op_statistic_\d+\.csv$/));
  const apiStatistic = readCsv(findExport(prof, /^api_statistic_\d+\.csv$/)).filter((r) => r.Level === "Framework");
  const memoryTop = readCsv(findExport(prof, /^operator_memory_top\.csv$/));
  const { child, url } = await startUi(parent);
  const open = (view) => openView(page, url, view, `${view}-fixture`, { timeout: 15000 });
  const cellsOf = (selector) =>
    page.$$eval(`${selector} tr`, (rows) => rows.slice(1).map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent)));
  try {
    check("fixture exports op_statistic", opStatistic.length > 0, `${opStatistic.length} rows`);
    // Kernels: the device tasks, op_statistic's rows and numbers on a GPU run.
    await open("kernels");
    const kernels = await rowsByTitle(page, "#kernels-table");
    check("kernels: one row per op_statistic row", kernels.length === opStatistic.length, `${kernels.length} vs ${opStatistic.length}`);
    const timeColumns = ["Count", "Total Time(us)", "Min Time(us)", "Avg Time(us)", "Max Time(us)"];
    const kernelMismatches = opStatistic.filter((csv) => {
      const row = kernels.find((r) => r["Device_id"] === csv["Device_id"] && r["OP Type"] === csv["OP Type"] && r["Core Type"] === csv["Core Type"]);
      return !row || timeColumns.some((c) => row[c] !== csv[c]) || Math.abs(Number(row["Ratio(%)"]) - Number(csv["Ratio(%)"])) > 5e-5 ||
        row["Self Time(us)"] !== csv["Total Time(us)"];  // kernels do not nest
    });
    check("kernels numbers equal op_statistic CSV (self = total)", kernelMismatches.length === 0, JSON.stringify(kernelMismatches.slice(0, 2)));
    // A kernel's name opens its longest call on the timeline, selected.
    const kernelLink = await page.$("#kernels-table a[data-timeline-link]");
    const kernelName = kernelLink ? await kernelLink.textContent() : "";
    if (kernelLink) await kernelLink.click();
    const openedKernel = await openedOnTimeline(page);
    check("a kernel's name opens its longest call on the timeline", !!kernelLink && openedKernel.selected >= 0 && openedKernel.name === kernelName, JSON.stringify({ kernelName, openedKernel }));
    // Operators: the framework operators, api_statistic's Framework rows on a GPU run, with
    // self time beside total (aten::linear calls aten::addmm: its self is the rest).
    await open("operators");
    const operators = await rowsByTitle(page, "#operators-table");
    check("operators: one row per api_statistic Framework row", operators.length === apiStatistic.length && operators.length > 0, `${operators.length} vs ${apiStatistic.length}`);
    const pairs = [["Count", "Count"], ["Total Time(us)", "Time(us)"], ["Min Time(us)", "Min(us)"], ["Avg Time(us)", "Avg(us)"], ["Max Time(us)", "Max(us)"]];
    const operatorMismatches = apiStatistic.filter((csv) => {
      const row = operators.find((r) => r["OP Type"] === csv["API Name"]);
      return !row || pairs.some(([ui, file]) => row[ui] !== csv[file]);
    });
    check("operators numbers equal api_statistic's Framework rows", operatorMismatches.length === 0, JSON.stringify(operatorMismatches.slice(0, 2)));
    const linear = operators.find((r) => r["OP Type"] === "aten::linear");
    const addmm = operators.find((r) => r["OP Type"] === "aten::addmm");
    check("operators: self time is the total less the nested operators'", !!linear && !!addmm &&
      Math.abs(Number(linear["Self Time(us)"]) - (Number(linear["Total Time(us)"]) - Number(addmm["Total Time(us)"]))) < 1e-3, JSON.stringify([linear, addmm]));
    check("fixture exports operator_memory_top", memoryTop.length > 0, `${memoryTop.length} rows`);
    await open("memory");
    const titles = await page.$$eval(".chart .u-title", (list) => list.map((t) => t.textContent));
    check("memory: charts are titled by pool, role and pid", titles.length > 0 && titles.every((t) => / · main · pid \d+/.test(t)), titles.join(" | "));
    const units = await page.$$eval(".chart[data-unit]", (list) => list.map((c) => `${c.dataset.unit} / ${c.dataset.timeUnit}`));
    check("memory: axes in the units the values fit (KiB allocations over a run of ms)", units.some((u) => u.startsWith("KiB")) && units.every((u) => u.endsWith("ms since start")), units.join());
    const shown = await cellsOf("#memory-operators");
    check("memory: one row per operator_memory_top row", shown.length === memoryTop.length, `${shown.length} vs ${memoryTop.length}`);
    const columns = ["Name", "Pool", "Allocations", "Allocated(B)", "Max Allocation(B)", "Freed(B)"];
    const mismatches = memoryTop.filter((csv, i) => columns.some((c, k) => shown[i]?.[k] !== csv[c]));
    check("memory top operators equal operator_memory_top CSV", mismatches.length === 0, JSON.stringify([mismatches[0], shown[0]]));

    // Advice: the triggered findings, in the order of the advice.json the export wrote.
    const adviceJson = JSON.parse(readFileSync(findExport(prof, /^advice\.json$/), "utf8"));
    await open("advice");
    const rules = await page.$$eval("#advice-findings [data-rule]", (cards) => cards.map((c) => c.getAttribute("data-rule")));
    const expected = adviceJson.findings.filter((f) => f.status === "triggered").map((f) => f.rule);
    check("advice lists advice.json's triggered findings in order", JSON.stringify(rules) === JSON.stringify(expected), `${rules} vs ${expected}`);
    await open("compare");
    check("compare without --compare says what it needs", !!(await page.$("#compare-missing")));
  } finally {
    await stopUi(page, child);
  }

  // Compare: the same job with gemm_kernel 200 µs slower per call (3 calls) is the top
  // kernel regression, by the figure `aiprof compare` writes to compare_kernels.csv.
  const slower = join(work, "fixture_slower");
  const slowerProf = run(join(build, "bin/ui_e2e_fixture"), [slower, "--gemm-us=400"]).trim();
  const compareDir = join(work, "compare_out");
  run(aiprof, ["compare", prof, slowerProf, `--output-path=${compareDir}`]);
  const compareKernels = readCsv(findExport(compareDir, /^compare_kernels.*\.csv$/));
  const compared = await startUi(slower, ["--compare", parent]);
  try {
    await openView(page, compared.url, "compare", "compare");
    const kernels = await cellsOf("#compare-kernels");
    check("compare: gemm_kernel is the top kernel regression", kernels[0]?.[0] === "gemm_kernel", JSON.stringify(kernels[0]));
    check("compare: its diff is 3 × 200 µs", kernels[0]?.[7] === "600.000", JSON.stringify(kernels[0]));
    const csvRow = compareKernels.find((r) => Object.values(r).includes("gemm_kernel"));
    const diffColumn = csvRow && Object.keys(csvRow).find((k) => /^Diff Total/.test(k));
    check("compare: the diff equals compare_kernels.csv", !!diffColumn && csvRow[diffColumn] === kernels[0]?.[7], JSON.stringify(csvRow));
  } finally {
    await stopUi(page, compared.child);
  }
}

// Communication: four ranks' PROF_* directories (the cluster tests' writer) opened as one run.
// Every operation the table shows must carry the times and ratio of its rank's
// communication.json (`aiprof export` of the same directories), and the heatmap must be drawn.
async function checkCommunication(page) {
  await withCommunicationFixture(page, "--cluster", "communication-fixture", async (parent) => {
    check("communication: nothing missing with four ranks", !(await page.$("#communication-missing")));
    const shown = await rowsByTitle(page, "#communication-ops");
    const columns = ["Elapse Time(ms)", "Transit Time(ms)", "Wait Time(ms)", "Synchronization Time(ms)", "Idle Time(ms)", "Wait Time Ratio"];
    const mismatches = [];
    let compared = 0;
    let waiting = 0;
    for (const prof of readdirSync(parent).filter((d) => d.startsWith("PROF_"))) {
      const rank = String(Number(prof.match(/RANK(\d+)$/)[1]));
      const json = JSON.parse(readFileSync(findExport(join(parent, prof), /^communication\.json$/), "utf8"));
      for (const [stepKey, kinds] of Object.entries(json)) {
        const step = stepKey === "step" ? "—" : stepKey.slice(4);
        for (const ops of Object.values(kinds)) {
          for (const [key, op] of Object.entries(ops)) {
            if (key === "Total Op Info") continue;
            const [name, group] = key.split("@");
            const time = op["Communication Time Info"];
            const row = shown.find((r) => r.Operation === name && r.Group === group && r.Rank === rank && r.Step === step);
            compared++;
            if (time["Wait Time(ms)"] > 0) waiting++;
            if (!row || columns.some((c) => Number(row[c]) !== time[c])) mismatches.push({ rank, key, row, time });
          }
        }
      }
    }
    check("communication: one row per communication.json operation", compared > 0 && shown.length === compared, `${shown.length} vs ${compared}`);
    check("communication: the slow rank makes the others wait", waiting > 0, `${waiting} ops wait`);
    check("communication table equals communication.json", mismatches.length === 0, JSON.stringify(mismatches.slice(0, 2)));
    const heat = await page.evaluate(() => {
      const canvas = document.getElementById("communication-heatmap");
      const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      let coloured = 0;
      for (let i = 0; i < pixels.length; i += 4) if (pixels[i + 3] > 0 && pixels[i + 1] < 200) coloured++;
      return { cells: Number(canvas.dataset.cells), coloured };
    });
    check("communication heatmap: a cell per rank and step, drawn", heat.cells === 12 && heat.coloured > 0, JSON.stringify(heat));
    check("communication: the legend is shown", !!(await page.$("#communication-legend")));
    check("communication: no p2p, the matrix says so", !!(await page.$("#communication-matrix-missing")));
    // An operation opens its slice on the timeline; a rank (a slow rank's row) scrolls the
    // timeline to that rank's processes, their header in view.
    const opLink = await page.$("#communication-ops a[data-timeline-link]");
    const opHref = opLink ? await opLink.getAttribute("href") : "";
    const opSlice = Number(opHref.match(/sel=s(\d+)/)?.[1] ?? -1);  // the operation's own range
    if (opLink) await opLink.click();
    const openedOp = await openedOnTimeline(page);
    check("a communication operation opens on the timeline, selected", opSlice >= 0 && openedOp.selected === opSlice && /all_?reduce/i.test(openedOp.name), JSON.stringify({ opHref, openedOp }));
    await page.goBack();
    await page.waitForSelector("#communication-ops", { timeout: 20000 });
    const rankLinks = await page.$$("#communication-ops td:nth-child(3) a[data-timeline-link]");
    const rankLink = rankLinks[rankLinks.length - 1];
    const rank = rankLink ? Number(await rankLink.textContent()) : -1;
    if (rankLink) await rankLink.click();
    await page.waitForSelector('#view[data-view="timeline"][data-ready="1"]', { timeout: 20000 });
    const header = await page.evaluate(async (r) => {
      const tracks = await fetch("/api/tracks").then((x) => x.json());
      const process = (tracks.processes ?? tracks).find((p) => p.rank === r);
      const lane = process ? window.__aiprofTimeline.lane("process", process.id) : null;
      const canvas = document.getElementById("timeline-canvas");
      return { process: process?.id, lane, height: canvas?.clientHeight };
    }, rank);
    check("a rank opens the timeline at its processes", rank >= 0 && !!header.lane && header.lane.y >= 0 && header.lane.y < header.height, JSON.stringify({ rank, header }));
  });

  // The matrix: a 2-rank job with send/recv (ui_e2e_fixture --p2p). Every link of each rank's
  // communication_matrix.json (the per-operation selections; "-total" sums them) is a row.
  await withCommunicationFixture(page, "--p2p", "communication-p2p-fixture", async (pair) => {
    const rows = await rowsByTitle(page, "#communication-matrix");
    const mismatches = [];
    let links = 0;
    for (const prof of readdirSync(pair).filter((d) => d.startsWith("PROF_"))) {
      const json = JSON.parse(readFileSync(findExport(join(pair, prof), /^communication_matrix\.json$/), "utf8"));
      for (const [stepKey, kinds] of Object.entries(json)) {
        for (const selections of Object.values(kinds)) {
          for (const [selection, byLink] of Object.entries(selections)) {
            if (/-total@/.test(selection)) continue;
            const group = selection.split("@")[1];
            for (const [link, entry] of Object.entries(byLink)) {
              const [src, dst] = link.split("-");
              links++;
              const row = rows.find((r) => r["Op Name"] === entry["Op Name"] && r.Group === group && r.Src === src && r.Dst === dst && r.Step === stepKey.slice(4));
              const same = row && row["Transport Type"] === entry["Transport Type"] && Number(row["Transit Time(ms)"]) === entry["Transit Time(ms)"] &&
                Number(row["Transit Size(MB)"]) === entry["Transit Size(MB)"] && Math.abs(Number(row["Bandwidth(GB/s)"]) - entry["Bandwidth(GB/s)"]) < 5e-5;
              if (!same) mismatches.push({ prof, selection, link, entry, row });
            }
          }
        }
      }
    }
    check("communication matrix: rows for send/recv", rows.length === 6 && links > 0, `${rows.length} rows, ${links} links`);
    check("communication matrix equals communication_matrix.json", mismatches.length === 0, JSON.stringify(mismatches.slice(0, 2)));
  });
}

// The total weight of an exported .folded file ("root;...;leaf count" lines), 0 if none.
function foldedTotal(dir, pattern) {
  const path = findExport(dir, pattern);
  if (!path) return 0;
  return readFileSync(path, "utf8").trim().split("\n").filter(Boolean)
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
}

// CPU: examples/train sampled (--sys-cpu-profiling=on, perf_event). The flame graph's root
// must hold the exported cpu_stacks.folded's total (offcpu_stacks.folded's for Off-CPU), a
// click on a frame must zoom into it (it then spans the canvas) and Esc zoom back out.
async function checkCpu(page) {
  const out = join(work, "cpu");
  run(aiprof, [`--output=${out}`, "--sys-cpu-profiling=on", "--sys-cpu-freq=2000", join(build, "bin/examples/train"), "--steps=200"]);
  const prof = join(out, readdirSync(out).find((d) => d.startsWith("PROF_")));
  run(aiprof, ["export", `--output=${prof}`]);
  const onTotal = foldedTotal(prof, /^cpu_stacks_.*\.folded$/);
  const offTotal = foldedTotal(prof, /^offcpu_stacks_.*\.folded$/);
  const { child, url } = await startUi(out);
  try {
    await openView(page, url, "cpu", "cpu-sampled");
    check("cpu: the run has on-CPU samples", onTotal > 0, `${onTotal}`);
    const shown = await page.evaluate(() => ({ total: window.__aiprofCpu.total, drawn: window.__aiprofCpu.drawnFrames }));
    check("cpu: the root's value is cpu_stacks.folded's total", shown.total === onTotal, `${shown.total} vs ${onTotal}`);
    check("cpu: frames are drawn", shown.drawn > 1, `${shown.drawn}`);
    // The first frame under the root that is drawn.
    const target = await page.evaluate(() => {
      const cpu = window.__aiprofCpu;
      for (let node = 1; node < cpu.nodes; node++) {
        const center = cpu.frameCenter(node);
        if (center) return { node, center };
      }
      return null;
    });
    check("cpu: a frame under the root", !!target);
    if (target) {
      const canvas = await page.$("#cpu-flame");
      await canvas.click({ position: target.center });
      const zoomed = await page.evaluate(() => {
        const cpu = window.__aiprofCpu;
        const center = cpu.frameCenter(cpu.zoomed);
        return { node: cpu.zoomed, x: center?.x, width: document.getElementById("cpu-flame").clientWidth };
      });
      check("cpu: a click zooms into the frame", zoomed.node === target.node && Math.abs(zoomed.x - zoomed.width / 2) < 1, JSON.stringify({ target, zoomed }));
      await page.screenshot({ path: join(artifacts, "cpu-zoomed.png") });
      await page.keyboard.press("Escape");
      check("cpu: Esc zooms out to the root", (await page.evaluate(() => window.__aiprofCpu.zoomed)) === 0);
    }
    await page.fill("#cpu-search", "main");
    check("cpu: search says the matches' share", /^matches: \d+\.\d\d% of the total$/.test(await page.textContent("#cpu-search-share")));
    await page.click("#cpu-kind-off");
    await page.waitForFunction(() => window.__aiprofCpu.kind === "off");
    const off = await page.evaluate(() => window.__aiprofCpu.total);
    const offMissing = !!(await page.$("#cpu-missing"));
    check("cpu: off-CPU root is offcpu_stacks.folded's total (µs)", offTotal > 0 ? off === offTotal && !offMissing : offMissing, `${off} vs ${offTotal}`);
    await checkCpuThreads(page, onTotal, offTotal);
  } finally {
    await stopUi(page, child);
  }
}

// The thread selector (on the off-CPU graph when called): the threads' samples add up to the
// whole graph's; picking the thread with the fewest narrows the graph to its samples, and the
// choice stays when switching kinds.
async function checkCpuThreads(page, onTotal, offTotal) {
  const threads = await page.evaluate(() => window.__aiprofCpu.threads);
  const sampled = threads.filter((t) => t.on_samples > 0);
  check("cpu: the threads' samples add up to the total", sampled.reduce((sum, t) => sum + t.on_samples, 0) === onTotal, JSON.stringify(threads));
  check("cpu: the trainer and its data loader both have samples", sampled.length > 1, JSON.stringify(threads));
  check("cpu: threads are listed most samples first", threads.every((t, i) => i === 0 || threads[i - 1].on_samples >= t.on_samples));
  const pick = sampled[sampled.length - 1];
  if (!pick || sampled.length < 2) return;
  const shownFor = async (kind, thread) => {
    await page.waitForFunction(([k, t]) => window.__aiprofCpu.kind === k && window.__aiprofCpu.thread === t, [kind, thread]);
    return page.evaluate(() => window.__aiprofCpu.total);
  };
  await page.fill("#cpu-search", "");
  await page.click("#cpu-kind-on");
  await shownFor("on", -1);
  await page.selectOption("#cpu-thread", String(pick.thread));
  const picked = await shownFor("on", pick.thread);
  check("cpu: a thread's graph has its samples only", picked === pick.on_samples && picked < onTotal, `${picked} vs ${pick.on_samples} of ${onTotal}`);
  await page.screenshot({ path: join(artifacts, "cpu-thread.png") });
  await page.click("#cpu-kind-off");
  const blocked = await shownFor("off", pick.thread);
  check("cpu: the thread stays selected off-CPU, with its time blocked", blocked === pick.off_us && (await page.inputValue("#cpu-thread")) === String(pick.thread), `${blocked} vs ${pick.off_us}`);
  await page.selectOption("#cpu-thread", "-1");
  check("cpu: all threads again", (await shownFor("off", -1)) === offTotal, `vs ${offTotal}`);
}

async function main() {
  const out = join(work, "run");
  run(aiprof, [
    `--output=${out}`, "--msproftx=on", "--host-sys=cpu,mem", "--host-sys-usage=cpu,mem",
    "--host-sys-usage-freq=50", join(build, "bin/examples/train"), "--steps=60",
  ]);
  const prof = join(out, readdirSync(out).find((d) => d.startsWith("PROF_")));
  run(aiprof, ["export", `--output=${prof}`]);
  const stepCsv = findExport(prof, /^step_trace_\d+\.csv$/);  // not step_trace_time_*
  const { child, url } = await startUi(out);
  const browser = await chromium.launch({ executablePath: findChromium(), args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = [];
    // A refused query (the Query tab's check) is answered 400 on purpose; the browser logs it.
    page.on("console", (m) => m.type() === "error" && !(page.url().includes("#query") && m.text().includes("status of 400")) && errors.push(`${m.text()} (on ${page.url().replace(/token=\w+/, "token=…")})`));
    page.on("pageerror", (e) => errors.push(`${String(e)} (on ${page.url().replace(/token=\w+/, "token=…")})`));

    const views = ["overview", "timeline", "operators", "kernels", "memory", "resources", "communication", "cpu", "critical", "dataprep", "advice", "compare", "query"];
    for (const view of views) {
      const before = errors.length;
      await page.goto(`${url}#${view}`);
      await page.reload();  // a hash change alone does not reload; every view starts fresh
      await page.waitForSelector(`#view[data-view="${view}"][data-ready="1"]`, { timeout: 15000 }).catch(() => {});
      const ready = await page.getAttribute("#view", "data-ready");
      await page.screenshot({ path: join(artifacts, `${view}.png`) });
      check(`${view} view opens`, ready === "1", `data-ready=${ready}`);
      check(`${view} view has no console errors`, errors.length === before, errors.slice(before).join(" | "));
    }

    // Overview: the step table equals step_trace.csv.
    await page.goto(`${url}#overview`);
    await page.reload();
    await page.waitForSelector('#view[data-ready="1"]');
    check("step_trace CSV exported", !!stepCsv);
    if (stepCsv) {
      const csv = readCsv(stepCsv);
      const shown = await page.$$eval("#step-table tr", (rows) =>
        rows.slice(1).map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent)),
      );
      check("overview shows every step", shown.length === Math.min(csv.length, 200), `${shown.length} vs ${csv.length}`);
      const mismatches = shown.filter((row, i) =>
        row[0] !== csv[i]["Iteration ID"] ||
        row[1] !== csv[i]["Iteration Time(us)"] ||
        row[2] !== csv[i]["FP to BP Time(us)"] ||
        row[3] !== csv[i]["Iteration Refresh(us)"] ||
        row[4] !== csv[i]["Data Aug Bound(us)"],
      );
      check("overview step numbers equal step_trace CSV", mismatches.length === 0, JSON.stringify(mismatches.slice(0, 2)));
    }

    // Critical path: one row per step of critical_path_steps.csv, the step's path shown, and a
    // what-if answer (re-solved on the server) for "data loading free" equal to the CSV's.
    await page.goto(`${url}#critical`);
    await page.reload();
    await page.waitForSelector('#view[data-ready="1"]');
    // The critical path is not in the default export: `aiprof analyze --critical-path` writes it.
    run(aiprof, ["analyze", `--output=${prof}`, "--critical-path"]);
    const pathCsv = join(prof, "aiprof_output", "analysis", "critical_path_steps.csv");
    const pathRows = readCsv(pathCsv);
    const pathShown = await page.$$eval("#critical-steps tr", (rows) => rows.length - 1);
    check("critical path: one row per critical_path_steps.csv step", pathShown === Math.min(pathRows.length, 1000), `${pathShown} vs ${pathRows.length}`);
    const pieces = await page.$$eval("#critical-segments tr", (rows) => rows.length - 1);
    check("critical path: the first step's path is shown", pieces > 0, `${pieces} pieces`);
    await page.check("#whatif-loader");
    await page.waitForFunction(() => document.querySelector("#whatif-result")?.textContent?.includes("data loading free"), null, { timeout: 15000 }).catch(() => {});
    const answer = await page.textContent("#whatif-result");
    const whatIfCsv = readCsv(join(prof, "aiprof_output", "analysis", "critical_path_what_if.csv"));
    const loaderRow = whatIfCsv.find((r) => r["Kind"] === "data_loading_free");
    const projectedMs = loaderRow ? Number(loaderRow["Projected(us)"]) / 1000 : NaN;
    check("critical path: the what-if panel re-solves data loading free", !!answer && answer.includes("data loading free") && Number.isFinite(projectedMs), `${answer} vs ${projectedMs} ms`);

    // Timeline: zoom (W), pan (D), search.
    await page.goto(`${url}#timeline`);
    await page.reload();
    await page.waitForSelector('#view[data-ready="1"]');
    const windowOf = () => page.evaluate(() => window.__aiprofTimeline.window());
    const [a0, a1] = await windowOf();
    // The ruler's ticks print the digits their step needs, at full zoom-out and 50 µs deep into
    // the run (where a unit chosen from each tick's value printed them all as one "x.xxx ms").
    const ticks = await page.evaluate(([begin, end]) => {
      const timeline = window.__aiprofTimeline;
      const full = timeline.ticks;
      timeline.setWindow((begin + end) / 2, (begin + end) / 2 + 50000);
      const deep = timeline.ticks;
      timeline.setWindow(begin, end);
      return { full, deep };
    }, [a0, a1]);
    check("timeline ticks at full zoom-out print the digits their step needs", ticksReadWell(ticks.full), ticks.full.join(" | "));
    check("timeline ticks at 50 µs print the digits their step needs", ticksReadWell(ticks.deep), ticks.deep.join(" | "));
    await page.click("#timeline-canvas", { position: { x: 700, y: 5 } });
    for (let i = 0; i < 5; i++) await page.keyboard.press("w");
    const [b0, b1] = await windowOf();
    check("W zooms in", b1 - b0 < (a1 - a0) * 0.5, `${a1 - a0} -> ${b1 - b0}`);
    await page.keyboard.press("d");
    const [c0] = await windowOf();
    check("D pans right", c0 > b0, `${b0} -> ${c0}`);
    await page.mouse.move(700, 300);
    await page.keyboard.down("Control");
    await page.mouse.wheel(0, 400);
    await page.keyboard.up("Control");
    const [d0, d1] = await windowOf();
    check("ctrl+wheel zooms out", d1 - d0 > c0 - b0 + (b1 - b0) * 0.5 || d1 - d0 > b1 - b0, `${b1 - b0} -> ${d1 - d0}`);
    const drawn = await page.evaluate(() => window.__aiprofTimeline.drawnSpans);
    check("timeline draws slices", drawn > 0, `${drawn}`);
    // Shift+drag over the whole plot: the range statistics list the slices inside.
    await page.keyboard.press("s");
    for (let i = 0; i < 12; i++) await page.keyboard.press("s");
    await page.keyboard.down("Shift");
    await page.mouse.move(230, 300);
    await page.mouse.down();
    await page.mouse.move(1000, 300, { steps: 5 });
    await page.mouse.up();
    await page.keyboard.up("Shift");
    await page.waitForSelector("#timeline-range-table tr:nth-child(2)", { timeout: 5000 }).catch(() => {});
    const rangeRows = await page.$$("#timeline-range-table tr");
    check("shift+drag selects a range and lists its slices", rangeRows.length > 1, `${rangeRows.length} rows`);
    await page.fill("#timeline-search", "forward");
    await page.press("#timeline-search", "Enter");
    await page.waitForSelector("#timeline-search-results [data-slice]", { timeout: 5000 }).catch(() => {});
    const hits = await page.$$("#timeline-search-results [data-slice]");
    check("search finds slices named forward", hits.length > 0);
    if (hits.length) {
      await hits[0].click();
      await page.waitForSelector("#timeline-details-name", { timeout: 5000 }).catch(() => {});
      const name = await page.textContent("#timeline-details-name").catch(() => "");
      check("clicking a result shows its details", name === "forward", name);
      const selected = await page.evaluate(() => window.__aiprofTimeline.selected);
      check("the found slice is selected", selected >= 0);
    }
    await checkTimelineNavigation(page, url);
    await checkResources(page, url);
    await checkQuery(page, url, prof);
    await page.goto(`${url}#communication`);
    await page.reload();
    await page.waitForSelector('#view[data-ready="1"]');
    check("communication on one process says what is missing", !!(await page.$("#communication-missing")));
    await page.goto(`${url}#cpu`);
    await page.reload();
    await page.waitForSelector('#view[data-ready="1"]');
    const cpuMissing = await page.textContent("#cpu-missing").catch(() => "");
    check("cpu without samples says how to record them", cpuMissing.includes("--sys-cpu-profiling=on"), cpuMissing);
    await checkCpu(page);
    await checkTablesEqualCsvs(page);
    await checkTorchLinks(page);
    await checkCommunication(page);
    check("no console errors overall", errors.length === 0, errors.join(" | "));
  } finally {
    await browser.close();
    child.kill("SIGTERM");
    rmSync(work, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (error) {
  counts.failed++;
  console.log(`FAIL ${error.stack ?? error}`);
}
console.log(`${counts.passed} passed, ${counts.failed} failed`);
process.exit(counts.failed ? 1 : 0);
