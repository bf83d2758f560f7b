/**
 * Finalize reads each stored list page twice, and each document of a relationship given with links only once: the
 * first read feeds the catalogue's index, the downloads' survey and the Changes page's comparison, the second the
 * record and collection pages, the search index and the downloads (docs/architecture.md#one-pass-after-the-crawl).
 * The `catalogue` command reads the same way. Counted where every reader of a snapshot's files reads one.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSnapshot } from '../../src/pipeline/create-snapshot.js';
import { addCatalogue } from '../../src/pipeline/add-catalogue.js';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { suiteDir } from '../helpers/temp-dir.js';
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

  it('reads each list page twice and each links-only document once, with a Changes comparison', async () => {
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
    expect(linksOnly.size).toBeGreaterThan(0);
    expect(new Set(linksOnly.values())).toEqual(new Set([1]));
  }, 120_000);

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
