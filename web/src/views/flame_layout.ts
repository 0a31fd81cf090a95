// The CPU view's flame graph data (/api/cpu_profile) decoded once into typed arrays, with
// each frame's place laid out when it arrives: its depth, where it starts among its siblings
// (in the root's units: samples or µs) and where its subtree ends in the node order. Why:
// a frame is then drawn, hit-tested and skipped (with everything under it) from these arrays
// alone, so drawing allocates nothing however big the tree (as timeline_spans.ts does).
import { hueOf } from "../format";

export interface CpuProfileData {
  kind: "on" | "off";
  unit: "samples" | "us";
  missing: string | null;
  total: number;
  min_share: number;
  pruned_nodes: number;
  pruned_value: number;
  names: string[];
  nodes: number[];  // [name, parent (-1 for the root), value] per node, a parent first
  warnings: string[];
}

export interface FlameLayout {
  length: number;
  names: string[];
  name: Int32Array;
  parent: Int32Array;
  value: Float64Array;
  start: Float64Array;       // where the frame begins, in value units from the root's start
  depth: Int32Array;         // 0 for the root
  subtreeEnd: Int32Array;    // the first node after this one's descendants
  nameHue: Int32Array;       // per name: its colour's hue
  maxDepth: number;
}

export function layoutFlame(data: CpuProfileData): FlameLayout {
  const n = data.nodes.length / 3;
  const layout: FlameLayout = {
    length: n,
    names: data.names,
    name: new Int32Array(n),
    parent: new Int32Array(n),
    value: new Float64Array(n),
    start: new Float64Array(n),
    depth: new Int32Array(n),
    subtreeEnd: new Int32Array(n),
    nameHue: new Int32Array(data.names.length),
    maxDepth: 0,
  };
  // Depth-first order: a node's children follow it, in order, so each starts where the
  // previous sibling ended (`next`: the next child's start, per node).
  const next = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const parent = data.nodes[i * 3 + 1];
    layout.name[i] = data.nodes[i * 3];
    layout.parent[i] = parent;
    layout.value[i] = data.nodes[i * 3 + 2];
    if (parent >= 0) {
      layout.start[i] = next[parent];
      next[parent] += layout.value[i];
      layout.depth[i] = layout.depth[parent] + 1;
      if (layout.depth[i] > layout.maxDepth) layout.maxDepth = layout.depth[i];
    }
    next[i] = layout.start[i];
  }
  // A subtree ends at the first later node that is not deeper.
  const open: number[] = [];
  for (let i = 0; i < n; i++) {
    while (open.length && layout.depth[open[open.length - 1]] >= layout.depth[i]) layout.subtreeEnd[open.pop()!] = i;
    open.push(i);
  }
  for (const i of open) layout.subtreeEnd[i] = n;
  for (let i = 0; i < data.names.length; i++) layout.nameHue[i] = hueOf(data.names[i]);
  return layout;
}

// Per name, 1 where it contains `text` (case-insensitive); and the share of the total those
// frames hold, each stack counted once (a match under a matching frame adds nothing).
export function matchNames(layout: FlameLayout, text: string, matches: Uint8Array): number {
  const needle = text.toLowerCase();
  for (let i = 0; i < layout.names.length; i++) {
    matches[i] = needle !== "" && layout.names[i].toLowerCase().includes(needle) ? 1 : 0;
  }
  let matched = 0;
  for (let i = 0; i < layout.length; ) {
    if (matches[layout.name[i]]) {
      matched += layout.value[i];
      i = layout.subtreeEnd[i];
    } else {
      i++;
    }
  }
  return layout.length && layout.value[0] > 0 ? matched / layout.value[0] : 0;
}
