// The drawing of the mechanism without WebGL: a 2-D canvas. Planar models are drawn in
// their plane (x right, y up), as the WebGL view shows them; 3-D models in a chosen
// projection (an oblique view like the WebGL camera's, or top, front, side). Same interface
// as MechanismView (scene3d.js), so the page, the plots and window.joineryView work alike.
import { curvePointAt, point3, poseAt, transformPoint } from './data.js';
import { PLANE_COLOR, POINT_COLOR, ROPE_COLOR, contactParts, partExtentPoints, planePatch, ropeJoints, ropeState, rotateVector, sphereBodies } from './contacts.js';

const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948', '#ff9da7', '#9c755f'];
const HIGHLIGHT = '#e8112d';

/// The projections offered for 3-D models: screen right and up as world directions.
export const PROJECTIONS = {
  oblique: { label: 'oblique (as the 3-D view)', ...obliqueBasis([1.2, -1.6, 0.9]) },
  top: { label: 'top (x, y)', right: [1, 0, 0], up: [0, 1, 0] },
  front: { label: 'front (x, z)', right: [1, 0, 0], up: [0, 0, 1] },
  side: { label: 'side (y, z)', right: [0, 1, 0], up: [0, 0, 1] },
};

function obliqueBasis(toEye) {
  const n = Math.hypot(...toEye), d = toEye.map((x) => x / n);
  // right = z x d (z is up in the scenes' world), up = d x right
  let right = [-d[1], d[0], 0];
  const r = Math.hypot(...right);
  right = right.map((x) => x / r);
  const up = [d[1] * right[2] - d[2] * right[1], d[2] * right[0] - d[0] * right[2], d[0] * right[1] - d[1] * right[0]];
  return { right, up };
}

const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const rotate = (q, v) => transformPoint({ position: [0, 0, 0], quaternion: q }, v);

/// The world positions of a joint's or force's ends at frame i (poses: body name -> pose).
function worldEnds(el, poses) {
  return el.ends.map((e) => {
    const pose = poses.get(e.body);
    return pose ? transformPoint(pose, point3(e.point)) : point3(e.point);
  });
}

/// The guide axis of a prismatic joint in world axes at the given poses (body1's frame turned).
export function sliderAxis(j, poses) {
  const local = point3(j.axis || [1, 0, 0]);
  const n = Math.hypot(...local) || 1;
  const a = local.map((x) => x / n);
  const p1 = j.ends[0] && poses.get(j.ends[0].body);
  return p1 ? rotate(p1.quaternion, a) : a;
}

/// The travel of every prismatic joint over the run: [lo, hi] of the offset of its second end
/// from its first along the guide (0 included), over at most ~300 frames. The guide is drawn
/// over this range (plus the slider block's half length), so the slider never leaves it.
export function sliderTravel(data, bodies) {
  const out = new Map();
  const sliders = data.scene.joints.filter((j) => j.type.startsWith('prismatic') && j.ends.length >= 2);
  if (!sliders.length) return out;
  for (const j of sliders) out.set(j, [0, 0]);
  const n = data.frames, step = Math.max(1, Math.floor(n / 300));
  for (let i = 0; i < n; i += step) {
    const poses = new Map(bodies.map((b) => [b.name, poseAt(b, data, i)]));
    for (const j of sliders) {
      const [a, b] = worldEnds(j, poses), axis = sliderAxis(j, poses);
      const s = dot([b[0] - a[0], b[1] - a[1], b[2] - a[2]], axis), range = out.get(j);
      if (Number.isFinite(s)) { range[0] = Math.min(range[0], s); range[1] = Math.max(range[1], s); }
    }
  }
  return out;
}

export class FlatView {
  /// reason: why WebGL is not used (shown in the view's corner).
  constructor(container, data, reason) {
    this.data = data;
    this.container = container;
    this.planar = data.scene.planar;
    this.reason = reason;
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'flat';
    container.appendChild(this.canvas);
    this.bodies = data.scene.bodies.filter((b) => ['rigid2d', 'rigid3d', 'particle', 'flexible2d'].includes(b.type));
    this.curved = data.scene.bodies.filter((b) => b.curve >= 2);
    this.bodyByName = new Map(this.bodies.map((b) => [b.name, b]));
    this.parts = contactParts(data.scene);  // contact shapes and ropes (contacts.js)
    this.ropes = ropeJoints(data.scene);
    this.ball = sphereBodies(this.parts);
    const indeterminate = new Set(data.scene.check.indeterminate_bodies || []);
    this.highlighted = this.bodies.filter((b) => indeterminate.has(b.name)).map((b) => b.name);
    this.bodies.forEach((b, k) => {
      b.color2d = indeterminate.has(b.name) ? HIGHLIGHT : PALETTE[k % PALETTE.length];
      b.object = { position: { x: 0, y: 0, z: 0 }, quaternion: { w: 1, x: 0, y: 0, z: 0 } };
    });
    this.travel = sliderTravel(data, this.bodies);
    this.planes = this.planePatches();
    this.framesVisible = false;
    this.deformScale = 1;
    this.frameIndex = 0;
    this.setProjection(this.planar ? 'top' : 'oblique');
  }

  /// Chooses the projection (a key of PROJECTIONS; planar models: always their plane).
  setProjection(key) {
    this.projectionKey = this.planar ? 'top' : (PROJECTIONS[key] ? key : 'oblique');
    this.basis = PROJECTIONS[this.projectionKey];
    this.fitBounds();
    this.resize();
    return this.projectionKey;
  }

  project(p) { return [dot(p, this.basis.right), dot(p, this.basis.up)]; }

  /// Every plane's patch (contacts.js planePatch), sized to the scene: centred on the point
  /// nearest the middle of the bodies' motion (world axes, over at most ~300 frames).
  planePatches() {
    const d = this.data, n = d.frames, step = Math.max(1, Math.floor(n / 300));
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    const add = (p) => p.forEach((x, k) => { if (Number.isFinite(x)) { lo[k] = Math.min(lo[k], x); hi[k] = Math.max(hi[k], x); } });
    for (let i = 0; i < n; i += step) for (const b of this.bodies) {
      const pose = poseAt(b, d, i);
      add(pose.position);
      for (const p of b.points) add(transformPoint(pose, point3(p)));
    }
    if (!Number.isFinite(lo[0])) { lo.fill(0); hi.fill(0); }
    const center = lo.map((x, k) => 0.5 * (x + hi[k])), extent = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 1e-3);
    return new Map(this.parts.filter((p) => p.kind === 'plane').map((p) => {
      const b = this.bodyByName.get(p.body);
      return [p, planePatch(p, b ? poseAt(b, d, 0) : null, center, extent, this.planar)];
    }));
  }

  /// A contact part's world place now: its centre (plane: its patch's), normal (planes).
  partWorld(part) {
    const pose = this.poses && this.poses.get(part.body);
    const at = (p) => (pose ? transformPoint(pose, p) : p.slice());
    if (part.kind !== 'plane') return { center: at(part.point) };
    const patch = this.planes.get(part);
    return { center: at(patch.center), normal: rotateVector(pose, part.normal), u: rotateVector(pose, patch.u), v: rotateVector(pose, patch.v), half: patch.half };
  }

  /// The contact shapes as drawn now, in world axes: { joint, body, kind, center, radius, normal }.
  contactShapes() {
    return this.parts.map((part) => {
      const w = this.partWorld(part), out = { joint: part.joint, body: part.body, kind: part.kind, center: w.center };
      if (part.kind === 'sphere') out.radius = part.radius;
      if (part.kind === 'plane') out.normal = w.normal;
      return out;
    });
  }

  /// The ropes as drawn now: { joint, from, to, gap, taut, dashed }.
  ropeStates() { return this.poses ? this.ropes.map((j) => { const st = ropeState(j, this.poses); return { ...st, dashed: !st.taut }; }) : []; }

  /// A world point's position on the page (CSS pixels, as getBoundingClientRect gives).
  screenPoint(p) {
    const [x, y] = this.toScreen(point3(p)), rect = this.canvas.getBoundingClientRect();
    return [rect.left + (x * rect.width) / this.canvas.width, rect.top + (y * rect.height) / this.canvas.height];
  }

  /// Planes: a line with strokes on the solid side (planar models, and a plane seen edge on),
  /// or the patch's outline and grid, filled lightly (3-D models).
  drawPlanes(ctx, line) {
    const r = this.r, px = this.scale;
    for (const part of this.parts) {
      if (part.kind !== 'plane') continue;
      const { center: c, normal: n, u, v, half: h } = this.partWorld(part);
      const at = (a, b) => c.map((x, k) => x + a * u[k] + b * v[k]);
      const [su, sv] = [this.project(u), this.project(v)].map((q) => Math.hypot(q[0], q[1]));
      if (this.planar || Math.min(su, sv) < 0.05) {  // edge on: a line along the visible tangent
        const t = su >= sv ? u : v;
        const along = (s, off = 0) => c.map((x, k) => x + s * t[k] - off * n[k]);
        line([along(-h), along(h)], PLANE_COLOR, 0.5 * r * px);
        const step = Math.max(h / 30, 2.5 * r), tick = 1.6 * r;
        for (let s = -h; s <= h; s += step) line([along(s), along(s - tick, tick)], PLANE_COLOR, 0.3 * r * px);
        continue;
      }
      const corners = [at(-h, -h), at(h, -h), at(h, h), at(-h, h)].map((p) => this.toScreen(p));
      ctx.save();
      ctx.globalAlpha = 0.18;
      ctx.fillStyle = PLANE_COLOR;
      ctx.beginPath();
      corners.forEach(([x, y], k) => (k ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
      ctx.closePath();
      ctx.fill();
      ctx.restore();
      for (let k = 0; k <= 10; ++k) {
        const s = -h + (2 * h * k) / 10;
        line([at(s, -h), at(s, h)], PLANE_COLOR, 1.5);
        line([at(-h, s), at(h, s)], PLANE_COLOR, 1.5);
      }
    }
  }

  /// The projected bounds of everything drawn over (at most ~300) frames, and the link width.
  fitBounds() {
    const d = this.data, n = d.frames, step = Math.max(1, Math.floor(n / 300));
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    const add = (p) => {
      const [u, v] = this.project(p);
      if (!Number.isFinite(u) || !Number.isFinite(v)) return;
      x0 = Math.min(x0, u); x1 = Math.max(x1, u); y0 = Math.min(y0, v); y1 = Math.max(y1, v);
    };
    const parts = this.parts.filter((p) => p.kind !== 'plane');
    for (let i = 0; i < n; i += step) {
      const poses = new Map();
      for (const b of this.bodies) {
        const pose = poseAt(b, d, i);
        poses.set(b.name, pose);
        add(pose.position);
        for (const p of b.points) add(transformPoint(pose, point3(p)));
        for (const v of b.visual || []) add(transformPoint(pose, point3(v.position)));
      }
      for (const part of parts) {
        const pose = poses.get(part.body);
        for (const p of partExtentPoints(part)) add(pose ? transformPoint(pose, p) : p);
      }
      for (const b of this.curved) for (let k = 0; k < b.curve; ++k) add(curvePointAt(b, d, k, i));
    }
    for (const el of [...d.scene.joints, ...d.scene.forces])
      for (const e of el.ends) if (e.body === 'ground') add(point3(e.point));
    if (!Number.isFinite(x0)) { x0 = y0 = -1; x1 = y1 = 1; }
    const extent = Math.max(x1 - x0, y1 - y0, 1e-3);
    this.r = 0.02 * extent;  // link half width, world units
    const m = 0.08 * extent + 4 * this.r;
    this.box = { x0: x0 - m, x1: x1 + m, y0: y0 - m, y1: y1 + m };
    this.extent = extent;
  }

  resize() {
    const w = this.container.clientWidth || 800, h = this.container.clientHeight || 500;
    const ratio = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(w * ratio);
    this.canvas.height = Math.round(h * ratio);
    this.canvas.style.width = '100%';
    this.canvas.style.height = '100%';
    const bw = this.box.x1 - this.box.x0, bh = this.box.y1 - this.box.y0;
    this.scale = Math.min(this.canvas.width / bw, this.canvas.height / bh);
    this.cx = 0.5 * (this.box.x0 + this.box.x1);
    this.cy = 0.5 * (this.box.y0 + this.box.y1);
    this.render();
  }

  /// World point -> canvas pixel.
  toScreen(p) {
    const [u, v] = this.project(p);
    return [0.5 * this.canvas.width + (u - this.cx) * this.scale, 0.5 * this.canvas.height - (v - this.cy) * this.scale];
  }

  setFramesVisible(on) { this.framesVisible = on; this.render(); }

  setDeformationScale(s) { this.deformScale = s; this.render(); }

  pose(i) {
    this.frameIndex = i;
    this.poses = new Map();
    for (const b of this.bodies) {
      const p = poseAt(b, this.data, i);
      this.poses.set(b.name, p);
      Object.assign(b.object.position, { x: p.position[0], y: p.position[1], z: p.position[2] });
      Object.assign(b.object.quaternion, { w: p.quaternion[0], x: p.quaternion[1], y: p.quaternion[2], z: p.quaternion[3] });
    }
    this.render();
  }

  /// A flexible body's curve point k as drawn (the elastic displacement times the scale).
  curvePoint(b, k) {
    const actual = curvePointAt(b, this.data, k, this.frameIndex), s = this.deformScale || 1;
    if (s === 1) return actual;
    const pose = this.poses && this.poses.get(b.name), local = point3(b.curve_local[k]);
    const ref = pose ? transformPoint(pose, local) : local;
    return ref.map((x, a) => x + s * (actual[a] - x));
  }

  curvePoints(name) {
    const b = this.curved.find((c) => c.name === name);
    if (!b || !this.poses) return [];
    const out = [];
    for (let k = 0; k < b.curve; ++k) out.push(this.curvePoint(b, k));
    return out;
  }

  render() {
    const ctx = this.canvas.getContext('2d');
    if (!ctx || !this.poses) return;
    const W = this.canvas.width, H = this.canvas.height, px = this.scale;
    ctx.fillStyle = '#f4f5f7';
    ctx.fillRect(0, 0, W, H);
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    this.drawGrid(ctx);
    const line = (pts, color, width) => {
      ctx.strokeStyle = color; ctx.lineWidth = Math.max(1, width);
      ctx.beginPath();
      pts.forEach((p, k) => { const [x, y] = this.toScreen(p); if (k) ctx.lineTo(x, y); else ctx.moveTo(x, y); });
      ctx.stroke();
    };
    const disc = (p, radius, fill, stroke) => {
      const [x, y] = this.toScreen(p);
      ctx.beginPath();
      ctx.arc(x, y, Math.max(2, radius), 0, 2 * Math.PI);
      if (fill) { ctx.fillStyle = fill; ctx.fill(); }
      if (stroke) { ctx.strokeStyle = stroke; ctx.lineWidth = 1.5; ctx.stroke(); }
    };
    const r = this.r;
    // guides of sliders and contact planes, under everything
    for (const g of this.guides()) line([g.from, g.to], '#9aa0a8', 0.5 * r * px);
    this.drawPlanes(ctx, line);
    // contact spheres (discs): filled, outlined in their body's colour
    for (const part of this.parts) {
      if (part.kind !== 'sphere') continue;
      const b = this.bodyByName.get(part.body), color = b ? b.color2d : '#8a8f98', { center } = this.partWorld(part);
      const rim = Math.min(0.6 * r, 0.25 * part.radius) * px;
      disc(center, part.radius * px, lightenHex(color, 0.35));
      const [x, y] = this.toScreen(center);
      ctx.beginPath();
      ctx.arc(x, y, Math.max(1, part.radius * px - rim / 2), 0, 2 * Math.PI);
      ctx.strokeStyle = color; ctx.lineWidth = Math.max(1, rim); ctx.stroke();
    }
    // springs and dampers: a zigzag and a line
    for (const f of this.data.scene.forces) {
      if (f.ends.length !== 2) continue;
      const [a, b] = worldEnds(f, this.poses);
      if (f.type === 'spring') line(zigzag(a, b, this.basis, 1.5 * r), '#2a7a3a', 1.5);
      else line([a, b], '#2a7a3a', 0.6 * r * px);
    }
    // bodies: a thick line through their points, a disc for a particle, visual shapes outlined
    for (const b of this.bodies) {
      const pose = this.poses.get(b.name);
      if (b.curve >= 2) continue;
      if (b.visual && b.visual.length) { for (const v of b.visual) this.drawVisual(ctx, v, pose, b.color2d, line, disc); continue; }
      if (b.type === 'particle') { if (!this.ball.has(b.name)) disc(pose.position, 2.2 * r * px, b.color2d); continue; }
      const pts = uniquePoints(b.points.map(point3));
      if (pts.length === 0) { disc(pose.position, 1.5 * r * px, b.color2d); continue; }
      const loop = pts.length === 1 ? [[0, 0, 0], pts[0]] : pts.length === 2 ? pts : [...pts, pts[0]];
      line(loop.map((p) => transformPoint(pose, p)), b.color2d, 2 * r * px);
    }
    for (const b of this.curved) {
      const pts = [];
      for (let k = 0; k < b.curve; ++k) pts.push(this.curvePoint(b, k));
      line(pts, b.color2d || PALETTE[0], 1.6 * r * px);
    }
    // joints: a ring for hinges and ball joints, a block for sliders, a line for rods
    for (const j of this.data.scene.joints) {
      if (!j.ends.length || Array.isArray(j.shapes) || j.type === 'rope') continue;  // contacts, ropes: below
      const ends = worldEnds(j, this.poses), at = ends[ends.length > 1 ? 1 : 0];
      const onGround = j.ends.every((e) => e.body === 'ground'), color = onGround ? '#8a8f98' : '#333a44';
      if (j.type === 'distance' || j.type === 'rope') line(ends, color, 0.8 * r * px);
      else if (j.type.startsWith('prismatic')) {
        const axis = sliderAxis(j, this.poses), s = 2.5 * r;
        line([at.map((x, k) => x - s * axis[k]), at.map((x, k) => x + s * axis[k])], color, 2.6 * r * px);
      } else disc(at, 1.3 * r * px, '#ffffff', color);
    }
    // contact points: dark dots; ropes: solid while taut, dashed while slack
    for (const part of this.parts) if (part.kind === 'point') disc(this.partWorld(part).center, 0.7 * r * px, POINT_COLOR);
    for (const st of this.ropeStates()) {
      ctx.save();
      if (st.dashed) ctx.setLineDash([Math.max(3, 0.6 * r * px), Math.max(3, 0.5 * r * px)]);
      ctx.lineCap = 'butt';
      line([st.from, st.to], ROPE_COLOR, 0.7 * r * px);
      ctx.restore();
    }
    if (this.framesVisible) {
      for (const b of this.bodies) {
        if (b.type === 'particle') continue;
        const pose = this.poses.get(b.name), L = 6 * r;
        ['#d62728', '#2ca02c', '#1f77b4'].forEach((c, k) => {
          const e = [0, 0, 0]; e[k] = L;
          line([pose.position, transformPoint(pose, e)], c, 2);
        });
      }
    }
  }

  /// Each slider's guide at the current frame: from its least to its largest offset over the
  /// run, plus the block's half length (2.5 r) and a little: { joint, from, to } world points.
  guides() {
    const out = [];
    if (!this.poses) return out;
    for (const [j, [lo, hi]] of this.travel) {
      const [a] = worldEnds(j, this.poses), axis = sliderAxis(j, this.poses), m = 3 * this.r;
      out.push({ joint: j.name, from: a.map((x, k) => x + (lo - m) * axis[k]), to: a.map((x, k) => x + (hi + m) * axis[k]) });
    }
    return out;
  }

  drawVisual(ctx, v, pose, color, line, disc) {
    const c = point3(v.position), px = this.scale, fill = Array.isArray(v.color)
      ? `rgb(${v.color.map((x) => Math.round(255 * x)).join(',')})` : (v.color || color);
    const at = (p) => transformPoint(pose, p);
    if (v.type === 'sphere') disc(at(c), v.radius * px, fill);
    else if (v.type === 'box') {
      const h = point3(v.size).map((x) => 0.5 * x), corners = [];
      for (const sx of [-1, 1]) for (const sy of [-1, 1]) for (const sz of [-1, 1]) corners.push(at([c[0] + sx * h[0], c[1] + sy * h[1], c[2] + sz * h[2]]));
      const hull = convexHull(corners.map((p) => this.toScreen(p)));
      ctx.fillStyle = fill;
      ctx.beginPath();
      hull.forEach(([x, y], k) => (k ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
      ctx.closePath();
      ctx.fill();
    } else if (v.type === 'cylinder') {
      const axis = point3(v.axis || [0, 0, 1]), n = Math.hypot(...axis) || 1, hl = 0.5 * v.length / n;
      line([at(c.map((x, k) => x - hl * axis[k])), at(c.map((x, k) => x + hl * axis[k]))], fill, 2 * v.radius * px);
    } else if (v.type === 'capsule') {
      line([at(point3(v.point1).map((x, k) => x + c[k])), at(point3(v.point2).map((x, k) => x + c[k]))], fill, 2 * v.radius * px);
    } else disc(at(c), this.r * px, fill);
  }

  /// A light grid in the drawing's plane (planar models; top view) or the ground plane's
  /// outline (other projections), and the world axes at the origin.
  drawGrid(ctx) {
    const step = Math.pow(10, Math.floor(Math.log10(this.extent / 2)));
    const { x0, x1, y0, y1 } = this.box;
    ctx.lineWidth = 1;
    ctx.strokeStyle = '#dde1e6';
    if (this.projectionKey === 'top') {
      ctx.beginPath();
      for (let x = Math.ceil(x0 / step) * step; x <= x1; x += step) {
        const [a, b] = [this.toScreen([x, y0, 0]), this.toScreen([x, y1, 0])];
        ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]);
      }
      for (let y = Math.ceil(y0 / step) * step; y <= y1; y += step) {
        const [a, b] = [this.toScreen([x0, y, 0]), this.toScreen([x1, y, 0])];
        ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]);
      }
      ctx.stroke();
    }
    const L = Math.min(0.15 * Math.pow(10, Math.ceil(Math.log10(this.extent * 2))), 0.4 * this.extent);
    ['#d62728', '#2ca02c', '#1f77b4'].forEach((c, k) => {
      const e = [0, 0, 0]; e[k] = L;
      const [a, b] = [this.toScreen([0, 0, 0]), this.toScreen(e)];
      if (Math.hypot(b[0] - a[0], b[1] - a[1]) < 1) return;  // the axis seen end on
      ctx.strokeStyle = c; ctx.lineWidth = 2;
      ctx.beginPath(); ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]); ctx.stroke();
    });
  }

  toPNG() { this.render(); return this.canvas.toDataURL('image/png'); }
}

/// A '#rrggbb' colour moved a fraction f towards white.
function lightenHex(c, f) {
  const v = parseInt(c.slice(1), 16), ch = [(v >> 16) & 255, (v >> 8) & 255, v & 255].map((x) => Math.round(x + f * (255 - x)));
  return `#${ch.map((x) => x.toString(16).padStart(2, '0')).join('')}`;
}

function uniquePoints(points) {
  const out = [];
  for (const p of points) if (!out.some((q) => Math.hypot(q[0] - p[0], q[1] - p[1], q[2] - p[2]) < 1e-9)) out.push(p);
  return out;
}

/// A spring from a to b drawn as a zigzag of 8 coils across the line (in the view's plane).
function zigzag(a, b, basis, width) {
  const d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  // across: the component of the screen's up (or right) perpendicular to the spring
  let across = basis.up;
  const len = Math.hypot(...d) || 1, u = d.map((x) => x / len);
  const along = dot(across, u);
  across = across.map((x, k) => x - along * u[k]);
  let n = Math.hypot(...across);
  if (n < 1e-6) { across = basis.right.map((x, k) => x - dot(basis.right, u) * u[k]); n = Math.hypot(...across) || 1; }
  across = across.map((x) => (width * x) / n);
  const pts = [a], N = 16;
  for (let k = 1; k < N; ++k) {
    const s = k / N, side = k % 2 ? 1 : -1;
    pts.push(a.map((x, c) => x + s * d[c] + side * across[c]));
  }
  pts.push(b);
  return pts;
}

/// The convex hull of screen points (monotone chain).
function convexHull(points) {
  const p = points.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower = [], upper = [];
  for (const q of p) { while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], q) <= 0) lower.pop(); lower.push(q); }
  for (const q of p.reverse()) { while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], q) <= 0) upper.pop(); upper.push(q); }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}
