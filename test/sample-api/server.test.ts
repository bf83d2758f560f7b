import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSampleData, startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { eachLimited, get, getJson, withoutFormat } from './http.js';
import { ALL_COLLECTIONS, JSON_API, TABULATED } from './spec-expectations.js';

let api: SampleApi;
const data = createSampleData({ seed: 1, records: 12 });

beforeAll(async () => {
  api = await startSampleApi({ records: 12, pageSize: 10, seed: 1 });
});
afterAll(async () => {
  await api.close();
});

const url = (path: string): string => `${api.rootUrl}${path}`;

describe('root index (spec 4)', () => {
  it('lists exactly the 35 collections of spec 2.2 with their absolute addresses', async () => {
    const { answer, document } = await getJson(api.rootUrl);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe(JSON_API);
    expect(answer.headers.vary).toBe('Accept');
    expect(Date.parse(answer.headers['last-modified'] ?? '')).not.toBeNaN();
    expect(Object.keys(document.data).sort()).toEqual([...ALL_COLLECTIONS].sort());
    for (const name of ALL_COLLECTIONS) expect(document.data[name]).toBe(`${api.rootUrl}${name}/?format=api`);
  });

  it('redirects the slash-less root to the slash form', async () => {
    const answer = await get(api.rootUrl.slice(0, -1));
    expect(answer.status).toBe(301);
    expect(answer.headers.location).toBe(api.rootUrl);
  });
});

describe('every document', () => {
  it('answers 200 with the JSON:API media type and Vary: Accept at each documentUrls() address', async () => {
    const urls = api.documentUrls();
    expect(new Set(urls.map(withoutFormat)).size).toBe(urls.length);
    const failures: string[] = [];
    await eachLimited(urls, 16, async (documentUrl) => {
      const answer = await get(withoutFormat(documentUrl));
      const type = answer.headers['content-type'];
      if (answer.status !== 200 || type !== JSON_API || answer.headers.vary !== 'Accept') {
        failures.push(`${documentUrl}: ${answer.status} ${type}`);
      }
      const document = JSON.parse(answer.text);
      // spec 2.1: a record's links.self is its own address.
      const isRecord =
        /^[^?]*\/[^/]+\/\d+\/$/.test(documentUrl) && !documentUrl.slice(api.rootUrl.length).includes('/relationships/');
      if (isRecord && document.data.links.self !== documentUrl) {
        failures.push(`${documentUrl}: links.self ${document.data.links.self}`);
      }
    });
    expect(failures).toEqual([]);
  });
});

describe('pagination (spec 4.1)', () => {
  it('adds up across all pages of every collection', async () => {
    const paged = await startSampleApi({ records: 23, pageSize: 5, seed: 3 });
    try {
      const { document: root } = await getJson(paged.rootUrl);
      await eachLimited(Object.entries(root.data as Record<string, string>), 8, async ([name, collectionUrl]) => {
        const seen: string[] = [];
        let next: string | null = collectionUrl;
        let expectedPage = 1;
        while (next !== null) {
          const { answer, document } = await getJson(withoutFormat(next));
          expect(answer.status).toBe(200);
          expect(answer.headers.allow).toBe('GET, POST, HEAD, OPTIONS');
          const { page, pages, count } = document.meta.pagination;
          expect(page).toBe(expectedPage);
          expect(pages).toBe(Math.ceil(23 / 5));
          expect(count).toBe(23);
          for (const link of [document.links.first, document.links.last]) {
            expect(link).toContain('format=api');
            expect(link).toContain('page%5Bnumber%5D=');
          }
          expect(document.links.first).toContain('page%5Bnumber%5D=1');
          expect(document.links.last).toContain(`page%5Bnumber%5D=${pages}`);
          // spec 4.1: prev null exactly on the first page, next null exactly on the last.
          expect(document.links.prev === null).toBe(page === 1);
          expect(document.links.next === null).toBe(page === pages);
          if (document.links.next !== null) expect(document.links.next).toContain(`page%5Bnumber%5D=${page + 1}`);
          if (document.links.prev !== null) expect(document.links.prev).toContain(`page%5Bnumber%5D=${page - 1}`);
          seen.push(...document.data.map((resource: { id: string }) => resource.id));
          next = document.links.next;
          expectedPage += 1;
        }
        expect(seen, name).toHaveLength(23);
        expect(new Set(seen).size).toBe(23);
      });
    } finally {
      await paged.close();
    }
  });

  it('reads page[number] in any spelling and refuses pages out of range with a 404 error document', async () => {
    const bracket = await get(url('units/?page[number]=2'));
    const lower = await get(url('units/?page%5bnumber%5d=2'));
    const upper = await get(url('units/?format=vnd.api%2Bjson&page%5Bnumber%5D=2'));
    expect(bracket.status).toBe(200);
    expect(lower.text).toBe(bracket.text);
    expect(upper.text).toBe(bracket.text);
    expect(JSON.parse(bracket.text).meta.pagination.page).toBe(2);
    for (const page of ['3', '0', 'x', '-1']) {
      const answer = await get(url(`units/?page%5Bnumber%5D=${page}`));
      expect(answer.status, page).toBe(404);
      expect(answer.headers['content-type']).toBe(JSON_API);
      expect(JSON.parse(answer.text).errors[0]).toMatchObject({ status: '404', code: 'not_found' });
    }
  });

  it('answers an empty collection as one empty page', async () => {
    const empty = await startSampleApi({ records: 0 });
    try {
      const { answer, document } = await getJson(`${empty.rootUrl}units/`);
      expect(answer.status).toBe(200);
      expect(document.data).toEqual([]);
      expect(document.meta.pagination).toEqual({ page: 1, pages: 1, count: 0 });
      expect(document.links.next).toBeNull();
      expect(document.links.prev).toBeNull();
    } finally {
      await empty.close();
    }
  });

  it('answers 400 naming an unknown query parameter or field', async () => {
    // page[size], sort, filter and include are answered (test/jsonapi/query.test.ts); these are not.
    for (const parameter of ['fields[units]', 'page[offset]', 'filter[no_such_field]', 'sort', 'include']) {
      const answer = await get(url(`units/?${encodeURIComponent(parameter)}=1`));
      expect(answer.status, parameter).toBe(400);
      const [error] = JSON.parse(answer.text).errors;
      expect(error).toMatchObject({ status: '400', source: { parameter } });
      expect(error.detail).toContain(parameter);
    }
  });
});

describe('resources (spec 2.3, 2.4)', () => {
  it('gives the tabulated types exactly the attribute and relationship keys of the spec', async () => {
    for (const [type, expected] of Object.entries(TABULATED)) {
      const { document } = await getJson(url(`${expected.collection}/`));
      expect(document.data.length).toBeGreaterThan(0);
      for (const resource of document.data) {
        expect(resource.type).toBe(type);
        expect(resource.id).toMatch(/^\d+$/);
        expect(resource.links).toEqual({ self: url(`${expected.collection}/${resource.id}/`) });
        expect(Object.keys(resource.attributes).sort()).toEqual([...expected.attributes].sort());
        expect(Object.keys(resource.relationships).sort()).toEqual(Object.keys(expected.relationships).sort());
        for (const [name, [kind, targetType]] of Object.entries(expected.relationships)) {
          const relationship = resource.relationships[name];
          const base = url(`${expected.collection}/${resource.id}`);
          expect(relationship.links).toEqual({
            self: `${base}/relationships/${name}?format=api`,
            related: `${base}/${name}/?format=api`,
          });
          if (kind === 'links-only') expect('data' in relationship).toBe(false);
          if (kind === 'to-one' && relationship.data !== null) expect(relationship.data.type).toBe(targetType);
          if (kind === 'to-many') {
            expect(relationship.meta.count).toBe(relationship.data.length);
            for (const linkage of relationship.data) expect(linkage.type).toBe(targetType);
          }
        }
      }
    }
  });

  it('shows the pending SiteUsage with a null global_provenance and empty site_types', async () => {
    const pending = data.byName.get('siteusages')!.records.find((r) => r.attributes.status === 'PENDING')!;
    const { document } = await getJson(url(`siteusages/${pending.id}/`));
    expect(document.data.attributes.requested_by_email).toMatch(/@/);
    expect(document.data.relationships.global_provenance.data).toBeNull();
    expect(document.data.relationships.site_types).toMatchObject({ meta: { count: 0 }, data: [] });
  });

  it('answers relationship documents with links.self only, and related documents in full', async () => {
    const category = data.byName
      .get('actioncategories')!
      .records.find((r) => (r.relationships.action_types as string[]).length > 1)!;
    const base = url(`actioncategories/${category.id}`);
    const { document: relationship } = await getJson(`${base}/relationships/action_types`);
    expect(Object.keys(relationship.links)).toEqual(['self']);
    expect(relationship.links.self).toBe(`${base}/relationships/action_types?format=api`);
    expect(relationship.meta.count).toBe(relationship.data.length);
    expect(relationship.data.map((d: { id: string }) => d.id)).toEqual(category.relationships.action_types);

    const { document: related } = await getJson(`${base}/action_types/`);
    expect(related.data.map((d: { type: string; id: string }) => [d.type, d.id])).toEqual(
      (category.relationships.action_types as string[]).map((id) => ['ActionType', id]),
    );
    expect(related.data[0].relationships.action_category.data).toEqual({ type: 'ActionCategory', id: category.id });

    const { document: successor } = await getJson(`${base}/relationships/successor`);
    expect(successor).toEqual({ data: null, links: { self: `${base}/relationships/successor?format=api` } });
    const { document: successorRelated } = await getJson(`${base}/successor/`);
    expect(successorRelated).toEqual({ data: null });
  });

  it('answers 404 for an unknown record, relationship or path', async () => {
    for (const path of [
      'units/999999/',
      'units/1/relationships/nothing',
      'units/1/nothing/',
      'nothing/',
      'units/1/2/3/4/',
    ]) {
      const answer = await get(url(path));
      expect(answer.status, path).toBe(404);
      expect(answer.headers['content-type']).toBe(JSON_API);
      expect(JSON.parse(answer.text).errors[0]).toMatchObject({ status: '404' });
    }
    expect((await get(`${new URL(api.rootUrl).origin}/elsewhere/`)).status).toBe(404);
  });
});

describe('real-framework behaviour (docs/source-api.md)', () => {
  const record = (): string => url(`units/${data.byName.get('units')!.records[0]!.id}`);

  it('redirects record and related URLs without a trailing slash with 301, keeping the query', async () => {
    const plain = await get(record());
    expect(plain.status).toBe(301);
    expect(plain.headers.location).toBe(`${record()}/`);
    const related = await get(`${record()}/global_provenance?format=api`);
    expect(related.status).toBe(301);
    expect(related.headers.location).toBe(`${record()}/global_provenance/?format=api`);
  });

  it('answers 404 for a relationship URL with a trailing slash', async () => {
    expect((await get(`${record()}/relationships/global_provenance`)).status).toBe(200);
    expect((await get(`${record()}/relationships/global_provenance/`)).status).toBe(404);
  });

  it('answers format=api with the HTML page, or 406 to JSON:API and application/json', async () => {
    const html = await get(`${record()}/?format=api`, {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(html.status).toBe(200);
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    expect(html.text).toContain('<html');
    const refused = await get(`${record()}/?format=api`, { headers: { accept: JSON_API } });
    expect(refused.status).toBe(406);
    expect(refused.headers['content-type']).toBe(JSON_API);
    expect(JSON.parse(refused.text).errors[0]).toMatchObject({ status: '406' });
    const plainJson = await get(`${record()}/`, { headers: { accept: 'application/json' } });
    expect(plainJson.status).toBe(406);
    const anything = await get(`${record()}/`, { headers: { accept: '*/*' } });
    expect(anything.headers['content-type']).toBe(JSON_API);
  });

  it('answers 405 with an error document and Allow for writes', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'] as const) {
      const answer = await get(url('units/'), { method });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.allow).toContain('GET');
      expect(answer.headers['content-type']).toBe(JSON_API);
      expect(JSON.parse(answer.text).errors[0]).toMatchObject({ status: '405' });
    }
  });

  it('answers HEAD with the GET headers and no body, OPTIONS with Allow', async () => {
    const full = await get(url('units/'), { headers: { 'accept-encoding': 'identity' } });
    const head = await get(url('units/'), { method: 'HEAD', headers: { 'accept-encoding': 'identity' } });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const name of ['content-type', 'vary', 'allow', 'etag', 'content-length'])
      expect(head.headers[name]).toBe(full.headers[name]);
    const options = await get(url('units/'), { method: 'OPTIONS' });
    expect(options.status).toBe(200);
    expect(options.headers.allow).toBe('GET, POST, HEAD, OPTIONS');
  });

  it('compresses on request and answers 304 to a matching If-None-Match', async () => {
    const identity = await get(url('units/'));
    expect(identity.headers['content-encoding']).toBeUndefined();
    const gzip = await get(url('units/'), { headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).toString('utf8')).toBe(identity.text);
    const br = await get(url('units/'), { headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).toString('utf8')).toBe(identity.text);
    expect(identity.headers.etag).toMatch(/^"[^"]+"$/);
    const again = await get(url('units/'), { headers: { 'if-none-match': identity.headers.etag! } });
    expect(again.status).toBe(304);
  });

  it('logs every request in order', async () => {
    const before = api.requestLog.length;
    await get(url('units/'));
    await get(url('units/?sort=no_such_field'));
    expect(api.requestLog.slice(before)).toEqual([
      { method: 'GET', url: `${new URL(api.rootUrl).pathname}units/`, status: 200 },
      { method: 'GET', url: `${new URL(api.rootUrl).pathname}units/?sort=no_such_field`, status: 400 },
    ]);
  });
});

describe('request log', () => {
  it('records every request by default, and none with logRequests: false (a long-running server)', async () => {
    const quiet = await startSampleApi({ records: 2, logRequests: false });
    try {
      const { answer } = await getJson(quiet.rootUrl);
      expect(answer.status).toBe(200);
      expect(quiet.requestLog).toEqual([]);
    } finally {
      await quiet.close();
    }
    const logged = api.requestLog.length;
    await getJson(api.rootUrl);
    expect(api.requestLog.slice(logged)).toEqual([{ method: 'GET', url: new URL(api.rootUrl).pathname, status: 200 }]);
  });
});
