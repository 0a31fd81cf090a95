// Views whose analysis results this build does not compute yet: they say what is missing
// and where the data would come from, instead of showing an empty page.
import { el } from "../format";

const reasons: Record<string, [string, string]> = {
  memory: [
    "Memory",
    "No memory results: the memory analysis (allocated/reserved curves, peaks, top operators by memory) is not part of this build, and this view shows nothing it cannot compute from the run.",
  ],
  communication: [
    "Communication / cluster",
    "No communication results: per-collective wait vs transit, the rank × step heatmap and the communication matrix need the cluster analysis and a multi-rank run.",
  ],
  dataprep: [
    "Data preparation",
    "No data-preparation results: the data-preparation analysis is not part of this build. The step trace's Data Aug Bound (Overview) shows the time each step waited for data.",
  ],
  compare: [
    "Compare",
    "No comparison: comparing two runs needs the compare analysis results, which this build does not produce.",
  ],
};

export async function renderAbsent(root: HTMLElement, view: string): Promise<void> {
  const [title, text] = reasons[view];
  root.append(el("h2", {}, title), el("div", { class: "missing", id: `${view}-missing` }, text));
}
