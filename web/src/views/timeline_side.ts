// The timeline's side panel: the step picker, fit and reset, search, the flows switch, the
// keys, the selected slice's details and the area's statistics.
import type { StepSpan } from "../api";
import { el, formatNs } from "../format";
import type { Search } from "./timeline_panel";

export interface SidePanel {
  element: HTMLElement;
  stepPicker: HTMLSelectElement;
  fillStepPicker: () => void;
  fitButton: HTMLButtonElement;
  resetButton: HTMLButtonElement;
  flowsToggle: HTMLInputElement;
  details: HTMLElement;
  selectionPanel: HTMLElement;
}

export function buildSidePanel(steps: StepSpan[], search: Search): SidePanel {
  const flowsToggle = el("input", { type: "checkbox", id: "timeline-flows" });
  flowsToggle.checked = true;
  const stepPicker = el("select", { id: "timeline-step" }, el("option", { value: "" }, steps.length ? `steps (${steps.length})…` : "no steps in this run"));
  // Thousands of options cost the first layout hundreds of ms (a 10 M-range run has 5,000
  // steps): they are added once the first frame is drawn.
  const fillStepPicker = () => {
    if (stepPicker.options.length > 1) return;
    stepPicker.append(...steps.map(([id, begin, end, label]) => el("option", { value: String(id) }, `step ${label} · ${formatNs(end - begin)}`)));
  };
  stepPicker.addEventListener("focus", fillStepPicker);
  const fitButton = el("button", { id: "timeline-fit", title: "fit the selection (F)" }, "Fit (F)");
  const resetButton = el("button", { id: "timeline-reset", title: "the whole run (0)" }, "Whole run (0)");
  const details = el("div", { class: "panel", id: "timeline-details" }, el("div", { class: "hint" }, "Click a slice or an instant for its details."));
  const selectionPanel = el("div", { class: "panel", id: "timeline-selection" }, el("div", { class: "hint" }, "Shift+drag over lanes to select an area and see its statistics."));
  const element = el(
    "div",
    { id: "timeline-side" },
    el("div", { class: "toolbar timeline-toolbar" }, stepPicker, fitButton, resetButton),
    search.element(),
    el("label", { class: "hint" }, flowsToggle, " show flows (launch → kernel, forward → backward)"),
    el("div", { class: "hint" }, "W/S zoom · A/D pan · ctrl+wheel zoom · wheel scroll · drag pan · shift+drag area · F fit · 0 whole run · Esc clear · click a process header to collapse it"),
    details,
    selectionPanel,
  );
  return { element, stepPicker, fillStepPicker, fitButton, resetButton, flowsToggle, details, selectionPanel };
}
