/**
 * One reader of where a relationship given with links only leads (src/format/links-only.ts), and the three that ask
 * it: the catalogue (record pages, and its downloads through the export's code), `export` and `diff`. A purpose-built
 * source gives `successor` with links only (spec 2.4) in ways a consistent source does not: its related document out
 * of the root, a relationship document and a related document that disagree, a relationship document it does not
 * serve. What each record's successor is comes from the source's documents and the documented order of tries, and
 * every reader says the same.
 */
import { readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.js';
import { linksOnlyUnit, sendJson, startServer, type TestServer } from '../helpers/http-server.js';
import { suiteDir, tempDir } from '../helpers/temp-dir.js';
import { copySnapshot } from '../helpers/tiny-vocabulary.js';
import { parseCsv, parseTurtle } from '../export/rdf-check.js';
import { crawlForTest } from '../helpers/crawl.js';

const IS_REPLACED_BY = 'http://purl.org/dc/terms/isReplacedBy';
const linkage = (id: string) => ({ type: 'Unit', id });

/**
 * What the source serves of each record's successor in its release 1 (release 0: none anywhere). `relationship`
 * and `related`: the `data` of `units/<id>/relationships/successor` and `units/<id>/successor/`, or undefined where
 * it answers 404; `outside`: its list entry's `links.related` points out of the root.
 */
const RELEASE_1: Record<string, { relationship?: unknown; related?: unknown; outside?: boolean }> = {
  // Its related document is out of the root (never fetched): the relationship document says where it leads.
  '1': { relationship: linkage('2'), outside: true },
  // An ordinary record that leads nowhere.
  '2': { relationship: null, related: null },
  // The two documents disagree: the relationship document, tried first, answers.
  '3': { relationship: null, related: linkage('2') },
  // No relationship document (a 404): the related document, whose data is the target itself, answers.
  '4': { related: linkage('2') },
};
/** Where each record's successor leads, by the order of tries. */
const SUCCESSOR: Record<string, string | null> = { '1': '2', '2': null, '3': null, '4': '2' };

/** The source, serving release 0 until `state.release` is set to 1. */
async function startSource(): Promise<{ server: TestServer; state: { release: number } }> {
  const state = { release: 0 };
  const ids = Object.keys(RELEASE_1);
  const server = await startServer((req, res) => {
    const base = `http://${req.headers.host}/api/`;
    const served = (id: string) => (state.release === 1 ? RELEASE_1[id]! : { relationship: null, related: null });
    const record = (id: string) =>
      linksOnlyUnit(base, id, served(id).outside ? `http://elsewhere.invalid/units/${id}/successor/` : undefined);
    if (req.url === '/api/') return sendJson(res, 200, { data: { units: `${base}units/` } });
    if (req.url === '/api/units/') return sendJson(res, 200, { links: { next: null }, data: ids.map(record) });
    const match = /^\/api\/units\/([0-9]+)\/(relationships\/successor|successor\/)?$/.exec(req.url ?? '');
    const id = match?.[1];
    if (id !== undefined && ids.includes(id)) {
      if (match![2] === undefined) return sendJson(res, 200, { data: record(id) });
      const data = match![2] === 'successor/' ? served(id).related : served(id).relationship;
      if (data !== undefined) {
        const target = data as { id: string } | null;
        return sendJson(res, 200, { data: target === null || match![2] !== 'successor/' ? data : record(target.id) });
      }
    }
    sendJson(res, 404, { errors: [{ status: '404' }] });
  });
  return { server, state };
}

/** `export <snapshot> --format <format>`: its exit code, output and what it said. */
async function exported(snapshot: string, format: string) {
  const file = path.join(await tempDir(), `out.${format}`);
  const result = await runMain(['export', snapshot, '--format', format, '--output', file]);
  return { ...result, text: result.code === 0 ? await readFile(file, 'utf8') : '' };
}

/** The successors a Turtle graph names, as `old new` of ids. */
function replacements(turtle: string, root: string): string[] {
  const id = (iri: string) => iri.slice(`${root}units/`.length).replace(/\/$/, '');
  return parseTurtle(turtle)
    .filter((quad) => quad.predicate.value === IS_REPLACED_BY)
    .map((quad) => `${id(quad.subject.value)} ${id(quad.object.value)}`)
    .sort();
}

/** The successor changes `diff --format json` finds: `id: old -> new` of ids. */
async function successorChanges(before: string, after: string): Promise<string[]> {
  const result = await runMain(['diff', before, after, '--format', 'json']);
  expect(result.stderr).toBe('');
  const diff = JSON.parse(result.stdout) as {
    collections: Array<{
      changed: Array<{ id: string; relationships: Array<{ name: string; old?: unknown; new?: unknown }> }>;
    }>;
  };
  const idOf = (data: unknown) => (data === null || data === undefined ? String(data) : (data as { id: string }).id);
  return diff.collections
    .flatMap((collection) => collection.changed)
    .flatMap(({ id, relationships }) =>
      relationships.filter((r) => r.name === 'successor').map((r) => `${id}: ${idOf(r.old)} -> ${idOf(r.new)}`),
    );
}

describe('a relationship given with links only', () => {
  let source: { server: TestServer; state: { release: number } };
  let before: string;
  let after: string;
  let root: string;
  let remove: () => Promise<void>;

  beforeAll(async () => {
    source = await startSource();
    const suite = await suiteDir();
    remove = suite.remove;
    root = `${source.server.url}/api/`;
    before = path.join(suite.dir, 'before');
    after = path.join(suite.dir, 'after');
    await crawlForTest(root, before);
    source.state.release = 1;
    await crawlForTest(root, after);
  });
  afterAll(async () => {
    await source.server.close();
    await remove();
  });

  it('leads where the first stored document of the documented order says, in the catalogue', async () => {
    for (const [id, target] of Object.entries(SUCCESSOR)) {
      const page = await readFile(path.join(after, '_catalogue', 'units', `r-${id}.html`), 'utf8');
      const line = /<dt>Successor<\/dt><dd>(.*?)<\/dd>/.exec(page)?.[1];
      // A record page leaves out a relationship that leads nowhere.
      if (target === null) expect(line, id).toBeUndefined();
      else expect(line, id).toContain(`<a href="../../_catalogue/units/r-${target}.html">term ${target}</a>`);
    }
  });

  it("leads to the same records in export and in the catalogue's downloads, graph and CSV", async () => {
    const turtle = await exported(after, 'turtle');
    expect(turtle.stderr).toBe('');
    const expected = Object.entries(SUCCESSOR)
      .filter(([, target]) => target !== null)
      .map(([id, target]) => `${id} ${target}`);
    expect(replacements(turtle.text, root)).toEqual(expected);
    // The download is what `export --collection units` writes.
    const download = await readFile(path.join(after, '_catalogue', 'units', 'units.ttl'), 'utf8');
    expect(replacements(download, root)).toEqual(expected);
    // Its CSV, whose rows ask again after the graph's nodes did, names the same successors.
    const [header, ...rows] = parseCsv(await readFile(path.join(after, '_catalogue', 'units', 'units.csv'), 'utf8'));
    const column = header!.indexOf('successor');
    const successors = rows.map((row) => `${row[2]} ${row[column]}`).sort();
    expect(successors).toEqual(
      Object.entries(SUCCESSOR).map(([id, target]) => `${id} ${target === null ? '' : `${root}units/${target}/`}`),
    );
  });

  it('changes where diff says, between a release without successors and one with', async () => {
    const expected = Object.entries(SUCCESSOR)
      .filter(([, target]) => target !== null)
      .map(([id, target]) => `${id}: null -> ${target}`);
    expect(await successorChanges(before, after)).toEqual(expected);
  });

  it('never reads a stored document through a symbolic link: diff and export refuse the tree, naming it', async () => {
    const copy = await copySnapshot(after, path.join(await tempDir(), 'linked'));
    // Record 1's relationship document (the first tried) replaced by a link to a file that names record 3.
    const elsewhere = path.join(await tempDir(), 'elsewhere.json');
    await writeFile(elsewhere, JSON.stringify({ data: linkage('3') }));
    const file = path.join(copy, 'api', 'units', '1', 'relationships', 'successor');
    await rm(file);
    await symlink(elsewhere, file);
    // Neither reads record 1's successor as record 3, nor as none: each names the file and says to verify the tree.
    const diff = await runMain(['diff', before, copy, '--format', 'json']);
    const turtle = await exported(copy, 'turtle');
    for (const result of [diff, turtle]) {
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('api/units/1/relationships/successor');
      expect(result.stderr).toContain('symbolic link');
      expect(result.stderr).toContain(`cv-snapshot verify ${copy}`);
    }
  });
});
