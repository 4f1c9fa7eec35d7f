// uPlot chart of the columns the user picks against t, with a cursor line at the animation time.
import uPlot from 'uplot';

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
    const series = [{ label: 't' }, ...this.columns.map((n, k) => ({ label: n, stroke: COLORS[k % COLORS.length], width: 1.5 }))];
    const plotData = [this.data.columns.t, ...this.columns.map((n) => this.data.columns[n])];
    const self = this;
    const opts = {
      width: this.container.clientWidth || 600,
      height: Math.max(160, (this.container.clientHeight || 280) - 56),
      series,
      scales: { x: { time: false } },
      axes: [{ label: 't (s)' }, {}],
      cursor: { drag: { x: true, y: false } },
      hooks: {
        draw: [(u) => {  // the animation time as a vertical line
          const x = u.valToPos(self.time, 'x', true);
          const ctx = u.ctx;
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
    this.chart.over.addEventListener('click', (ev) => {
      const rect = this.chart.over.getBoundingClientRect();
      this.onPick(this.chart.posToVal(ev.clientX - rect.left, 'x'));
    });
  }

  setTime(t) {
    this.time = t;
    if (this.chart) this.chart.redraw(false, false);
  }

  resize() {
    if (this.chart) this.chart.setSize({ width: this.container.clientWidth, height: Math.max(160, this.container.clientHeight - 56) });
  }

  /// Points drawn per series (0 with no chart).
  pointCount() { return this.chart ? this.chart.data[0].length : 0; }
}
