// Renders the pictures of docs/catalogue.md: every part of every shipped library
// (apps/joinery/lib/*.json), instantiated alone with its defaults, drawn by `joinery view` at
// its initial state and photographed in headless Debian Chromium (puppeteer-core from the
// viewer's npm tree in the build folder; no browser is downloaded).
//
//   node scripts/render-catalogue.mjs [BUILD_DIR [PART ...]]   (default: build, every part)
//   node scripts/render-catalogue.mjs --page                    (only docs/catalogue.md, no browser)
//
// PARTs given: only their pictures are taken again (a new part), the others are kept.
//
// Writes docs/img/catalogue-<part>.png (the 3-D view of a 900 x 820 page) and prints one line per
// part, then docs/catalogue.md from the library files themselves (descriptions, parameters,
// units, ports) and the bundled examples that use each part (examples/library, examples/scenes).
// Pictures need a build with the viewer (node, npm) and the chromium package.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { writeCatalogue } from './catalogue-page.mjs';
import { launchChromium } from './headless-chromium.mjs';

const source = resolve(dirname(fileURLToPath(import.meta.url)), '..');
if (process.argv[2] === '--page') {
  writeCatalogue(source);
  process.exit(0);
}
const build = resolve(process.argv[2] || join(source, 'build'));
const only = new Set(process.argv.slice(3));  // empty: every part
const joinery = join(build, 'apps', 'joinery');
if (!existsSync(joinery)) throw new Error(`no ${joinery}: build the joinery target first`);
const libDir = join(source, 'apps', 'joinery', 'lib');
const images = join(source, 'docs', 'img');
const work = join(tmpdir(), 'joinery-catalogue');  // scenes and pages, not kept
mkdirSync(work, { recursive: true });

const browser = await launchChromium(build);
try {
  for (const file of readdirSync(libDir).filter((f) => f.endsWith('.json')).sort()) {
    const lib = file.replace(/\.json$/, '');
    const parts = Object.keys(JSON.parse(readFileSync(join(libDir, file), 'utf8')).components);
    for (const part of parts) {
      if (only.size && !only.has(part)) continue;
      const scene = {
        joinery: 1, name: `joinery:${lib} ${part} with its defaults`, include: [`joinery:${lib}`],
        gravity: lib === 'spatial' ? [0, 0, -9.81] : [0, -9.81, 0], bodies: [],
        instances: [{ name: part, component: part }],
      };
      const sceneFile = join(work, `${part}.json`), page = join(work, `${part}.html`);
      writeFileSync(sceneFile, JSON.stringify(scene, null, 1));
      execFileSync(joinery, ['view', sceneFile, '-o', page], { stdio: ['ignore', 'pipe', 'inherit'] });
      const tab = await browser.newPage();
      await tab.setViewport({ width: 900, height: 820 });  // a 3-D view of about 900 x 450
      await tab.goto(pathToFileURL(page).href, { waitUntil: 'load', timeout: 120000 });
      await tab.evaluate(() => window.joineryView.ready);
      await new Promise((r) => setTimeout(r, 300));
      const png = join(images, `catalogue-${part}.png`);
      await (await tab.$('.view canvas')).screenshot({ path: png });
      await tab.close();
      console.log(`joinery:${lib} ${part} -> ${png}`);
    }
  }
} finally {
  await browser.close();
}
writeCatalogue(source);
