// Number and time formatting shared by the views.
export function formatNs(ns: number): string {
  const abs = Math.abs(ns);
  if (abs >= 1e9) return `${(ns / 1e9).toFixed(3)} s`;
  if (abs >= 1e6) return `${(ns / 1e6).toFixed(3)} ms`;
  if (abs >= 1e3) return `${(ns / 1e3).toFixed(3)} µs`;
  return `${ns} ns`;
}

// A time axis tick: the unit is the largest of s, ms, µs and ns in which the tick step needs
// at most two decimals, and every tick prints the decimals the step needs, no more: steps of
// 0.5 ms print "1.0 ms", "1.5 ms"; steps of 1 s print "2 s". A unit chosen from the tick's
// own value would print ticks 50 ns apart at 3 s as the same "3.000 s".
export function formatTickNs(ns: number, stepNs: number): string {
  const [scale, unit] = stepNs >= 1e7 ? [1e9, "s"] : stepNs >= 1e4 ? [1e6, "ms"] : stepNs >= 10 ? [1e3, "µs"] : [1, "ns"];
  // The step is 1, 2 or 5 times a power of ten: its decimals in the unit are the negated
  // exponent (the epsilon keeps log10(0.1) = -0.99999... from asking for two).
  const decimals = Math.max(0, Math.ceil(-Math.log10(stepNs / scale) - 1e-9));
  return `${(ns / scale).toFixed(decimals)} ${unit}`;
}

// µs with 3 decimals, as the summary CSVs write times.
export function micros(ns: number): string {
  return (ns / 1000).toFixed(3);
}

export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const child of children) node.append(child);
  return node;
}

// A summary card: a label over its value, flagged when `warn`.
export function card(label: string, value: string, warn = false): HTMLElement {
  return el(
    "div",
    { class: warn ? "card warn" : "card" },
    el("div", { class: "label" }, label),
    el("div", { class: "value" }, value),
  );
}

// A stable colour per name, by its hue (0-359): the same slice name keeps its colour across
// zooms, and the timeline groups its slices by hue.
export function hueOf(name: string): number {
  let hash = 2166136261;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  return (hash >>> 0) % 360;
}

// hsl(hue 55% 62%) as #rrggbb: a canvas parses a hex colour several times faster than an
// hsl() one (thousands of fillStyle changes per timeline frame), so the timeline builds its
// palette of all 360 hues once with this.
export function colorOfHue(hue: number): string {
  return hslToHex(hue, 0.55, 0.62);
}

function hslToHex(hue: number, s: number, l: number): string {
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number) => {
    const k = (n + hue / 30) % 12;
    const value = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(value * 255).toString(16).padStart(2, "0");
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}
