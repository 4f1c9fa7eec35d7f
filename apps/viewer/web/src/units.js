// The unit of a run's column, from its name alone (docs/outputs.md, "Columns of a run"): the
// coordinates x, y, z (m) and theta (rad) with their _dot and _ddot, the point channels'
// .x .vx .ax, the reactions' .fx (N) and .tx (N·m), .power (W), energy (J), t (s). ''
// when the name does not say (an expression, an effort, a generalised coordinate). The
// joinery plot command applies the same rules (apps/joinery/plot_units.cpp).

const LAST = {
  fx: 'N', fy: 'N', fz: 'N', tx: 'N·m', ty: 'N·m', tz: 'N·m', power: 'W',
  vx: 'm/s', vy: 'm/s', vz: 'm/s', ax: 'm/s²', ay: 'm/s²', az: 'm/s²',
};
const COORD = { x: 'm', y: 'm', z: 'm', theta: 'rad' };

export function columnUnit(name) {
  if (name === 't') return 's';
  if (name === 'energy') return 'J';
  const dotAt = name.lastIndexOf('.');
  if (dotAt < 0) return '';
  let last = name.slice(dotAt + 1);
  if (LAST[last]) return LAST[last];
  let order = 0;
  if (last.endsWith('_ddot')) { order = 2; last = last.slice(0, -5); } else if (last.endsWith('_dot')) { order = 1; last = last.slice(0, -4); }
  const base = COORD[last];
  if (!base) return '';
  return base + ['', '/s', '/s²'][order];
}
