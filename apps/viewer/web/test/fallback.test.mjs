// `joinery view` without WebGL (headless Chromium with --disable-gpu --disable-3d-apis, as a
// remote desktop, a VM or a locked-down browser): the page falls back to a 2-D canvas drawing
// with a note, and the plots, the time slider and the tables work as with WebGL. Also the
// plot's legend (values at the animation time), a y axis per unit, and slider guides that
// span the slider's whole travel — with WebGL and without. Screenshots in JOINERY_VIEW_OUT/img.
// Run by ctest (test_viewer_fallback) with JOINERY_BIN, JOINERY_SOURCE and JOINERY_VIEW_OUT.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ink, launch, open, run, readCsv, scene, shots, work } from './browser.mjs';

let plain, gl;
before(async () => { plain = await launch({ webgl: false }); gl = await launch(); });
after(async () => { for (const b of [plain, gl]) if (b) await b.close(); });


function page(file, name, tEnd) {
  const csv = join(work, `${name}.csv`), html = join(work, `${name}.html`);
  run(['simulate', scene(file), '-o', csv, '--t-end', String(tEnd)]);
  run(['view', scene(file), '-o', html, '--results', csv]);
  return { csv: readCsv(readFileSync(csv, 'utf8')), html };
}

/// The slider's offset along its guide lies inside the guide at every tenth frame.
async function guidesHold(p, frames) {
  for (let i = 0; i < frames; i += 10) {
    const ok = await p.evaluate((k) => {
      const v = window.joineryView;
      v.setFrame(k);
      return v.sliderGuides().every((g) => {
        const pin = v.scene.joints.find((j) => j.name === g.joint);
        // the world position of the joint's second point (the slider), from its body's pose
        const end = pin.ends[1], pose = v.bodyPose(end.body), [w, x, y, z] = pose.quaternion;
        const p = [end.point[0] || 0, end.point[1] || 0, end.point[2] || 0];
        const cx = y * p[2] - z * p[1], cy = z * p[0] - x * p[2], cz = x * p[1] - y * p[0];
        const r = [p[0] + 2 * (w * cx + y * cz - z * cy), p[1] + 2 * (w * cy + z * cx - x * cz), p[2] + 2 * (w * cz + x * cy - y * cx)];
        const at = r.map((c, k) => c + pose.position[k]);
        const d = g.to.map((q, c) => q - g.from[c]), len = Math.hypot(...d);
        const s = at.reduce((acc, q, c) => acc + (q - g.from[c]) * d[c], 0) / (len * len) * len;
        return s >= 0 && s <= len;
      });
    }, i);
    if (!ok) return i;
  }
  return -1;
}

test('planar slider-crank without WebGL: a 2-D drawing with a note; plots, slider, legend and axes work', async () => {
  const { csv, html } = page('examples/scenes/slider_crank_outputs.json', 'nogl-crank', 1);
  const { page: p, errors } = await open(plain, html);
  assert.deepEqual(errors, [], 'no console or page errors');
  assert.equal(await p.evaluate(() => window.joineryView.renderer()), 'canvas2d');
  const note = await p.$eval('#no-webgl', (e) => ({ text: e.textContent, shown: e.offsetWidth > 0 && e.offsetHeight > 0 }));
  assert.ok(note.shown && /no 3-D view/.test(note.text) && /2-D drawing/.test(note.text), note.text);
  assert.ok((await p.evaluate(() => window.joineryView.messages())).some((m) => /WebGL/.test(m)));
  // the time label and the slider
  const label = await p.$eval('#time', (e) => e.textContent);
  assert.match(label, /^t = 0\.0000 s/);
  const frames = await p.evaluate(() => window.joineryView.frameCount());
  assert.equal(frames, csv.rows.length);
  await p.$eval('#scrub', (e, k) => { e.value = String(k); e.dispatchEvent(new Event('input')); }, 40);
  assert.equal(await p.evaluate(() => window.joineryView.getTime()), csv.rows[40][0]);
  assert.match(await p.$eval('#time', (e) => e.textContent), /\(41\//);
  // the drawing: ink on the canvas, the bodies posed as the CSV says, and it moves
  assert.ok((await ink(p, '.view canvas')) > 0.01);
  const pose = await p.evaluate(() => window.joineryView.bodyPose('piston.block'));
  assert.ok(Math.abs(pose.position[0] - csv.rows[40][csv.names.indexOf('piston.block.x')]) < 1e-12);
  const before = await p.evaluate(() => window.joineryView.png());
  await p.evaluate(() => window.joineryView.setFrame(70));
  assert.notEqual(await p.evaluate(() => window.joineryView.png()), before, 'the drawing follows the frame');
  // plots: force and torque on axes of their own; the legend gives values at the animation time
  const cols = await p.evaluate(() => window.joineryView.setPlotColumns(['pin.fx', 'pin.tz', 'motor']));
  assert.deepEqual(cols, ['pin.fx', 'pin.tz', 'motor']);
  assert.deepEqual(await p.evaluate(() => window.joineryView.plotAxes()), ['N', 'N·m', '']);
  assert.equal(await p.evaluate(() => window.joineryView.plotPointCount()), frames);
  assert.ok((await ink(p, '.plot canvas')) > 0.005, 'the plot is drawn');
  await p.evaluate(() => window.joineryView.setFrame(70));
  const legend = await p.evaluate(() => window.joineryView.plotLegend());
  const row = csv.rows[70];
  legend.forEach((text, k) => {
    const want = row[csv.names.indexOf(cols[k])];
    const got = Number(text.replace(/,/g, ''));
    assert.ok(text !== '--' && Math.abs(got - want) <= 5e-4 + 1e-3 * Math.abs(want), `${cols[k]}: legend '${text}', CSV ${want}`);
  });
  assert.equal(await guidesHold(p, frames), -1, 'the piston stays on its guide');
  await p.screenshot({ path: join(shots, 'no-webgl-slider-crank.png') });
  await p.close();
});

test('3-D Bricard linkage without WebGL: drawn in a chosen projection', async () => {
  const { csv, html } = page('examples/validation/a04_bricard.json', 'nogl-bricard', 0.5);
  const { page: p, errors } = await open(plain, html);
  assert.deepEqual(errors, []);
  assert.equal(await p.evaluate(() => window.joineryView.renderer()), 'canvas2d');
  assert.ok(await p.$('#projection'), 'a projection picker for 3-D models');
  const shots3 = {};
  for (const k of ['oblique', 'top', 'front', 'side']) {
    assert.equal(await p.evaluate((key) => window.joineryView.setProjection(key), k), k);
    assert.ok((await ink(p, '.view canvas')) > 0.005, `${k}: something is drawn`);
    shots3[k] = await p.evaluate(() => window.joineryView.png());
  }
  assert.equal(new Set(Object.values(shots3)).size, 4, 'each projection draws a different picture');
  const q = await p.evaluate(() => window.joineryView.bodyPose(window.joineryView.bodyNames()[0]).quaternion);
  assert.equal(q.length, 4);
  assert.equal(await p.evaluate(() => window.joineryView.frameCount()), csv.rows.length);
  await p.evaluate(() => window.joineryView.setProjection('oblique'));
  await p.screenshot({ path: join(shots, 'no-webgl-bricard.png') });
  await p.close();
});

test('with WebGL: the 3-D view, no note; the legend, the axes per unit and the guides as without', async () => {
  const { csv, html } = page('examples/scenes/slider_crank_outputs.json', 'gl-crank', 1);
  const { page: p, errors } = await open(gl, html);
  assert.deepEqual(errors, []);
  assert.equal(await p.evaluate(() => window.joineryView.renderer()), 'webgl');
  assert.equal(await p.$('#no-webgl'), null);
  await p.evaluate(() => window.joineryView.setPlotColumns(['pin.fx', 'pin.tz']));
  assert.deepEqual(await p.evaluate(() => window.joineryView.plotAxes()), ['N', 'N·m']);
  await p.evaluate(() => window.joineryView.setFrame(25));
  const legend = await p.evaluate(() => window.joineryView.plotLegend());
  assert.equal(Number(legend[0].replace(/,/g, '')).toFixed(1), csv.rows[25][csv.names.indexOf('pin.fx')].toFixed(1));
  assert.equal(await guidesHold(p, csv.rows.length), -1, 'the piston stays on its guide');
  await p.screenshot({ path: join(shots, 'webgl-slider-crank.png') });
  await p.close();
});
