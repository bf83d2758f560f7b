/**
 * Finalize reads each stored list page twice, and the document of a relationship given with links only once, unless
 * the crawl stored it leading nowhere (`data: null`), which it then answers from what the crawl learned: the first
 * read feeds the catalogue's index, the downloads' survey and the Changes page's comparison, the second the record
 * and collection pages, the search index and the downloads (docs/architecture.md#one-pass-after-the-crawl). The
 * `catalogue` command reads the same way, every links-only document once. Counted where every reader of a snapshot's
 * files reads one.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSnapshot } from '../../src/pipeline/create-snapshot.js';
import { sendJson } from '../helpers/http-server.js';
import { addCatalogue } from '../../src/pipeline/add-catalogue.js';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';
import { treeHashes } from '../helpers/snapshot.js';
import { dataAnswer, linksOnly, records, recordDocument, startTinySource } from '../helpers/tiny-source.js';
import type * as SafeRead from '../../src/format/safe-read.js';

const reads = vi.hoisted(() => ({ files: [] as Array<{ root: string; file: string }> }));

vi.mock('../../src/format/safe-read.js', async (importOriginal) => {
  const actual = await importOriginal<typeof SafeRead>();
  return {
    ...actual,
    readSnapshotJson: (...args: Parameters<typeof actual.readSnapshotJson>) => {
      reads.files.push({ root: args[0], file: args[1] });
      return actual.readSnapshotJson(...args);
    },
  };
});

/** The list pages a published snapshot counts in its manifest. */
function listPages(out: string): number {
  const manifest = JSON.parse(readFileSync(path.join(out, '_cv-snapshot', 'manifest.json'), 'utf8')) as {
    collections: Record<string, { pages: number }>;
  };
  return Object.values(manifest.collections).reduce((n, c) => n + c.pages, 0);
}

/** How often each file of the staged tree (not the snapshot compared with) was read, by kind. */
function readsOfStagedTree(): { lists: Map<string, number>; linksOnly: Map<string, number> } {
  const lists = new Map<string, number>();
  const linksOnly = new Map<string, number>();
  for (const { root, file } of reads.files) {
    if (!root.includes('.staging')) continue;
    const counts = /\/relationships\/|\/successor\//.test(file) ? linksOnly : lists;
    counts.set(file, (counts.get(file) ?? 0) + 1);
  }
  return { lists, linksOnly };
}

describe('one pass after the crawl', () => {
  let base: string;
  let remove: () => Promise<void>;
  let apis: SampleApi[] = [];

  beforeAll(async () => {
    ({ dir: base, remove } = await suiteDir());
  });
  afterAll(async () => {
    await Promise.all(apis.map((api) => api.close()));
    await remove();
  });

  it('reads each list page twice and no links-only document leading nowhere, with a Changes comparison', async () => {
    const before = await startSampleApi({ records: 5 });
    const after = await startSampleApi({ records: 5, release: 1 });
    apis = [before, after];
    const out = path.join(base, 'crawl');
    await createSnapshot({ rootUrl: before.rootUrl, out });
    reads.files = [];
    const result = await createSnapshot({ rootUrl: after.rootUrl, out });
    expect(result.changes).toMatchObject({ identical: false });

    const { lists, linksOnly } = readsOfStagedTree();
    // Every collection's pages are read: as many files as the snapshot's manifest counts list pages.
    expect(lists.size).toBe(listPages(out));
    expect(new Set(lists.values())).toEqual(new Set([2]));
    // Every successor of the sample API leads nowhere, and the crawl stored each document saying so.
    expect(linksOnly).toEqual(new Map());
  }, 120_000);

  it('reads a links-only document leading somewhere once, and builds what the catalogue command builds', async () => {
    // Unit 1 was replaced by unit 2; unit 2 was replaced by nothing.
    const units = records(3, 'unit ').map((unit, i) =>
      i < 2 ? { ...unit, relationships: linksOnly('successor') } : unit,
    );
    const source = await startTinySource({
      collections: { units },
      answers: {
        'units/1/relationships/successor': dataAnswer({ type: 'Unit', id: '2' }),
        'units/1/successor/': (res, root) => sendJson(res, 200, JSON.parse(recordDocument(root, 'units', units[1]!))),
        'units/2/relationships/successor': dataAnswer(null),
        'units/2/successor/': dataAnswer(null),
      },
    });
    try {
      const out = path.join(base, 'successors');
      const without = path.join(base, 'successors-plain');
      reads.files = [];
      await crawlForTest(source.root, out);
      const { linksOnly } = readsOfStagedTree();
      expect([...linksOnly]).toEqual([[expect.stringMatching(/\/units\/1\/relationships\/successor$/), 1]]);
      expect(readFileSync(path.join(out, '_catalogue/units/r-1.html'), 'utf8')).toContain('unit 2');

      // The catalogue built from the disk alone, every links-only document read, is the crawl's, byte for byte.
      await crawlForTest(source.root, without, { catalogue: 'none' });
      const rebuilt = path.join(base, 'successors-rebuilt');
      reads.files = [];
      await addCatalogue({ input: without, out: rebuilt });
      expect(readsOfStagedTree().linksOnly.size).toBe(2);
      expect(await treeHashes(rebuilt)).toEqual(await treeHashes(out));
    } finally {
      await source.close();
    }
  });

  it('reads the same way in the catalogue command', async () => {
    const api = await startSampleApi({ records: 5, release: 1 });
    apis.push(api);
    const input = path.join(base, 'plain');
    await createSnapshot({ rootUrl: api.rootUrl, out: input, catalogue: 'none' });
    reads.files = [];
    await addCatalogue({ input, out: path.join(base, 'with-catalogue') });

    const { lists, linksOnly } = readsOfStagedTree();
    expect(lists.size).toBe(listPages(input));
    expect(new Set(lists.values())).toEqual(new Set([2]));
    expect(linksOnly.size).toBeGreaterThan(0);
    expect(new Set(linksOnly.values())).toEqual(new Set([1]));
  }, 120_000);
});
