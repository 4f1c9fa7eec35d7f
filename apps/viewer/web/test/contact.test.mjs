// Contact shapes, ropes and the run's events in `joinery view`, with WebGL (SwiftShader) and
// without (the 2-D drawing): the shapes are drawn where their bodies are (pixels of their
// colours at the projected places), ropes solid while taut and dashed while slack, and every
// event of the summary (`view --summary`) is a mark on the time line under the slider's thumb
// at its time. Run by ctest (test_viewer_contact) with JOINERY_BIN, JOINERY_SOURCE and
// JOINERY_VIEW_OUT; screenshots in JOINERY_VIEW_OUT/img (and JOINERY_DOC_IMAGES, when set).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { launch, open, run, readCsv, scene, screenshot, shots, work } from './browser.mjs';

const browsers = {};
before(async () => { browsers.webgl = await launch(); browsers.canvas2d = await launch({ webgl: false }); });
after(async () => { for (const b of Object.values(browsers)) if (b) await b.close(); });


// the colours the viewer draws contact shapes in (src/contacts.js), and the slider's thumb
const PLANE = [0x6d, 0x5a, 0x45], POINT = [0x1b, 0x1f, 0x24], ROPE = [0x7a, 0x4a, 0x1e], THUMB = [0x2f, 0x5f, 0x93];
const BLUE = [0x4e, 0x79, 0xa7];  // the first body's colour
const BLUE_FILL = BLUE.map((c) => Math.round(c + 0.35 * (255 - c)));  // a contact disc: its body's colour lightened
const near = (px, c, tol) => Math.abs(px[0] - c[0]) <= tol && Math.abs(px[1] - c[1]) <= tol && Math.abs(px[2] - c[2]) <= tol;

/// The page as shown (a screenshot) with its pixels readable by page (CSS) coordinates:
/// returns pixel(x, y) -> [r, g, b].
async function snapshot(page) {
  const png = await page.screenshot({ encoding: 'base64' });
  const { width, data } = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const bytes = g.getImageData(0, 0, c.width, c.height).data;
    let bin = '';
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return { width: c.width, data: btoa(bin) };
  }, png);
  const bytes = Buffer.from(data, 'base64');
  return (x, y) => { const i = 4 * (Math.round(y) * width + Math.round(x)); return [bytes[i], bytes[i + 1], bytes[i + 2]]; };
}

/// The fraction of the pixels along the screen segment a-b (sampled each pixel, and `across`
/// pixels either side) of which at least one is near colour c.
function fractionAlong(pixel, a, b, c, tol, across = 1) {
  const len = Math.hypot(b[0] - a[0], b[1] - a[1]), n = Math.max(2, Math.floor(len));
  const nx = -(b[1] - a[1]) / len, ny = (b[0] - a[0]) / len;
  let hit = 0;
  for (let k = 0; k <= n; ++k) {
    const x = a[0] + ((b[0] - a[0]) * k) / n, y = a[1] + ((b[1] - a[1]) * k) / n;
    let found = false;
    for (let s = -across; s <= across && !found; ++s) found = near(pixel(x + s * nx, y + s * ny), c, tol);
    if (found) hit++;
  }
  return hit / (n + 1);
}

function runWithSummary(file, name, extra = []) {
  const csv = join(work, `${name}.csv`), summary = join(work, `${name}-summary.json`), html = join(work, `${name}.html`);
  const path = isAbsolute(file) ? file : scene(file);
  run(['simulate', path, '-o', csv, '--summary', summary, ...extra]);
  const out = run(['view', path, '--results', csv, '--summary', summary, '-o', html]);
  return { csv: readCsv(readFileSync(csv, 'utf8')), summary: JSON.parse(readFileSync(summary, 'utf8')), html, out };
}

/// The fractional frame index of time t among the samples' times (linear between samples).
function frameOf(times, t) {
  let i = 0;
  while (i + 1 < times.length && times[i + 1] <= t) ++i;
  return i + 1 < times.length ? i + (t - times[i]) / (times[i + 1] - times[i]) : i;
}

for (const mode of ['webgl', 'canvas2d']) {
  test(`bouncing ball (${mode}): the floor and the ball drawn, one mark per event at its time`, async () => {
    const { csv, summary, html, out } = runWithSummary('examples/contact/bouncing_ball.json', `ball-${mode}`);
    const kinds = {};
    for (const e of summary.events) kinds[e.kind] = (kinds[e.kind] || 0) + 1;
    assert.ok(summary.events.length >= 20 && kinds.impact >= 20, `the run has its impacts (${JSON.stringify(kinds)})`);
    assert.match(out, new RegExp(`events: ${summary.events.length} from .*ball-${mode}-summary\\.json`));
    const { page: p, errors, requests } = await open(browsers[mode], html);
    assert.equal(await p.evaluate(() => window.joineryView.renderer()), mode);
    const times = csv.rows.map((r) => r[0]), col = (n) => csv.names.indexOf(n);

    // the events: as many marks as the summary has events, each where the thumb is at its time
    assert.deepEqual(await p.evaluate(() => window.joineryView.events().map((e) => [e.t, e.kind, e.joint, e.impulse])),
      summary.events.map((e) => [e.t, e.kind, e.joint, e.impulse]));
    assert.equal(await p.$$eval('#marks .mark', (m) => m.length), summary.events.length);
    const marks = await p.evaluate(() => window.joineryView.eventMarks());
    const track = await p.$eval('#scrub', (s) => { const r = s.getBoundingClientRect(); return { left: r.left, width: r.width, y: r.top + r.height / 2 }; });
    const thumb = 12, perFrame = (track.width - thumb) / (times.length - 1);
    marks.forEach((m, k) => {
      const want = track.left + thumb / 2 + frameOf(times, summary.events[k].t) * perFrame;
      assert.ok(Math.abs(m.x - want) < 0.5, `mark ${k} (t = ${m.t}) at x = ${m.x}, expected ${want}`);
      assert.ok(m.title.includes(`${m.kind} of 'floor'`) && m.title.includes(`impulse ${Number(m.impulse).toPrecision(6)}`), m.title);
    });
    // clicking the first impact's mark shows the sample at (or just before) its time, under the
    // slider's thumb as drawn (found by its colour in a screenshot), and names the event
    const first = marks[0];
    await p.mouse.click(first.x, first.y);
    const frame = Math.floor(frameOf(times, first.t));
    assert.equal(await p.evaluate(() => window.joineryView.getTime()), times[frame]);
    assert.match(await p.$eval('#event', (e) => e.textContent), /impact of 'floor'/);
    let pixel = await snapshot(p);
    const xs = [];
    for (let x = Math.floor(track.left); x < track.left + track.width; ++x) if (near(pixel(x, track.y), THUMB, 30)) xs.push(x);
    assert.ok(xs.length >= 8, `the thumb is drawn (${xs.length} pixels)`);
    const thumbX = 0.5 * (xs[0] + xs[xs.length - 1]);
    assert.ok(Math.abs(thumbX - first.x) <= perFrame + 1.5, `the thumb (x = ${thumbX}) is at the mark (x = ${first.x})`);

    // the shapes: the sphere on the ball, the plane on the ground, where the scene puts them
    const tFlight = 0.2, i = times.findIndex((t) => t >= tFlight - 1e-12);
    await p.evaluate((t) => window.joineryView.setTime(t), times[i]);
    const shapes = await p.evaluate(() => window.joineryView.contactShapes());
    const sphere = shapes.find((s) => s.kind === 'sphere'), plane = shapes.find((s) => s.kind === 'plane');
    assert.equal(shapes.length, 2);
    assert.ok(Math.abs(sphere.center[0] - csv.rows[i][col('ball.x')]) < 1e-12 && Math.abs(sphere.center[1] - csv.rows[i][col('ball.y')]) < 1e-12);
    assert.equal(sphere.radius, 0.1);
    assert.ok(Math.abs(plane.center[1]) < 1e-12 && Math.abs(plane.normal[1] - 1) < 1e-12, JSON.stringify(plane));
    pixel = await snapshot(p);
    const c = await p.evaluate((q) => window.joineryView.screenPoint(q), sphere.center);
    const e = await p.evaluate((q) => window.joineryView.screenPoint([q[0] + 0.1, q[1], q[2]]), sphere.center);
    const R = Math.hypot(e[0] - c[0], e[1] - c[1]);
    assert.ok(R > 10, `the ball is ${R} px across`);
    // inside the disc its fill; just outside, not; near the rim the body's colour (the outline)
    const at = (rad, a) => pixel(c[0] + rad * R * Math.cos(a), c[1] - rad * R * Math.sin(a));
    const angles = [0, 45, 135, 180, 225, 315].map((d) => (d * Math.PI) / 180);  // off the world y axis
    for (const a of angles) {
      assert.ok(near(at(0.6, a), BLUE_FILL, 14), `ball fill at ${a}: ${at(0.6, a)}`);
      assert.ok(!near(at(1.3, a), BLUE_FILL, 30) && !near(at(1.3, a), BLUE, 30), `outside the ball at ${a}: ${at(1.3, a)}`);
      const rim = [0.8, 0.84, 0.88, 0.92, 0.96, 1.0].some((rad) => near(at(rad, a), BLUE, 16));
      assert.ok(rim, `the ball's outline at ${a}`);
    }
    // the floor: a line of the plane's colour along y = 0 (left of the origin: the x axis is on the right)
    const f1 = await p.evaluate(() => window.joineryView.screenPoint([-0.6, 0, 0]));
    const f2 = await p.evaluate(() => window.joineryView.screenPoint([-0.15, 0, 0]));
    const floor = fractionAlong(pixel, f1, f2, PLANE, 12);
    assert.ok(floor > 0.95, `the floor is drawn along y = 0 (${floor} of the pixels)`);
    // and nowhere 0.05 m above it (the strokes of its hatching are below)
    const g1 = await p.evaluate(() => window.joineryView.screenPoint([-0.6, 0.05, 0]));
    const g2 = await p.evaluate(() => window.joineryView.screenPoint([-0.15, 0.05, 0]));
    assert.ok(fractionAlong(pixel, g1, g2, PLANE, 12, 0) < 0.02, 'nothing of the floor above it');

    // at rest on the floor (the last sample): the disc touches the line
    await p.evaluate(() => window.joineryView.setFrame(window.joineryView.frameCount() - 1));
    const rest = (await p.evaluate(() => window.joineryView.contactShapes())).find((s) => s.kind === 'sphere');
    assert.ok(Math.abs(rest.center[1] - 0.1) < 1e-6, `resting at y = ${rest.center[1]}`);
    await p.evaluate((cols) => window.joineryView.setPlotColumns(cols), ['height', 'floor_force.fy']);
    await p.evaluate((t) => window.joineryView.setTime(t), times[frameOf(times, summary.events[1].t) | 0]);
    await screenshot(p, mode === 'webgl' ? 'viewer-contact-bouncing-ball.png' : 'no-webgl-contact-bouncing-ball.png');
    assert.deepEqual(errors, []);
    assert.deepEqual(requests, []);
    await p.close();
  });

  test(`rocking block (${mode}): the corner points move with the block`, async () => {
    const { csv, summary, html } = runWithSummary('examples/contact/rocking_block.json', `rock-${mode}`);
    const { page: p, errors } = await open(browsers[mode], html);
    assert.equal(await p.$$eval('#marks .mark', (m) => m.length), summary.events.length);
    const col = (n) => csv.names.indexOf(n);
    for (const i of [0, Math.floor(csv.rows.length / 7), csv.rows.length - 1]) {
      await p.evaluate((k) => window.joineryView.setFrame(k), i);
      const points = (await p.evaluate(() => window.joineryView.contactShapes())).filter((s) => s.kind === 'point');
      assert.equal(points.length, 2);
      const [x, y, th] = ['block.x', 'block.y', 'block.theta'].map((n) => csv.rows[i][col(n)]);
      const pixel = await snapshot(p);
      [[-0.2, -0.5], [0.2, -0.5]].forEach(([u, v], k) => {
        const want = [x + Math.cos(th) * u - Math.sin(th) * v, y + Math.sin(th) * u + Math.cos(th) * v];
        assert.ok(Math.hypot(points[k].center[0] - want[0], points[k].center[1] - want[1]) < 1e-9, `corner ${k + 1} at frame ${i}`);
      });
      for (const q of points) {  // most of the 5 x 5 pixels there (the world x axis may cross it)
        const s = await p.evaluate((w) => window.joineryView.screenPoint(w), q.center);
        let dark = 0;
        for (let dx = -2; dx <= 2; ++dx) for (let dy = -2; dy <= 2; ++dy) if (near(pixel(s[0] + dx, s[1] + dy), POINT, 20)) dark++;
        assert.ok(dark >= 13, `a dot at corner ${JSON.stringify(q.center)}: ${dark} of 25 pixels`);
      }
    }
    assert.deepEqual(errors, []);
    await p.close();
  });

  test(`ropes (${mode}): drawn solid while taut, dashed while slack`, async () => {
    // the door's chain is slack but for the instants it snaps taut: its gap is the CSV's chain_slack
    const { csv, html } = runWithSummary('examples/contact/door.json', `door-${mode}`);
    const { page: p, errors } = await open(browsers[mode], html);
    const col = csv.names.indexOf('chain_slack');
    for (const i of [0, 10, 100, 250]) {
      await p.evaluate((k) => window.joineryView.setFrame(k), i);
      const [rope] = await p.evaluate(() => window.joineryView.ropes());
      assert.ok(Math.abs(rope.gap - csv.rows[i][col]) < 1e-9, `gap ${rope.gap} vs ${csv.rows[i][col]}`);
      assert.equal(rope.dashed, rope.gap > 0.6e-6);
    }
    assert.deepEqual(errors, []);
    await p.close();
    // a bob hanging on a rope swings on it taut: solid; shortened by a third, the rope is slack: dashed
    for (const [name, length] of [['taut', 1], ['slack', 1.5]]) {
      const doc = {
        joinery: 1, gravity: [0, -9.81, 0],
        bodies: [{ name: 'bob', type: 'particle', dim: 2, mass: 1, position: [0.6, -0.8] }],
        joints: [{ name: 'line', type: 'rope', body1: 'ground', point1: [0, 0], body2: 'bob', point2: [0, 0], length }],
        simulation: { t_end: 0.1, output_interval: 0.01 },
      };
      const file = join(work, `rope-${name}.json`), out = join(work, `rope-${name}-${mode}.csv`), page = join(work, `rope-${name}-${mode}.html`);
      writeFileSync(file, JSON.stringify(doc));
      run(['simulate', file, '-o', out]);
      run(['view', file, '--results', out, '-o', page]);
      const { page: q, errors: errs } = await open(browsers[mode], page);
      const [rope] = await q.evaluate(() => window.joineryView.ropes());
      assert.equal(rope.dashed, name === 'slack', `${name}: gap ${rope.gap}`);
      const pixel = await snapshot(q);
      const a = await q.evaluate((w) => window.joineryView.screenPoint(w), rope.from);
      const b = await q.evaluate((w) => window.joineryView.screenPoint(w), rope.to);
      // the middle 80 % of the line (the ends are under the bob and the ground point)
      const lerp = (s) => [a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1])];
      const filled = fractionAlong(pixel, lerp(0.15), lerp(0.85), ROPE, 40);
      if (name === 'taut') assert.ok(filled > 0.9, `taut: solid (${filled} of the line drawn)`);
      else assert.ok(filled > 0.3 && filled < 0.75, `slack: dashed (${filled} of the line drawn)`);
      await screenshot(q, `rope-${name}-${mode}.png`);
      assert.deepEqual(errs, []);
      await q.close();
    }
  });

  test(`a 3-D ball on a floor (${mode}): the plane is a patch with a grid, the ball a sphere of its radius`, async () => {
    const doc = {
      joinery: 1, gravity: [0, 0, -9.81],
      bodies: [{ name: 'ball', type: 'particle', dim: 3, mass: 1, position: [0, 0, 0.5], velocity: [1, 0.5, 0] }],
      joints: [{ name: 'floor', type: 'contact', body1: 'ground', shape1: { plane: { point: [0, 0, 0], normal: [0, 0, 1] } },
        body2: 'ball', shape2: { sphere: { center: [0, 0, 0], radius: 0.1 } }, restitution: 0.6 }],
      simulation: { t_end: 1, output_interval: 0.01 },
    };
    const file = join(work, 'ball3d.json');
    writeFileSync(file, JSON.stringify(doc));
    const { summary, html } = runWithSummary(file, `ball3d-${mode}`);
    assert.ok(summary.events.length >= 2);
    const { page: p, errors } = await open(browsers[mode], html);
    assert.equal(await p.$$eval('#marks .mark', (m) => m.length), summary.events.length);
    const shapes = await p.evaluate(() => window.joineryView.contactShapes());
    const plane = shapes.find((x) => x.kind === 'plane'), sphere = shapes.find((x) => x.kind === 'sphere');
    // the patch is centred under the middle of the motion (x from 0 to 1, y from 0 to 0.5)
    assert.ok(Math.abs(plane.center[2]) < 1e-12 && plane.center[0] > 0.3 && plane.center[0] < 0.7, JSON.stringify(plane.center));
    assert.ok(Math.abs(sphere.center[2] - 0.5) < 1e-12 && sphere.radius === 0.1);
    const pixel = await snapshot(p);
    // the grid line through the patch's centre along x, in the plane's colour
    const c = plane.center;
    const a = await p.evaluate((q) => window.joineryView.screenPoint(q), [c[0] - 0.3, c[1], 0]);
    const b = await p.evaluate((q) => window.joineryView.screenPoint(q), [c[0] + 0.3, c[1], 0]);
    const grid = fractionAlong(pixel, a, b, PLANE, 60);  // a thin line: blended with the patch's fill
    assert.ok(grid > 0.8, `the patch's grid line is drawn (${grid} of its pixels)`);
    // the ball: a sphere (WebGL: shaded) of the body's colour lightened, its radius on screen
    const s0 = await p.evaluate((q) => window.joineryView.screenPoint(q), sphere.center);
    const bluish = (px) => px[2] > px[0] + 25;
    assert.ok(bluish(pixel(s0[0], s0[1])), `the ball at its centre: ${pixel(s0[0], s0[1])}`);
    await screenshot(p, `ball3d-${mode}.png`);
    assert.deepEqual(errors, []);
    await p.close();
  });
}
