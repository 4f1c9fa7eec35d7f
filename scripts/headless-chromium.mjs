// Headless Debian Chromium through puppeteer-core from the viewer's npm tree in the build folder
// (no browser is downloaded): shared by scripts/render-catalogue.mjs and scripts/render-view.mjs.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/// Launches the browser; `build` is the build folder (its apps/viewer-web holds puppeteer-core).
export async function launchChromium(build) {
  const web = join(build, 'apps', 'viewer-web');
  const require = createRequire(join(web, 'package.json'));
  const puppeteer = (await import(pathToFileURL(require.resolve('puppeteer-core')).href)).default;
  const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  if (!chromium) throw new Error('no Chromium: install the Debian package chromium (scripts/install-deps.sh)');
  return puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu-sandbox', '--enable-unsafe-swiftshader', '--use-angle=swiftshader',
      '--no-first-run', '--disable-background-networking', '--disable-component-update'],
  });
}
