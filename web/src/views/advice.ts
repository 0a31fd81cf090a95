// Advice: the advice rules' findings over this run (advice.json, the same the export writes),
// ranked: triggered ones by severity then impact, each with its measured figures, what to
// try and the evidence tables; then the rules that passed or could not be evaluated.
import { getJson } from "../api";
import { el } from "../format";
import { timelineLink } from "../router";

export interface Finding {
  rule: string;
  title: string;
  status: string;  // "triggered", "passed", "not evaluated"
  severity: string | null;
  impact: number;
  detail: string;
  suggestion: string;
  reads: string[];
  thresholds: { key: string; value: number; unit: string; description: string; source: string }[];
  // targets: per row, what it is about (advice.json; analysis/advice/advice.h EvidenceTarget):
  // a step id, an operator or kernel name, a rank; null: nothing on the timeline.
  evidence: { title: string; columns: string[]; rows: string[][]; targets?: ({ step: number } | { name: string } | { rank: number } | null)[] }[];
}

export interface AdviceData {
  profiles: string[];
  inputs: string[];
  dropped_records: number;
  triggered: number;
  findings: Finding[];
}

let advicePromise: Promise<AdviceData> | null = null;
export function advice(): Promise<AdviceData> {
  advicePromise ??= getJson<AdviceData>("/api/advice");
  return advicePromise;
}

export function findingCard(finding: Finding, evidenceRows = 10): HTMLElement {
  const card = el("div", { class: `panel finding ${finding.severity ?? "none"}`, "data-rule": finding.rule });
  card.append(
    el("div", { class: "finding-title" }, el("span", { class: "badge" }, finding.severity ?? finding.status), " ", finding.title),
    el("div", {}, finding.detail),
  );
  if (finding.suggestion) card.append(el("div", { class: "suggestion" }, `Try: ${finding.suggestion}`));
  for (const table of finding.evidence) {
    if (!table.rows.length) continue;
    const t = el("table", { class: "data" }, el("tr", {}, ...table.columns.map((c) => el("th", {}, c))));
    table.rows.slice(0, evidenceRows).forEach((row, r) => {
      const target = table.targets?.[r] ?? null;
      // The row's first cell names what it is about: it links there on the timeline.
      const first = (v: string): Node | string => {
        if (!target) return v;
        if ("step" in target) return timelineLink(v, { step: target.step }, "the step on the timeline");
        if ("name" in target) return timelineLink(v, { find: target.name }, "its longest call on the timeline");
        return timelineLink(v, { rank: target.rank }, "the rank's processes on the timeline");
      };
      // With several profiles the first column is the profile; the target is the next one.
      const linked = table.columns[0] === "profile" ? 1 : 0;
      t.append(el("tr", {}, ...row.map((v, i) => el("td", {}, i === linked ? first(v) : v))));
    });
    card.append(el("div", { class: "hint" }, table.title), t);
  }
  if (finding.thresholds.length) {
    card.append(el("div", { class: "hint" }, "Thresholds: " + finding.thresholds.map((t) => `${t.key} = ${t.value} ${t.unit} (${t.source})`).join("; ")));
  }
  return card;
}

export async function renderAdvice(root: HTMLElement): Promise<void> {
  const data = await advice();
  root.append(el("h2", {}, `Advice (${data.triggered} of ${data.findings.length} rules triggered)`));
  root.append(el("div", { class: "hint" }, `Profiles: ${data.profiles.join(", ")} · ${data.inputs.join(" · ")}`));
  if (data.dropped_records > 0) {
    root.append(el("div", { class: "missing" }, `${data.dropped_records} records were dropped: the findings may miss them.`));
  }
  const triggered = data.findings.filter((f) => f.status === "triggered");
  const list = el("div", { id: "advice-findings" });
  if (!triggered.length) list.append(el("div", { class: "panel" }, "No rule crossed its threshold on this run."));
  for (const finding of triggered) list.append(findingCard(finding));
  root.append(list);
  const others = data.findings.filter((f) => f.status !== "triggered");
  if (others.length) {
    root.append(el("h2", {}, "Rules that passed or could not be evaluated"));
    const table = el("table", { class: "data", id: "advice-others" }, el("tr", {}, el("th", {}, "Rule"), el("th", {}, "Status"), el("th", {}, "Detail")));
    for (const f of others) table.append(el("tr", {}, el("td", {}, f.title), el("td", {}, f.status), el("td", {}, f.detail)));
    root.append(table);
  }
}
