// Contact shapes, ropes and the run's one-sided events, shared by the WebGL view (scene3d.js)
// and the 2-D drawing (view2d.js). The shapes come from the scene as `joinery view` writes it
// (a contact joint's "shapes": shape1 and shape2 in the frames of body1 and body2), the events
// from the run's summary (`joinery view --summary`).
import { point3, transformPoint } from './data.js';

/// Colours: a plane (a floor, a slope, a wall) and the dots of contact points.
export const PLANE_COLOR = '#6d5a45';
export const POINT_COLOR = '#1b1f24';
export const ROPE_COLOR = '#7a4a1e';
/// Event kinds (docs/contact.md, "Results") and their marks' colours.
export const EVENT_COLORS = {
  impact: '#d62728', release: '#1f77b4', contact: '#2ca02c', rest: '#7f7f7f', stick: '#9467bd', slip: '#ff7f0e',
};
export const eventColor = (kind) => EVENT_COLORS[kind] || '#444444';

const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const norm = (a) => Math.hypot(a[0], a[1], a[2]);
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const unit = (a) => { const n = norm(a) || 1; return a.map((x) => x / n); };
export const rotateVector = (pose, v) => (pose ? transformPoint({ position: [0, 0, 0], quaternion: pose.quaternion }, v) : v.slice());
const toBody = (pose, p) => {  // world point -> body frame (the inverse of transformPoint)
  if (!pose) return p.slice();
  const [w, x, y, z] = pose.quaternion;
  return transformPoint({ position: [0, 0, 0], quaternion: [w, -x, -y, -z] }, sub(p, pose.position));
};

/// Two directions spanning a plane of unit normal n (planar models: the first is ez x n).
export function planeTangents(n, planar) {
  if (planar) return [unit([-n[1], n[0], 0]), [0, 0, 1]];
  const helper = Math.abs(n[2]) < 0.9 ? [0, 0, 1] : [1, 0, 0];
  const u = unit(cross(helper, n));
  return [u, cross(n, u)];
}

/// The drawn parts of every contact joint, in their bodies' frames:
/// { joint, body, kind: 'plane' | 'sphere' | 'point', point, normal (plane), radius (sphere) }.
/// A `points` shape gives one 'point' part per point.
export function contactParts(scene) {
  const out = [];
  for (const j of scene.joints) {
    if (!Array.isArray(j.shapes)) continue;
    j.shapes.forEach((s, k) => {
      const body = j.ends[k] ? j.ends[k].body : 'ground';
      if (!s || typeof s !== 'object') return;
      if (s.plane) out.push({ joint: j.name, body, kind: 'plane', point: point3(s.plane.point), normal: unit(point3(s.plane.normal)) });
      else if (s.sphere) out.push({ joint: j.name, body, kind: 'sphere', point: point3(s.sphere.center), radius: Number(s.sphere.radius) || 0 });
      else if (s.point) out.push({ joint: j.name, body, kind: 'point', point: point3(s.point) });
      else if (Array.isArray(s.points)) s.points.forEach((p, i) => out.push({ joint: j.name, body, kind: 'point', point: point3(p), index: i }));
    });
  }
  return out;
}

/// A plane's drawn patch, in its body's frame: its centre (the point of the plane nearest the
/// middle of the scene's motion, `center` in world axes, taken at the first frame's pose), the
/// two tangents and the half size: from `extent`, the size of the bodies' motion, 2 extents in
/// a planar model (the line crosses the whole view, whatever its shape), 0.75 in 3-D (a patch
/// a little wider than the motion).
export function planePatch(part, pose0, center, extent, planar) {
  const c = toBody(pose0, center);
  const n = part.normal, d = dot(sub(c, part.point), n);
  const mid = c.map((x, k) => x - d * n[k]);
  const [u, v] = planeTangents(n, planar);
  return { center: mid, u, v, half: (planar ? 2 : 0.75) * extent };
}

/// Ropes: joints of type rope with two ends and a length.
export function ropeJoints(scene) {
  return scene.joints.filter((j) => j.type === 'rope' && j.ends.length === 2 && j.length > 0);
}

/// A rope at the current poses: its end points (world), the gap length - |p2 - p1| and whether
/// it is taut (the gap within 1e-6 of the length: a taut rope's gap is the constraint's
/// residual, 1e-9 m or less).
export function ropeState(j, poses) {
  const [a, b] = j.ends.map((e) => { const p = poses.get(e.body); return p ? transformPoint(p, point3(e.point)) : point3(e.point); });
  const gap = j.length - norm(sub(b, a));
  return { joint: j.name, from: a, to: b, gap, taut: gap <= 1e-6 * j.length };
}

/// The bodies (names) that carry a contact sphere centred at their origin: particles among
/// them are drawn by that sphere alone.
export function sphereBodies(parts) {
  return new Set(parts.filter((p) => p.kind === 'sphere' && norm(p.point) < 1e-12).map((p) => p.body));
}

/// Body-frame points around each sphere (centre plus and minus the radius on each axis), for
/// the camera to fit what is drawn.
export function partExtentPoints(part) {
  if (part.kind !== 'sphere') return [part.point];
  const out = [];
  for (let k = 0; k < 3; ++k) for (const s of [-part.radius, part.radius]) out.push(part.point.map((x, i) => (i === k ? x + s : x)));
  return out;
}

/// The unit of an event's impulse: N·m·s for a limit on an angle, else N·s.
export function impulseUnit(joint) {
  return joint && joint.type.startsWith('revolute') ? 'N·m·s' : 'N·s';
}

/// An event in words: "t = 0.451524 s: impact of 'floor', impulse 3.32209 N·s".
export function describeEvent(e, scene) {
  const j = scene.joints.find((x) => x.name === e.joint);
  const row = e.row ? ` (${e.row})` : '';
  const speed = e.speed !== undefined && (e.kind === 'impact' || e.kind === 'rest') ? `, approach speed ${Number(e.speed).toPrecision(6)}` : '';
  return `t = ${Number(e.t).toPrecision(9)} s: ${e.kind} of '${e.joint}'${row}, impulse ${Number(e.impulse).toPrecision(6)} ${impulseUnit(j)}${speed}`;
}

/// Where time t falls along the frames, as a fractional frame index (times increasing): the
/// position of the time slider's thumb when it shows that time.
export function fractionalFrame(times, t) {
  const n = times.length;
  if (n < 2 || t <= times[0]) return 0;
  if (t >= times[n - 1]) return n - 1;
  let lo = 0, hi = n - 1;
  while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (times[mid] <= t) lo = mid; else hi = mid; }
  const span = times[hi] - times[lo];
  return lo + (span > 0 ? (t - times[lo]) / span : 0);
}
