// What the browser end-to-end checks share: the build's paths, a scratch directory, the
// check counter, running commands, reading exports, starting `aiprof ui` and opening a view.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const build = resolve(process.argv[2] ?? "build");
export const aiprof = join(build, "bin/aiprof");
export const artifacts = join(build, "web-e2e");
mkdirSync(artifacts, { recursive: true });
export const work = mkdtempSync(join(tmpdir(), "aiprof_ui_e2e_"));
export const counts = { passed: 0, failed: 0 };

export function check(name, ok, detail = "") {
  if (ok) counts.passed++;
  else counts.failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${!ok && detail ? `: ${detail}` : ""}`);
}

export function run(command, args) {
  const result = spawnSync(command, args, { encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  }
  return result.stdout;
}

export function findChromium() {
  for (const candidate of [process.env.AIPROF_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"]) {
    if (candidate && spawnSync(candidate, ["--version"]).status === 0) return candidate;
  }
  throw new Error("chromium not found (Debian: apt-get install chromium; make deps installs it)");
}

// CSV with msprof's quoting rules (only the fields we read here hold no commas).
export function readCsv(path) {
  const [header, ...lines] = readFileSync(path, "utf8").trim().split("\n");
  const columns = header.split(",");
  return lines.map((line) => Object.fromEntries(line.split(",").map((v, i) => [columns[i], v])));
}

export function findExport(dir, pattern) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = findExport(path, pattern);
      if (found) return found;
    } else if (pattern.test(entry.name)) {
      return path;
    }
  }
  return null;
}

export async function startUi(dir, extra = []) {
  const child = spawn(aiprof, ["ui", dir, "--no-browser", "--port", "0", ...extra], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const url = await new Promise((resolveUrl, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const match = out.match(/serving (http:\/\/\S+)/);
      if (match) resolveUrl(match[1]);
    });
    child.on("exit", (code) => reject(new Error(`aiprof ui exited ${code}: ${stderr}`)));
  });
  return { child, url };
}

// Opens `view` fresh (a hash change alone does not reload), waits until it is drawn and saves
// its screenshot as <artifacts>/<shot>.png.
export async function openView(page, url, view, shot, { timeout = 30000, fullPage = false } = {}) {
  await page.goto(`${url}#${view}`);
  await page.reload();
  await page.waitForSelector(`#view[data-view="${view}"][data-ready="1"]`, { timeout });
  await page.screenshot({ path: join(artifacts, `${shot}.png`), fullPage });
}

// Rows of a table as {header title: cell text}, the headers without their sort arrow.
export function rowsByTitle(page, table) {
  return page.$$eval(`${table} tr`, (rows) => {
    const titles = [...rows[0].querySelectorAll("th")].map((th) => th.textContent.replace(/ [▼▲]$/, ""));
    return rows.slice(1).map((r) => Object.fromEntries([...r.querySelectorAll("td")].map((td, i) => [titles[i], td.textContent])));
  });
}


// Stops a server the page may still be talking to: the page leaves first, so that no answer
// is cut off mid-stream (the browser would log the broken transfer as an error).
export async function stopUi(page, child) {
  await page.goto("about:blank").catch(() => {});
  child.kill("SIGTERM");
}
