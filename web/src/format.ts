// Number and time formatting shared by the views.
export function formatNs(ns: number): string {
  const abs = Math.abs(ns);
  if (abs >= 1e9) return `${(ns / 1e9).toFixed(3)} s`;
  if (abs >= 1e6) return `${(ns / 1e6).toFixed(3)} ms`;
  if (abs >= 1e3) return `${(ns / 1e3).toFixed(3)} µs`;
  return `${ns} ns`;
}

// The unit a chart's time axis reads best in, from the largest time it shows (ns since the
// run's start): its scale (ns per unit) and its axis label.
export function timeAxisUnit(maxNs: number): [number, string] {
  if (maxNs >= 1e9) return [1e9, "s since start"];
  if (maxNs >= 1e6) return [1e6, "ms since start"];
  if (maxNs >= 1e3) return [1e3, "µs since start"];
  return [1, "ns since start"];
}

// A time in three significant digits, for narrow columns: "51.2 ms", "866 µs", "1.25 s".
export function formatNsShort(ns: number): string {
  const abs = Math.abs(ns);
  const [scale, unit] = abs >= 1e9 ? [1e9, "s"] : abs >= 1e6 ? [1e6, "ms"] : abs >= 1e3 ? [1e3, "µs"] : [1, "ns"];
  return scale === 1 ? `${Math.round(ns)} ns` : `${Number((ns / scale).toPrecision(3))} ${unit}`;
}

// A time to the nanosecond, in the largest unit it reaches: "800.836331 ms", "1.234567891 s",
// "12.345 µs", "17 ns" (the ruler's and tables' rounded forms hide what the data has).
export function formatNsExact(ns: number): string {
  const abs = Math.abs(ns);
  if (abs >= 1e9) return `${(ns / 1e9).toFixed(9)} s`;
  if (abs >= 1e6) return `${(ns / 1e6).toFixed(6)} ms`;
  if (abs >= 1e3) return `${(ns / 1e3).toFixed(3)} µs`;
  return `${Math.round(ns)} ns`;
}

// A time tick: in the largest unit the ruler's values reach (so one frame's labels share
// it) in which the tick step needs at most three decimals, printed with exactly the
// decimals the step needs: "10 ms" at 10 ms steps over 62 ms, "30.36 ms" at 10 µs steps
// 30 ms in, "1.5 s" at 0.5 s steps.
export function formatTickNs(ns: number, stepNs: number, largestNs: number): string {
  const units: [number, string][] = [[1e9, "s"], [1e6, "ms"], [1e3, "µs"]];
  for (const [scale, unit] of units) {
    const decimals = stepDecimals(stepNs, scale);
    if (largestNs >= scale && decimals <= 3) return `${(ns / scale).toFixed(decimals)} ${unit}`;
  }
  return `${ns.toFixed(stepDecimals(stepNs, 1))} ns`;
}

// The step is 1, 2 or 5 times a power of ten: its decimals in the unit are the negated
// exponent (the epsilon keeps log10(0.1) = -0.99999... from asking for two).
function stepDecimals(stepNs: number, scale: number): number {
  return Math.max(0, Math.ceil(-Math.log10(stepNs / scale) - 1e-9));
}

// A counter value as people read it: grouped digits, at most two decimals ("24,680,000",
// "8,872", "12.5"); below 1, three significant digits.
export function formatValue(value: number): string {
  if (value !== 0 && Math.abs(value) < 1) return value.toPrecision(3);
  return value.toLocaleString("en-US", { maximumFractionDigits: 2 });
}

// A counter value in its unit, scaled where the unit is a size: "KB" samples (the kernel's
// KiB) as bytes ("1.2 GiB"), "%" with one decimal, rates per second.
export function formatCounterValue(value: number, unit: string): string {
  if (unit === "KB" || unit === "KiB") return formatBytes(value * 1024);
  if (unit === "B" || unit === "bytes") return formatBytes(value);
  if (unit === "%") return `${value.toFixed(1)} %`;
  if (unit === "1/s") return `${formatValue(value)}/s`;
  return unit ? `${formatValue(value)} ${unit}` : formatValue(value);
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

// Per critical path category (analysis/critical_path/path_category.h): compute,
// communication transit, communication wait, host overhead, synchronisation, data loading, idle.
export const CRITICAL_COLORS = ["#3b82f6", "#8b5cf6", "#ef4444", "#f59e0b", "#ec4899", "#10b981", "#cbd5e1"];
