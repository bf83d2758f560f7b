/**
 * A real JSON:API client library from npm (jsona, which the sensor-management front end's ecosystem uses to turn
 * documents into models) reads the mirror the way an application would: it lists every record of a collection by
 * following links.next, and reads records' relationships and included resources; it gets exactly what it gets from
 * the sample API.
 */
import { Jsona } from 'jsona';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseLinks } from '../helpers/snapshot.js';
import { getJson } from '../sample-api/http.js';
import { startMirror, withoutFormat, type Mirror } from './fixture.js';

let mirror: Mirror;
const jsona = new Jsona();

beforeAll(async () => {
  mirror = await startMirror({ records: 11, pageSize: 4, seed: 9 }, { catalogue: 'none' });
}, 60_000);
afterAll(async () => {
  await mirror.close();
});

type Model = Record<string, unknown> & { id: string; type: string };

/** GET, links normalised to the source URLs they stand for, then deserialised by jsona. */
async function models(url: string, fromMirror: boolean): Promise<{ models: Model | Model[]; document: any }> {
  const { document } = await getJson(url);
  const sourceUrl = fromMirror
    ? `${new URL(mirror.api.rootUrl).origin}${new URL(url).pathname}${new URL(url).search}`
    : url;
  const normalised = normaliseLinks(document, withoutFormat(sourceUrl), mirror.layout, fromMirror) as any;
  return { models: jsona.deserialize(normalised) as Model | Model[], document };
}

/** Every record of a collection, following links.next from the collection URL the root index gives. */
async function listAll(
  rootUrl: string,
  collection: string,
  fromMirror: boolean,
): Promise<{ records: Model[]; requests: number }> {
  const root = (await getJson(rootUrl)).document;
  let next: string | null = new URL(root.data[collection], rootUrl).href;
  const records: Model[] = [];
  let requests = 0;
  while (next !== null) {
    // The sample API spells its links with format=api, which the real service answers with HTML unless the
    // request asked for it: a client of the source drops it. The mirror's links are followed as they are.
    const url: string = fromMirror ? next : withoutFormat(next);
    const page = await models(url, fromMirror);
    requests += 1;
    records.push(...(page.models as Model[]));
    next = page.document.links.next === null ? null : new URL(page.document.links.next, url).href;
  }
  return { records, requests };
}

describe('jsona through the mirror', () => {
  it('lists every record of a collection by following links.next, as from the source', async () => {
    for (const collection of ['units', 'measuredquantities-communities', 'siteusages']) {
      const fromSource = await listAll(mirror.api.rootUrl, collection, false);
      const fromMirror = await listAll(mirror.serve.url, collection, true);
      expect(fromSource.requests).toBeGreaterThan(1);
      expect(fromMirror.requests).toBe(fromSource.requests);
      expect(fromMirror.records).toEqual(fromSource.records);
      expect(new Set(fromMirror.records.map((r) => r.id)).size).toBe(fromSource.records.length);
    }
  });

  it('reads a record\u2019s relationships, and what include resolves, as from the source', async () => {
    const path = 'measuredquantities-communities/';
    const list = (await getJson(`${mirror.api.rootUrl}${path}`)).document;
    const id = list.data[0].id as string;
    const [source, onMirror] = await Promise.all([
      models(`${mirror.api.rootUrl}${path}${id}/`, false),
      models(`${mirror.serve.url}${path}${id}`, true),
    ]);
    expect(onMirror.models).toEqual(source.models);
    const record = onMirror.models as Model & { root: Model; community: Model; relationshipNames: string[] };
    expect(record.relationshipNames).toEqual(expect.arrayContaining(['root', 'community']));
    expect(record.root.type).toBe('MeasuredQuantity');

    const query = 'measuredquantityunits/?page[size]=3&include=unit,measured_quantity&sort=-term';
    const [withUnits, withUnitsMirror] = await Promise.all([
      models(`${mirror.api.rootUrl}${query}`, false),
      models(`${mirror.serve.url}${query}`, true),
    ]);
    expect(withUnitsMirror.models).toEqual(withUnits.models);
    const first = (withUnitsMirror.models as Array<Model & { unit: { term?: string } }>)[0]!;
    expect(typeof first.unit.term).toBe('string');
  });
});
