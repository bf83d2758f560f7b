/**
 * `npm run docs:screenshots`: pictures of the catalogue, taken in headless Chromium (scripts/browser.mjs) from a
 * snapshot of the embedded sample API. Every picture goes to screenshots/ (git-ignored); the two that the README and
 * docs/catalogue.md show, one at a desktop's width and one at a phone's, are copied to docs/.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createClock, createSnapshot, startSampleApi } from '../dist/index.js';
import { launchBrowser } from './browser.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SHOTS = path.join(REPO, 'screenshots');
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

const work = await mkdtemp(path.join(os.tmpdir(), 'cv-snapshot-screenshots-'));
// The examples in the README and docs/ use this port, so the pictures show the same source URL.
const api = await startSampleApi({ port: 4100, logRequests: false });
const browser = await launchBrowser();
try {
  const out = path.join(work, 'cv-mirror');
  await createSnapshot({ rootUrl: api.rootUrl, out, clock: createClock({ SOURCE_DATE_EPOCH: '1700000000' }) });
  /** @param {string} rel */
  const file = (rel) => pathToFileURL(path.join(out, rel)).href;
  // A unit that community variants point at, so that its page shows links both ways.
  /** @type {unknown} */
  const listed = JSON.parse(await readFile(path.join(out, 'sms/cv/api/v1/units-communities/index.html'), 'utf8'));
  const communities = /** @type {{ data: Array<{ relationships?: { root?: { data?: { id: string } } } }> }} */ (listed);
  const variant = communities.data.find((c) => c.relationships?.root?.data);
  const rootId = variant?.relationships?.root?.data?.id ?? '1';
  const variantId = /** @type {{ id?: string }} */ (variant ?? {}).id ?? '1';

  /** @type {Array<[string, { width: number, height: number }, string, ('light' | 'dark')?]>} */
  const shots = [
    ['front-desktop.png', DESKTOP, `${file('index.html')}?q=kelvin`],
    ['collection-desktop.png', DESKTOP, file('_catalogue/units/page-1.html')],
    ['record-desktop.png', DESKTOP, file(`_catalogue/units/r-${rootId}.html`)],
    ['variant-desktop.png', DESKTOP, file(`_catalogue/units-communities/r-${variantId}.html`)],
    ['front-phone.png', PHONE, file('index.html')],
    ['collection-phone.png', PHONE, file('_catalogue/units-communities/page-1.html')],
    ['record-phone.png', PHONE, file(`_catalogue/units/r-${rootId}.html`)],
    ['record-phone-dark.png', PHONE, file(`_catalogue/units/r-${rootId}.html`), 'dark'],
  ];
  await mkdir(SHOTS, { recursive: true });
  for (const [name, viewport, url, colorScheme = 'light'] of shots) {
    const context = await browser.newContext({ viewport, colorScheme, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(url);
    await page.screenshot({ path: path.join(SHOTS, name) });
    await context.close();
    console.log(`screenshots/${name}`);
  }
  await copyFile(path.join(SHOTS, 'front-desktop.png'), path.join(REPO, 'docs', 'catalogue-desktop.png'));
  await copyFile(path.join(SHOTS, 'record-phone.png'), path.join(REPO, 'docs', 'catalogue-phone.png'));
  console.log('docs/catalogue-desktop.png, docs/catalogue-phone.png');
} finally {
  await browser.close();
  await api.close();
  await rm(work, { recursive: true, force: true });
}
