/**
 * `cv-snapshot export`: a crawl of the sample API exported as Turtle, JSON-LD and CSV, read back with
 * maintained RDF libraries and an RFC 4180 parser, and checked against the records the snapshot stores.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packSnapshot } from '../../src/archive/index.js';
import { addCatalogue } from '../../src/pipeline/add-catalogue.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { downloadFile } from '../../src/export/downloads.js';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { CLI, runMain } from '../helpers/cli.js';
import { readJson } from '../helpers/snapshot.js';
import { suiteDir, tempDir } from '../helpers/temp-dir.js';
import { copySnapshot, records, snapshotOf } from '../helpers/tiny-vocabulary.js';
import {
  broaderCycle,
  hierarchy,
  objectsBy,
  parseCsv,
  parseJsonLd,
  parseTurtle,
  quadKey,
  RDF_TYPE,
  SKOS,
} from './rdf-check.js';
import { crawlForTest } from '../helpers/crawl.js';

const ROOT_PATH = 'sms/cv/api/v1';

interface Stored {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  relationships: Record<string, { data?: unknown }>;
  links: { self: string };
}

describe('export', () => {
  let api: SampleApi;
  let dir: string;
  let out: string;
  let archive: string;
  let root: string;
  let remove: () => Promise<void>;
  /** Every record the snapshot's complete collections store, with its collection. */
  const stored: Array<{ collection: string; record: Stored }> = [];

  /** Exports `snapshot` through the command line in this process; the output's text. */
  async function exported(snapshot: string, format: string, ...extra: string[]): Promise<string> {
    const file = path.join(await tempDir(), `out.${format}`);
    const result = await runMain(['export', snapshot, '--format', format, '--output', file, ...extra]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return readFile(file, 'utf8');
  }

  beforeAll(async () => {
    api = await startSampleApi({ records: 6, pageSize: 4, seed: 5 });
    const suite = await suiteDir();
    remove = suite.remove;
    dir = suite.dir;
    out = path.join(dir, 'out');
    await crawlForTest(api.rootUrl, out);
    archive = (await packSnapshot(out, { output: path.join(dir, 'out.tar.gz') })).output;
    const manifest = (await readJson(out, '_cv-snapshot/manifest.json')) as {
      source: { root: string };
      collections: Record<string, unknown>;
    };
    root = manifest.source.root;
    for (const collection of Object.keys(manifest.collections)) {
      const list = (await readJson(out, `${ROOT_PATH}/${collection}/index.html`)) as { data: Stored[] };
      for (const record of list.data) stored.push({ collection, record });
    }
  });
  afterAll(async () => {
    await api.close();
    await remove();
  });

  /** The source IRI of a stored record: the snapshot wrote links relative to its root (the default). */
  const iriOf = (record: Stored): string => new URL(record.links.self, root).href;

  it('writes one graph: the Turtle and the JSON-LD hold the same statements, without blank nodes', async () => {
    for (const language of [[], ['--language', 'en']]) {
      const turtle = parseTurtle(await exported(out, 'turtle', ...language));
      const json = await parseJsonLd(await exported(out, 'jsonld', ...language));
      const keys = (quads: typeof turtle) => quads.map(quadKey).sort();
      expect(turtle.length).toBeGreaterThan(stored.length * 5);
      expect(keys(json)).toEqual(keys(turtle));
      expect(turtle.filter((q) => q.subject.termType !== 'NamedNode' || q.object.termType === 'BlankNode')).toEqual([]);
    }
  });

  it('makes every stored record a concept at its links.self, in its scheme, with its label and id', async () => {
    const quads = parseTurtle(await exported(out, 'turtle'));
    const types = objectsBy(quads, RDF_TYPE);
    const schemes = objectsBy(quads, `${SKOS}inScheme`);
    const labels = objectsBy(quads, `${SKOS}prefLabel`);
    const notations = objectsBy(quads, `${SKOS}notation`);
    expect(stored.length).toBe(35 * 6);
    for (const { collection, record } of stored) {
      const iri = iriOf(record);
      expect(iri).toBe(`${root}${collection}/${record.id}/`);
      expect(types.get(iri)?.map((t) => t.value)).toEqual([`${SKOS}Concept`]);
      expect(schemes.get(iri)?.map((t) => t.value)).toEqual([`${root}${collection}/`]);
      expect(types.get(`${root}${collection}/`)?.map((t) => t.value)).toEqual([`${SKOS}ConceptScheme`]);
      const label = record.attributes.term ?? record.attributes.name;
      expect(labels.get(iri)?.map((t) => t.value)).toEqual([label]);
      expect(notations.get(iri)?.map((t) => t.value)).toEqual([record.id]);
    }
    const concepts = [...types].filter(([, t]) => t.some((o) => o.value === `${SKOS}Concept`));
    expect(concepts.length).toBe(stored.length);
  });

  it('gives each concept one prefLabel per language, untagged unless --language names one', async () => {
    for (const [language, expected] of [
      [[], ''],
      [['--language', 'en'], 'en'],
    ] as const) {
      const quads = parseTurtle(await exported(out, 'turtle', ...language));
      const labels = objectsBy(quads, `${SKOS}prefLabel`);
      expect(labels.size).toBe(stored.length);
      for (const objects of labels.values()) {
        expect(objects.map((o) => (o.termType === 'Literal' ? o.language : 'not a literal'))).toEqual([expected]);
      }
    }
  });

  it('keeps SKOS integrity: no concept both broader- and related-linked to another, no broader cycle', async () => {
    const quads = parseTurtle(await exported(out, 'turtle'));
    const { up, pairs } = hierarchy(quads);
    expect(pairs.size).toBeGreaterThan(0);
    const related = quads.filter((q) => [`${SKOS}related`, `${SKOS}relatedMatch`].includes(q.predicate.value));
    expect(related.length).toBeGreaterThan(0);
    for (const quad of related) {
      const [a, b] = [quad.subject.value, quad.object.value];
      expect(pairs.has(`${a} ${b}`) || pairs.has(`${b} ${a}`), `${a} ${b}`).toBe(false);
    }
    expect(broaderCycle(up)).toBeNull();
  });

  it('maps relations between vocabularies, community variants and communities as stored records say', async () => {
    const quads = parseTurtle(await exported(out, 'turtle'));
    const has = new Set(quads.map((q) => `${q.subject.value} ${q.predicate.value} ${q.object.value}`));
    const target = (linkage: unknown, collection: string) => `${root}${collection}/${(linkage as { id: string }).id}/`;
    let checked = 0;
    for (const { collection, record } of stored) {
      const iri = iriOf(record);
      const rel = record.relationships;
      const expectLink = (name: string, property: string, into: string) => {
        const data = rel[name]?.data;
        for (const linkage of Array.isArray(data) ? data : data ? [data] : []) {
          expect(has.has(`${iri} ${property} ${target(linkage, into)}`), `${iri} ${name}`).toBe(true);
          checked += 1;
        }
      };
      if (collection === 'actioncategories') expectLink('action_types', `${SKOS}narrowMatch`, 'actiontypes');
      if (collection === 'actiontypes') expectLink('action_category', `${SKOS}broadMatch`, 'actioncategories');
      if (collection === 'siteusages') expectLink('site_types', `${SKOS}relatedMatch`, 'sitetypes');
      if (collection === 'measuredquantityunits') expectLink('unit', `${SKOS}relatedMatch`, 'units');
      if (collection.endsWith('-communities')) {
        expectLink('root', `${SKOS}closeMatch`, collection.slice(0, -'-communities'.length));
        expectLink('community', 'http://purl.org/dc/terms/publisher', 'communities');
      }
    }
    expect(checked).toBeGreaterThan(100);
    const statuses = objectsBy(quads, 'http://www.w3.org/ns/adms#status');
    const pending = stored.find(({ record }) => record.attributes.status === 'PENDING')!;
    expect(statuses.get(iriOf(pending.record))?.map((o) => o.value)).toEqual([
      'http://purl.org/adms/status/UnderDevelopment',
    ]);
  });

  it('writes one CSV row per stored record, RFC 4180, with every attribute', async () => {
    const rows = parseCsv(await exported(out, 'csv'));
    const [header, ...body] = rows;
    expect(header!.slice(0, 6)).toEqual(['uri', 'collection', 'id', 'label', 'definition', 'status']);
    expect(body.length).toBe(stored.length);
    const byUri = new Map(body.map((row) => [row[0]!, Object.fromEntries(header!.map((name, i) => [name, row[i]]))]));
    for (const { collection, record } of stored) {
      const row = byUri.get(iriOf(record))!;
      expect(row, iriOf(record)).toBeDefined();
      expect(row.collection).toBe(collection);
      expect(row.id).toBe(record.id);
      for (const [name, value] of Object.entries(record.attributes)) {
        const column = ['uri', 'label'].includes(name) ? `attribute:${name}` : name;
        const text = typeof value === 'string' ? value : value === null ? '' : JSON.stringify(value);
        expect(row[column], `${name} of ${iriOf(record)}`).toBe(/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
      }
    }
  });

  it('writes hostile text exactly, and a text a spreadsheet would run as a formula with a leading quote', async () => {
    const copy = await copySnapshot(out, path.join(await tempDir(), 'hostile'));
    const file = path.join(copy, ROOT_PATH, 'licenses', 'page', '1', 'index.html');
    const page = JSON.parse(await readFile(file, 'utf8')) as { data: Stored[] };
    const hostile = {
      term: 'Comma, "quote"\r\nand a new line',
      definition: '=HYPERLINK("http://evil.example/","click")',
      note: '+1, -1 and @SUM(A1)',
      provenance: '-2+3',
      category: 'line one\nline two',
    };
    Object.assign(page.data[0]!.attributes, hostile);
    await writeFile(file, JSON.stringify(page));
    const iri = iriOf(page.data[0]!);
    const rows = parseCsv(await exported(copy, 'csv', '--collection', 'licenses'));
    const header = rows[0]!;
    const row = rows.find((r) => r[0] === iri)!;
    const cell = (name: string) => row[header.indexOf(name)];
    expect(rows.length).toBe(1 + 6);
    expect(cell('label')).toBe(hostile.term);
    expect(cell('term')).toBe(hostile.term);
    expect(cell('definition')).toBe(`'${hostile.definition}`);
    expect(cell('note')).toBe(`'${hostile.note}`);
    expect(cell('provenance')).toBe(`'${hostile.provenance}`);
    expect(cell('category')).toBe(hostile.category);
    const labels = objectsBy(
      parseTurtle(await exported(copy, 'turtle', '--collection', 'licenses')),
      `${SKOS}prefLabel`,
    );
    expect(labels.get(iri)?.map((o) => o.value)).toEqual([hostile.term]);
  });

  it('exports the records of the list pages a snapshot holds when one of its pages holds no list', async () => {
    const copy = await copySnapshot(out, path.join(await tempDir(), 'no-list'));
    await writeFile(path.join(copy, ROOT_PATH, 'licenses', 'page', '2', 'index.html'), 'null');
    const rows = parseCsv(await exported(copy, 'csv', '--collection', 'licenses'));
    const page1 = (await readJson(out, `${ROOT_PATH}/licenses/page/1/index.html`)) as { data: Stored[] };
    expect(rows.slice(1).map((row) => row[2])).toEqual(page1.data.map((record) => record.id));
  });

  it('writes records in id order and each once, whether the list pages give them in order or not', async () => {
    const ids = stored
      .filter(({ collection }) => collection === 'licenses')
      .map(({ record }) => record.id)
      .sort((a, b) => Number(a) - Number(b));
    // The sample API lists by id: the export reads such pages one by one, in the order they come.
    const inOrder = await exported(out, 'csv', '--collection', 'licenses');
    expect(
      parseCsv(inOrder)
        .slice(1)
        .map((row) => row[2]),
    ).toEqual(ids);
    // The same records, pages swapped, each page reversed, and the first record listed again on the last page.
    const copy = await copySnapshot(out, path.join(await tempDir(), 'shuffled'));
    const pageFile = (page: number): string =>
      path.join(copy, ROOT_PATH, 'licenses', 'page', String(page), 'index.html');
    const [one, two] = [await readFile(pageFile(1), 'utf8'), await readFile(pageFile(2), 'utf8')].map(
      (text) => JSON.parse(text) as { data: Stored[] },
    );
    expect(one!.data.length + two!.data.length).toBe(ids.length);
    const first = one!.data[0]!;
    [one!.data, two!.data] = [[...two!.data].reverse(), [...one!.data].reverse().concat(first)];
    await writeFile(pageFile(1), JSON.stringify(one));
    await writeFile(pageFile(2), JSON.stringify(two));
    expect(await exported(copy, 'csv', '--collection', 'licenses')).toBe(inOrder);
  });

  it('marks a record whose stored successor names another as replaced by it and deprecated', async () => {
    const copy = await copySnapshot(out, path.join(await tempDir(), 'successor'));
    const [old, next] = stored.filter(({ collection }) => collection === 'licenses').map(({ record }) => record);
    // Its relationship document, read first (src/format/links-only.ts), names the successor as the service does.
    const relationship = path.join(copy, ROOT_PATH, 'licenses', old!.id, 'relationships', 'successor');
    await writeFile(relationship, JSON.stringify({ data: { type: next!.type, id: next!.id } }));
    const quads = parseTurtle(await exported(copy, 'turtle', '--collection', 'licenses'));
    const has = new Set(quads.map((q) => `${q.subject.value} ${q.predicate.value} ${q.object.value}`));
    expect(has.has(`${iriOf(old!)} http://purl.org/dc/terms/isReplacedBy ${iriOf(next!)}`)).toBe(true);
    expect(has.has(`${iriOf(old!)} http://www.w3.org/2002/07/owl#deprecated true`)).toBe(true);
    expect(quads.filter((q) => q.predicate.value.endsWith('#deprecated')).length).toBe(1);
  });

  it('narrows to the collections named, and gives the same bytes every time, from directory and archive', async () => {
    for (const format of ['turtle', 'jsonld', 'csv']) {
      const first = await exported(out, format);
      expect(await exported(out, format)).toBe(first);
      expect(await exported(archive, format)).toBe(first);
    }
    const quads = parseTurtle(await exported(out, 'turtle', '--collection', 'units', '--collection', 'siteusages'));
    const schemes = [...objectsBy(quads, RDF_TYPE)].filter(([, t]) =>
      t.some((o) => o.value === `${SKOS}ConceptScheme`),
    );
    expect(schemes.map(([iri]) => iri).sort()).toEqual([`${root}siteusages/`, `${root}units/`]);
  });

  it('offers each collection as Turtle, JSON-LD and CSV in the catalogue, in SHA256SUMS and verified', async () => {
    const sums = await readFile(path.join(out, '_cv-snapshot', 'SHA256SUMS'), 'utf8');
    const collections = [...new Set(stored.map(({ collection }) => collection))];
    for (const collection of collections) {
      for (const [extension, format] of [
        ['ttl', 'turtle'],
        ['jsonld', 'jsonld'],
        ['csv', 'csv'],
      ]) {
        const file = `_catalogue/${collection}/${collection}.${extension}`;
        expect(downloadFile(collection, format as 'turtle')).toBe(file);
        expect(sums).toContain(`  ${file}\n`);
        // The collection's page links it, relative to the page, as a download.
        const listing = await readFile(path.join(out, '_catalogue', collection, 'page-1.html'), 'utf8');
        const hrefs = [...listing.matchAll(/<a href="([^"]+)"[^>]* download>/g)].map((m) => m[1]!);
        const linked = hrefs.map((href) => path.posix.join('_catalogue', collection, href));
        expect(linked, collection).toContain(file);
        if (collection !== 'units') continue;
        expect(await readFile(path.join(out, file), 'utf8')).toBe(
          await exported(out, format!, '--collection', collection),
        );
      }
    }
    expect((await verifySnapshot(out)).problems).toEqual([]);
    // `catalogue` writes them as crawl does: a snapshot without a catalogue gets the same files.
    const bare = path.join(await tempDir(), 'bare');
    await crawlForTest(api.rootUrl, bare, { catalogue: 'none' });
    expect(await readFile(path.join(bare, '_cv-snapshot', 'SHA256SUMS'), 'utf8')).not.toContain('.ttl');
    const rebuilt = path.join(await tempDir(), 'rebuilt');
    await addCatalogue({ input: bare, out: rebuilt });
    for (const extension of ['ttl', 'jsonld', 'csv']) {
      const file = path.join('_catalogue', 'siteusages', `siteusages.${extension}`);
      expect(await readFile(path.join(rebuilt, file), 'utf8')).toBe(await readFile(path.join(out, file), 'utf8'));
    }
    expect((await verifySnapshot(rebuilt)).problems).toEqual([]);
  });

  it('writes to stdout with --output -', async () => {
    const result = await runMain(['export', out, '--format', 'csv', '--output', '-', '--collection', 'units']);
    expect(result.code).toBe(0);
    expect(parseCsv(result.stdout).length).toBe(1 + 6);
  });

  it('stops quietly, exit 0, when the reader of stdout goes away (| head)', async () => {
    const child = spawn(process.execPath, [CLI, 'export', out, '--format', 'turtle', '--output', '-'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('refuses what it cannot export with a sentence and the documented exit code, writing nothing', async () => {
    const missing = await runMain(['export', path.join(dir, 'nothing'), '--format', 'turtle', '--output', '-']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nothing does not exist\. Give a directory that crawl wrote/);
    expect(missing.stdout).toBe('');

    const target = path.join(await tempDir(), 'out.ttl');
    const wrong = await runMain(['export', out, '--format', 'turtle', '--output', target, '--collection', 'unit']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/has no collection "unit"\. Its collections are: actioncategories/);
    await expect(readFile(target)).rejects.toThrow(/ENOENT/);

    await writeFile(target, 'mine');
    const existing = await runMain(['export', out, '--format', 'turtle', '--output', target]);
    expect(existing.code).toBe(1);
    expect(existing.stderr).toMatch(/already exists\. Give another --output, or --force/);
    expect(await readFile(target, 'utf8')).toBe('mine');
    expect((await runMain(['export', out, '--format', 'turtle', '--output', target, '--force'])).code).toBe(0);
    expect(await readFile(target, 'utf8')).toMatch(/^@prefix/);

    const inside = await runMain(['export', out, '--format', 'csv', '--output', path.join(out, 'vocabulary.csv')]);
    expect(inside.code).toBe(1);
    expect(inside.stderr).toMatch(/vocabulary\.csv is inside the snapshot .*, which export never changes/);
    expect((await verifySnapshot(out)).problems).toEqual([]);

    const format = await runMain(['export', out, '--format', 'rdfxml', '--output', target]);
    expect(format.code).toBe(2);
    expect(format.stderr).toMatch(/--format takes one of turtle, jsonld, csv/);
  });
});

describe('export of other snapshots', () => {
  it('says a partial snapshot lacks records, and exports the ones it has', async () => {
    const vocabulary = { collections: { units: records(5) }, failing: ['units/?page[number]=2'] };
    const out = await snapshotOf(vocabulary, path.join(await tempDir(), 'out'), { allowPartial: true });
    const result = await runMain(['export', out, '--format', 'csv', '--output', '-']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/is a partial snapshot: the records on the list pages its manifest names as missing/);
    // Two records a page: page 2 (records 3 and 4) is missing; page 3, after it, is exported.
    expect(parseCsv(result.stdout).map((row) => row[2])).toEqual(['id', '1', '2', '5']);
  });

  it('gives every record its source IRI, whether crawl wrote links relative, absolute or original', async () => {
    const vocabulary = { collections: { units: records(3), things: records(2, 'thing ') } };
    const modes = [
      { links: 'relative' as const },
      { links: 'absolute' as const, baseUrl: 'https://mirror.example/copy/' },
      { links: 'original' as const },
    ];
    const texts: string[] = [];
    for (const options of modes) {
      const out = await snapshotOf(vocabulary, path.join(await tempDir(), 'out'), options);
      const { source } = (await readJson(out, '_cv-snapshot/manifest.json')) as { source: { root: string } };
      const stored = (await readJson(out, 'api/units/index.html')) as { data: Stored[] };
      expect(stored.data[0]!.links.self.startsWith(source.root)).toBe(options.links === 'original');
      const file = path.join(await tempDir(), 'out.ttl');
      expect((await runMain(['export', out, '--format', 'turtle', '--output', file])).code).toBe(0);
      const text = await readFile(file, 'utf8');
      const concepts = objectsBy(parseTurtle(text), RDF_TYPE);
      for (const id of ['1', '2', '3']) expect(concepts.has(`${source.root}units/${id}/`), id).toBe(true);
      expect(text).not.toContain('mirror.example');
      texts.push(text.split(source.root).join('http://source.invalid/api/'));
    }
    expect(texts[1]).toBe(texts[0]);
    expect(texts[2]).toBe(texts[0]);
  });
});
