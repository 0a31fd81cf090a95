// Resources: every counter series (host CPU/memory/disk, process counters, GPU counters) over
// the run, one uPlot chart per counter (one meaning: host.cpu.user of the machine and of each
// CPU together, proc.rss of every process together), each series named by what it measures
// (the host, a CPU, a process by its role and pid, a GPU), in the unit its values fit (sizes
// recorded in KB shown in KiB/MiB/GiB), with the steps drawn as bands.
import uPlot from "uplot";
import { counters, run, tracks } from "../api";
import { el, formatValue, timeAxisUnit } from "../format";
import { byteUnit } from "./memory";
import { counterSubject } from "./timeline_lanes";

// How a series' values are shown: a factor to bytes for sizes, the axis' unit.
function unitOf(unit: string, max: number): { factor: number; label: string } {
  if (unit === "KB" || unit === "KiB" || unit === "B" || unit === "bytes") {
    const toBytes = unit === "KB" || unit === "KiB" ? 1024 : 1;
    const [scale, name] = byteUnit(max * toBytes);
    return { factor: toBytes / scale, label: name };
  }
  return { factor: 1, label: unit || "value" };
}

export async function renderResources(root: HTMLElement): Promise<() => void> {
  const [info, layout] = await Promise.all([run(), tracks()]);
  const all = layout.processes.flatMap((p) =>
    p.counters.map((c) => ({ ...c, subject: counterSubject(c.scope, c.instance, layout.processes), scopeOrder: c.scope })),
  );
  root.append(el("h2", {}, "Resources"));
  if (!all.length) {
    root.append(
      el("div", { class: "missing", id: "resources-missing" }, "No counters in this run: collect them with --host-sys=cpu,mem,disk --host-sys-usage=cpu,mem (host) or the CUDA source (GPU)."),
    );
    return () => {};
  }
  const byName = new Map<string, typeof all>();
  for (const series of all) byName.set(series.name, [...(byName.get(series.name) ?? []), series]);
  const width = Math.min(root.clientWidth - 20, 1400);
  const pixels = Math.max(200, width);
  const result = await counters(all.map((s) => s.id), 0, info.end, pixels);
  const points = new Map(result.series.map((s) => [s.id, s.points]));
  const charts: uPlot[] = [];
  const [timeScale, timeLabel] = timeAxisUnit(info.end);
  const stepBands = (u: uPlot) => {
    const ctx = u.ctx;
    ctx.save();
    ctx.fillStyle = "rgba(91,156,246,0.08)";
    info.steps.forEach(([, begin, end], i) => {
      if (i % 2) return;
      const x0 = u.valToPos(begin / timeScale, "x", true);
      const x1 = u.valToPos(end / timeScale, "x", true);
      ctx.fillRect(x0, u.bbox.top, Math.max(x1 - x0, 1), u.bbox.height);
    });
    ctx.restore();
  };
  const list = el("div", { id: "resources-charts" });
  root.append(list);
  for (const [name, seriesList] of [...byName.entries()].slice(0, 60)) {
    seriesList.sort((a, b) => a.scopeOrder - b.scopeOrder || a.instance - b.instance);
    const times = [...new Set(seriesList.flatMap((s) => (points.get(s.id) ?? []).map((p) => p[0])))].sort((a, b) => a - b);
    const index = new Map(times.map((t, i) => [t, i]));
    const max = Math.max(0, ...seriesList.flatMap((s) => (points.get(s.id) ?? []).map((p) => p[2])));
    const unit = unitOf(seriesList[0].unit, max);
    const columns: (number | null)[][] = seriesList.map(() => times.map(() => null));
    seriesList.forEach((s, k) => {
      for (const [t, , value] of points.get(s.id) ?? []) columns[k][index.get(t)!] = value * unit.factor;
    });
    const chart = el("div", { class: "chart", "data-counter": name, "data-unit": unit.label });
    list.append(chart);
    charts.push(
      new uPlot(
        {
          title: `${name} (${unit.label})`,
          width,
          height: 150,
          scales: { x: { time: false } },
          axes: [{ label: timeLabel }, { size: 90, label: unit.label, values: (_u, ticks) => ticks.map((v) => formatValue(v)) }],
          series: [
            { label: timeLabel.split(" ")[0] },
            ...seriesList.map((s, k) => ({
              label: s.subject,
              stroke: `hsl(${(k * 67) % 360} 60% 45%)`,
              spanGaps: true,
              paths: uPlot.paths.stepped!({ align: 1 }),
              value: (_u: uPlot, v: number | null) => (v === null ? "—" : `${formatValue(v)} ${unit.label}`),
            })),
          ],
          hooks: { drawClear: [stepBands] },
        },
        [times.map((t) => t / timeScale), ...columns] as uPlot.AlignedData,
        chart,
      ),
    );
  }
  root.append(el("div", { class: "hint" }, "Shaded bands: every other step. Each point is the largest sample within its pixel; a value holds until the next sample."));
  return () => charts.forEach((c) => c.destroy());
}
