/**
 * `cv-snapshot serve` answers like the source (docs/architecture.md#serve): every document URL of a sample API, and a
 * deterministic sample of the real clients' queries on every collection they apply to, give the same status, media
 * type and JSON (links compared as the canonical source URLs they stand for) on the mirror as on the sample API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/sample-api/index.js';
import { eachLimited, get } from '../sample-api/http.js';
import { compare, startMirror, withoutFormat, type Mirror } from './fixture.js';

let mirror: Mirror;

beforeAll(async () => {
  mirror = await startMirror({ records: 8, pageSize: 3, seed: 11 }, { catalogue: 'none' });
}, 60_000);
afterAll(async () => {
  await mirror.close();
});

async function expectSame(urls: readonly string[]): Promise<number> {
  const failures: string[] = [];
  let statuses = 0;
  await eachLimited(urls, 8, async (url) => {
    const { source, mirror: onMirror, sourceDocument, mirrorDocument } = await compare(mirror, url);
    statuses += source.status === 200 ? 1 : 0;
    if (onMirror.status !== source.status) failures.push(`${url}: status ${onMirror.status}, source ${source.status}`);
    if (onMirror.headers['content-type'] !== source.headers['content-type']) {
      failures.push(`${url}: ${onMirror.headers['content-type']}, source ${source.headers['content-type']}`);
    }
    // Accept-Encoding as well when the answer is large enough to be compressed for a client that asks.
    if (!/^Accept(, Accept-Encoding)?$/.test(onMirror.headers.vary ?? '')) {
      failures.push(`${url}: Vary ${onMirror.headers.vary}`);
    }
    try {
      expect(mirrorDocument).toEqual(sourceDocument);
    } catch {
      failures.push(
        `${url}: documents differ\n  mirror ${onMirror.text.slice(0, 300)}\n  source ${source.text.slice(0, 300)}`,
      );
    }
  });
  expect(failures).toEqual([]);
  return statuses;
}

describe('every document URL of the source', () => {
  it('answers with the same status, media type and JSON on the mirror', async () => {
    const urls = mirror.api.documentUrls().map(withoutFormat);
    expect(await expectSame(urls)).toBe(urls.length);
    expect(urls.length).toBeGreaterThan(400);
  }, 60_000);

  it('answers records and related documents without their trailing slash, and pages in every spelling', async () => {
    const root = mirror.api.rootUrl;
    const record = mirror.api.documentUrls().find((url) => /\/units\/\d+\/$/.test(url))!;
    const pairs: Array<[string, string]> = [
      [record, mirror.onMirror(record).slice(0, -1)],
      [`${record}global_provenance/`, mirror.onMirror(`${record}global_provenance`)],
      [root, mirror.onMirror(root).slice(0, -1)],
      [`${root}units/`, mirror.onMirror(`${root}units`)],
      [`${root}units/?page%5Bnumber%5D=2`, mirror.onMirror(`${root}units/?page[number]=2`)],
      [`${root}units/?page%5Bnumber%5D=2`, mirror.onMirror(`${root}units/?page%5bnumber%5d=2`)],
      [`${root}units/?page%5Bnumber%5D=2`, mirror.onMirror(`${root}units/?format=api&page%5Bnumber%5D=2`)],
      [`${root}units/?page%5Bnumber%5D=3`, mirror.onMirror(`${root}units/?page[number]=last`)],
    ];
    for (const [sourceUrl, mirrorUrl] of pairs) {
      const { mirror: onMirror, sourceDocument, mirrorDocument } = await compare(mirror, sourceUrl, mirrorUrl);
      expect(onMirror.status, mirrorUrl).toBe(200);
      expect(mirrorDocument, mirrorUrl).toEqual(sourceDocument);
    }
  });
});

/** The real clients' queries (docs/source-api.md#queries) and their neighbours, on every collection each applies to. */
function clientQueries(): string[] {
  const root = mirror.api.rootUrl;
  const queries: string[] = [];
  for (const collection of CATALOGUE) {
    const base = `${root}${collection.name}/`;
    const has = (attribute: string) => collection.attributes.includes(attribute);
    queries.push(
      `${base}?page[size]=10000`,
      `${base}?page%5Bsize%5D=100&page%5Bnumber%5D=1`,
      `${base}?page%5bsize%5d=2&page%5bnumber%5d=2`,
    );
    queries.push(
      `${base}?page[size]=2&page[number]=last`,
      `${base}?page[size]=5&page[number]=9`,
      `${base}?page[size]=0`,
    );
    if (has('status')) {
      queries.push(`${base}?page[size]=10000&filter[status.iexact]=ACCEPTED&sort=term`);
      queries.push(`${base}?page[size]=100&page[number]=1&filter%5Bstatus.iexact%5D=accepted&sort=term`);
      queries.push(`${base}?filter[status]=PENDING`, `${base}?sort=status,-term`);
    }
    if (has('term'))
      queries.push(`${base}?sort=-term&page[size]=4`, `${base}?filter[term]=${encodeURIComponent('no such term')}`);
    if (has('name')) queries.push(`${base}?page[size]=10000&sort=name`);
    queries.push(
      `${base}?sort=-id`,
      `${base}?sort=nope`,
      `${base}?filter[nope]=1`,
      `${base}?fields[x]=term`,
      `${base}?include=nope`,
    );
    for (const relationship of collection.relationships) {
      if (relationship.kind === 'links-only') continue;
      queries.push(
        `${base}?include=${relationship.name}&page[size]=3`,
        `${base}?include=${relationship.name}&page[size]=3&page[number]=2`,
      );
      queries.push(`${base}?filter[${relationship.name}]=1`);
    }
  }
  return queries;
}

describe('the real clients\u2019 queries', () => {
  it('are answered identically by the sample API and the mirror', async () => {
    const queries = clientQueries();
    expect(queries.length).toBeGreaterThan(35 * 10);
    const ok = await expectSame(queries);
    // Most are answers, the rest are errors the mirror must give in the same shape.
    expect(ok).toBeGreaterThan(queries.length / 2);
  }, 60_000);

  it('filter[action_category__term] finds the action types of each category, on both', async () => {
    const categories = (await get(`${mirror.api.rootUrl}actioncategories/?page[size]=10000`)).text;
    const terms: string[] = JSON.parse(categories).data.map((r: { attributes: { term: string } }) => r.attributes.term);
    const urls = terms.map(
      (term) =>
        `${mirror.api.rootUrl}actiontypes/?page[size]=10000&filter[status.iexact]=ACCEPTED` +
        `&filter[action_category__term]=${encodeURIComponent(term)}&sort=term`,
    );
    await expectSame(urls);
    const found = await Promise.all(
      urls.map(async (url) => JSON.parse((await get(mirror.onMirror(url))).text).data.length as number),
    );
    expect(found.some((n) => n > 0)).toBe(true);
  });

  it('measuredquantityunits?include=unit always carries an included array', async () => {
    const answer = await get(
      mirror.onMirror(`${mirror.api.rootUrl}measuredquantityunits/?page[size]=10000&include=unit`),
    );
    const document = JSON.parse(answer.text);
    expect(Array.isArray(document.included)).toBe(true);
    expect(document.included.length).toBeGreaterThan(0);
    expect(new Set(document.included.map((r: { type: string }) => r.type))).toEqual(new Set(['Unit']));
  });
});

describe('other snapshot options', () => {
  it('--collection-index first-page: every record still comes from the page files', async () => {
    const firstPage = await startMirror(
      { records: 7, pageSize: 3, seed: 4 },
      { collectionIndex: 'first-page', catalogue: 'none' },
    );
    try {
      const root = firstPage.api.rootUrl;
      for (const url of [
        `${root}units/?page[size]=10000`,
        `${root}units/?sort=-term&page[size]=4&page[number]=2`,
        `${root}units/`,
      ]) {
        const { mirror: onMirror, sourceDocument, mirrorDocument } = await compare(firstPage, url);
        expect(onMirror.status, url).toBe(200);
        expect(mirrorDocument, url).toEqual(sourceDocument);
      }
    } finally {
      await firstPage.close();
    }
  });

  it('--links absolute: the pages serve generates link under the base URL, as the stored documents do', async () => {
    const baseUrl = 'https://cv.example.org/mirror/';
    const absolute = await startMirror(
      { records: 5, pageSize: 2, seed: 4 },
      { links: 'absolute', baseUrl, catalogue: 'none' },
    );
    try {
      const answer = await get(`${absolute.serve.url}units/?page[size]=2&sort=term`);
      const document = JSON.parse(answer.text);
      expect(document.links.next).toBe(`${baseUrl}sms/cv/api/v1/units/?page%5Bnumber%5D=2&page%5Bsize%5D=2&sort=term`);
      expect(document.data[0].links.self.startsWith(`${baseUrl}sms/cv/api/v1/units/`)).toBe(true);
      const again = await get(`${absolute.serve.url}units/?page[size]=2&sort=term`, {
        headers: { 'if-none-match': answer.headers.etag! },
      });
      expect(again.status).toBe(304);
    } finally {
      await absolute.close();
    }
  });
});
