// From question to evidence, checked in the browser on the DataLoader-bound PyTorch run of
// issue 29 (`aiprof --task-time=on ... train.py --model=mlp --workers=2 --load-delay-ms=20
// --steps=8`): from the Overview to the slowest step's input wait on the timeline in at most
// three clicks (one: the slowest step's input-wait link); every step, operator, advice item
// links to the timeline with the item selected; flows jump to their other end and are drawn
// with arrowheads; the Operators table has the process, self time and wall shares and keeps
// its step in the address; DataLoader workers are named as such.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { aiprof, artifacts, check, openView, rowsByTitle, run, startUi, stopUi, work } from "./support.mjs";

const timelineState = (page) => page.evaluate(() => {
  const t = window.__aiprofTimeline;
  return t ? { window: t.window(), selected: t.selected, area: t.area } : null;
});

async function waitForTimeline(page, predicate, arg) {
  await page.waitForSelector('#view[data-view="timeline"][data-ready="1"]', { timeout: 20000 });
  await page.waitForFunction(predicate, arg, { timeout: 10000 }).catch(() => {});
  return timelineState(page);
}

export async function checkTorchLinks(page) {
  const out = join(work, "torch");
  const script = fileURLToPath(new URL("../../examples/pytorch/train.py", import.meta.url));
  run(aiprof, ["--task-time=on", `--output=${out}`, "/usr/bin/python3", script, "--model=mlp", "--workers=2", "--load-delay-ms=20", "--steps=8"]);
  const { child, url } = await startUi(out);
  try {
    await checkThreeClicks(page, url);
    const api = (path) => page.evaluate((p) => fetch(p).then((r) => r.json()), path);
    await checkStepsAndOperators(page, url, api);
    await checkAdviceLinks(page, url, api);
    await checkFlows(page, url, api);
    await checkQueryExample(page, url);
  } finally {
    await stopUi(page, child);
  }
}

// The "done when": Overview → the slow step's input wait on the timeline.
async function checkThreeClicks(page, url) {
  await openView(page, url, "overview", "overview-torch", { fullPage: true });
  const summary = await page.evaluate(() => fetch("/api/analysis").then((r) => r.json()));
  const scope = summary.step_breakdown.find((r) => r.id !== null).scope;
  const rows = summary.step_breakdown.filter((r) => r.scope === scope && r.id !== null);
  const slowest = rows.reduce((a, b) => (b.duration > a.duration ? b : a));
  check("torch run: steps from ProfilerStep or Optimizer.step", rows.length === 8, `${rows.length} steps`);
  check("the slowest step waited for input", slowest.input_wait > 0 && slowest.wait_slice !== null, JSON.stringify(slowest));
  let clicks = 0;
  await page.click("#slowest-step-wait");
  clicks++;
  const state = await waitForTimeline(page, (id) => window.__aiprofTimeline?.selected === id, slowest.wait_slice);
  const name = await page.textContent("#timeline-details-name").catch(() => "");
  check(`Overview → the slowest step's input wait on the timeline in ${clicks} click(s) (≤ 3)`, clicks <= 3 && state?.selected === slowest.wait_slice && name.startsWith("enumerate(DataLoader)"), JSON.stringify({ state, name, slowest: slowest.wait_slice }));
  check("the timeline shows the whole step around it", !!state && state.window[0] <= slowest.begin && state.window[1] >= slowest.begin + slowest.duration, JSON.stringify(state?.window));
  await page.screenshot({ path: join(artifacts, "timeline-input-wait.png") });

  // The same from the breakdown table: the step's Input Wait cell.
  await openView(page, url, "overview", "overview-torch-table");
  await page.click(`#breakdown-table tr[data-step="${slowest.id}"] td:nth-child(6) a`);
  const again = await waitForTimeline(page, (id) => window.__aiprofTimeline?.selected === id, slowest.wait_slice);
  check("the breakdown table's input wait opens the same range", again?.selected === slowest.wait_slice, JSON.stringify(again));
  // A step number: its span selected as an area on its thread, its slices listed.
  await openView(page, url, "overview", "overview-torch-step");
  const step = rows[3];
  await page.click(`#breakdown-table tr[data-step="${step.id}"] td:nth-child(1) a`);
  const stepState = await waitForTimeline(page, (b) => window.__aiprofTimeline?.area?.t0 === b, step.begin);
  check("a step number opens the step, selected as an area", stepState?.area?.t0 === step.begin && stepState.area.t1 === step.begin + step.duration, JSON.stringify([stepState?.area, step.begin, step.duration]));
  await page.waitForSelector("#timeline-range-table tr:nth-child(2)", { timeout: 5000 }).catch(() => {});
  check("…with the step's slices listed by name", (await page.$$("#timeline-range-table tr")).length > 2);
}

async function checkStepsAndOperators(page, url, api) {
  const info = await api("/api/run");
  await openView(page, url, "timeline", "timeline-torch");
  const options = await page.$$eval("#timeline-step option", (o) => o.length - 1);
  check("the step picker lists the run's steps", options === info.steps.length && options === 8, `${options}`);
  const labels = await page.evaluate((ids) => ids.map((id) => window.__aiprofTimeline.lane("process", id)?.label ?? ""), info.processes.map((_, i) => i));
  check("DataLoader workers are named in their headers", labels.filter((l) => /^DataLoader worker \d · pid \d+/.test(l)).length === 2 && labels.some((l) => l.startsWith("main · pid")), JSON.stringify(labels));

  // Operators: process and role, self beside total, wall shares; a name opens its longest call.
  await openView(page, url, "operators", "operators-torch");
  const table = await api("/api/table/operators");
  const shown = await rowsByTitle(page, "#operators-table");
  check("operators: a process column with the roles", shown.some((r) => / main$/.test(r.Process)) && shown.some((r) => /DataLoader worker \d$/.test(r.Process)), JSON.stringify(shown.slice(0, 2)));
  check("operators: self time never above total", shown.every((r) => Number(r["Self Time(us)"]) <= Number(r["Total Time(us)"])));
  check("operators: a caller's self time is below its total", shown.some((r) => Number(r["Self Time(us)"]) < Number(r["Total Time(us)"]) * 0.5));
  check("operators: Total/Wall is the total over the run's wall time", shown.every((r) => Math.abs(Number(r["Total/Wall(%)"]) - (Number(r["Total Time(us)"]) * 1e3 * 100) / table.wall) < 0.0051), `wall ${table.wall}`);
  const first = table.rows.findIndex((r) => r[2] === shown[0]["OP Type"] && r[0] === shown[0].Process);
  await page.click("#operators-table tr:nth-child(2) a.timeline-link");
  const selected = await waitForTimeline(page, (id) => window.__aiprofTimeline?.selected === id, table.slices[first]);
  check("an operator's name opens its longest call", selected?.selected === table.slices[first], JSON.stringify([selected, table.slices[first]]));
  // The step filter is kept in the address.
  await openView(page, url, "operators", "operators-torch-step");
  await page.selectOption("#table-step", String(info.steps[2][0]));
  await page.waitForTimeout(500);
  check("the step filter is in the address", page.url().includes(`#operators?step=${info.steps[2][0]}`), page.url());
  await page.reload();
  await page.waitForSelector('#view[data-view="operators"][data-ready="1"]');
  check("a reload keeps the step", (await page.inputValue("#table-step")) === String(info.steps[2][0]));
  const stepTable = await api(`/api/table/operators?step=${info.steps[2][0]}`);
  check("…and shows that step's rows", (await page.$$("#operators-table tr")).length - 1 === stepTable.rows.length, `${stepTable.rows.length}`);
}

// Advice: an evidence row about a step opens that step; one about an operator its longest call.
async function checkAdviceLinks(page, url, api) {
  const advice = await api("/api/advice");
  await openView(page, url, "advice", "advice-torch", { fullPage: true });
  const loading = advice.findings.find((f) => f.rule === "data_loading" && f.status === "triggered");
  check("the DataLoader-bound run triggers the data loading advice", !!loading);
  if (loading) {
    const target = loading.evidence[0].targets[0];
    await page.click('#advice-findings [data-rule="data_loading"] a.timeline-link');
    const state = await waitForTimeline(page, () => window.__aiprofTimeline?.area !== null && window.__aiprofTimeline?.area !== undefined);
    const info = await api("/api/run");
    const step = info.steps.find((s) => s[0] === target.step);
    check("an advice row about a step opens that step", state?.area?.t0 === step[1] && state.area.t1 === step[2], JSON.stringify([state?.area, step]));
  }
  const operators = advice.findings.find((f) => f.status === "triggered" && f.evidence.some((e) => e.targets?.some((t) => t && "name" in t)));
  if (operators) {
    await openView(page, url, "advice", "advice-torch");
    const name = operators.evidence.find((e) => e.targets?.some((t) => t && "name" in t)).targets.find((t) => t && "name" in t).name;
    await page.click(`#advice-findings [data-rule="${operators.rule}"] a.timeline-link[title^="its longest call"]`);
    await waitForTimeline(page, () => window.__aiprofTimeline?.selected >= 0);
    const shownName = await page.textContent("#timeline-details-name").catch(() => "");
    check("an advice row about an operator opens its longest call", shownName === name, `${shownName} vs ${name}`);
  }
}

// The Query tab's first example (the slowest operator calls) and a click on its first row.
async function checkQueryExample(page, url) {
  await openView(page, url, "query", "query-torch");
  const firstId = await page.$eval("#query-results tr:nth-child(2) td:first-child", (td) => td.textContent).catch(() => "");
  check("query: the first example lists operator calls", /^\d+$/.test(firstId), firstId);
  await page.click("#query-results tr:nth-child(2) td:first-child a");
  await waitForTimeline(page, (id) => window.__aiprofTimeline?.selected === id, Number(firstId));
  check("query: a click on a row opens its slice on the timeline", (await timelineState(page))?.selected === Number(firstId));
}

// Flows: drawn with an arrowhead at their end; a details entry jumps to the other end.
async function checkFlows(page, url, api) {
  const info = await api("/api/run");
  const flows = (await api(`/api/flows?t0=0&t1=${info.end + 1}`)).flows;
  check("the torch run has flows", flows.length > 0, `${flows.length}`);
  if (!flows.length) return;
  const [, , fromTs, , , toTs, , from, to] = flows[0];
  const pad = Math.max(Math.abs(toTs - fromTs), 100000);
  await page.goto(`${url}#timeline?t0=${Math.floor(Math.min(fromTs, toTs) - pad)}&t1=${Math.ceil(Math.max(fromTs, toTs) + pad)}&sel=s${from}`);
  await page.reload();
  await waitForTimeline(page, (id) => window.__aiprofTimeline?.selected === id, from);
  await page.waitForTimeout(500);
  const ends = await page.evaluate(() => window.__aiprofTimeline.flowEnds());
  const end = ends.find((e) => e.from === from && e.to === to);
  check("the flow is drawn", !!end, JSON.stringify(ends.slice(0, 3)));
  if (end) {
    // Beside the line's end, inside the arrowhead only (the curve ends horizontally): the pixel
    // changes when the flows are hidden.
    const pixel = () => page.evaluate(([x, y]) => {
      const canvas = document.getElementById("timeline-canvas");
      const ratio = window.devicePixelRatio || 1;
      return [...canvas.getContext("2d").getImageData(Math.round((x - 6) * ratio), Math.round((y + 2) * ratio), 1, 1).data].join();
    }, [end.xb, end.yb]);
    const withFlows = await pixel();
    await page.click("#timeline-flows");
    await page.waitForTimeout(500);
    const without = await pixel();
    await page.click("#timeline-flows");
    await page.waitForTimeout(500);
    check("the flow ends in an arrowhead", withFlows !== without, `${withFlows} vs ${without}`);
  }
  await page.waitForSelector(`#timeline-flows [data-jump="flow-${to}"]`, { timeout: 5000 }).catch(() => {});
  await page.click(`#timeline-flows [data-jump="flow-${to}"]`);
  await page.waitForFunction((id) => window.__aiprofTimeline.selected === id, to, { timeout: 5000 }).catch(() => {});
  check("a flow entry jumps to the other end", (await timelineState(page)).selected === to);
  await page.screenshot({ path: join(artifacts, "timeline-flows.png") });
}
