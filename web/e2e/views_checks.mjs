// Resources and Query, checked in the browser on examples/train with host counters: one chart
// per counter, each series named by what it measures (no two alike), in units that fit; the
// Query tab's results equal sqlite3's over the database `aiprof export --type=db` writes, a
// result row opens on the timeline, and writing is refused.
import { join } from "node:path";
import { aiprof, artifacts, check, findExport, openView, run } from "./support.mjs";

export async function checkResources(page, url) {
  await openView(page, url, "resources", "resources", { fullPage: true });
  const charts = await page.$$eval("#resources-charts .chart", (list) =>
    list.map((chart) => ({
      title: chart.querySelector(".u-title")?.textContent ?? "",
      series: [...chart.querySelectorAll(".u-legend .u-series .u-label")].slice(1).map((l) => l.textContent),
    })),
  );
  const titles = charts.map((c) => c.title);
  check("resources: one chart per counter (no two titles alike)", charts.length > 5 && new Set(titles).size === titles.length, titles.join(" | "));
  const duplicated = charts.filter((c) => new Set(c.series).size !== c.series.length);
  check("resources: no chart repeats a legend entry", duplicated.length === 0, JSON.stringify(duplicated.slice(0, 2)));
  const cpu = charts.find((c) => c.title.startsWith("host.cpu.user"));
  check("resources: the machine and each CPU are named", !!cpu && cpu.series[0] === "host" && cpu.series.includes("cpu 0"), JSON.stringify(cpu));
  const rss = charts.find((c) => c.title.startsWith("proc.rss"));
  check("resources: a process counter is named by its role and pid", !!rss && rss.series.some((s) => /^main · pid \d+$/.test(s)), JSON.stringify(rss));
  const total = charts.find((c) => c.title.startsWith("host.mem.total"));
  check("resources: a size in KB is shown in the unit it fits", !!total && /\((GiB|MiB)\)$/.test(total.title), total?.title);
}

function sqlite(db, sql) {
  return run("sqlite3", ["-separator", "|", db, sql]).trim();
}

export async function checkQuery(page, url, prof) {
  run(aiprof, ["export", "--type=db", `--output=${prof}`]);
  const db = findExport(prof, /^aiprof_\d+\.db$/);
  check("the run's database is exported", !!db);
  const sql = "SELECT count(*) AS n, sum(endNs - startNs) AS total, min(startNs) AS first FROM MSTX_EVENTS";
  await page.goto(`${url}#query?q=${encodeURIComponent(sql)}`);
  await page.reload();
  await page.waitForSelector('#view[data-view="query"][data-ready="1"]', { timeout: 30000 });
  const cells = await page.$$eval("#query-results tr:nth-child(2) td", (tds) => tds.map((td) => td.textContent));
  const expected = db ? sqlite(db, sql).split("|") : [];
  check("query: the result equals sqlite3's on the exported database", cells.join() === expected.join() && cells.length === 3, `${cells} vs ${expected}`);
  check("query: epoch-ns times are exact (past 2^53)", cells[2] === expected[2] && Number(cells[2]) > 2 ** 53, cells[2]);

  // A row with an event id (MSTX_EVENTS.rangeId: the slice) opens that slice on the timeline.
  const ranges = "SELECT rangeId, startNs, endNs FROM MSTX_EVENTS WHERE rangeId >= 0 ORDER BY endNs - startNs DESC LIMIT 5";
  await page.fill("#query-text", ranges);
  // The table still holds the first query's result: wait for the new one, not for any rows.
  const before = await page.$eval("#query-results", (e) => e.innerHTML).catch(() => "");
  await page.click("#query-run");
  await page
    .waitForFunction((old) => document.querySelector("#query-results")?.innerHTML !== old && document.querySelectorAll("#query-results tr").length > 1, before, { timeout: 10000 })
    .catch(() => {});
  const firstId = await page.$eval("#query-results tr:nth-child(2) td:first-child", (td) => td.textContent).catch(() => "");
  check("query: the results fill the table in the query's order", /^\d+$/.test(firstId) && firstId === (db ? sqlite(db, ranges).split("\n")[0].split("|")[0] : ""), firstId);
  check("query: the address keeps the query", decodeURIComponent(page.url()).includes("rangeId >= 0") || page.url().includes("rangeId"), page.url());
  await page.click("#query-results tr:nth-child(2) td:first-child a");
  await page.waitForSelector('#view[data-view="timeline"][data-ready="1"]', { timeout: 20000 });
  await page.waitForFunction((id) => window.__aiprofTimeline?.selected === id, Number(firstId), { timeout: 10000 }).catch(() => {});
  check("query: a row with a slice id opens it on the timeline", (await page.evaluate(() => window.__aiprofTimeline.selected)) === Number(firstId));

  await page.goto(`${url}#query?q=${encodeURIComponent("DELETE FROM API")}`);
  await page.reload();
  await page.waitForSelector('#view[data-view="query"][data-ready="1"]', { timeout: 30000 });
  const status = await page.textContent("#query-status");
  check("query: writing is refused with a reason", /read-only|not authorized|only reading/.test(status), status);
  await page.goto(`${url}#query?q=${encodeURIComponent("SELECT s.value AS name, count(*) AS calls FROM API a JOIN STRING_IDS s ON s.id = a.name GROUP BY a.name ORDER BY calls DESC, name LIMIT 12")}`);
  await page.reload();
  await page.waitForSelector('#view[data-view="query"][data-ready="1"]', { timeout: 30000 });
  await page.screenshot({ path: join(artifacts, "query.png") });
}
