// Headless Debian Chromium driven by puppeteer-core (never a downloaded browser), and the
// `joinery` program, for the viewer tests.
import puppeteer from 'puppeteer-core';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const joinery = process.env.JOINERY_BIN;
export const source = process.env.JOINERY_SOURCE;
export const work = process.env.JOINERY_VIEW_OUT || '/tmp/joinery-view-test';
mkdirSync(work, { recursive: true });
/// Screenshots go to `shots` (JOINERY_VIEW_OUT/img); those for docs/ are also copied to
/// JOINERY_DOC_IMAGES when that is set.
export const shots = join(work, 'img');
mkdirSync(shots, { recursive: true });
export async function screenshot(page, name) {
  const file = join(shots, name);
  await page.screenshot({ path: file });
  if (process.env.JOINERY_DOC_IMAGES) copyFileSync(file, join(process.env.JOINERY_DOC_IMAGES, name));
}

export function chromiumPath() {
  for (const p of [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser']) if (p && existsSync(p)) return p;
  throw new Error('no Chromium: install the Debian package chromium (scripts/install-deps.sh)');
}

export function run(args) {
  return execFileSync(joinery, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/// Runs `joinery` expecting failure; returns { status, stderr }.
export function runFailing(args) {
  try {
    execFileSync(joinery, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    return { status: e.status, stderr: String(e.stderr) };
  }
  throw new Error(`joinery ${args.join(' ')} succeeded; expected a failure`);
}

/// Headless Chromium with WebGL (SwiftShader), or with { webgl: false } without it, as a
/// browser without a GPU or with WebGL turned off (--disable-gpu --disable-3d-apis).
export async function launch({ webgl = true } = {}) {
  const gl = webgl ? ['--enable-unsafe-swiftshader', '--use-angle=swiftshader'] : ['--disable-gpu', '--disable-3d-apis'];
  return puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu-sandbox', ...gl,
      '--no-first-run', '--disable-background-networking', '--disable-component-update',
      '--disable-background-timer-throttling', '--disable-renderer-backgrounding'],
  });
}

/// Opens a page from file:// and records console errors, page errors and every request.
export async function open(browser, htmlPath, viewport = { width: 1100, height: 760 }) {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  const url = pathToFileURL(htmlPath).href;
  const errors = [], requests = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => { if (r.url() !== url && !/^(data|blob):/.test(r.url())) requests.push(r.url()); });
  await page.goto(url, { waitUntil: 'load', timeout: 120000 });
  await page.evaluate(() => window.joineryView.ready);
  return { page, errors, requests };
}

/// Reads a CSV written by joinery simulate: { names, rows }.
export function readCsv(text) {
  const lines = text.trim().split('\n');
  const names = lines[0].split(',');
  return { names, rows: lines.slice(1).map((l) => l.split(',').map(Number)) };
}

export const scene = (...p) => join(source, ...p);

/// The fraction of a canvas's pixels (the first matching `selector`) of a kind: 'ink', those
/// that differ from its corner pixel (the background) by more than 60 in R+G+B (0 for a blank
/// canvas), or 'red', the clearly red ones (R > 150, G and B < 80).
export async function pixelFraction(page, selector, kind) {
  return page.evaluate((sel, k) => {
    const src = document.querySelector(sel);
    if (!src) return 0;
    const c = document.createElement('canvas');
    c.width = src.width; c.height = src.height;
    const g = c.getContext('2d');
    g.drawImage(src, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const counts = k === 'red'
      ? (i) => d[i] > 150 && d[i + 1] < 80 && d[i + 2] < 80
      : (i) => Math.abs(d[i] - d[0]) + Math.abs(d[i + 1] - d[1]) + Math.abs(d[i + 2] - d[2]) > 60;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (counts(i)) n++;
    return n / (c.width * c.height);
  }, selector, kind);
}

/// The fraction of a canvas's pixels away from its background (pixelFraction's 'ink').
export const ink = (page, selector) => pixelFraction(page, selector, 'ink');
