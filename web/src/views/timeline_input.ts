// The timeline's mouse, wheel and keys, as in Perfetto: W/S zoom (at the cursor), A/D pan,
// ctrl+wheel zoom, shift+wheel pan, wheel scroll, drag pan, shift+drag an area, F fit the
// selection, 0 the whole run, Esc clear; a click without a drag is the view's (click()).
import type { Area } from "./timeline_handle";

// What the input acts on: the view's window and what it does with a gesture.
export interface InputTarget {
  window: () => [number, number];
  setWindow: (t0: number, t1: number) => void;
  plotWidth: () => number;
  tOf: (x: number) => number;
  zoom: (factor: number, atX: number) => void;
  pan: (fraction: number) => void;
  scroll: (dy: number) => void;
  fitSelection: () => void;
  reset: () => void;
  clearSelection: () => void;
  // The cursor moved to x (-1: it left) without a drag: the view redraws its line and tooltip.
  hover: (x: number, y: number) => void;
  leave: () => void;
  hideTooltip: () => void;
  // The area being dragged (null: none), drawn over the frame.
  dragArea: (area: { t0: number; t1: number } | null) => void;
  // The tracks of the lanes between two rows of the screen.
  tracksBetween: (y0: number, y1: number) => number[];
  selectArea: (area: Area) => void;
  click: (x: number, y: number) => void;
}

// Listens on `canvas` (and the window for mouse-up and keys); returns what removes the
// window's listeners. `mouseX()` is the cursor's x for zooming by key.
export function bindInput(canvas: HTMLCanvasElement, wrap: HTMLElement, view: InputTarget): { mouseX: () => number; unbind: () => void } {
  let mouseX = -1;
  let drag: { x: number; y: number; v0: number; v1: number; select: boolean; moved: boolean } | null = null;
  let area: { t0: number; t1: number; y0: number; y1: number } | null = null;
  const onMouseDown = (e: MouseEvent) => {
    wrap.focus();
    const [v0, v1] = view.window();
    drag = { x: e.offsetX, y: e.offsetY, v0, v1, select: e.shiftKey, moved: false };
    if (e.shiftKey) {
      area = { t0: view.tOf(e.offsetX), t1: view.tOf(e.offsetX), y0: e.offsetY, y1: e.offsetY };
      view.dragArea(area);
    }
  };
  const onMouseMove = (e: MouseEvent) => {
    mouseX = e.offsetX;
    if (!drag) {
      view.hover(e.offsetX, e.offsetY);
      return;
    }
    view.hideTooltip();
    if (Math.abs(e.offsetX - drag.x) > 3 || Math.abs(e.offsetY - drag.y) > 3) drag.moved = true;
    if (drag.select && area) {
      area.t1 = view.tOf(e.offsetX);
      area.y1 = e.offsetY;
      view.dragArea(area);
    } else if (drag.moved) {
      const d = (e.offsetX - drag.x) * ((drag.v1 - drag.v0) / view.plotWidth());
      view.setWindow(drag.v0 - d, drag.v1 - d);
    }
  };
  const onMouseUp = (e: MouseEvent) => {
    if (!drag) return;
    const wasDrag = drag;
    drag = null;
    if (wasDrag.select && area) {
      const done = area;
      area = null;
      view.dragArea(null);
      if (wasDrag.moved) view.selectArea({ t0: Math.min(done.t0, done.t1), t1: Math.max(done.t0, done.t1), tracks: view.tracksBetween(done.y0, done.y1) });
      return;
    }
    if (wasDrag.moved || e.target !== canvas) return;
    view.click(e.offsetX, e.offsetY);
  };
  const onWheel = (e: WheelEvent) => {
    e.preventDefault();
    if (e.ctrlKey || e.metaKey) view.zoom(Math.exp(e.deltaY * 0.002), e.offsetX);
    else if (e.shiftKey) view.pan(e.deltaY / 1000);
    else view.scroll(e.deltaY);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key.toLowerCase();
    if (key === "w") view.zoom(0.8, mouseX);
    else if (key === "s") view.zoom(1.25, mouseX);
    else if (key === "a") view.pan(-0.1);
    else if (key === "d") view.pan(0.1);
    else if (key === "f") view.fitSelection();
    else if (key === "0") view.reset();
    else if (key === "escape") view.clearSelection();
    else return;
    e.preventDefault();
  };
  canvas.addEventListener("mousedown", onMouseDown);
  canvas.addEventListener("mousemove", onMouseMove);
  canvas.addEventListener("mouseleave", () => {
    mouseX = -1;
    view.leave();
  });
  window.addEventListener("mouseup", onMouseUp);
  canvas.addEventListener("wheel", onWheel, { passive: false });
  window.addEventListener("keydown", onKey);
  return {
    mouseX: () => mouseX,
    unbind: () => {
      window.removeEventListener("mouseup", onMouseUp);
      window.removeEventListener("keydown", onKey);
    },
  };
}
