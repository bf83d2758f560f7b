/**
 * Query answers of `cv-snapshot serve` hold each record's stored bytes: numbers a JavaScript
 * number cannot hold (18446744073709551617, 1e400, long decimals) come back as the snapshot stores them, a record
 * nested deeper than JSON.stringify can recurse is still answered, and ordinary documents are byte for byte what
 * JSON.stringify writes.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeHandle } from '../../src/serve/index.js';
import { htmlSafeJson } from '../../src/json/html-safe.js';
import { answerBytes, storedList } from '../../src/serve/stored-json.js';
import { Layout } from '../../src/format/layout.js';
import { startTinySource, type TinyRecord, type TinySource } from '../helpers/tiny-source.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { rewriteFile } from '../helpers/tiny-vocabulary.js';
import { get } from '../sample-api/http.js';
import { crawlForTest } from '../helpers/crawl.js';

const DEEP = 50_000;
const deepText = `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`;
const NUMBERS = '"big":18446744073709551617,"huge":1e400,"exact":0.10000000000000000000000001';

describe('storedList and answerBytes', () => {
  it('write what JSON.stringify then htmlSafeJson write for any document of ordinary JSON', () => {
    const records = fc.array(fc.jsonValue(), { maxLength: 5 });
    fc.assert(
      fc.property(records, fc.dictionary(fc.string(), fc.jsonValue()), (data, meta) => {
        // As the snapshot stores it (docs/snapshot-format.md#json-that-is-never-markup).
        const text = htmlSafeJson(JSON.stringify({ links: { first: '/x/' }, data, meta }));
        const document = storedList(Buffer.from(text)) as { data: unknown[] };
        expect(answerBytes(document).toString()).toBe(text);
        const answer = {
          links: { next: null },
          data: [...document.data].reverse(),
          included: document.data,
          meta: { pagination: { page: 1 } },
        };
        expect(answerBytes(answer).toString()).toBe(htmlSafeJson(JSON.stringify(answer)));
      }),
      { numRuns: 150 },
    );
  });

  it('keep the stored bytes of each record, whatever a JavaScript number or the stack would make of them', () => {
    const records = [
      `{"id":"1","attributes":{${NUMBERS}}}`,
      `{"id":"2","attributes":{"deep":${deepText}}}`,
      '{"id":"3"}',
    ];
    const text = `{"links":{},"data":[ ${records.join(' , ')} ],"meta":{"count":3}}`;
    const document = storedList(Buffer.from(text)) as { data: unknown[] };
    const [first, second, third] = document.data;
    const answer = answerBytes({ data: [third, first, second], meta: { page: 1 } }).toString();
    expect(answer).toBe(`{"data":[${records[2]},${records[0]},${records[1]}],"meta":{"page":1}}`);
  });
});

/** A small source: three units, and two things that point at unit 1 (for include). */
const COLLECTIONS: Record<string, TinyRecord[]> = {
  units: ['1', '2', '3'].map((id) => ({ id, term: id })),
  things: ['7', '8'].map((id) => ({
    id,
    term: `thing ${id}`,
    relationships: { unit: { data: { type: 'Unit', id: '1' } } },
  })),
};

describe('serve on a snapshot whose records hold such numbers and nesting', () => {
  let server: TinySource;
  let serve: ServeHandle;
  let remove: () => Promise<void>;

  beforeAll(async () => {
    server = await startTinySource({ collections: COLLECTIONS });
    const suite = await suiteDir();
    remove = suite.remove;
    const out = path.join(suite.dir, 'out');
    const result = await crawlForTest(server.root, out);
    // What a lossless crawl stores, and what a snapshot from elsewhere may hold: written into unit 1 of the
    // complete units collection, with SHA256SUMS brought up to date, so the snapshot stays whole.
    const unitsFile = new Layout(result.root).collectionIndex('units').file;
    const added = `${NUMBERS},"deep":${deepText},`;
    const text = (await readFile(path.join(out, ...unitsFile.split('/')), 'utf8')).replace(
      '"attributes":{',
      `"attributes":{${added}`,
    );
    await rewriteFile(out, unitsFile, text, true);
    serve = await startServe({ dir: out, port: 0 });
  }, 30_000);
  afterAll(async () => {
    await serve.close();
    await server.close();
    await remove();
  });

  it('answers queries with the stored numbers and the deep record, never a 500', async () => {
    for (const query of [
      'units/?page[size]=100',
      'units/?sort=-term&page[size]=1&page[number]=3',
      'units/?filter[id]=1',
      'units/?sort=deep,big',
      // The record reached through include, from another collection.
      'things/?include=unit',
    ]) {
      const answer = await get(`${serve.url}${query}`);
      expect(answer.status, `${query}: ${answer.text.slice(0, 200)}`).toBe(200);
      expect(answer.text, query).toContain(NUMBERS);
      expect(answer.text, query).toContain(`"deep":${deepText}`);
    }
  });
});
