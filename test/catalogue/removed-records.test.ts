/**
 * Removed records that share an id each keep their own page (docs/catalogue.md#removed-records): crawled release by
 * release from a real source into one --out (test/helpers/removed-history.ts), the record removed first from an
 * address keeps its page's name, the one removed from it later gets a page of its own, each names the other, the
 * Changes page links every one, and `serve` answers a browser on the address with the page of the record removed
 * from it last and 410.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeHandle } from '../../src/serve/index.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { crawlReleases, RELEASES, releaseTime } from '../helpers/removed-history.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { htmlText as text } from '../helpers/html-text.js';

const heading = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];
/** A snapshot's time as the pages show it (`2023-11-14 22:13 UTC`). */
const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
/** The term release `n` gives the record `id` of `collection`. */
const termIn = (n: number, collection: string, id: string) => RELEASES[n]![collection]!.find((r) => r.id === id)!.term;

describe('removed records that share an id', () => {
  let out: string;
  let remove: () => Promise<void>;
  /** Each collection's tombstone files after release 1, with their headings. */
  const afterFirstRemoval = new Map<string, Map<string, string | undefined>>();
  let served: ServeHandle;

  const removedPages = async (collection: string) => {
    const folder = path.join(out, '_catalogue', collection);
    const files = (await readdir(folder)).filter((f) => f.startsWith('removed-')).sort();
    const pages = new Map<string, string | undefined>();
    for (const f of files) pages.set(f, heading(await readFile(path.join(folder, f), 'utf8')));
    return pages;
  };
  const page = (collection: string, file: string) => readFile(path.join(out, '_catalogue', collection, file), 'utf8');

  beforeAll(async () => {
    const suite = await suiteDir();
    remove = suite.remove;
    out = path.join(suite.dir, 'out');
    await crawlReleases(out, undefined, async (n) => {
      if (n !== 1) return;
      for (const collection of ['units', 'things']) afterFirstRemoval.set(collection, await removedPages(collection));
    });
    served = await startServe({ dir: out, port: 0 });
  }, 120_000);
  afterAll(async () => {
    await served?.close();
    await remove?.();
  });

  it('keeps a page for each, the first under the name it had, each naming the other', async () => {
    for (const collection of ['units', 'things']) {
      const first = termIn(0, collection, '7');
      const later = termIn(1, collection, '7');
      expect(afterFirstRemoval.get(collection)).toEqual(new Map([['removed-7.html', first]]));
      const pages = await removedPages(collection);
      expect([...pages.values()].sort()).toEqual([first, later].sort());
      // The page the first removal gave keeps its name in the crawls after.
      expect(pages.get('removed-7.html')).toBe(first);
      const laterFile = [...pages].find(([, h]) => h === later)![0];
      const laterPage = text(await page(collection, laterFile));
      expect(laterPage).toContain(`Removed in the snapshot of ${when(releaseTime(2))}.`);
      expect(laterPage).toContain(`Also removed from this address: ${first} `);
      expect(await page(collection, laterFile)).toContain('<a href="removed-7.html">');
      const firstPage = await page(collection, 'removed-7.html');
      expect(text(firstPage)).toContain(`Removed in the snapshot of ${when(releaseTime(1))}.`);
      expect(text(firstPage)).toContain(`Also removed from this address: ${later} `);
      expect(firstPage).toContain(`<a href="${laterFile}">`);
    }
    // Removed, back, removed again: one page, of its last removal.
    const licence = await page('licenses', 'removed-5.html');
    expect(heading(licence)).toBe(termIn(2, 'licenses', '5'));
    expect(text(licence)).toContain(`Removed in the snapshot of ${when(releaseTime(3))}.`);
    expect(text(licence)).toContain(`last in the snapshot of ${when(releaseTime(2))}.`);
    expect([...(await removedPages('licenses')).keys()]).toEqual(['removed-5.html']);
  });

  it('links every one from the Changes page, and verify finds nothing wrong', async () => {
    const changes = await readFile(path.join(out, '_catalogue/changes.html'), 'utf8');
    const linked = [...changes.matchAll(/<a href="([a-z]+\/removed-[^"]+\.html)">([^<]*)<\/a>/g)];
    const expected: string[] = [];
    for (const collection of ['units', 'things', 'licenses']) {
      for (const f of (await removedPages(collection)).keys()) expected.push(`${collection}/${f}`);
    }
    expect(expected).toHaveLength(5);
    expect(new Set(linked.map((m) => m[1]))).toEqual(new Set(expected));
    for (const [, href, label] of linked) {
      const [collection, file] = href!.split('/');
      expect(heading(await page(collection!, file!))).toBe(label);
    }
    expect((await verifySnapshot(out)).problems).toEqual([]);
  });

  it('answers a browser on each address with the page of the record removed from it last, and 410', async () => {
    const cases = [
      ['units', '7', termIn(1, 'units', '7')],
      ['things', '7', termIn(1, 'things', '7')],
      ['licenses', '5', termIn(2, 'licenses', '5')],
    ] as const;
    for (const [collection, id, term] of cases) {
      for (const address of [`${served.url}${collection}/${id}/`, `${served.url}${collection}/${id}`]) {
        const browser = await fetch(address, { headers: { Accept: 'text/html,application/xhtml+xml;q=0.9' } });
        expect(browser.status, address).toBe(410);
        expect(heading(await browser.text()), address).toBe(term);
        const client = await fetch(address, { headers: { Accept: 'application/vnd.api+json' } });
        expect(client.status, address).toBe(404);
        expect(client.headers.get('content-type')).toBe('application/vnd.api+json');
        await client.arrayBuffer();
      }
    }
  });
});
