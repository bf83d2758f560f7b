/**
 * `crawl --derive` against the sample API's variants (documents unlike their list entries): the tree is the full
 * crawl's byte for byte outside _cv-snapshot/, verify passes, and each variant is detected where the sample covers
 * it: a differing sample makes its kind fetched in full, a different but consistent shape is learned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteDir } from '../helpers/temp-dir.js';
import { compareCrawls } from './compare-crawls.js';

let dir: string;
let removeDir: () => Promise<void>;

beforeAll(async () => {
  ({ dir, remove: removeDir } = await suiteDir());
});
afterAll(async () => {
  await removeDir();
});

describe('paged related lists and relationship documents written links first', () => {
  let result: Awaited<ReturnType<typeof compareCrawls>>;
  beforeAll(async () => {
    result = await compareCrawls(dir, {
      records: 2,
      variants: { relatedPageSize: 1, relationshipDocuments: 'reordered' },
    });
    await result.api.close();
  });

  it('gives the full crawl tree, and verify passes', () => {
    expect(result.derivedTree).toEqual(result.fullTree);
    expect(result.problems).toEqual([]);
  });

  it('fetches the paged related lists in full, after their sample differed at their links', () => {
    for (const collection of ['actioncategories', 'siteusages']) {
      const related = result.kind(collection, 'related-to-many');
      expect(related).toMatchObject({ status: 'fetched', derived: 0, fetched: related.documents });
    }
    expect(result.mismatches!.length).toBeGreaterThan(0);
    for (const mismatch of result.mismatches!) {
      expect(mismatch.url).toMatch(/\/(action_types|site_types)\/$/);
      expect(mismatch.pointer).toMatch(/^\/(links|meta)/);
    }
    // The pages past the first, which no list names, were fetched as the related lists led to them.
    expect(result.requested.some((url) => url.includes('page[number]=2') && url.includes('/action_types/'))).toBe(true);
  });

  it('learns the other member order, and derives those documents', () => {
    const relationship = result.kind('units', 'relationship-to-one');
    expect(relationship).toMatchObject({
      status: 'derived',
      shape: '{links: {self: relationship.links.self}, data: linkage}',
    });
    expect(relationship.derived).toBeGreaterThan(0);
  });
});

describe('relationship documents with extra members', () => {
  it('learns them, checks the constant on a second sample, and derives', async () => {
    const result = await compareCrawls(dir, { records: 2, variants: { relationshipDocuments: 'extended' } });
    await result.api.close();
    expect(result.derivedTree).toEqual(result.fullTree);
    expect(result.problems).toEqual([]);
    const relationship = result.kind('units', 'relationship-to-one');
    // links holds self and related, exactly the relationship object's links; jsonapi is a constant.
    expect(relationship.shape).toBe('{data: linkage, links: relationship.links, jsonapi: {"version":"1.0"}}');
    expect(relationship.fetchedBecause.sample).toBeGreaterThanOrEqual(2);
    expect(result.derived.derive!.mismatches).toBe(0);
  });
});

describe('one record document with a meta its list entry lacks', () => {
  it('is found when the sample covers it (100%), and its kind is fetched in full', async () => {
    const result = await compareCrawls(dir, { records: 2, variants: { recordMeta: true } }, { verifySample: '100%' });
    await result.api.close();
    expect(result.derivedTree).toEqual(result.fullTree);
    expect(result.problems).toEqual([]);
    expect(result.mismatches).toEqual([
      {
        url: expect.stringMatching(/\/actioncategories\/\d+\/$/),
        pointer: '/meta',
        fetched: '{"note":"served with this record only"}',
        derived: null,
      },
    ]);
    expect(result.kind('actioncategories', 'record').status).toBe('fetched');
    expect(result.kind('units', 'record').status).toBe('derived');
    // 100% fetches every document: the request count is the full crawl's.
    expect(result.derived.derive!.derived).toBe(0);
    expect(result.derived.requests).toBe(result.full.requests);
  });
});
