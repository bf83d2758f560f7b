/** The sample API's variants (variants.ts): each serves documents unlike their list entries, as it says. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { get, getJson } from './http.js';

describe('sample API variants', () => {
  let api: SampleApi;
  let plain: SampleApi;
  beforeAll(async () => {
    api = await startSampleApi({
      records: 12,
      variants: { relatedPageSize: 1, relationshipDocuments: 'reordered', recordMeta: true },
    });
    plain = await startSampleApi({ records: 12, variants: { relationshipDocuments: 'extended' } });
  });
  afterAll(async () => {
    await api.close();
    await plain.close();
  });

  it('pages a related to-many list with links and meta.pagination, one resource a page', async () => {
    const { document: list } = await getJson(`${api.rootUrl}actioncategories/`);
    const category = list.data.find((entry: any) => entry.relationships.action_types.data.length === 2);
    const related = category.relationships.action_types.links.related.replace('format=api', '');
    const first = (await getJson(related)).document;
    expect(first.data).toHaveLength(1);
    expect(first.meta.pagination).toEqual({ page: 1, pages: 2, count: 2 });
    expect(first.links.next).toContain('page%5Bnumber%5D=2');
    const second = (await getJson(first.links.next.replace('format=api&', ''))).document;
    expect(second.data[0].id).toBe(category.relationships.action_types.data[1].id);
    expect(second.links.next).toBeNull();
    expect((await get(`${related}&page%5Bnumber%5D=3`)).status).toBe(404);
    expect(api.documentUrls()).toContain(first.links.next);
  });

  it('writes relationship documents links first, or with links.related and jsonapi', async () => {
    const path = 'actioncategories/1/relationships/global_provenance';
    expect(Object.keys((await getJson(`${api.rootUrl}${path}`)).document)).toEqual(['links', 'data']);
    const extended = (await getJson(`${plain.rootUrl}${path}`)).document;
    expect(Object.keys(extended)).toEqual(['data', 'links', 'jsonapi']);
    expect(extended.links.related).toContain('actioncategories/1/global_provenance/');
  });

  it('gives one record document a meta its list entry lacks, and no other', async () => {
    const { document: root } = await getJson(api.rootUrl);
    const firstCollection = Object.keys(root.data)[0]!;
    const { document: list } = await getJson(`${api.rootUrl}${firstCollection}/`);
    const [one, two] = list.data;
    expect(one.meta).toBeUndefined();
    const record = (await getJson(one.links.self)).document;
    expect(record.meta).toBeDefined();
    expect(record.data).toEqual(one);
    expect((await getJson(two.links.self)).document.meta).toBeUndefined();
    expect((await getJson(`${plain.rootUrl}${firstCollection}/${one.id}/`)).document.meta).toBeUndefined();
  });
});
