// joinery view: the page's application. Reads the embedded data, draws the mechanism,
// plays the run, plots chosen columns, and exposes window.joineryView for scripts and tests.
import uplotCss from 'uplot/dist/uPlot.min.css';
import pageCss from './page.css';
import { loadPageData, frameAt } from './data.js';
import { MechanismView } from './scene3d.js';
import { Plots } from './plots.js';
import { FlatView, PROJECTIONS } from './view2d.js';
import { describeEvent, eventColor, fractionalFrame } from './contacts.js';

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function fmtTime(t) { return t.toFixed(Math.abs(t) < 10 ? 4 : 3); }

/// The page's elements: header, 3-D view, controls, plot and column picker.
function buildLayout(data) {
  const scene = data.scene;
  const title = el('div', { class: 'title' }, `${scene.title}`);
  const notes = el('div', { class: 'notes' });
  const viewBox = el('div', { class: 'view' });
  const playBtn = el('button', { id: 'play', title: 'play / pause (space)' }, '▶');
  const prevBtn = el('button', { id: 'prev', title: 'previous frame' }, '|◀');
  const nextBtn = el('button', { id: 'next', title: 'next frame' }, '▶|');
  const scrub = el('input', { id: 'scrub', type: 'range', min: '0', max: String(data.frames - 1), step: '1', value: '0' });
  const timeLabel = el('span', { id: 'time', class: 'time' });
  const speed = el('select', { id: 'speed', title: 'playback speed' });
  for (const s of [0.1, 0.25, 0.5, 1, 2, 4]) speed.append(el('option', s === 1 ? { value: s, selected: '' } : { value: s }, `${s}×`));
  const framesBox = el('input', { id: 'frames', type: 'checkbox' });
  const pngBtn = el('button', { id: 'png', title: 'save the view as PNG' }, 'PNG');
  // mode shapes (joinery view --modes): one cycle per mode, picked here
  const modePicker = el('select', { id: 'mode', title: 'mode shape to animate' });
  for (const m of scene.modes || []) modePicker.append(el('option', { value: String(m.mode - 1) }, modeLabel(m)));
  // flexible bodies: their elastic deformation drawn magnified (x1 is true to scale)
  const deform = el('select', { id: 'deform', title: 'flexible bodies: elastic deformation drawn magnified' });
  for (const s of [1, 10, 100, 1000]) deform.append(el('option', s === 1 ? { value: s, selected: '' } : { value: s }, `deformation ${s}×`));
  const flexible = scene.bodies.some((b) => b.curve >= 2);
  // the time line: the slider and, under it, a mark per event of the run (--summary)
  const marks = el('div', { class: 'marks', id: 'marks' });
  const timeline = el('div', { class: (scene.events || []).length ? 'timeline with-events' : 'timeline' }, scrub, marks);
  const eventLabel = el('div', { id: 'event', class: 'event-label' });  // over the view: the events of the frame shown
  const controls = el('div', { class: 'controls' }, ...(scene.modes ? [modePicker] : []), prevBtn, playBtn, nextBtn,
    timeline, timeLabel, speed, ...(flexible ? [deform] : []), el('label', {}, framesBox, ' body frames'), pngBtn);
  const plotBox = el('div', { class: 'plot' });
  const picker = el('select', { id: 'columns', multiple: '', title: 'columns to plot (ctrl-click for several)' });
  for (const n of data.names) if (n !== 't' && !n.startsWith('@')) picker.append(el('option', { value: n }, n));
  const side = el('div', { class: 'side' }, el('div', { class: 'label' }, 'plot columns'), picker);
  document.getElementById('app').append(el('div', { class: 'header' }, title, notes), viewBox, controls, el('div', { class: 'bottom' }, plotBox, side));

  for (const m of pageMessages(scene)) notes.append(el('span', { class: m.cls }, m.text));
  if ((scene.events || []).length) notes.append(eventLegend(scene.events));
  return { viewBox, playBtn, prevBtn, nextBtn, scrub, timeLabel, speed, framesBox, pngBtn, plotBox, picker, modePicker, deform, marks, eventLabel };
}

/// The header's key to the event marks: each kind with its colour and count.
function eventLegend(events) {
  const counts = new Map();
  for (const e of events) counts.set(e.kind, (counts.get(e.kind) || 0) + 1);
  const legend = el('span', { class: 'info', id: 'event-legend' }, `${events.length} events: `);
  for (const [kind, n] of counts) legend.append(el('i', { class: 'swatch', style: `background:${eventColor(kind)}` }), ` ${n} ${kind} `);
  return legend;
}

/// A mark on the time line for each event: a coloured tick under the slider where its thumb
/// is at the event's time, its description as the tooltip; clicking it goes to that time.
function buildMarks(marks, scene, times, onPick) {
  const events = scene.events || [];
  const last = Math.max(1, times.length - 1);
  return events.map((e, k) => {
    const f = fractionalFrame(times, e.t) / last;
    const m = el('span', { class: `mark ${e.kind}`, title: describeEvent(e, scene), 'data-index': String(k),
      style: `left: calc(var(--thumb) / 2 + (100% - var(--thumb)) * ${f}); background: ${eventColor(e.kind)}` });
    m.addEventListener('click', () => onPick(e));
    marks.append(m);
    return m;
  });
}

function modeLabel(m) {
  const f = Math.abs(m.frequency_hz) >= 1e4 || (m.frequency_hz !== 0 && Math.abs(m.frequency_hz) < 1e-3)
    ? m.frequency_hz.toExponential(4) : m.frequency_hz.toPrecision(6);
  return `mode ${m.mode}: ${f} Hz` + (m.damping_ratio ? `, ζ ${Number(m.damping_ratio).toPrecision(3)}` : '');
}

/// The notes of the header: the check verdict, missing results, thinning, undrawn bodies.
function pageMessages(scene) {
  const messages = [];
  const check = scene.check;
  if (check.status) messages.push({ cls: check.well_posed ? 'ok' : 'bad', text: `check: ${check.status}` +
    (check.indeterminate_bodies && check.indeterminate_bodies.length ? ` — undetermined (red): ${check.indeterminate_bodies.join(', ')}` : '') });
  if (scene.modes) messages.push({ cls: 'info', text: `mode shapes of ${scene.samples.results}: one cycle per second at 1× (not the mode's frequency), drawn points moving up to ${scene.mode_amplitude} of the model's size` });
  else if (!scene.samples.results) messages.push({ cls: 'info', text: 'no results: the initial state (run joinery simulate and pass --results)' });
  for (const m of scene.messages || []) messages.push({ cls: 'info', text: m });
  const hidden = scene.bodies.filter((b) => !['rigid2d', 'rigid3d', 'particle'].includes(b.type) && !(b.curve >= 2)).map((b) => b.name);
  if (hidden.length) messages.push({ cls: 'info', text: `not drawn (generalised coordinates only): ${hidden.join(', ')}` });
  return messages;
}


function start() {
  document.head.append(el('style', {}, uplotCss + pageCss));
  const data = loadPageData(document);
  const scene = data.scene;
  const times = data.columns.t;
  const { viewBox, playBtn, prevBtn, nextBtn, scrub, timeLabel, speed, framesBox, pngBtn, plotBox, picker, modePicker, deform, marks, eventLabel } = buildLayout(data);
  const events = scene.events || [];
  const modes = scene.modes || null;
  let mode = 0;  // the mode shown (modes only)
  const span = () => (modes ? [modes[mode].start, modes[mode].end] : [times[0], times[data.frames - 1]]);
  const messages = pageMessages(scene);

  // ---- views (without WebGL: a 2-D drawing, view2d.js, and a note saying why)
  const { view, fallback } = makeView(viewBox, data);
  if (events.length) viewBox.append(eventLabel);
  if (fallback) {
    const note = { cls: 'bad', text: fallback };
    messages.push(note);
    document.querySelector('.notes').append(el('span', { class: note.cls, id: 'no-webgl' }, note.text));
    if (!scene.planar) {
      const proj = el('select', { id: 'projection', title: 'projection of the 2-D drawing' });
      for (const [k, p] of Object.entries(PROJECTIONS)) proj.append(el('option', { value: k }, p.label));
      proj.addEventListener('change', () => view.setProjection(proj.value));
      document.querySelector('.controls').insertBefore(proj, pngBtn);
    }
  }
  let frame = 0, time = times[0], playing = false, last = null, rafCount = 0;
  const plots = new Plots(plotBox, data, (t) => setTime(t));

  function show(i, t) {
    frame = i;
    time = t;
    view.pose(i);
    scrub.value = String(i);
    if (modes) {
      mode = Math.min(modes.length - 1, Math.max(0, Math.floor(times[i] + 1e-9)));
      modePicker.value = String(mode);
      timeLabel.textContent = `phase ${(times[i] - modes[mode].start).toFixed(3)} of a cycle`;
    } else {
      timeLabel.textContent = `t = ${fmtTime(times[i])} s   (${i + 1}/${data.frames})`;
      if (events.length) {  // the events between this sample and the next
        const next = i + 1 < data.frames ? times[i + 1] : Infinity;
        const here = events.filter((e) => e.t >= times[i] && e.t < next);
        eventLabel.textContent = here.length ? here.map((e) => describeEvent(e, scene)).join('; ') : '';
        eventLabel.style.display = here.length ? '' : 'none';
      }
    }
    plots.setTime(times[i]);
  }
  function setTime(t) { const i = frameAt(times, t); show(i, t); }
  function setFrame(i) { i = Math.max(0, Math.min(data.frames - 1, i)); show(i, times[i]); }
  function tick(now) {
    rafCount += 1;
    if (playing) {
      if (last !== null) {
        let t = time + ((now - last) / 1000) * Number(speed.value);
        const [t0, t1] = span();
        if (modes ? t >= t1 : t > t1) t = t0 + (modes ? (t - t1) % (t1 - t0) : 0);
        setTime(t);
      }
      last = now;
    }
    requestAnimationFrame(tick);
  }
  function setPlaying(on) {
    playing = on && data.frames > 1;
    last = null;
    playBtn.textContent = playing ? '❚❚' : '▶';
  }
  const markEls = buildMarks(marks, scene, times, (e) => { setPlaying(false); setTime(e.t); });
  playBtn.addEventListener('click', () => setPlaying(!playing));
  prevBtn.addEventListener('click', () => { setPlaying(false); setFrame(frame - 1); });
  nextBtn.addEventListener('click', () => { setPlaying(false); setFrame(frame + 1); });
  scrub.addEventListener('input', () => { setPlaying(false); setFrame(Number(scrub.value)); });
  const setMode = (k) => { mode = k; setTime(modes[k].start); };
  if (modes) modePicker.addEventListener('change', () => setMode(Number(modePicker.value)));
  framesBox.addEventListener('change', () => view.setFramesVisible(framesBox.checked));
  deform.addEventListener('change', () => view.setDeformationScale(Number(deform.value)));
  pngBtn.addEventListener('click', () => {
    const a = el('a', { href: view.toPNG(), download: `${scene.stem || 'joinery'}-t${fmtTime(times[frame])}.png` });
    document.body.append(a);
    a.click();
    a.remove();
  });
  picker.addEventListener('change', () => plots.setColumns([...picker.selectedOptions].map((o) => o.value)));
  document.addEventListener('keydown', (ev) => {
    if (ev.target.tagName === 'SELECT' || ev.target.tagName === 'INPUT') return;
    if (ev.key === ' ') { ev.preventDefault(); setPlaying(!playing); }
    if (ev.key === 'ArrowRight') setFrame(frame + 1);
    if (ev.key === 'ArrowLeft') setFrame(frame - 1);
  });
  window.addEventListener('resize', () => { view.resize(); plots.resize(); });

  function choosePlot(names) {
    for (const o of picker.options) o.selected = names.includes(o.value);
    plots.setColumns(names);
  }
  choosePlot(scene.plot || []);
  if (data.frames <= 1) plotBox.append(el('div', { class: 'empty' }, 'one state only: plots need a run (joinery simulate, then --results)'));
  setFrame(0);
  requestAnimationFrame(tick);

  const state = () => ({ frame, playing, rafCount, mode });
  const api = makeApi({ data, view, plots, choosePlot, setTime, setFrame, setPlaying, state, framesBox, deform, messages });
  /// The run's events (--summary) and their marks on the time line: the event, the mark's
  /// centre on the page (CSS pixels) and its tooltip.
  api.events = () => events.map((e) => ({ ...e }));
  api.eventMarks = () => markEls.map((m, k) => {
    const r = m.getBoundingClientRect();
    return { ...events[k], x: r.left + r.width / 2, y: r.top + r.height / 2, title: m.title };
  });
  /// Mode shapes: the mode shown (0-based) and choosing one (shown at phase 0, its rest state).
  api.mode = () => (modes ? mode : null);
  api.setMode = (k) => { setPlaying(false); setMode(k); return mode; };
  return api;
}

/// Whether this browser gives a WebGL context (a remote desktop, a VM or a locked-down
/// browser may not): null when it does, else the reason.
function webglMissing() {
  try {
    const c = document.createElement('canvas');
    if (c.getContext('webgl2') || c.getContext('webgl')) return null;
    return typeof WebGLRenderingContext === 'undefined' ? 'this browser has no WebGL' : 'this browser refused a WebGL context (no GPU, or WebGL turned off)';
  } catch (e) {
    return `WebGL failed: ${e.message}`;
  }
}

/// The 3-D view, or the 2-D drawing when WebGL is missing or fails: { view, fallback } with
/// fallback the note to show (null with WebGL).
function makeView(viewBox, data) {
  let why = webglMissing();
  if (!why) {
    try { return { view: new MechanismView(viewBox, data), fallback: null }; } catch (e) {
      why = `WebGL failed: ${e.message}`;
      viewBox.replaceChildren();
    }
  }
  const how = data.scene.planar ? 'the planar model drawn in its plane' : 'the 3-D model drawn in a projection (chosen beside the time slider)';
  return { view: new FlatView(viewBox, data, why), fallback: `no 3-D view: ${why}; a 2-D drawing instead, ${how}` };
}

/// window.joineryView: the page's state for scripts and tests.
function makeApi({ data, view, plots, choosePlot, setTime, setFrame, setPlaying, state, framesBox, deform, messages }) {
  const times = data.columns.t, scene = data.scene;
  return {
    setTime(t) { setPlaying(false); setTime(t); return times[state().frame]; },
    getTime() { return times[state().frame]; },
    setFrame(i) { setPlaying(false); setFrame(i); },
    frameCount() { return data.frames; },
    frameTimes() { return Array.from(times); },
    bodyNames() { return view.bodies.map((b) => b.name); },
    /// The drawn pose of a body: what the renderer uses (three.js object), position and [w,x,y,z].
    bodyPose(name) {
      const b = view.bodyByName.get(name);
      if (!b) return null;
      const o = b.object;
      return { position: [o.position.x, o.position.y, o.position.z], quaternion: [o.quaternion.w, o.quaternion.x, o.quaternion.y, o.quaternion.z] };
    },
    /// A flexible body's drawn curve (world points), or [] for other bodies.
    curvePoints(name) { return view.curvePoints(name); },
    setPlotColumns(names) { choosePlot(names); return plots.columns.slice(); },
    plotColumns() { return plots.columns.slice(); },
    plotPointCount() { return plots.pointCount(); },
    /// The plot's y axes, by unit ('' for columns whose unit is not known), and the values
    /// its legend shows (at the animation time while the cursor is off the plot).
    plotAxes() { return (plots.units || []).slice(); },
    plotLegend() { return plots.legendValues(); },
    /// Bodies drawn in the highlight colour (undetermined by `check`).
    highlighted() { return view.highlighted.slice(); },
    play() { setPlaying(true); },
    pause() { setPlaying(false); },
    isPlaying() { return state().playing; },
    showFrames(on) { framesBox.checked = on; view.setFramesVisible(on); },
    /// Flexible bodies' elastic deformation drawn magnified by `s` (1: true to scale).
    setDeformationScale(s) { deform.value = String(s); view.setDeformationScale(Number(deform.value)); return Number(deform.value); },
    /// requestAnimationFrame callbacks per second while playing, over `ms` milliseconds.
    async measureFps(ms = 3000) {
      setPlaying(true);
      const c0 = state().rafCount, t0 = performance.now();
      await new Promise((r) => setTimeout(r, ms));
      const fps = ((state().rafCount - c0) * 1000) / (performance.now() - t0);
      setPlaying(false);
      return fps;
    },
    png() { return view.toPNG(); },
    messages() { return messages.map((m) => m.text); },
    /// Each slider's guide as drawn: { joint, from, to } (world points of its ends).
    sliderGuides() { return view.guides(); },
    /// Contact shapes as drawn now (world axes): { joint, body, kind, center, radius, normal }.
    contactShapes() { return view.contactShapes(); },
    /// Ropes as drawn now: { joint, from, to, gap, taut, dashed } (dashed while slack).
    ropes() { return view.ropeStates(); },
    /// Where a world point is drawn on the page (CSS pixels).
    screenPoint(p) { return view.screenPoint(p); },
    /// 'webgl', or 'canvas2d' when the page fell back to the 2-D drawing (no WebGL).
    renderer() { return view instanceof FlatView ? 'canvas2d' : 'webgl'; },
    /// The 2-D drawing's projection (3-D models without WebGL): oblique, top, front or side.
    setProjection(key) { if (!(view instanceof FlatView)) return null; const k = view.setProjection(key); const s = document.getElementById('projection'); if (s) s.value = k; return k; },
    scene,
  };
}

const api = {};
api.ready = new Promise((resolve, reject) => {
  const run = () => {
    try { Object.assign(api, start()); resolve(api); } catch (e) {
      document.body.append(el('pre', { class: 'error' }, `joinery view: ${e.message}`));
      console.error(e);
      reject(e);
    }
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', run); else run();
});
window.joineryView = api;
