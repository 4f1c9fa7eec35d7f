// The page's data: the scene summary (JSON) and the samples (little-endian float64 columns,
// base64), both written into the page by `joinery view`.

function decodeBase64(text) {
  const bin = atob(text.replace(/\s+/g, ''));
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; ++i) bytes[i] = bin.charCodeAt(i);
  return bytes.buffer;
}

/// Reads the two data elements of the page. Returns { scene, columns: {name: Float64Array}, names, frames }.
export function loadPageData(doc) {
  const scene = JSON.parse(doc.getElementById('joinery-data').textContent);
  const buffer = decodeBase64(doc.getElementById('joinery-samples').textContent);
  const names = scene.samples.columns;
  const frames = scene.samples.frames;
  const all = new Float64Array(buffer);
  if (all.length !== names.length * frames)
    throw new Error(`samples: ${all.length} numbers, expected ${names.length} columns x ${frames} frames`);
  // the page text of the samples is no longer needed (large runs: tens of MB)
  doc.getElementById('joinery-samples').textContent = '';
  const columns = {};
  names.forEach((n, k) => { columns[n] = all.subarray(k * frames, (k + 1) * frames); });
  return { scene, columns, names, frames };
}

/// A point [x, y] or [x, y, z] as three numbers.
export function point3(p) {
  if (!p) return [0, 0, 0];
  return [p[0] || 0, p[1] || 0, p.length > 2 ? p[2] : 0];
}

/// The pose of body `b` at frame `i`: position [x,y,z] and unit quaternion [w,x,y,z], computed from
/// its coordinates as the library defines them (rigid2d x y theta; rigid3d x y z e0..e3; particle;
/// flexible2d: the frame x y theta, its bent shape drawn from the "@body.k" curve columns).
export function poseAt(b, data, i) {
  const c = (k) => data.columns[b.columns[k]][i];
  if (b.type === 'rigid2d' || b.type === 'flexible2d') {  // flexible2d: its floating frame
    const th = c(2);
    return { position: [c(0), c(1), 0], quaternion: [Math.cos(th / 2), 0, 0, Math.sin(th / 2)] };
  }
  if (b.type === 'rigid3d') {
    const e = [c(3), c(4), c(5), c(6)];
    const n = Math.hypot(e[0], e[1], e[2], e[3]) || 1;
    return { position: [c(0), c(1), c(2)], quaternion: e.map((v) => v / n) };
  }
  if (b.type === 'particle') {
    const n = b.columns.length;
    return { position: [c(0), n > 1 ? c(1) : 0, n > 2 ? c(2) : 0], quaternion: [1, 0, 0, 0] };
  }
  return null;  // abstract coordinates: not drawn
}

/// World position of body-local point p for a pose.
export function transformPoint(pose, p) {
  const [w, x, y, z] = pose.quaternion;
  const [px, py, pz] = p;
  // v' = v + 2w (u x v) + 2 u x (u x v), u = (x, y, z)
  const cx = y * pz - z * py, cy = z * px - x * pz, cz = x * py - y * px;
  const ccx = y * cz - z * cy, ccy = z * cx - x * cz, ccz = x * cy - y * cx;
  return [pose.position[0] + px + 2 * (w * cx + ccx), pose.position[1] + py + 2 * (w * cy + ccy),
    pose.position[2] + pz + 2 * (w * cz + ccz)];
}

/// Index of the last frame whose time is <= t (the first frame for earlier times).
export function frameAt(times, t) {
  let lo = 0, hi = times.length - 1;
  if (t >= times[hi]) return hi;
  if (t <= times[0]) return 0;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) lo = mid; else hi = mid;
  }
  // a time within rounding of the next sample means that sample
  return Math.abs(times[hi] - t) <= 1e-12 * Math.max(1, Math.abs(t)) ? hi : lo;
}

/// The world position of curve point k of body b at frame i (the "@body.k.x|y|z" columns).
export function curvePointAt(b, data, k, i) {
  const c = (a) => data.columns[`@${b.name}.${k}.${a}`][i];
  return [c('x'), c('y'), c('z')];
}
