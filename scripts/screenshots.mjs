/**
 * `npm run docs:screenshots`: pictures of the catalogue, taken in headless Chromium (scripts/browser.mjs) from
 * snapshots of the embedded sample API: release 0 and then its next release crawled into one --out, so that the
 * Changes page has something to show. Every kind of page (front page, search results, a collection, a record, a
 * community variant, the Changes page, a removed record's page, and any other page at the catalogue's top, such as a
 * findings page) at a desktop's width and a phone's, light and dark, goes to screenshots/ (git-ignored) as
 * `<kind>-<width>-<scheme>.png`; the few that the README and docs/catalogue.md show are copied to docs/.
 */
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createClock, createSnapshot, startSampleApi } from '../dist/index.js';
import { launchBrowser } from './browser.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SHOTS = path.join(REPO, 'screenshots');
const WIDTHS = { 1280: { width: 1280, height: 860 }, 390: { width: 390, height: 844 } };
/** @type {Array<[string, string]>} The pictures docs/ shows: [the picture in screenshots/, its name in docs/]. */
const IN_DOCS = [
  ['search-1280-light.png', 'catalogue-desktop.png'],
  ['record-390-light.png', 'catalogue-phone.png'],
  ['changes-1280-light.png', 'catalogue-changes.png'],
  ['changes-390-dark.png', 'catalogue-changes-dark.png'],
];
/** Release 0 six weeks before release 1 (the sample data's own interval), so the Changes page shows two times. */
const RELEASE_EPOCHS = ['1736121600', '1739750400'];

const work = await mkdtemp(path.join(os.tmpdir(), 'cv-snapshot-screenshots-'));
const browser = await launchBrowser();
try {
  const out = path.join(work, 'cv-mirror');
  for (const release of [0, 1]) {
    // The examples in the README and docs/ use this port, so the pictures show the same source URL.
    const api = await startSampleApi({ port: 4100, logRequests: false, release });
    try {
      const clock = createClock({ SOURCE_DATE_EPOCH: RELEASE_EPOCHS[release] });
      await createSnapshot({ rootUrl: api.rootUrl, out, clock });
    } finally {
      await api.close();
    }
  }
  /** @param {string} rel */
  const file = (rel) => pathToFileURL(path.join(out, rel)).href;
  // A unit that community variants point at, so that its page shows links both ways, and one of its variants.
  /** @type {unknown} */
  const listed = JSON.parse(await readFile(path.join(out, 'sms/cv/api/v1/units-communities/index.html'), 'utf8'));
  /** @typedef {{ id: string, relationships?: { root?: { data?: { id: string } } } }} Listed */
  const communities = /** @type {{ data: Listed[] }} */ (listed);
  const variant = communities.data.find((c) => c.relationships?.root?.data);
  const rootId = variant?.relationships?.root?.data?.id ?? '1';
  const variantId = variant?.id ?? '1';
  // Pages at the catalogue's top besides the ones named here (a findings page, when the catalogue has one).
  const known = new Set(['changes.html']);
  const others = (await readdir(path.join(out, '_catalogue')))
    .filter((name) => name.endsWith('.html') && !known.has(name))
    .map((name) => /** @type {[string, string]} */ ([name.slice(0, -'.html'.length), file(`_catalogue/${name}`)]));

  // The page a record removed in the next release keeps (written beside its collection's pages).
  /** @type {unknown} */
  const removedJson = JSON.parse(await readFile(path.join(out, '_catalogue/removed.json'), 'utf8'));
  const removed = /** @type {{ removed: Array<{ collection: string, id: string }> }} */ (removedJson);
  const gone = removed.removed[0];

  /** @type {Array<[string, string]>} */
  const kinds = [
    ['front', file('index.html')],
    ['search', `${file('index.html')}?q=kelvin`],
    ['collection', file('_catalogue/units/page-1.html')],
    ['record', file(`_catalogue/units/r-${rootId}.html`)],
    ['variant', file(`_catalogue/units-communities/r-${variantId}.html`)],
    ['changes', file('_catalogue/changes.html')],
    ...(gone === undefined
      ? []
      : [/** @type {[string, string]} */ (['removed', file(`_catalogue/${gone.collection}/removed-${gone.id}.html`)])]),
    ...others,
  ];
  await rm(SHOTS, { recursive: true, force: true });
  await mkdir(SHOTS, { recursive: true });
  for (const [width, viewport] of Object.entries(WIDTHS)) {
    for (const colorScheme of /** @type {const} */ (['light', 'dark'])) {
      const context = await browser.newContext({ viewport, colorScheme, deviceScaleFactor: 1 });
      const page = await context.newPage();
      for (const [kind, url] of kinds) {
        await page.goto(url);
        await page.emulateMedia({ colorScheme });
        await page.waitForLoadState('load');
        const name = `${kind}-${width}-${colorScheme}.png`;
        await page.screenshot({ path: path.join(SHOTS, name) });
        console.log(`screenshots/${name}`);
      }
      await context.close();
    }
  }
  for (const [shot, name] of IN_DOCS) {
    await copyFile(path.join(SHOTS, shot), path.join(REPO, 'docs', name));
    console.log(`docs/${name}`);
  }
} finally {
  await browser.close();
  await rm(work, { recursive: true, force: true });
}
