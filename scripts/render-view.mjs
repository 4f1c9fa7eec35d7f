// Photographs the 3-D view of a page written by `joinery view` in headless Debian Chromium
// (puppeteer-core from the viewer's npm tree in the build folder; no browser is downloaded),
// as scripts/render-catalogue.mjs does for the catalogue. Used for docs/img/import-humanoid.png.
//
//   node scripts/render-view.mjs PAGE.html OUT.png [BUILD_DIR] [--time T]
//
// --time T: the frame of the page's results nearest to time T (s) before the picture.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { launchChromium } from './headless-chromium.mjs';

const args = process.argv.slice(2);
const timeAt = args.indexOf('--time');
const time = timeAt >= 0 ? Number(args.splice(timeAt, 2)[1]) : null;
const [page, png, buildArg] = args;
if (!page || !png) throw new Error('usage: node scripts/render-view.mjs PAGE.html OUT.png [BUILD_DIR] [--time T]');
const source = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const browser = await launchChromium(resolve(buildArg || join(source, 'build')));
try {
  const tab = await browser.newPage();
  await tab.setViewport({ width: 900, height: 820 });
  await tab.goto(pathToFileURL(resolve(page)).href, { waitUntil: 'load', timeout: 120000 });
  await tab.evaluate(() => window.joineryView.ready);
  if (time !== null) {
    await tab.evaluate((t) => {
      const v = window.joineryView, ts = v.frameTimes();
      let best = 0;
      ts.forEach((x, i) => { if (Math.abs(x - t) < Math.abs(ts[best] - t)) best = i; });
      v.setFrame(best);
    }, time);
  }
  await new Promise((r) => setTimeout(r, 500));
  await (await tab.$('.view canvas')).screenshot({ path: png });
  console.log(`${page} -> ${png}`);
} finally {
  await browser.close();
}
