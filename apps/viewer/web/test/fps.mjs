// Measures a `joinery view` page in headless Chromium: load time (navigation to ready),
// requestAnimationFrame callbacks per second while it plays (each one poses every body and
// renders), the time to draw one frame to completion, and the JS heap. Usage: node fps.mjs PAGE.html [seconds] [WIDTHxHEIGHT]
import { statSync } from 'node:fs';
import { launch, open } from './browser.mjs';

const [file, secondsArg = '5', sizeArg = '1280x800'] = process.argv.slice(2);
const [width, height] = sizeArg.split('x').map(Number);
const browser = await launch();
try {
  const t0 = Date.now();
  const { page, errors } = await open(browser, file, { width, height });
  const loadS = (Date.now() - t0) / 1000;
  const frames = await page.evaluate(() => window.joineryView.frameCount());
  const bodies = await page.evaluate(() => window.joineryView.bodyNames().length);
  const fps = await page.evaluate((ms) => window.joineryView.measureFps(ms), Number(secondsArg) * 1000);
  // main-thread work per frame (pose every body, move the markers, submit the draw calls,
  // redraw the plot cursor), finished with a 1-pixel read-back so the drawing is complete
  const perFrame = await page.evaluate(() => {
    const v = window.joineryView, n = Math.min(50, v.frameCount());
    const gl = document.querySelector('.view canvas').getContext('webgl2');
    const px = new Uint8Array(4);
    const t0 = performance.now();
    for (let i = 0; i < n; ++i) { v.setFrame(i); gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px); }
    return (performance.now() - t0) / n;
  });
  const heap = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : 0));
  console.log(JSON.stringify({ page: file, mb: +(statSync(file).size / 1e6).toFixed(1), bodies, frames,
    load_s: +loadS.toFixed(2), fps: +fps.toFixed(1), ms_per_frame_drawn: +perFrame.toFixed(1), heap_mb: +(heap / 1e6).toFixed(0), viewport: sizeArg, errors }));
} finally {
  await browser.close();
}
