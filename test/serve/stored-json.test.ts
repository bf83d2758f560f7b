/**
 * Query answers of `cv-snapshot serve` hold each record's stored bytes (issue 10, §4 and §5): numbers a JavaScript
 * number cannot hold (18446744073709551617, 1e400, long decimals) come back as the snapshot stores them, a record
 * nested deeper than JSON.stringify can recurse is still answered, and ordinary documents are byte for byte what
 * JSON.stringify writes.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMS_PATH } from '../../src/snapshot/manifest.js';
import { answerBytes, storedList } from '../../src/serve/stored-json.js';
import { get } from '../sample-api/http.js';
import { startMirror, type Mirror } from './fixture.js';

const DEEP = 50_000;
const deepText = `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`;
const NUMBERS = '"big":18446744073709551617,"huge":1e400,"exact":0.10000000000000000000000001';

describe('storedList and answerBytes', () => {
  it('write what JSON.stringify writes for any document of ordinary JSON', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 5 }), fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }), (data, meta) => {
        const text = JSON.stringify({ links: { first: '/x/' }, data, meta });
        const document = storedList(Buffer.from(text)) as { data: unknown[] };
        expect(answerBytes(document).toString()).toBe(text);
        const answer = { links: { next: null }, data: [...document.data].reverse(), included: document.data, meta: { pagination: { page: 1 } } };
        expect(answerBytes(answer).toString()).toBe(JSON.stringify(answer));
      }),
      { numRuns: 300 },
    );
  });

  it('keep the stored bytes of each record, whatever a JavaScript number or the stack would make of them', () => {
    const records = [`{"id":"1","attributes":{${NUMBERS}}}`, `{"id":"2","attributes":{"deep":${deepText}}}`, '{"id":"3"}'];
    const text = `{"links":{},"data":[ ${records.join(' , ')} ],"meta":{"count":3}}`;
    const document = storedList(Buffer.from(text)) as { data: unknown[] };
    const answer = answerBytes({ data: [document.data[2], document.data[0], document.data[1]], meta: { page: 1 } }).toString();
    expect(answer).toBe(`{"data":[${records[2]},${records[0]},${records[1]}],"meta":{"page":1}}`);
  });
});

describe('serve on a snapshot whose records hold such numbers and nesting', () => {
  let mirror: Mirror;
  let unitsFile: string;

  beforeAll(async () => {
    mirror = await startMirror({ records: 6, pageSize: 4, seed: 3 });
    // What a lossless crawl stores, and what a snapshot from elsewhere may hold: written into the complete units
    // collection, with SHA256SUMS brought up to date, so the snapshot stays whole.
    unitsFile = mirror.layout.collectionIndex('units').file;
    const file = path.join(mirror.dir, ...unitsFile.split('/'));
    let text = await readFile(file, 'utf8');
    text = text.replace('"attributes":{', `"attributes":{${NUMBERS},"deep":${deepText},`);
    await writeFile(file, text);
    const sums = path.join(mirror.dir, ...SUMS_PATH.split('/'));
    const hash = createHash('sha256').update(text).digest('hex');
    await writeFile(sums, (await readFile(sums, 'utf8')).replace(new RegExp(`^[0-9a-f]{64}(  ${unitsFile})$`, 'm'), `${hash}$1`));
  }, 60_000);
  afterAll(async () => {
    await mirror.close();
  });

  it('answers queries with the stored numbers and the deep record, never a 500', async () => {
    const stored = JSON.stringify(JSON.parse((await readFile(path.join(mirror.dir, ...unitsFile.split('/')), 'utf8')).replace(deepText, '0'))) as string;
    const firstId = /"data":\[\{"type":"[^"]+","id":"([^"]+)"/.exec(stored)![1]!;
    for (const query of [
      'units/?page[size]=100',
      'units/?sort=-term&page[size]=100',
      `units/?filter[id]=${firstId}`,
      'units/?sort=deep,big&page[size]=100',
      // The record reached through include, from another collection.
      `measuredquantityunits/?filter[unit]=${firstId}&include=unit`,
    ]) {
      const answer = await get(`${mirror.serve.url}${query}`);
      expect(answer.status, `${query}: ${answer.text.slice(0, 200)}`).toBe(200);
      expect(answer.text, query).toContain(NUMBERS);
      expect(answer.text, query).toContain(`"deep":${deepText}`);
    }
  });
});
