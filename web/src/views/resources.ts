// Resources: every counter series (host CPU/memory/disk, process counters, GPU counters)
// over the run, one uPlot chart per counter name, with the steps drawn as bands.
import uPlot from "uplot";
import { counters, run, tracks } from "../api";
import { el } from "../format";

export async function renderResources(root: HTMLElement): Promise<() => void> {
  const [info, layout] = await Promise.all([run(), tracks()]);
  const all = layout.processes.flatMap((p) => p.counters.map((c) => ({ ...c, process: p.name })));
  root.append(el("h2", {}, "Resources"));
  if (!all.length) {
    root.append(
      el("div", { class: "missing", id: "resources-missing" }, "No counters in this run: collect them with --host-sys=cpu,mem,disk --host-sys-usage=cpu,mem (host) or the CUDA source (GPU)."),
    );
    return () => {};
  }
  const byName = new Map<string, typeof all>();
  for (const series of all) {
    const key = `${series.name} (${series.unit || "value"})`;
    byName.set(key, [...(byName.get(key) ?? []), series]);
  }
  const width = Math.min(root.clientWidth - 20, 1400);
  const pixels = Math.max(200, width);
  const result = await counters(all.map((s) => s.id), 0, info.end, pixels);
  const points = new Map(result.series.map((s) => [s.id, s.points]));
  const charts: uPlot[] = [];
  const stepBands = (u: uPlot) => {
    const ctx = u.ctx;
    ctx.save();
    ctx.fillStyle = "rgba(91,156,246,0.08)";
    info.steps.forEach(([, begin, end], i) => {
      if (i % 2) return;
      const x0 = u.valToPos(begin / 1e9, "x", true);
      const x1 = u.valToPos(end / 1e9, "x", true);
      ctx.fillRect(x0, u.bbox.top, Math.max(x1 - x0, 1), u.bbox.height);
    });
    ctx.restore();
  };
  for (const [title, seriesList] of [...byName.entries()].slice(0, 40)) {
    const times = [...new Set(seriesList.flatMap((s) => (points.get(s.id) ?? []).map((p) => p[0])))].sort((a, b) => a - b);
    const index = new Map(times.map((t, i) => [t, i]));
    const columns: (number | null)[][] = seriesList.map(() => times.map(() => null));
    seriesList.forEach((s, k) => {
      for (const [t, , max] of points.get(s.id) ?? []) columns[k][index.get(t)!] = max;
    });
    const chart = el("div", { class: "chart" });
    root.append(chart);
    charts.push(
      new uPlot(
        {
          title,
          width,
          height: 150,
          scales: { x: { time: false } },
          axes: [{ label: "s since start" }, { size: 90 }],
          series: [
            { label: "s" },
            ...seriesList.map((s, k) => ({
              label: `${s.process} #${s.instance}`,
              stroke: `hsl(${(k * 67) % 360} 60% 45%)`,
              spanGaps: true,
            })),
          ],
          hooks: { drawClear: [stepBands] },
        },
        [times.map((t) => t / 1e9), ...columns] as uPlot.AlignedData,
        chart,
      ),
    );
  }
  root.append(el("div", { class: "hint" }, "Shaded bands: every other step. Each point is the largest sample within its pixel."));
  return () => charts.forEach((c) => c.destroy());
}
