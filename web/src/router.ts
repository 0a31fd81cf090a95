// The address bar holds the view and its state: `#<view>?<key>=<value>&...` (the timeline's
// window and selection, a table's step and filter), so a view can be shared, reloaded and
// reached from a link in another view. Links are plain hrefs; a view that changes its own
// state rewrites the address with replaceState (no reload, no history entry per pan).
export interface Route {
  view: string;
  params: URLSearchParams;
}

export function currentRoute(): Route {
  const hash = location.hash.slice(1);
  const question = hash.indexOf("?");
  const view = question < 0 ? hash : hash.slice(0, question);
  return { view, params: new URLSearchParams(question < 0 ? "" : hash.slice(question + 1)) };
}

export function viewHref(view: string, params: Record<string, string | number | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, String(value));
  const text = query.toString();
  return `#${view}${text ? `?${text}` : ""}`;
}

// Replaces the current view's parameters in the address bar without re-rendering.
export function replaceParams(view: string, params: Record<string, string | number | undefined>): void {
  const href = viewHref(view, params);
  if (location.hash !== href) history.replaceState(history.state, "", `${location.pathname}${location.search}${href}`);
}

// The per-launch token is in the address only until the first answer: the server then has set
// its cookie, and an address without it can be shared without handing over access.
export function dropTokenFromAddress(): void {
  const query = new URLSearchParams(location.search);
  if (!query.has("token")) return;
  query.delete("token");
  const rest = query.toString();
  history.replaceState(history.state, "", `${location.pathname}${rest ? `?${rest}` : ""}${location.hash}`);
}

// What the timeline opens on. Times are ns since the run's origin (what the API gives).
export interface TimelineTarget {
  t0?: number;
  t1?: number;
  slice?: number;  // select this slice (and fit it when no window is given)
  instant?: number;
  step?: number;  // a step id: its span, selected as an area on its thread
  find?: string;  // a name: its longest call
  rank?: number;  // scroll to the rank's processes
}

export function timelineHref(target: TimelineTarget): string {
  return viewHref("timeline", {
    t0: target.t0 === undefined ? undefined : Math.floor(target.t0),
    t1: target.t1 === undefined ? undefined : Math.ceil(target.t1),
    sel: target.slice !== undefined ? `s${target.slice}` : target.instant !== undefined ? `i${target.instant}` : undefined,
    step: target.step,
    find: target.find,
    rank: target.rank,
  });
}

// A link element to the timeline with `text`, marked for the tests (data-timeline-link).
export function timelineLink(text: string, target: TimelineTarget, title = "show on the timeline"): HTMLAnchorElement {
  const a = document.createElement("a");
  a.href = timelineHref(target);
  a.textContent = text;
  a.title = title;
  a.className = "timeline-link";
  a.dataset.timelineLink = "1";
  return a;
}
