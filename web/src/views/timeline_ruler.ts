// The timeline's ruler: the steps as bands (every other one tinted) and time ticks.
import { formatNs } from "../format";

export const LABEL_W = 210;
export const RULER_H = 30;

export function drawRuler(
  ctx: CanvasRenderingContext2D, stepsByStart: [number, number, number][], v0: number, v1: number, width: number,
): void {
  const plotWidth = Math.max(width - LABEL_W, 1);
  const xOf = (t: number) => LABEL_W + ((t - v0) * plotWidth) / (v1 - v0);
  ctx.fillStyle = "#eef1f6";
  ctx.fillRect(0, 0, width, RULER_H);
  ctx.font = "10px system-ui";
  // Every other step is a band; steps narrower than 2 px could not be told apart, so a run
  // of them is one band at half the tint (thousands of steps at full zoom-out).
  let denseLeft = -1;
  let denseRight = -1;
  const flushDense = () => {
    if (denseLeft < 0) return;
    ctx.fillStyle = "rgba(91,156,246,0.09)";
    ctx.fillRect(denseLeft, 16, Math.max(denseRight - denseLeft, 1), RULER_H - 16);
    denseLeft = -1;
  };
  for (const [step, begin, end] of stepsByStart) {
    const x0 = Math.max(xOf(begin), LABEL_W);
    const x1 = Math.min(xOf(end), width);
    if (x0 > width) break;
    if (x1 < LABEL_W) continue;
    if (x1 - x0 < 2) {
      if (denseLeft < 0) {
        denseLeft = x0;
        denseRight = x1;
      } else {
        denseRight = Math.max(denseRight, x1);
      }
      continue;
    }
    flushDense();
    if (step % 2 === 0) {
      ctx.fillStyle = "rgba(91,156,246,0.18)";
      ctx.fillRect(x0, 16, x1 - x0, RULER_H - 16);
    }
    if (x1 - x0 > 40) {
      ctx.fillStyle = "#3d5a80";
      ctx.fillText(`step ${step}`, x0 + 2, RULER_H - 3);
    }
  }
  flushDense();
  const spanNs = v1 - v0;
  const target = spanNs / (plotWidth / 100);
  const decade = Math.pow(10, Math.floor(Math.log10(Math.max(target, 1))));
  const tick = [1, 2, 5, 10].map((m) => m * decade).find((t) => t >= target) ?? 10 * decade;
  ctx.fillStyle = "#445";
  ctx.strokeStyle = "#c5ccd8";
  for (let t = Math.ceil(v0 / tick) * tick; t < v1; t += tick) {
    const x = xOf(t);
    ctx.beginPath();
    ctx.moveTo(x, 0);
    ctx.lineTo(x, 14);
    ctx.stroke();
    ctx.fillText(formatNs(t), x + 2, 11);
  }
}
