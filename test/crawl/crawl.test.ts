/**
 * The core promise, end to end against a real sample API on 127.0.0.1: the snapshot holds exactly the documents the
 * source serves, each equal to what the source serves at its URL, the same bytes whatever the concurrency or the
 * faults, and it verifies.
 */
import { readFile, writeFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { createSnapshot } from '../../src/pipeline/create-snapshot.js';
import type { SnapshotOptions } from '../../src/pipeline/snapshot-options.js';
import { Layout } from '../../src/format/layout.js';
import { META_DIR } from '../../src/store/sums.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { canonicalUrl } from '../../src/url/canonical-url.js';
import { locate } from '../../src/url/api-location.js';
import { getJson, listFiles, normaliseLinks, readJson, sourceFreeHashes, treeHashes } from '../helpers/snapshot.js';
import { suiteDir, tempDir } from '../helpers/temp-dir.js';
import { copySnapshot } from '../helpers/tiny-vocabulary.js';
import { testClock } from '../helpers/crawl.js';

/** createSnapshot with its default retries, not crawlForTest's none: a source below fails on purpose and is retried. */
function snapshot(api: SampleApi, out: string, extra: Partial<SnapshotOptions> = {}) {
  return createSnapshot({ rootUrl: api.rootUrl, out, clock: testClock(), backoffBaseMs: 5, ...extra });
}

describe('crawl of the sample API (many small pages)', () => {
  let api: SampleApi;
  let out: string;
  let layout: Layout;
  let removeSuiteDir: () => Promise<void>;

  beforeAll(async () => {
    // Three pages a collection, about 1,000 documents: every kind of document and link, in a crawl of a second.
    api = await startSampleApi({ records: 5, pageSize: 2, seed: 7 });
    const suite = await suiteDir();
    removeSuiteDir = suite.remove;
    out = path.join(suite.dir, 'out');
    const result = await snapshot(api, out, { concurrency: 8 });
    layout = new Layout(result.root);
    expect(result.report.errors).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await api.close();
    await removeSuiteDir();
  });

  it('stores exactly the URL set the sample API serves, one file each', async () => {
    const expected = new Set(api.documentUrls().map((u) => canonicalUrl(u)));
    const expectedFiles = [...expected].map((url) => {
      const p = layout.place(url);
      if (!p.ok) throw new Error(`${url}: ${p.reason}`);
      return p.file;
    });
    expect(new Set(expectedFiles).size).toBe(expected.size);
    const stored = (await listFiles(out)).filter(
      (f) => f.startsWith(layout.rootSegments().join('/')) && !layout.isCollectionIndexFile(f),
    );
    expect(stored.sort()).toEqual(expectedFiles.sort());
    expect(expected.size).toBeGreaterThan(500);
  });

  it('stores every document as the sample API serves it at its URL (links compared as source URLs)', async () => {
    for (const url of api.documentUrls().map((u) => canonicalUrl(u))) {
      const p = layout.place(url);
      if (!p.ok) throw new Error(p.reason);
      const source = await getJson(url);
      expect(source.status).toBe(200);
      const stored = await readJson(out, p.file);
      expect(normaliseLinks(stored, url, layout, true), url).toEqual(normaliseLinks(source.json, url, layout, false));
    }
  }, 60_000);

  it('serves the complete collection at the bare collection path: every record of every page, once', async () => {
    const root = (await getJson(api.rootUrl)).json as { data: Record<string, string> };
    for (const [collection, link] of Object.entries(root.data)) {
      const records: unknown[] = [];
      // The source's links carry format=api, which answers HTML to a browser and 406 to a JSON:API client.
      let next: string | null = canonicalUrl(link);
      while (next) {
        const page = (await getJson(next)).json as { data: unknown[]; links: { next: string | null } };
        records.push(...page.data);
        next = page.links.next === null ? null : canonicalUrl(page.links.next);
      }
      const index = (await readJson(out, layout.collectionIndex(collection).file)) as {
        data: unknown[];
        links: Record<string, string | null>;
        meta: { pagination: { page: number; pages: number; count: number } };
      };
      const collectionUrl = canonicalUrl(link);
      expect(normaliseLinks(index.data, collectionUrl, layout, true)).toEqual(
        normaliseLinks(records, collectionUrl, layout, false),
      );
      expect(index.meta.pagination).toEqual({ page: 1, pages: 1, count: records.length });
      expect(index.links.next).toBeNull();
      expect(index.links.prev).toBeNull();
    }
  }, 60_000);

  it('rewrites in-scope links to root-relative paths that are files of the snapshot', async () => {
    const rootDoc = (await readJson(out, layout.place(api.rootUrl).ok ? 'sms/cv/api/v1/index.html' : '')) as {
      data: Record<string, string>;
    };
    expect(rootDoc.data.units).toBe('/sms/cv/api/v1/units/');
    const page2 = (await readJson(out, 'sms/cv/api/v1/units/page/2/index.html')) as {
      links: Record<string, string | null>;
    };
    expect(page2.links.first).toBe('/sms/cv/api/v1/units/page/1/');
    expect(page2.links.prev).toBe('/sms/cv/api/v1/units/page/1/');
    expect(page2.links.next).toMatch(/^\/sms\/cv\/api\/v1\/units\/page\/3\/$/);
  });

  it('writes _headers, _redirects, serve.json, 404.html, a manifest and SHA256SUMS', async () => {
    const headers = await readFile(path.join(out, '_headers'), 'utf8');
    expect(headers).toContain('/sms/cv/api/v1/*\n  Content-Type: application/vnd.api+json\n  Vary: Accept');
    expect(headers).toMatch(/^\/sms\/cv\/api\/v1\n {2}Content-Type: application\/vnd\.api\+json$/m);
    const manifest = (await readJson(out, `${META_DIR}/manifest.json`)) as Record<string, any>;
    expect(manifest.source.root).toBe(api.rootUrl);
    expect(manifest.createdAt).toBe('2023-11-14T22:13:20.000Z');
    const rootDoc = (await getJson(api.rootUrl)).json as { data: Record<string, string> };
    expect(Object.keys(manifest.collections).sort()).toEqual(Object.keys(rootDoc.data).sort());
    const sums = await readFile(path.join(out, META_DIR, 'SHA256SUMS'), 'utf8');
    const files = (await listFiles(out)).filter((f) => f !== `${META_DIR}/SHA256SUMS`);
    expect(
      sums
        .trim()
        .split('\n')
        .map((l) => l.slice(66)),
    ).toEqual(files);
  });

  it('verifies, and verify fails on one changed byte, a deleted file and a dangling link', async () => {
    expect((await verifySnapshot(out)).problems).toEqual([]);
    const copy = async () => {
      const dir = path.join(await tempDir(), 'copy');
      return copySnapshot(out, dir); // --out is a symbolic link to the snapshot
    };
    const record = 'sms/cv/api/v1/units/page/2/index.html';

    const changed = await copy();
    const bytes = await readFile(path.join(changed, record));
    bytes[10] = bytes[10]! ^ 1;
    await writeFile(path.join(changed, record), bytes);
    expect((await verifySnapshot(changed)).problems.join('\n')).toContain(`${record} was changed`);

    const deleted = await copy();
    await rm(path.join(deleted, record));
    expect((await verifySnapshot(deleted)).problems.join('\n')).toContain(`${record} is listed in`);

    // Edits with a checksum that matches, so only the link check or validation can catch them.
    const { createHash } = await import('node:crypto');
    const editWithSums = async (edit: (doc: any) => void) => {
      const dir = await copy();
      const doc = await readJson(dir, record);
      edit(doc);
      const text = JSON.stringify(doc);
      await writeFile(path.join(dir, record), text);
      const sumsPath = path.join(dir, META_DIR, 'SHA256SUMS');
      const sums = (await readFile(sumsPath, 'utf8')).replace(
        new RegExp(`^[0-9a-f]{64}(  ${record.replace(/[/.]/g, '\\$&')})$`, 'm'),
        `${createHash('sha256').update(text).digest('hex')}$1`,
      );
      await writeFile(sumsPath, sums);
      return (await verifySnapshot(dir)).problems.join('\n');
    };
    const dangling = await editWithSums((doc) => (doc.links.next = '/sms/cv/api/v1/units/page/999/'));
    expect(dangling).not.toContain('was changed');
    expect(dangling).toContain('/sms/cv/api/v1/units/page/999/, which is not a file of the snapshot');

    const invalid = await editWithSums((doc) => (doc.meta.pagination.count = 'many'));
    expect(invalid).not.toContain('was changed');
    expect(invalid).toMatch(/units\/\?page\[number\]=2 at \/meta\/pagination\/count breaks/);
  }, 60_000);

  it('classifies every stored document URL as the API does', () => {
    expect(locate(`${layout.root}units/`, layout.root)).toEqual({ kind: 'list', collection: 'units', page: 1 });
  });
});

describe('determinism and faults', () => {
  it('gives byte-identical trees at concurrency 1 and 16, and with 10 % faults', async () => {
    const clean = await startSampleApi({ records: 2, pageSize: 2, seed: 3 });
    const faulty = await startSampleApi({
      records: 2,
      pageSize: 2,
      seed: 3,
      faultRate: 0.1,
      stallMs: 400,
      retryAfterSeconds: 0,
    });
    try {
      const base = await tempDir();
      // The sample APIs listen on different ports; `original` links would differ, so compare relative trees.
      await snapshot(clean, path.join(base, 'a'), { concurrency: 1 });
      await snapshot(clean, path.join(base, 'b'), { concurrency: 16 });
      const faultResult = await snapshot(faulty, path.join(base, 'c'), { concurrency: 8, timeoutMs: 250, retries: 6 });
      expect(faultResult.retries).toBeGreaterThan(0);
      const a = await treeHashes(path.join(base, 'a'));
      const b = await treeHashes(path.join(base, 'b'));
      expect(b).toEqual(a);
      // Only the manifest and the catalogue name the source (its port differs); everything else is the same.
      expect(await sourceFreeHashes(path.join(base, 'c'), new URL(faulty.rootUrl).origin)).toEqual(
        await sourceFreeHashes(path.join(base, 'a'), new URL(clean.rootUrl).origin),
      );
      expect((await verifySnapshot(path.join(base, 'c'))).problems).toEqual([]);
    } finally {
      await clean.close();
      await faulty.close();
    }
  }, 120_000);
});
