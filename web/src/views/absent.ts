// Views whose analysis results this build does not compute yet: they say what is missing
// and where the data would come from, instead of showing an empty page.
import { el } from "../format";

const reasons: Record<string, [string, string]> = {
  communication: [
    "Communication / cluster",
    "No communication results: per-collective wait vs transit, the rank × step heatmap and the communication matrix need the cluster analysis, which this build does not have, and a multi-rank run.",
  ],
};

export async function renderAbsent(root: HTMLElement, view: string): Promise<void> {
  const [title, text] = reasons[view];
  root.append(el("h2", {}, title), el("div", { class: "missing", id: `${view}-missing` }, text));
}
