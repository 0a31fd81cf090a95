// The timeline's navigation, checked in the browser on examples/train (mstx ranges and marks,
// host counters): the address without the token and with the window and selection (kept on
// reload), process headers with role and pid, collapse and pin, zoom and pan kept inside the
// run, the whole-run and fit keys, the step picker and step bands, hover tooltips on slices,
// instants and counters (a counter's value held from its last sample), instants selectable
// in their own row, area selection with sortable statistics that fit the panel, search with
// next/previous and the count, times to the ns.
import { join } from "node:path";
import { artifacts, check, openView } from "./support.mjs";

const LABEL_W = 210;  // web/src/views/timeline_ruler.ts
const RULER_H = 30;

const state = (page) => page.evaluate(() => {
  const t = window.__aiprofTimeline;
  return { window: t.window(), selected: t.selected, selectedInstant: t.selectedInstant, area: t.area, tooltip: t.tooltip() };
});

async function canvasBox(page) {
  return page.locator("#timeline-canvas").boundingBox();
}

// Moves the mouse to / clicks at canvas coordinates.
async function at(page, x, y, action = "move", modifiers = {}) {
  const box = await canvasBox(page);
  if (action === "move") await page.mouse.move(box.x + x, box.y + y);
  else await page.mouse.click(box.x + x, box.y + y, modifiers);
}

async function setWindow(page, t0, t1) {
  await page.evaluate(([a, b]) => window.__aiprofTimeline.setWindow(a, b), [t0, t1]);
  await page.waitForTimeout(300);  // the answer for the new window
}

export async function checkTimelineNavigation(page, url) {
  await openView(page, url, "timeline", "timeline");
  check("the token is dropped from the address once the cookie is set", !page.url().includes("token="), page.url());
  const api = (path) => page.evaluate((p) => fetch(p).then((r) => r.json()), path);
  const info = await api("/api/run");
  const layout = await api("/api/tracks");
  const end = info.end;

  // Headers: who each process is.
  const labels = await page.evaluate((ids) => ids.map((id) => window.__aiprofTimeline.lane("process", id)?.label ?? ""), layout.processes.map((p) => p.id));
  const expected = layout.processes.map((p) => `${p.role_label} · pid ${p.pid}`);
  check("process headers show role and pid", labels.every((l, i) => l.startsWith(expected[i])), JSON.stringify({ labels, expected }));
  check("the main process and the launcher are told apart", labels.some((l) => l.startsWith("main · pid")) && labels.some((l) => l.startsWith("launcher · pid")), JSON.stringify(labels));

  // Zoom and pan stay inside the run; 0 is the whole run.
  await at(page, 700, 5, "click");
  for (let i = 0; i < 30; i++) await page.keyboard.press("s");
  let [v0, v1] = (await state(page)).window;
  check("zooming out stops at the run", v1 - v0 <= end * 1.02 + 1, `${v1 - v0} vs ${end}`);
  for (let i = 0; i < 5; i++) await page.keyboard.press("w");
  for (let i = 0; i < 40; i++) await page.keyboard.press("a");
  [v0, v1] = (await state(page)).window;
  check("panning left stops at the run's start", v0 >= -end * 0.01 - 1, `${v0}`);
  for (let i = 0; i < 60; i++) await page.keyboard.press("d");
  [v0, v1] = (await state(page)).window;
  check("panning right stops at the run's end", v1 <= end * 1.01 + 1, `${v1} vs ${end}`);
  await page.keyboard.press("0");
  [v0, v1] = (await state(page)).window;
  check("0 shows the whole run", Math.abs(v0) < 1 && Math.abs(v1 - end) < 1, `${v0}..${v1} vs ${end}`);

  // The step picker and the ruler's step bands: a step's span, selected as an area on its thread.
  const step = info.steps[10];
  await page.selectOption("#timeline-step", String(step[0]));
  await page.waitForSelector("#timeline-range-table tr:nth-child(2)", { timeout: 5000 }).catch(() => {});
  let s = await state(page);
  check("the step picker zooms to the step", s.window[0] <= step[1] && s.window[1] >= step[2] && s.window[1] - s.window[0] < (step[2] - step[1]) * 1.2, JSON.stringify([s.window, step]));
  check("the step picker selects the step as an area on its thread", s.area && s.area.t0 === step[1] && s.area.t1 === step[2] && s.area.tracks.join() === String(step[4]), JSON.stringify(s.area));
  await page.keyboard.press("0");
  const band = info.steps[20];
  const bandX = LABEL_W + ((band[1] + band[2]) / 2) * ((await canvasBox(page)).width - LABEL_W) / end;
  await at(page, bandX, RULER_H - 5, "click");
  await page.waitForTimeout(300);
  s = await state(page);
  check("a click on a step band in the ruler selects that step", s.area && s.area.t0 === band[1] && s.area.t1 === band[2], JSON.stringify([s.area, band]));

  // Tooltips on a slice, its details to the ns, the fit key.
  const found = await api("/api/search?q=forward&exact=1&limit=1");
  const [slice, ts, dur, track] = found.matches[0];
  await setWindow(page, ts - dur, ts + 2 * dur);
  const center = await page.evaluate((id) => window.__aiprofTimeline.sliceCenter(id), slice);
  check("the slice is drawn", !!center);
  if (center) {
    await at(page, center.x, center.y);
    const tip = (await state(page)).tooltip;
    check("hovering a slice shows its name, start and duration", tip.startsWith("forward") && tip.includes("start") && tip.includes("duration"), tip);
    await at(page, center.x, center.y, "click");
    await page.waitForFunction((id) => window.__aiprofTimeline.selected === id, slice);
    const start = await page.$eval("#timeline-details .kv tr:nth-child(3) td:nth-child(2)", (td) => td.textContent);
    // Whatever unit the start is shown in (s, ms, µs), it reads back as the start in ns.
    const shown = /^(-?[\d.]+) (s|ms|µs|ns)$/.exec(start ?? "");
    const unitNs = { s: 1e9, ms: 1e6, "µs": 1e3, ns: 1 };
    const readBack = shown ? Math.round(parseFloat(shown[1]) * unitNs[shown[2]]) : NaN;
    check("details give the start to the ns", readBack === ts, `${start} vs ${ts}`);
    await page.keyboard.press("f");
    await page.waitForTimeout(300);
    [v0, v1] = (await state(page)).window;
    check("F fits the selected slice", v0 <= ts && v1 >= ts + dur && v1 - v0 <= dur * 1.3, `${v0}..${v1} for ${ts}+${dur}`);
  }

  // The address keeps the window and the selection, and a reload restores them.
  await page.waitForTimeout(400);
  const address = page.url();
  check("the address keeps the window and the selection", /#timeline\?t0=-?\d+&t1=\d+&sel=s\d+/.test(address), address);
  await page.reload();
  await page.waitForSelector('#view[data-view="timeline"][data-ready="1"]');
  await page.waitForFunction((id) => window.__aiprofTimeline?.selected === id, slice, { timeout: 5000 }).catch(() => {});
  const restored = await state(page);
  check("a reload restores the window and the selection", restored.selected === slice && Math.abs(restored.window[0] - v0) <= 1 && Math.abs(restored.window[1] - v1) <= 1, JSON.stringify([restored, v0, v1]));
  await page.keyboard.press("Escape");
  check("Esc clears the selection", (await state(page)).selected === -1);

  // Instants in their own row above the slices, selectable, with a tooltip.
  const mainTrack = layout.processes.flatMap((p) => p.threads.flatMap((t) => t.tracks)).find((k) => k.instants > 0);
  const slicesOfInstant = await api(`/api/slices?t0=0&t1=${end + 1}&px=1000&tracks=${mainTrack.id}`);
  const instant = slicesOfInstant.tracks[0].instants[0];
  await setWindow(page, instant[0] - 50000, instant[0] + 50000);
  const mark = await page.evaluate((id) => window.__aiprofTimeline.instantCenter(id), instant[1]);
  const lane = await page.evaluate((id) => window.__aiprofTimeline.lane("track", id), mainTrack.id);
  check("an instant is drawn above its lane's slices", !!mark && !!lane && mark.y < lane.slicesTop, JSON.stringify({ mark, lane }));
  if (mark) {
    await at(page, mark.x, mark.y);
    check("hovering an instant shows it", (await state(page)).tooltip.includes("instant at"), (await state(page)).tooltip);
    await at(page, mark.x, mark.y, "click");
    await page.waitForFunction((id) => window.__aiprofTimeline.selectedInstant === id, instant[1], { timeout: 5000 }).catch(() => {});
    check("a click selects the instant", (await state(page)).selectedInstant === instant[1]);
    check("the instant's details are shown", (await page.textContent("#timeline-details")).includes("instant"));
  }

  await checkCounterTooltip(page, api, layout, end);
  await checkGroups(page, layout);
  await checkArea(page, layout, end);
  await checkSearch(page, api);
}

// A counter's tooltip gives the value held at the cursor: that of the last sample before it.
async function checkCounterTooltip(page, api, layout, end) {
  await page.keyboard.press("0");
  const series = layout.processes.flatMap((p) => p.counters).find((c) => c.name === "host.cpu.user" && c.scope === 0);
  const lane = await page.evaluate((id) => window.__aiprofTimeline.lane("counter", id), series.id);
  if (!lane) return check("the host.cpu.user lane is found", false);
  // Scroll the lane into view.
  const box = await canvasBox(page);
  if (lane.y > box.height - 40) {
    await at(page, 700, 300);
    await page.mouse.wheel(0, lane.y - 300);
    await page.waitForTimeout(300);
  }
  const shown = await page.evaluate((id) => window.__aiprofTimeline.lane("counter", id), series.id);
  const x = LABEL_W + (box.width - LABEL_W) * 0.53;
  await at(page, x, shown.y + shown.h / 2);
  const tip = (await state(page)).tooltip;
  const [w0, w1] = (await state(page)).window;
  const t = w0 + (x - LABEL_W) * (w1 - w0) / (box.width - LABEL_W);
  const points = (await api(`/api/counters?series=${series.id}&t0=0&t1=${end + 1}&px=20000`)).series[0].points;
  const held = points.filter((p) => p[0] <= t).pop();
  const since = tip.match(/since ([\d.]+) (ms|s|µs)/);
  const value = tip.match(/([\d.]+) %/);
  const scale = { s: 1e9, ms: 1e6, "µs": 1e3 };
  check("hovering a counter names it", tip.startsWith("host.cpu.user · host"), tip);
  check("the counter's value at the cursor is its last sample's (drawn as steps)", !!held && !!since && !!value &&
    Math.abs(Number(since[1]) * scale[since[2]] - held[0]) < 2 && Math.abs(Number(value[1]) - held[2]) < 0.051, JSON.stringify({ tip, held, t }));
  await page.screenshot({ path: join(artifacts, "timeline-counter-tooltip.png") });
  await at(page, 700, 300);
  await page.mouse.wheel(0, -100000);
}

// Process groups collapse to their header and pin above the scrolled lanes.
async function checkGroups(page, layout) {
  const main = layout.processes.find((p) => p.role === "main");
  const launcher = layout.processes.find((p) => p.role === "launcher");
  const header = await page.evaluate((id) => window.__aiprofTimeline.lane("process", id), main.id);
  const trackId = main.threads[0].tracks[0].id;
  await at(page, LABEL_W + 100, header.y + 10, "click");
  await page.waitForTimeout(100);
  const collapsed = await page.evaluate(([p, t]) => [window.__aiprofTimeline.lane("process", p), window.__aiprofTimeline.lane("track", t)], [main.id, trackId]);
  check("a click on a process header collapses its group", collapsed[0].collapsed && collapsed[1] === null, JSON.stringify(collapsed));
  await at(page, LABEL_W + 100, collapsed[0].y + 10, "click");
  await page.waitForTimeout(100);
  check("a second click expands it", !!(await page.evaluate((t) => window.__aiprofTimeline.lane("track", t), trackId)));
  const box = await canvasBox(page);
  const before = await page.evaluate((id) => window.__aiprofTimeline.lane("process", id), launcher.id);
  await at(page, box.width - 20, before.y + 10, "click");
  await page.waitForTimeout(100);
  const pinned = await page.evaluate((id) => window.__aiprofTimeline.lane("process", id), launcher.id);
  check("the pin button pins a group at the top", pinned.pinned && pinned.y === RULER_H, JSON.stringify(pinned));
  await at(page, 700, box.height - 50);
  await page.mouse.wheel(0, 400);
  await page.waitForTimeout(100);
  const scrolled = await page.evaluate((id) => window.__aiprofTimeline.lane("process", id), launcher.id);
  check("a pinned group stays in place when the lanes scroll", scrolled.y === RULER_H, JSON.stringify(scrolled));
  await page.screenshot({ path: join(artifacts, "timeline-pinned.png") });
  await page.mouse.wheel(0, -100000);
  await at(page, box.width - 20, RULER_H + 10, "click");
  check("unpin", !(await page.evaluate((id) => window.__aiprofTimeline.lane("process", id), launcher.id)).pinned);
}

// Shift+drag over two lanes: statistics of their slices in the span, sortable, in the panel.
async function checkArea(page, layout, end) {
  await page.keyboard.press("0");
  const tracks = layout.processes.find((p) => p.role === "main").threads.map((t) => t.tracks[0].id);
  const first = await page.evaluate((id) => window.__aiprofTimeline.lane("track", id), tracks[0]);
  const last = await page.evaluate((id) => window.__aiprofTimeline.lane("track", id), tracks[tracks.length - 1]);
  const box = await canvasBox(page);
  await page.keyboard.down("Shift");
  await at(page, LABEL_W + 20, first.y + first.h / 2);
  await page.mouse.down();
  const xEnd = LABEL_W + (box.width - LABEL_W) * 0.95;
  await at(page, xEnd, last.y + last.h / 2);
  await page.mouse.up();
  await page.keyboard.up("Shift");
  await page.waitForSelector("#timeline-range-table tr:nth-child(2)", { timeout: 5000 }).catch(() => {});
  const area = (await state(page)).area;
  check("shift+drag selects the lanes it covers", !!area && area.tracks.length === tracks.length && tracks.every((t) => area.tracks.includes(t)), JSON.stringify(area));
  const fits = await page.evaluate(() => {
    const table = document.getElementById("timeline-range-table");
    const side = document.getElementById("timeline-side");
    // Figures and headers are never cut (only names are, with an ellipsis).
    const cut = [...table.querySelectorAll("th:not(:first-child), td:not(:first-child)")]
      .filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent);
    return { table: table.scrollWidth, side: side.clientWidth, overflow: side.scrollWidth <= side.clientWidth, cut };
  });
  check("the area's statistics fit the side panel, no figure cut", fits.table <= fits.side && fits.overflow && fits.cut.length === 0, JSON.stringify(fits));
  const header = await page.$$eval("#timeline-range-table th", (ths) => ths.map((th) => th.textContent));
  check("the statistics have count, total, avg and max", ["Count", "Total", "Avg", "Max"].every((h) => header.some((t) => t.startsWith(h))), header.join());
  await page.click("#timeline-range-table th:nth-child(2)");  // Count
  const countsShown = await page.$$eval("#timeline-range-table tr td:nth-child(2)", (tds) => tds.map((td) => Number(td.textContent.replace(/,/g, ""))));
  check("a header sorts the statistics", countsShown.length > 1 && countsShown.every((c, i) => i === 0 || countsShown[i - 1] >= c), countsShown.join());
  await page.screenshot({ path: join(artifacts, "timeline-area.png") });
  void end;
}

// Search: Enter goes to the first match, ▶ and ◀ step through them; the count says where.
async function checkSearch(page, api) {
  const all = await api("/api/search?q=forward&limit=3");
  await page.fill("#timeline-search", "forward");
  await page.press("#timeline-search", "Enter");
  await page.waitForFunction((id) => window.__aiprofTimeline.selected === id, all.matches[0][0], { timeout: 5000 }).catch(() => {});
  check("Enter goes to the first match", (await state(page)).selected === all.matches[0][0]);
  check("the count says which match of how many", (await page.textContent("#timeline-search-count")) === `1 / ${all.total}`, await page.textContent("#timeline-search-count"));
  await page.click("#timeline-search-next");
  await page.waitForFunction((id) => window.__aiprofTimeline.selected === id, all.matches[1][0], { timeout: 5000 }).catch(() => {});
  check("next goes to the second match", (await state(page)).selected === all.matches[1][0] && (await page.textContent("#timeline-search-count")) === `2 / ${all.total}`);
  await page.click("#timeline-search-prev");
  await page.waitForFunction((id) => window.__aiprofTimeline.selected === id, all.matches[0][0], { timeout: 5000 }).catch(() => {});
  check("previous goes back", (await state(page)).selected === all.matches[0][0]);
  await page.click("#timeline-search-prev");
  await page.waitForTimeout(300);
  check("previous from the first wraps to the last", (await page.textContent("#timeline-search-count")) === `${all.total} / ${all.total}`, await page.textContent("#timeline-search-count"));
  await page.screenshot({ path: join(artifacts, "timeline-search.png") });
}
