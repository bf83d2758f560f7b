/**
 * The query engine through the sample API, the way the real clients call it (docs/source-api.md#queries). Expected
 * values come from the sample API's data set (createSampleData), never from the engine's own output.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleData, startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { get, getJson } from '../sample-api/http.js';

const SEED = 5;
const RECORDS = 14;
const PAGE_SIZE = 4;
const data = createSampleData({ seed: SEED, records: RECORDS });
let api: SampleApi;

beforeAll(async () => {
  api = await startSampleApi({ seed: SEED, records: RECORDS, pageSize: PAGE_SIZE });
});
afterAll(async () => {
  await api.close();
});

const records = (name: string) => data.byName.get(name)!.records;
const ids = (document: { data: Array<{ id: string }> }) => document.data.map((r) => r.id);
const query = async (path: string) => (await getJson(`${api.rootUrl}${path}`)).document;

describe('page[size] and page[number]', () => {
  it('gives every record in one page for page[size]=10000, in every bracket spelling', async () => {
    for (const spelling of ['page[size]=10000', 'page%5Bsize%5D=10000', 'page%5bsize%5d=10000']) {
      const document = await query(`units/?${spelling}`);
      expect(ids(document)).toEqual(records('units').map((r) => r.id));
      expect(document.meta.pagination).toEqual({ page: 1, pages: 1, count: RECORDS });
      expect(document.links.next).toBeNull();
    }
  });

  it('pages at the asked size, links keeping the query and changing only the page number', async () => {
    const size = 3;
    const pages = Math.ceil(RECORDS / size);
    const seen: string[] = [];
    for (let page = 1; page <= pages; page += 1) {
      const document = await query(`units/?page[size]=${size}&page[number]=${page}`);
      expect(document.meta.pagination).toEqual({ page, pages, count: RECORDS });
      seen.push(...ids(document));
      const next = document.links.next === null ? null : new URL(document.links.next);
      if (page < pages) {
        expect(next!.searchParams.get('page[size]')).toBe(String(size));
        expect(next!.searchParams.get('page[number]')).toBe(String(page + 1));
        // DRF's urlencode of the sorted query: brackets as %5B %5D.
        expect(next!.search).toContain('page%5Bsize%5D=3');
      } else {
        expect(next).toBeNull();
      }
    }
    expect(seen).toEqual(records('units').map((r) => r.id));
  });

  it('answers 400 naming page[size] for a malformed size, and 404 for a page that does not exist', async () => {
    for (const size of ['0', '-1', 'x', '2.5', '']) {
      const answer = await get(`${api.rootUrl}units/?page[size]=${size}`);
      expect(answer.status, size).toBe(400);
      expect(JSON.parse(answer.text).errors[0]).toMatchObject({ status: '400', source: { parameter: 'page[size]' } });
    }
    const beyond = await get(`${api.rootUrl}units/?page[size]=5&page[number]=9`);
    expect(beyond.status).toBe(404);
    expect(JSON.parse(beyond.text).errors[0]).toMatchObject({ status: '404', source: { parameter: 'page[number]' } });
  });
});

describe('filter', () => {
  it('filter[status.iexact]=accepted keeps exactly the ACCEPTED records, any case', async () => {
    const expected = records('siteusages')
      .filter((r) => r.attributes.status === 'ACCEPTED')
      .map((r) => r.id);
    expect(expected.length).toBeLessThan(RECORDS);
    for (const value of ['ACCEPTED', 'accepted', 'Accepted']) {
      expect(ids(await query(`siteusages/?page[size]=10000&filter[status.iexact]=${value}`))).toEqual(expected);
    }
    expect(ids(await query('siteusages/?page[size]=10000&filter[status]=accepted'))).toEqual([]);
    expect(ids(await query('siteusages/?page[size]=10000&filter[status]=ACCEPTED'))).toEqual(expected);
  });

  it('filter[action_category__term] follows the relationship to the category', async () => {
    const categories = records('actioncategories');
    for (const category of categories.slice(0, 3)) {
      const term = category.attributes.term!;
      const expected = records('actiontypes')
        .filter((r) => r.relationships.action_category === category.id)
        .map((r) => r.id);
      const document = await query(
        `actiontypes/?page[size]=10000&filter[action_category__term]=${encodeURIComponent(term)}`,
      );
      expect(ids(document), term).toEqual(expected);
    }
    const some = records('actiontypes').filter((r) => r.relationships.action_category === categories[0]!.id);
    expect(some.length).toBeGreaterThan(0);
  });

  it('answers 400 for an unknown field and for an empty value', async () => {
    for (const parameter of [
      'filter[nope]',
      'filter[action_category__nope]',
      'filter[term.icontains]',
      'filter[a__b__c]',
    ]) {
      const answer = await get(`${api.rootUrl}actiontypes/?${parameter}=x`);
      expect(answer.status, parameter).toBe(400);
      expect(JSON.parse(answer.text).errors[0].source).toEqual({ parameter });
    }
    expect((await get(`${api.rootUrl}units/?filter[term]=`)).status).toBe(400);
  });
});

describe('sort', () => {
  const byCodeUnit = (a: string | null, b: string | null) =>
    a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1;

  it('sort=term, -term and name order as the spec of the engine says, ties by numeric id', async () => {
    const units = records('units');
    const asc = [...units].sort(
      (a, b) => byCodeUnit(a.attributes.term!, b.attributes.term!) || Number(a.id) - Number(b.id),
    );
    expect(ids(await query('units/?page[size]=10000&sort=term'))).toEqual(asc.map((r) => r.id));
    const desc = [...units].sort(
      (a, b) => byCodeUnit(b.attributes.term!, a.attributes.term!) || Number(a.id) - Number(b.id),
    );
    expect(ids(await query('units/?page[size]=10000&sort=-term'))).toEqual(desc.map((r) => r.id));
    const provenances = records('globalprovenances');
    const byName = [...provenances].sort(
      (a, b) => byCodeUnit(a.attributes.name!, b.attributes.name!) || Number(a.id) - Number(b.id),
    );
    expect(ids(await query('globalprovenances/?page[size]=10000&sort=name'))).toEqual(byName.map((r) => r.id));
  });

  it('sorts on several keys, nulls last ascending', async () => {
    const list = records('units');
    const expected = [...list].sort(
      (a, b) =>
        byCodeUnit(a.attributes.category ?? null, b.attributes.category ?? null) ||
        byCodeUnit(b.attributes.term!, a.attributes.term!) ||
        Number(a.id) - Number(b.id),
    );
    expect(ids(await query('units/?page[size]=10000&sort=category,-term'))).toEqual(expected.map((r) => r.id));
  });

  it('answers 400 naming sort for an unknown field', async () => {
    const answer = await get(`${api.rootUrl}units/?sort=term,nope`);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text).errors[0]).toMatchObject({
      source: { parameter: 'sort' },
      detail: 'invalid sort parameter: nope',
    });
  });
});

describe('include', () => {
  it('include=unit gives the units of the page in included, sorted by id text, once each', async () => {
    const document = await query('measuredquantityunits/?page[size]=5&include=unit');
    const unitIds = [
      ...new Set(
        records('measuredquantityunits')
          .slice(0, 5)
          .map((r) => r.relationships.unit as string),
      ),
    ];
    expect(document.included.map((r: { type: string; id: string }) => [r.type, r.id])).toEqual(
      [...unitIds].sort().map((id) => ['Unit', id]),
    );
    expect(document.included[0]).toMatchObject({
      type: 'Unit',
      attributes: records('units').find((r) => r.id === document.included[0].id)!.attributes,
    });
  });

  it('always has an included array when include was asked, even an empty one', async () => {
    const document = await query('siteusages/?include=site_types&filter[status]=PENDING');
    expect(document.data.length).toBeGreaterThan(0);
    expect(document.included).toEqual([]);
    expect((await query('units/')).included).toBeUndefined();
  });

  it('answers 400 for a relationship the collection does not have', async () => {
    const answer = await get(`${api.rootUrl}units/?include=nope`);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text).errors[0].source).toEqual({ parameter: 'include' });
  });
});
