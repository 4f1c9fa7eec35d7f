// The three.js drawing of the mechanism: bodies (visual shapes or drawn automatically),
// joints, springs, ground and world axes, posed frame by frame from the samples.
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { mergeGeometries } from 'three/examples/jsm/utils/BufferGeometryUtils.js';
import { curvePointAt, point3, poseAt, transformPoint } from './data.js';
import { sliderTravel } from './view2d.js';
import { PLANE_COLOR, POINT_COLOR, ROPE_COLOR, contactParts, partExtentPoints, planePatch, ropeJoints, ropeState, sphereBodies } from './contacts.js';

const PALETTE = [0x4e79a7, 0xf28e2b, 0x59a14f, 0xb07aa1, 0x76b7b2, 0xedc948, 0xff9da7, 0x9c755f];
const HIGHLIGHT = 0xe8112d;
/// Bodies (and joint markers) of one shape drawn as one instanced mesh from this many on.
const INSTANCE_FROM = 8;
/// Mesh detail (segments around a circle); lowered for large models (software renderers).
let SEG = 20;
const seg = (n) => Math.max(6, Math.round((n * SEG) / 20));

function material(color) {
  return new THREE.MeshStandardMaterial({ color, roughness: 0.55, metalness: 0.1 });
}
function flatMaterial(color, extra = {}) {
  return new THREE.MeshBasicMaterial({ color, side: THREE.DoubleSide, ...extra });
}
/// A colour moved a fraction f towards white (in sRGB, as the 2-D drawing does).
function lighten(c, f) {
  const o = new THREE.Color(c).getRGB({ r: 0, g: 0, b: 0 }, THREE.SRGBColorSpace);
  const ch = [o.r, o.g, o.b].map((x) => Math.round(255 * x + f * (255 - 255 * x)) / 255);
  return new THREE.Color().setRGB(ch[0], ch[1], ch[2], THREE.SRGBColorSpace);
}
/// Thin rectangles (in the plane z = 0) along the segments [[a, b], ...] of 2-D points, one geometry.
function stripsGeometry(segments, width) {
  const pos = [];
  for (const [a, b] of segments) {
    const dx = b[0] - a[0], dy = b[1] - a[1], l = Math.hypot(dx, dy) || 1, nx = (-dy / l) * width / 2, ny = (dx / l) * width / 2;
    const q = [[a[0] + nx, a[1] + ny], [b[0] + nx, b[1] + ny], [b[0] - nx, b[1] - ny], [a[0] - nx, a[1] - ny]];
    for (const k of [0, 1, 2, 0, 2, 3]) pos.push(q[k][0], q[k][1], 0);
  }
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  return g;
}
function parseColor(c, fallback) {
  if (Array.isArray(c)) return new THREE.Color(c[0], c[1], c[2]);
  if (typeof c === 'string') return new THREE.Color(c);
  return new THREE.Color(fallback);
}
/// A mesh of geometry `geo` (built along +y) placed from a to b.
function between(geo, mat, a, b) {
  const va = new THREE.Vector3(...a), vb = new THREE.Vector3(...b);
  const d = vb.clone().sub(va);
  const len = d.length();
  const m = new THREE.Mesh(geo, mat);
  m.position.copy(va.clone().add(vb).multiplyScalar(0.5));
  if (len > 0) m.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), d.divideScalar(len));
  m.scale.set(1, Math.max(len, 1e-9), 1);
  return m;
}
function capsule(r, a, b, mat) {
  const g = new THREE.Group();
  g.add(between(new THREE.CylinderGeometry(r, r, 1, 20), mat, a, b));
  for (const p of [a, b]) {
    const s = new THREE.Mesh(new THREE.SphereGeometry(r, 16, 12), mat);
    s.position.set(...p);
    g.add(s);
  }
  return g;
}

/// The meshes of one visual shape, in the body frame.
function visualShape(v, color, scale) {
  const mat = material(parseColor(v.color, color));
  const pos = point3(v.position);
  let obj;
  if (v.type === 'box') obj = new THREE.Mesh(new THREE.BoxGeometry(...v.size), mat);
  else if (v.type === 'sphere') obj = new THREE.Mesh(new THREE.SphereGeometry(v.radius, 24, 16), mat);
  else if (v.type === 'cylinder') {
    const axis = new THREE.Vector3(...point3(v.axis || [0, 0, 1])).normalize();
    obj = new THREE.Mesh(new THREE.CylinderGeometry(v.radius, v.radius, v.length, 32), mat);
    obj.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), axis);
  } else if (v.type === 'capsule') {
    const shift = (p) => point3(p).map((x, i) => x + pos[i]);
    return capsule(v.radius, shift(v.point1), shift(v.point2), mat);
  } else obj = new THREE.Mesh(new THREE.SphereGeometry(scale, 8, 6), mat);
  obj.position.set(...pos);
  return obj;
}

/// Body-frame points around each visual shape (its centre plus and minus its bounding radius
/// along each axis), so that the camera fits what is drawn, not only the joint points.
function visualExtentPoints(visual) {
  const out = [];
  for (const v of visual) {
    const c = point3(v.position);
    const around = (p, r) => { for (let k = 0; k < 3; ++k) for (const s of [-r, r]) out.push(p.map((x, i) => (i === k ? x + s : x))); };
    if (v.type === 'box') around(c, 0.5 * Math.hypot(...point3(v.size)));
    else if (v.type === 'sphere') around(c, v.radius);
    else if (v.type === 'cylinder') around(c, Math.hypot(v.radius, 0.5 * v.length));
    else if (v.type === 'capsule') for (const e of [v.point1, v.point2]) around(point3(e).map((x, i) => x + c[i]), v.radius);
  }
  return out.filter((p) => p.every(Number.isFinite));
}

/// The geometry of a capsule from a to b (cylinder and two spheres, one mesh).
function capsuleGeometry(r, a, b) {
  const va = new THREE.Vector3(...a), vb = new THREE.Vector3(...b);
  const d = vb.clone().sub(va), len = Math.max(d.length(), 1e-9);
  const cyl = new THREE.CylinderGeometry(r, r, len, seg(20));
  const m = new THREE.Matrix4().compose(va.clone().add(vb).multiplyScalar(0.5),
    new THREE.Quaternion().setFromUnitVectors(new THREE.Vector3(0, 1, 0), d.normalize()), new THREE.Vector3(1, 1, 1));
  cyl.applyMatrix4(m);
  const ends = [a, b].map((p) => new THREE.SphereGeometry(r, seg(16), seg(12)).translate(...p));
  return mergeGeometries([cyl, ...ends]);
}

/// A body drawn automatically, as one geometry: a link through its points (capsules around
/// them), a sphere for a particle, a small block for a body with no points.
function autoGeometry(b, r) {
  if (b.type === 'particle') return new THREE.SphereGeometry(2.2 * r, seg(24), seg(16));
  const uniq = [];
  for (const p of b.points.map(point3)) if (!uniq.some((q) => Math.hypot(q[0] - p[0], q[1] - p[1], q[2] - p[2]) < 1e-9)) uniq.push(p);
  if (uniq.length === 0) return new THREE.BoxGeometry(3 * r, 3 * r, 3 * r);
  if (uniq.length === 1) return capsuleGeometry(r, [0, 0, 0], uniq[0]);
  const parts = [];
  for (let i = 0; i < uniq.length; ++i) {
    if (uniq.length === 2 && i === 1) break;
    parts.push(capsuleGeometry(r, uniq[i], uniq[(i + 1) % uniq.length]));
  }
  return parts.length === 1 ? parts[0] : mergeGeometries(parts);
}
/// Bodies with equal auto geometry share it (and are instanced when many).
function autoKey(b) {
  return `${b.type}:${JSON.stringify(b.points.map(point3))}`;
}

function springGeometry(coils, radius, wire) {
  const pts = [];
  const n = coils * 24;
  for (let i = 0; i <= n; ++i) {
    const s = i / n, a = 2 * Math.PI * coils * s;
    pts.push(new THREE.Vector3(radius * Math.cos(a), s, radius * Math.sin(a)));
  }
  return new THREE.TubeGeometry(new THREE.CatmullRomCurve3(pts), n, wire, 6, false);
}

export class MechanismView {
  constructor(container, data) {
    this.data = data;
    const scene = data.scene;
    this.planar = scene.planar;
    const large = scene.bodies.length > 64;  // large models: no multisampling, coarser meshes
    this.renderer = new THREE.WebGLRenderer({ antialias: !large, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(window.devicePixelRatio || 1);
    container.appendChild(this.renderer.domElement);
    this.container = container;
    this.scene3 = new THREE.Scene();
    this.scene3.background = new THREE.Color(0xf4f5f7);
    this.scene3.add(new THREE.HemisphereLight(0xffffff, 0x8090a0, 1.6));
    const sun = new THREE.DirectionalLight(0xffffff, 1.6);
    sun.position.set(3, 5, 8);
    this.scene3.add(sun);
    this.bodies = scene.bodies.filter((b) => b.type === 'rigid2d' || b.type === 'rigid3d' || b.type === 'particle' || b.type === 'flexible2d');
    this.curved = scene.bodies.filter((b) => b.curve >= 2);  // flexible bodies: drawn bent, per frame
    this.bodyByName = new Map(this.bodies.map((b) => [b.name, b]));
    SEG = this.bodies.length > 64 ? 8 : 20;
    this.parts = contactParts(scene);  // contact shapes (contacts.js)
    this.ropes = ropeJoints(scene);
    this.bounds = this.motionBounds();
    const size = this.bounds.getSize(new THREE.Vector3());
    this.extent = Math.max(size.x, size.y, size.z, 1e-3);
    // link radius: 2 % of the motion's extent, at most 8 % of the median body size
    const sizes = this.bodies.map((b) => Math.max(0, ...b.points.map((p) => Math.hypot(...point3(p))))).filter((x) => x > 0).sort((x, y) => x - y);
    const typical = sizes.length ? 2 * sizes[Math.floor(sizes.length / 2)] : Infinity;
    this.r = Math.min(0.02 * this.extent, 0.04 * typical);
    this.build();
    this.makeCamera();
    this.resize();
  }

  /// World bounds of every body origin, point and visual shape over (at most ~300) frames.
  motionBounds() {
    const box = new THREE.Box3();
    const n = this.data.frames, step = Math.max(1, Math.floor(n / 300));
    const add = (p) => box.expandByPoint(new THREE.Vector3(...p));
    const shapes = new Map(this.bodies.map((b) => [b, visualExtentPoints(b.visual || [])]));
    for (const part of this.parts) {  // contact spheres and points (planes are sized to the rest)
      if (part.kind === 'plane') continue;
      const b = this.bodyByName.get(part.body);
      if (b) shapes.get(b).push(...partExtentPoints(part)); else if (part.body === 'ground') for (const p of partExtentPoints(part)) add(p);
    }
    for (let i = 0; i < n; i += step) {
      for (const b of this.bodies) {
        const pose = poseAt(b, this.data, i);
        add(pose.position);
        for (const p of b.points) add(transformPoint(pose, point3(p)));
        for (const p of shapes.get(b)) add(transformPoint(pose, p));
      }
    }
    for (const el of [...this.data.scene.joints, ...this.data.scene.forces])
      for (const end of el.ends) if (end.body === 'ground') add(point3(end.point));
    for (const b of this.curved)
      for (let i = 0; i < n; i += step) for (let k = 0; k < b.curve; ++k) add(curvePointAt(b, this.data, k, i));
    if (box.isEmpty()) box.expandByPoint(new THREE.Vector3(0, 0, 0));
    return box;
  }

  build() {
    const r = this.r;
    const indeterminate = new Set(this.data.scene.check.indeterminate_bodies || []);
    this.frames = [];
    this.highlighted = this.bodies.filter((b) => indeterminate.has(b.name)).map((b) => b.name);
    const groups = new Map();  // auto geometry key -> bodies
    const ball = sphereBodies(this.parts);  // particles drawn by their contact sphere
    this.bodies.forEach((b, k) => {
      b.color = new THREE.Color(indeterminate.has(b.name) ? HIGHLIGHT : PALETTE[k % PALETTE.length]);
      const g = new THREE.Group();
      g.name = b.name;
      if (b.visual && b.visual.length) for (const v of b.visual) g.add(visualShape(v, b.color, r));
      else if (b.curve >= 2) { /* drawn as its curve below */ } else if (b.type === 'particle' && ball.has(b.name)) { /* its sphere */ } else {
        const key = autoKey(b);
        if (!groups.has(key)) groups.set(key, []);
        groups.get(key).push(b);
      }
      if (b.type !== 'particle') {
        const axes = new THREE.AxesHelper(6 * r);
        axes.visible = false;
        this.frames.push(axes);
        g.add(axes);
      }
      b.object = g;
      this.scene3.add(g);
    });
    this.instanced = [];
    for (const list of groups.values()) {
      const geo = autoGeometry(list[0], r);
      if (list.length >= INSTANCE_FROM) {
        const mesh = new THREE.InstancedMesh(geo, material(0xffffff), list.length);
        list.forEach((b, i) => { mesh.setColorAt(i, b.color); b.instance = { mesh, index: i }; });
        mesh.frustumCulled = false;
        this.instanced.push(mesh);
        this.scene3.add(mesh);
      } else for (const b of list) b.object.add(new THREE.Mesh(geo, material(b.color)));
    }
    // flexible bodies: a chain of short cylinders between their curve points, with a sphere
    // at each joint of the chain so that the bend looks smooth
    this.curveSegments = [];
    this.curved.forEach((b, k) => {
      const mat = material(b.color || PALETTE[(this.bodies.length + k) % PALETTE.length]);
      const tube = new THREE.CylinderGeometry(0.8 * r, 0.8 * r, 1, seg(16), 1, true), ball = new THREE.SphereGeometry(0.8 * r, seg(16), seg(10));
      for (let i = 0; i + 1 < b.curve; ++i) {
        const mesh = new THREE.Mesh(tube, mat), knot = new THREE.Mesh(ball, mat);
        this.scene3.add(mesh, knot);
        this.curveSegments.push({ body: b, k: i, mesh, knot });
      }
    });
    this.markers = [];
    const jointMat = material(0x333a44), groundMat = material(0x8a8f98);
    this.simple = new Map();
    for (const j of this.data.scene.joints) this.addJointMarker(j, jointMat, groundMat);
    for (const { geo, mat, list } of this.simple.values()) {
      if (list.length >= INSTANCE_FROM) {
        const mesh = new THREE.InstancedMesh(geo, mat, list.length);
        mesh.frustumCulled = false;
        this.scene3.add(mesh);
        list.forEach((el, index) => this.markers.push({ el, mesh, index }));
        this.instanced.push(mesh);
      } else for (const el of list) {
        const mesh = new THREE.Mesh(geo, mat);
        this.scene3.add(mesh);
        this.markers.push({ el, mesh });
      }
    }
    const springMat = material(0x2a7a3a);
    this.springGeo = springGeometry(8, 2 * r, 0.35 * r);
    for (const f of this.data.scene.forces) {
      if (f.ends.length !== 2) continue;
      const mesh = new THREE.Mesh(f.type === 'spring' ? this.springGeo : new THREE.CylinderGeometry(0.3 * r, 0.3 * r, 1, 8), springMat);
      this.scene3.add(mesh);
      this.markers.push({ el: f, mesh, stretch: true });
    }
    this.addGround();
    this.addContactShapes();
    this.addRopes();
    this.travel = sliderTravel(this.data, this.bodies);  // each slider's guide spans its travel
  }

  /// Contact shapes in their bodies' frames (so they move with them): a plane as a line with
  /// hatching on its solid side (planar models) or a square patch with a grid (3-D), sized to
  /// the scene; a sphere (a disc in a planar model, outlined); points as dark dots.
  addContactShapes() {
    const r = this.r, planar = this.planar;
    const center = this.bounds.getCenter(new THREE.Vector3()).toArray();
    const ground = new THREE.Group();
    this.scene3.add(ground);
    this.drawnParts = [];
    for (const part of this.parts) {
      const b = this.bodyByName.get(part.body);
      const parent = b ? b.object : ground, color = b ? b.color : new THREE.Color(0x8a8f98);
      let obj;
      if (part.kind === 'plane') {
        const patch = planePatch(part, b ? poseAt(b, this.data, 0) : null, center, this.extent, planar);
        obj = planar ? this.planeLine(patch, part.normal) : this.planeSquare(patch, part.normal);
        part.patch = patch;
      } else if (part.kind === 'sphere') {
        if (planar) {
          obj = new THREE.Group();
          const rim = Math.min(0.6 * r, 0.25 * part.radius);
          obj.add(new THREE.Mesh(new THREE.CircleGeometry(part.radius, 64), flatMaterial(lighten(color, 0.35))));
          const ring = new THREE.Mesh(new THREE.RingGeometry(Math.max(0, part.radius - rim), part.radius, 64), flatMaterial(color));
          ring.position.z = 0.01 * r;
          obj.add(ring);
        } else obj = new THREE.Mesh(new THREE.SphereGeometry(part.radius, seg(32), seg(20)), material(lighten(color, 0.35)));
        obj.position.set(...part.point);
      } else {
        obj = planar ? new THREE.Mesh(new THREE.CircleGeometry(0.7 * r, 24), flatMaterial(POINT_COLOR))
          : new THREE.Mesh(new THREE.SphereGeometry(0.7 * r, seg(12), seg(8)), flatMaterial(POINT_COLOR));
        obj.position.set(...part.point);
        if (planar) obj.position.z += 1.5 * r;  // over the links
      }
      obj.name = `contact:${part.joint}`;
      parent.add(obj);
      this.drawnParts.push({ part, obj });
    }
  }

  /// A plane of a planar model: a line along it, and short strokes on its solid side.
  planeLine(patch, n) {
    const r = this.r, h = patch.half, c = patch.center, u = patch.u;
    const at = (s, off = 0) => [c[0] + s * u[0] - off * n[0], c[1] + s * u[1] - off * n[1]];
    const segments = [[at(-h), at(h)]];
    const step = Math.max(h / 30, 2.5 * r), tick = 1.6 * r;
    for (let s = -h; s <= h; s += step) {
      const a = at(s), e = at(s - tick, tick);
      segments.push([a, e]);
    }
    const mesh = new THREE.Mesh(stripsGeometry(segments, 0.5 * r), flatMaterial(PLANE_COLOR));
    mesh.position.z = c[2] - 1.2 * r;  // under the bodies
    return mesh;
  }

  /// A plane of a 3-D model: a translucent square patch with a grid, in its plane.
  planeSquare(patch, n) {
    const h = patch.half, { u, v, center } = patch;
    const g = new THREE.Group();
    const basis = new THREE.Matrix4().makeBasis(new THREE.Vector3(...u), new THREE.Vector3(...v), new THREE.Vector3(...n));
    g.quaternion.setFromRotationMatrix(basis);
    g.position.set(...center);
    g.add(new THREE.Mesh(new THREE.PlaneGeometry(2 * h, 2 * h), flatMaterial(PLANE_COLOR, { transparent: true, opacity: 0.18, depthWrite: false })));
    const pts = [];
    for (let k = 0; k <= 10; ++k) {
      const s = -h + (2 * h * k) / 10;
      pts.push(s, -h, 0, s, h, 0, -h, s, 0, h, s, 0);
    }
    const grid = new THREE.BufferGeometry();
    grid.setAttribute('position', new THREE.Float32BufferAttribute(pts, 3));
    g.add(new THREE.LineSegments(grid, new THREE.LineBasicMaterial({ color: PLANE_COLOR })));
    return g;
  }

  /// Ropes: a line of short pieces between their points, touching while taut, dashed while slack.
  addRopes() {
    const r = this.r, geo = new THREE.CylinderGeometry(0.35 * r, 0.35 * r, 1, 8), mat = material(ROPE_COLOR);
    this.ropePieces = this.ropes.map((j) => {
      const pieces = [];
      for (let k = 0; k < 24; ++k) { const m = new THREE.Mesh(geo, mat); this.scene3.add(m); pieces.push(m); }
      return { joint: j, pieces, state: null };
    });
  }

  poseRopes() {
    const up = new THREE.Vector3(0, 1, 0);
    for (const rp of this.ropePieces) {
      const st = ropeState(rp.joint, this.poses), n = rp.pieces.length;
      const a = new THREE.Vector3(...st.from), d = new THREE.Vector3(...st.to).sub(a), len = d.length();
      const fill = st.taut ? 1 : 0.55;
      const dir = len > 0 ? d.clone().divideScalar(len) : up;
      rp.pieces.forEach((m, k) => {
        const l = (fill * len) / n;
        m.position.copy(a).addScaledVector(dir, ((k + 0.5 * fill) * len) / n);
        m.quaternion.setFromUnitVectors(up, dir);
        m.scale.set(1, Math.max(l, 1e-9), 1);
      });
      rp.state = { ...st, dashed: !st.taut };
    }
  }

  /// The ropes as drawn now: { joint, from, to, gap, taut, dashed }.
  ropeStates() { return this.ropePieces.map((rp) => rp.state); }

  /// The contact shapes as drawn now, in world axes: { joint, body, kind, center, radius, normal }.
  contactShapes() {
    return this.drawnParts.map(({ part, obj }) => {
      obj.updateWorldMatrix(true, false);
      const local = part.kind === 'plane' ? part.patch.center : [0, 0, 0];
      const c = new THREE.Vector3(...local);
      if (part.kind !== 'plane') obj.localToWorld(c); else obj.parent.localToWorld(c);
      const out = { joint: part.joint, body: part.body, kind: part.kind, center: c.toArray() };
      if (this.planar && part.kind === 'point') out.center[2] -= 1.5 * this.r;  // drawn lifted over the links
      if (part.kind === 'sphere') out.radius = part.radius;
      if (part.kind === 'plane') {
        const p = this.poses.get(part.body);
        out.normal = p ? new THREE.Vector3(...part.normal).applyQuaternion(new THREE.Quaternion(p.quaternion[1], p.quaternion[2], p.quaternion[3], p.quaternion[0])).toArray() : part.normal.slice();
      }
      return out;
    });
  }

  /// A world point's position on the page (CSS pixels, as getBoundingClientRect gives).
  screenPoint(p) {
    const v = new THREE.Vector3(...point3(p)).project(this.camera);
    const rect = this.renderer.domElement.getBoundingClientRect();
    return [rect.left + ((v.x + 1) / 2) * rect.width, rect.top + ((1 - v.y) / 2) * rect.height];
  }

  addJointMarker(j, mat, groundMat) {
    if (j.ends.length < 1) return;
    if (Array.isArray(j.shapes) || j.type === 'rope') return;  // contacts and ropes: drawn by their shapes
    const r = this.r, t = j.type;
    let geo, stretch = false;
    if (t === 'distance') { geo = new THREE.CylinderGeometry(0.4 * r, 0.4 * r, 1, 8); stretch = true; }
    else if (t === 'spherical') geo = new THREE.SphereGeometry(1.9 * r, seg(20), seg(14));
    else if (t.startsWith('revolute')) geo = new THREE.CylinderGeometry(1.6 * r, 1.6 * r, 3.2 * r, seg(24));
    else if (t.startsWith('prismatic')) geo = new THREE.BoxGeometry(5 * r, 2.6 * r, 2.6 * r);
    else if (t.startsWith('weld')) geo = new THREE.BoxGeometry(2.4 * r, 2.4 * r, 2.4 * r);
    else geo = new THREE.OctahedronGeometry(1.8 * r);
    const onGround = j.ends.every((e) => e.body === 'ground');
    if (!stretch) {  // placed by a matrix: instanced when many of a kind
      const key = `${t}:${onGround}`;
      if (!this.simple.has(key)) this.simple.set(key, { geo, mat: onGround ? groundMat : mat, list: [] });
      this.simple.get(key).list.push(j);
    } else {
      const mesh = new THREE.Mesh(geo, onGround ? groundMat : mat);
      this.scene3.add(mesh);
      this.markers.push({ el: j, mesh, stretch });
    }
    if (t.startsWith('prismatic') && j.ends[0]) {  // the guide: a line along the axis
      const track = new THREE.Mesh(new THREE.CylinderGeometry(0.25 * r, 0.25 * r, 1, 6), material(0x9aa0a8));
      this.scene3.add(track);
      this.markers.push({ el: j, mesh: track, track: true });
    }
  }

  addGround() {
    const e = this.extent, c = this.bounds.getCenter(new THREE.Vector3());
    const span = Math.pow(10, Math.ceil(Math.log10(e * 2)));
    const grid = new THREE.GridHelper(span, 20, 0xb8bec8, 0xd8dce2);
    if (this.planar) { grid.rotation.x = Math.PI / 2; grid.position.set(c.x, c.y, -2 * this.r); }
    else grid.position.set(c.x, c.y, this.bounds.min.z - 0.02 * e);
    if (!this.planar) grid.rotation.x = Math.PI / 2;  // z is up in the world of the scenes
    const axes = new THREE.AxesHelper(0.15 * span);
    axes.material.depthTest = false;
    axes.renderOrder = 2;
    this.scene3.add(grid, axes);
    this.grid = grid;
  }

  makeCamera() {
    const c = this.bounds.getCenter(new THREE.Vector3());
    const size = this.bounds.getSize(new THREE.Vector3());
    const half = 0.6 * this.extent + 6 * this.r;
    this.fit = { x: 0.55 * size.x + 6 * this.r, y: 0.55 * size.y + 6 * this.r };
    if (this.planar) {
      this.camera = new THREE.OrthographicCamera(-half, half, half, -half, -100 * half, 100 * half);
      this.camera.position.set(c.x, c.y, 10 * half);
      this.camera.up.set(0, 1, 0);
    } else {
      this.camera = new THREE.PerspectiveCamera(40, 1, half / 100, half * 100);
      const dir = new THREE.Vector3(1.2, -1.6, 0.9).normalize();
      this.camera.up.set(0, 0, 1);
      this.camera.position.copy(c.clone().add(dir.multiplyScalar(half / Math.tan((20 * Math.PI) / 180) * 1.1)));
    }
    this.half = half;
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.target.copy(c);
    if (this.planar) { this.controls.enableRotate = false; this.controls.screenSpacePanning = true; }
    this.controls.addEventListener('change', () => this.render());
    this.controls.update();
  }

  resize() {
    const w = this.container.clientWidth || 800, h = this.container.clientHeight || 500;
    this.renderer.setSize(w, h, false);
    this.renderer.domElement.style.width = '100%';
    this.renderer.domElement.style.height = '100%';
    const aspect = w / h;
    if (this.planar) {
      const hy = Math.max(this.fit.y, this.fit.x / aspect), hx = hy * aspect;
      Object.assign(this.camera, { left: -hx, right: hx, top: hy, bottom: -hy });
    } else this.camera.aspect = aspect;
    this.camera.updateProjectionMatrix();
    this.render();
  }

  setFramesVisible(on) { for (const a of this.frames) a.visible = on; this.render(); }

  setDeformationScale(s) { this.deformScale = s; if (this.frameIndex !== undefined) this.pose(this.frameIndex); }

  /// Poses every body at frame i and moves the joint and spring markers.
  pose(i) {
    this.poses = new Map();
    for (const b of this.bodies) {
      const p = poseAt(b, this.data, i);
      this.poses.set(b.name, p);
      b.object.position.set(...p.position);
      b.object.quaternion.set(p.quaternion[1], p.quaternion[2], p.quaternion[3], p.quaternion[0]);
      if (b.instance) {
        b.object.updateMatrix();
        b.instance.mesh.setMatrixAt(b.instance.index, b.object.matrix);
      }
    }
    this.frameIndex = i;
    const upY = new THREE.Vector3(0, 1, 0);
    // a curve point as drawn: where the undeformed body puts it (its frame's pose, or the world
    // for a linear body), plus the elastic displacement times the deformation scale
    const drawn = (b, k) => {
      const actual = curvePointAt(b, this.data, k, i), s = this.deformScale || 1;
      if (s === 1) return new THREE.Vector3(...actual);
      const pose = this.poses.get(b.name), local = point3(b.curve_local[k]);
      const ref = pose ? transformPoint(pose, local) : local;
      return new THREE.Vector3(...ref.map((x, a) => x + s * (actual[a] - x)));
    };
    for (const c of this.curveSegments) {
      const a = drawn(c.body, c.k), e = drawn(c.body, c.k + 1);
      const d = e.clone().sub(a), len = d.length();
      c.mesh.position.copy(a.clone().add(e).multiplyScalar(0.5));
      if (len > 0) c.mesh.quaternion.setFromUnitVectors(upY, d.divideScalar(len));
      c.mesh.scale.set(1, Math.max(len, 1e-9), 1);
      c.knot.position.copy(a);
    }
    const scratch = this.scratch || (this.scratch = new THREE.Object3D());
    const world = (end) => {
      const pose = this.poses.get(end.body);
      return pose ? transformPoint(pose, point3(end.point)) : point3(end.point);
    };
    const up = new THREE.Vector3(0, 1, 0);
    for (const m of this.markers) {
      const ends = m.el.ends.map(world);
      const a = new THREE.Vector3(...ends[0]);
      const b = ends.length > 1 ? new THREE.Vector3(...ends[1]) : a.clone();
      const axisLocal = m.el.axis ? new THREE.Vector3(...point3(m.el.axis)).normalize() : null;
      const p1 = this.poses.get(m.el.ends[0].body);
      const axis = axisLocal && p1 ? axisLocal.applyQuaternion(new THREE.Quaternion(p1.quaternion[1], p1.quaternion[2], p1.quaternion[3], p1.quaternion[0])) : axisLocal;
      if (m.stretch) {
        const d = b.clone().sub(a), len = d.length();
        m.mesh.position.copy(a);
        if (m.el.type !== 'spring') m.mesh.position.copy(a.clone().add(b).multiplyScalar(0.5));
        if (len > 0) m.mesh.quaternion.setFromUnitVectors(up, d.divideScalar(len));
        m.mesh.scale.set(1, Math.max(len, 1e-9), 1);
        if (m.el.type === 'spring') m.mesh.position.copy(a);
      } else if (m.track) {
        // from the least to the largest offset of the slider over the run, plus the half
        // length of its block (2.5 r) and a little
        const dir = axis || new THREE.Vector3(1, 0, 0);
        const [lo, hi] = this.travel.get(m.el) || [-0.6 * this.extent, 0.6 * this.extent], margin = 3 * this.r;
        m.mesh.position.copy(a.clone().addScaledVector(dir, 0.5 * (lo + hi)));
        m.mesh.quaternion.setFromUnitVectors(up, dir);
        m.mesh.scale.set(1, hi - lo + 2 * margin, 1);
      } else {
        const o = m.index === undefined ? m.mesh : scratch;
        o.position.copy(b);
        const t = m.el.type;
        if (t === 'revolute2d') o.quaternion.setFromUnitVectors(up, new THREE.Vector3(0, 0, 1));
        else if (axis && t.startsWith('revolute')) o.quaternion.setFromUnitVectors(up, axis);
        else if (axis && t.startsWith('prismatic')) o.quaternion.setFromUnitVectors(new THREE.Vector3(1, 0, 0), axis);
        if (m.index !== undefined) {
          o.updateMatrix();
          m.mesh.setMatrixAt(m.index, o.matrix);
        }
      }
    }
    this.poseRopes();
    for (const mesh of this.instanced) mesh.instanceMatrix.needsUpdate = true;
    this.render();
  }

  /// The drawn curve of a flexible body: its points' world positions as drawn now (the knots
  /// between the segments, and the far end of the last one).
  curvePoints(name) {
    const segs = this.curveSegments.filter((c) => c.body.name === name);
    const pts = segs.map((c) => [c.knot.position.x, c.knot.position.y, c.knot.position.z]);
    if (segs.length) {
      const last = segs[segs.length - 1], m = last.mesh.position, a = last.knot.position;
      pts.push([2 * m.x - a.x, 2 * m.y - a.y, 2 * m.z - a.z]);
    }
    return pts;
  }

  /// Each slider's guide as drawn now: its joint's name and the world points of its two ends.
  guides() {
    return this.markers.filter((m) => m.track).map((m) => {
      const d = new THREE.Vector3(0, 1, 0).applyQuaternion(m.mesh.quaternion).multiplyScalar(0.5 * m.mesh.scale.y);
      const c = m.mesh.position;
      return { joint: m.el.name, from: c.clone().sub(d).toArray(), to: c.clone().add(d).toArray() };
    });
  }

  render() { this.renderer.render(this.scene3, this.camera); }

  toPNG() { this.render(); return this.renderer.domElement.toDataURL('image/png'); }
}
