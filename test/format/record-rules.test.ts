/**
 * Every command that reads a snapshot's records reads them by the same rules (src/format/records.ts), where they
 * once disagreed: a record whose id is a number, a list page whose `data` is one object, and a record's label,
 * which its catalogue page, the SKOS and CSV downloads, `export`, `diff` and the Changes page all give alike. A
 * small source serves such records in two releases; the same --out is crawled once for each.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { sendJson } from '../helpers/http-server.js';
import { startTinySource, type TinyAnswer, type TinyRecord, type TinySource } from '../helpers/tiny-source.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { parseCsv, parseTurtle } from '../export/rdf-check.js';
import { crawlForTest } from '../helpers/crawl.js';

const PREF_LABEL = 'http://www.w3.org/2004/02/skos/core#prefLabel';

/** The source's units: 7 (a number as its id) named by `title` alone, `Seven` and then `Sept`, 8 by nothing at all. */
const UNITS: TinyRecord[] = [
  { id: '7', idJson: '7', term: ' ', attributes: { title: 'Seven' } },
  { id: '8', attributes: { definition: 'eight' } },
];

/** The source, and `things`, a list page whose `data` is one record rather than a list of one. */
function startSource(): Promise<TinySource> {
  const things: TinyAnswer = (res) =>
    sendJson(res, 200, {
      data: { type: 'Thing', id: '1', attributes: { term: 'lone' } },
      meta: { pagination: { page: 1, pages: 1, count: 1 } },
    });
  return startTinySource({ collections: { units: UNITS, things: [] }, answers: { 'things/': things } });
}

describe('the rules every reader of records shares', () => {
  let server: TinySource;
  let out: string;
  let before: string;
  let remove: () => Promise<void>;

  beforeAll(async () => {
    server = await startSource();
    const suite = await suiteDir();
    remove = suite.remove;
    out = path.join(suite.dir, 'out');
    const crawl = () => crawlForTest(server.root, out);
    await crawl();
    before = path.join(suite.dir, 'before');
    await runMain(['catalogue', out, '--out', before]);
    UNITS[0]!.attributes = { title: 'Sept' };
    await crawl();
  });
  afterAll(async () => {
    await server.close();
    await remove();
  });

  const catalogue = (file: string) => readFile(path.join(out, '_catalogue', file), 'utf8');

  it('reads a numeric id as its text: shown, exported and matched by diff', async () => {
    expect(await catalogue('units/r-7.html')).toContain('<h1>Sept</h1>');
    const csv = await runMain(['export', out, '--format', 'csv', '--output', '-']);
    expect(csv.code).toBe(0);
    expect(parseCsv(csv.stdout).map((row) => [row[1], row[2], row[3]])).toEqual([
      ['collection', 'id', 'label'],
      ['units', '7', 'Sept'],
      ['units', '8', '8'],
    ]);
    const diff = await runMain(['diff', before, out, '--format', 'json']);
    const units = (JSON.parse(diff.stdout) as { collections: Array<Record<string, unknown>> }).collections[1]!;
    expect(units).toMatchObject({ name: 'units', added: [], removed: [], unmatched: { old: 0, new: 0 } });
    expect(units.renamed).toEqual([{ type: 'Unit', id: '7', old: 'Seven', new: 'Sept' }]);
  });

  it('reads a list page whose `data` is one object as no records, everywhere', async () => {
    expect(await catalogue('things/page-1.html')).toContain('<p class="summary">0 records.');
    const csv = await runMain(['export', out, '--format', 'csv', '--collection', 'things', '--output', '-']);
    expect(parseCsv(csv.stdout)).toHaveLength(1);
    const diff = await runMain(['diff', before, out, '--format', 'json']);
    expect(diff.stderr).toBe('');
    const things = (JSON.parse(diff.stdout) as { collections: Array<Record<string, unknown>> }).collections[0]!;
    expect(things).toMatchObject({ name: 'things', records: { old: 0, new: 0 }, unmatched: { old: 0, new: 0 } });
  });

  it('names a record the same on its page, in the SKOS download and on the Changes page', async () => {
    const turtle = await readFile(path.join(out, '_catalogue', 'units', 'units.ttl'), 'utf8');
    const labels = parseTurtle(turtle)
      .filter((quad) => quad.predicate.value === PREF_LABEL)
      .map((quad) => quad.object.value)
      .sort();
    expect(labels).toEqual(['8', 'Sept']);
    expect(await catalogue('units/r-8.html')).toContain('<h1>8</h1>');
    const changes = await catalogue('changes.html');
    expect(changes).toContain('“Seven” is now <a href="units/r-7.html">Sept</a>');
  });
});
