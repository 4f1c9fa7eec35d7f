// uPlot chart of the columns the user picks against t, with a cursor line at the animation time.
import uPlot from 'uplot';
import { columnUnit } from './units.js';
import { frameAt } from './data.js';
import { eventColor } from './contacts.js';

const COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc948', '#9c755f'];

export class Plots {
  constructor(container, data, onPick) {
    this.container = container;
    this.data = data;
    this.onPick = onPick;
    this.time = 0;
    this.chart = null;
    this.columns = [];
  }

  setColumns(names) {
    this.columns = names.filter((n) => n !== 't' && this.data.columns[n]);
    if (this.chart) { this.chart.destroy(); this.chart = null; }
    if (this.columns.length === 0) return;
    // one y axis per unit (force and torque never share one): the first on the left, the
    // others on the right; columns without a known unit share an unlabelled axis
    const units = [...new Set(this.columns.map(columnUnit))];
    const scaleOf = (n) => `y${units.indexOf(columnUnit(n))}`;
    const series = [{ label: 't' }, ...this.columns.map((n, k) => ({ label: columnUnit(n) ? `${n} (${columnUnit(n)})` : n, stroke: COLORS[k % COLORS.length], width: 1.5, scale: scaleOf(n) }))];
    const yAxes = units.map((u, k) => ({ scale: `y${k}`, label: u || '', side: k === 0 ? 3 : 1, grid: { show: k === 0 } }));
    const scales = { x: { time: false } };
    units.forEach((u, k) => { scales[`y${k}`] = { auto: true }; });
    this.units = units;
    const plotData = [this.data.columns.t, ...this.columns.map((n) => this.data.columns[n])];
    const self = this;
    const opts = {
      width: this.container.clientWidth || 600,
      height: Math.max(160, (this.container.clientHeight || 280) - 56),
      series,
      scales,
      axes: [{ label: 't (s)' }, ...yAxes],
      cursor: { drag: { x: true, y: false } },
      hooks: {
        // the legend gives the values at the animation time while the cursor is off the plot
        setCursor: [(u) => { if (u.cursor.idx == null) u.setLegend({ idx: self.timeIndex() }, false); }],
        draw: [(u) => {  // the run's events as thin dashed lines, the animation time as a red line
          const ctx = u.ctx;
          ctx.save();
          ctx.lineWidth = 1;
          ctx.setLineDash([4, 3]);
          ctx.globalAlpha = 0.7;
          for (const e of self.data.scene.events || []) {
            const xe = u.valToPos(e.t, 'x', true);
            if (!(xe >= u.bbox.left && xe <= u.bbox.left + u.bbox.width)) continue;
            ctx.strokeStyle = eventColor(e.kind);
            ctx.beginPath();
            ctx.moveTo(xe, u.bbox.top);
            ctx.lineTo(xe, u.bbox.top + u.bbox.height);
            ctx.stroke();
          }
          ctx.restore();
          const x = u.valToPos(self.time, 'x', true);
          ctx.save();
          ctx.strokeStyle = '#d62728';
          ctx.lineWidth = 2;
          ctx.beginPath();
          ctx.moveTo(x, u.bbox.top);
          ctx.lineTo(x, u.bbox.top + u.bbox.height);
          ctx.stroke();
          ctx.restore();
        }],
      },
    };
    this.chart = new uPlot(opts, plotData, this.container);
    this.chart.setLegend({ idx: this.timeIndex() }, false);
    this.chart.over.addEventListener('click', (ev) => {
      const rect = this.chart.over.getBoundingClientRect();
      this.onPick(this.chart.posToVal(ev.clientX - rect.left, 'x'));
    });
  }

  setTime(t) {
    this.time = t;
    if (!this.chart) return;
    this.chart.redraw(false, false);
    if (this.chart.cursor.idx == null) this.chart.setLegend({ idx: this.timeIndex() }, false);
  }

  /// The sample shown at the animation time.
  timeIndex() { return frameAt(this.data.columns.t, this.time); }

  /// The values the legend shows now, one string per plotted column.
  legendValues() {
    if (!this.chart) return [];
    return [...this.container.querySelectorAll('.u-legend .u-series')].slice(1).map((r) => r.querySelector('.u-value').textContent);
  }

  resize() {
    if (this.chart) this.chart.setSize({ width: this.container.clientWidth, height: Math.max(160, this.container.clientHeight - 56) });
  }

  /// Points drawn per series (0 with no chart).
  pointCount() { return this.chart ? this.chart.data[0].length : 0; }
}
