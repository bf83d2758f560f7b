/**
 * The catalogue's Changes page against the sample API's next release: release 0 and then release 1 crawled into the
 * same --out, and the page must list exactly the changes the data definition says release 1 makes
 * (SampleData.changes); the first snapshot of a folder says it is the first; the manifest names what was compared;
 * `verify` checks the page's links; the `catalogue` command compares with what --out held as crawl does; a previous
 * snapshot that cannot be read does not stop the crawl.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClock } from '../../src/util/clock.js';
import { diffSnapshotDirs } from '../../src/diff/index.js';
import { addCatalogue } from '../../src/pipeline/add-catalogue.js';
import {
  createSampleData,
  startSampleApi,
  type ReleaseChange,
  type SampleApi,
  type SampleData,
} from '../../src/sample-api/index.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { listFiles, readJson, treeHashes } from '../helpers/snapshot.js';
import { sendJson } from '../helpers/http-server.js';
import { records, startTinySource, type TinyRecord } from '../helpers/tiny-source.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { copySnapshot, rewriteFile } from '../helpers/tiny-vocabulary.js';
import { crawlForTest } from '../helpers/crawl.js';
import { htmlText as text } from '../helpers/html-text.js';

const SEED = 4;
const RECORDS = 6;
const release0 = createSampleData({ seed: SEED, records: RECORDS });
const release1 = createSampleData({ seed: SEED, records: RECORDS, release: 1 });
const CHANGES = '_catalogue/changes.html';

interface Manifest {
  createdAt: string;
  source: { root: string };
  changes?: { against: { root: string; createdAt: string } | null };
}

/** The page's sections: each kind of change by its anchor, with the count in its heading and its items' text. */
function sections(html: string): Map<string, { count: number; items: string[]; edits: string[][] }> {
  const found = new Map<string, { count: number; items: string[]; edits: string[][] }>();
  const pattern = /<h2 id="([a-z]+)">[^<]*\((\d+)\)<\/h2>\n<ul class="plain changes">\n([\s\S]*?)\n<\/ul>/g;
  for (const [, id, count, list] of html.matchAll(pattern)) {
    found.set(id!, {
      count: Number(count),
      items: [...list!.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => text(m[1]!)),
      // Each field of an edit, on a line of its own.
      edits: [...list!.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) =>
        [...m[1]!.matchAll(/<span class="edit">([\s\S]*?)<\/span>/g)].map((e) => text(e[1]!)),
      ),
    });
  }
  return found;
}

/** A value as the pages show it: text in quotes, nothing as "none". */
function shown(value: unknown): string {
  if (value === null || value === undefined || value === '') return 'none';
  return typeof value === 'string' ? `“${value}”` : JSON.stringify(value);
}

/** A snapshot's time as the pages show it (`2023-11-14 22:13 UTC`). */
function when(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

function labelOf(data: SampleData, collection: string, id: string): string {
  const record = data.byName.get(collection)!.byId.get(id)!;
  return String(record.attributes.term ?? record.attributes.name);
}

/** The one item of `items` that names the record `id` with `label` (exactly one must). */
function itemOf(items: string[], label: string, id: string): string {
  const matching = items.filter((item) => item.includes(label) && item.includes(`id ${id})`));
  expect(matching, `${label} (id ${id}) in ${JSON.stringify(items)}`).toHaveLength(1);
  return matching[0]!;
}

describe('the Changes page', () => {
  let base: string;
  let remove: () => Promise<void>;
  let api0: SampleApi;
  let api1: SampleApi;
  const crawl = (api: SampleApi, out: string, catalogue: 'html' | 'none' = 'html') =>
    crawlForTest(api.rootUrl, path.join(base, out), { catalogue });
  let first: { page: string; manifest: Manifest; files: string[] };
  let second: { page: string; manifest: Manifest };

  beforeAll(async () => {
    ({ dir: base, remove } = await suiteDir());
    [api0, api1] = await Promise.all([
      startSampleApi({ seed: SEED, records: RECORDS, pageSize: 4 }),
      startSampleApi({ seed: SEED, records: RECORDS, pageSize: 4, release: 1 }),
    ]);
    const out = path.join(base, 'out');
    await crawl(api0, 'out');
    first = {
      page: await readFile(path.join(out, CHANGES), 'utf8'),
      manifest: (await readJson(out, '_cv-snapshot/manifest.json')) as Manifest,
      files: await listFiles(out),
    };
    await crawl(api1, 'out');
    second = {
      page: await readFile(path.join(out, CHANGES), 'utf8'),
      manifest: (await readJson(out, '_cv-snapshot/manifest.json')) as Manifest,
    };
  }, 120_000);
  afterAll(async () => {
    await Promise.all([api0.close(), api1.close()]);
    await remove();
  });

  it('says that the first snapshot in a folder is the first, linked from the front page', async () => {
    expect(text(first.page)).toContain('This is the first snapshot in this folder');
    expect(sections(first.page).size).toBe(0);
    expect(first.manifest.changes).toEqual({ against: null });
    // Linked from the front page, in SHA256SUMS.
    const sums = await readFile(path.join(base, 'out', '_cv-snapshot/SHA256SUMS'), 'utf8');
    expect(sums).toContain(`  ${CHANGES}\n`);
    const front = await readFile(path.join(base, 'out', 'index.html'), 'utf8');
    expect(front).toContain(`<a href="${CHANGES}">`);
    expect(first.files).toContain(CHANGES);
  });

  it('lists exactly what the next release added, removed, renamed and changed the status of', () => {
    const found = sections(second.page);
    const of = (kind: string) => release1.changes.filter((c) => c.kind === kind);
    const added = of('added');
    expect(found.get('added')?.count).toBe(added.length);
    for (const c of added) itemOf(found.get('added')!.items, labelOf(release1, c.collection, c.id), c.id);
    const removed = of('removed');
    expect(found.get('removed')?.count).toBe(removed.length);
    for (const c of removed) itemOf(found.get('removed')!.items, labelOf(release0, c.collection, c.id), c.id);

    const attribute = (name: string) =>
      release1.changes.flatMap((c) => (c.kind === 'attribute' && c.attribute === name ? [c] : []));
    const renames = attribute('term');
    expect(renames.length).toBeGreaterThan(0);
    expect(found.get('renamed')?.count).toBe(renames.length);
    for (const c of renames) {
      expect(itemOf(found.get('renamed')!.items, String(c.new), c.id)).toContain(`“${String(c.old)}” is now`);
    }
    const statuses = attribute('status');
    expect(found.get('status')?.count).toBe(statuses.length);
    for (const c of statuses) {
      const item = itemOf(found.get('status')!.items, labelOf(release1, c.collection, c.id), c.id);
      expect(item).toContain(`from ${String(c.old)} to ${String(c.new)}`);
    }
    // The sample API's successors (links only, spec 2.4) are null in both releases.
    expect(found.has('successor')).toBe(false);
  });

  it('lists every other edit with the old and the new value of each field it changed', () => {
    const edits = new Map<string, { collection: string; id: string; changes: ReleaseChange[] }>();
    for (const c of release1.changes) {
      const field = c.kind === 'attribute' ? c.attribute : c.kind === 'relationship' ? c.relationship : null;
      if (field === null) continue;
      if (field === 'status' || field === 'term') continue;
      const key = `${c.collection} ${c.id}`;
      const edit = edits.get(key) ?? { collection: c.collection, id: c.id, changes: [] };
      edit.changes.push(c);
      edits.set(key, edit);
    }
    const found = sections(second.page).get('edited')!;
    expect(found.count).toBe(edits.size);
    for (const edit of edits.values()) {
      const item = itemOf(found.items, labelOf(release1, edit.collection, edit.id), edit.id);
      // One line per field the release changed, each attribute with its value before and after.
      const i = found.items.indexOf(item);
      expect(found.edits[i]).toHaveLength(edit.changes.length);
      for (const c of edit.changes) {
        if (c.kind !== 'attribute') continue;
        expect(item).toContain(`: ${shown(c.old)} → ${shown(c.new)}`);
      }
    }
    // docs/catalogue.md's example of a field's name for people.
    expect(found.items.join('\n')).toContain('Requested by email');
    expect(text(second.page)).toContain(
      `${release1.changes.filter((c) => c.kind === 'added').length} added, ` +
        `${release1.changes.filter((c) => c.kind === 'removed').length} removed`,
    );
    // A count that is zero is left out: the sample API's next release replaces nothing by a successor.
    expect(text(/<p class="summary">[\s\S]*?<\/p>/.exec(second.page)![0])).not.toMatch(/\b0 /);
  });

  it("says on an edited record's page what each field was and is, since which snapshot", async () => {
    const edit = release1.changes.find((c) => c.kind === 'attribute' && c.attribute === 'definition')!;
    if (edit.kind !== 'attribute') throw new Error('an attribute change');
    const html = await readFile(path.join(base, 'out', '_catalogue', edit.collection, `r-${edit.id}.html`), 'utf8');
    const note = text(/<p class="changed">[\s\S]*?<\/p>/.exec(html)![0]);
    expect(note).toContain(`Changed since the snapshot of ${when(first.manifest.createdAt)}: `);
    expect(note).toContain(`Definition: ${shown(edit.old)} → ${shown(edit.new)}`);
  });

  it('says in the manifest and on the page what it was compared with', () => {
    expect(second.manifest.changes).toEqual({
      against: { root: first.manifest.source.root, createdAt: first.manifest.createdAt },
    });
    expect(text(second.page)).toContain(
      `What changed in ${api1.rootUrl} between the snapshot of ${when(first.manifest.createdAt)} and this one`,
    );
    expect(text(second.page)).toContain(`The earlier snapshot was of ${api0.rootUrl}.`);
    expect(second.page).toContain(`<time datetime="${first.manifest.createdAt}">`);
  });

  it("marks each added or changed record's page, linking to the Changes page, and no other", async () => {
    const out = path.join(base, 'out');
    const changed = new Set(
      release1.changes.filter((c) => c.kind !== 'removed').map((c) => `${c.collection}/r-${c.id}.html`),
    );
    const pages = (await listFiles(out)).filter((f) => /^_catalogue\/[^/]+\/r-[^/]+\.html$/.test(f));
    const marked = [];
    for (const file of pages) {
      const html = await readFile(path.join(out, file), 'utf8');
      if (!html.includes('<p class="changed">')) continue;
      marked.push(file.slice('_catalogue/'.length));
      expect(html).toContain('<a href="../changes.html">All changes</a>');
    }
    expect(marked.sort()).toEqual([...changed].sort());
    for (const c of release1.changes.filter((x) => x.kind === 'added')) {
      const html = await readFile(path.join(out, '_catalogue', c.collection, `r-${c.id}.html`), 'utf8');
      expect(text(html)).toContain(`New since the snapshot of ${when(first.manifest.createdAt)}.`);
    }
  });

  it('keeps a page for each removed record, linked from the Changes page: its last term, definition', async () => {
    const out = path.join(base, 'out');
    const sums = await readFile(path.join(out, '_cv-snapshot/SHA256SUMS'), 'utf8');
    const removed = release1.changes.filter((c) => c.kind === 'removed');
    expect(removed.length).toBeGreaterThan(0);
    for (const c of removed) {
      const before = release0.byName.get(c.collection)!.byId.get(c.id)!.attributes;
      const file = `_catalogue/${c.collection}/removed-${c.id}.html`;
      expect(second.page).toContain(`<a href="${c.collection}/removed-${c.id}.html">`);
      const html = await readFile(path.join(out, file), 'utf8');
      expect(/<h1>([^<]*)<\/h1>/.exec(html)![1]).toBe(labelOf(release0, c.collection, c.id));
      const page = text(html);
      expect(page).toContain(`Removed in the snapshot of ${when(second.manifest.createdAt)}.`);
      expect(page).toContain(String(before.definition));
      if (typeof before.status === 'string') expect(page).toContain(`Its status was ${before.status}.`);
      expect(sums).toContain(`  ${file}\n`);
    }
    // The list the next crawl carries forward, in SHA256SUMS too.
    expect(sums).toContain('  _catalogue/removed.json\n');
    expect(first.files.some((f) => f.includes('/removed-') || f.endsWith('removed.json'))).toBe(false);
  });

  it("keeps a removed record's page in the crawls after, until the record comes back", async () => {
    // A small source of two states: the later one removes a record of each collection and adds one.
    const units = records(3, 'unit ');
    const things = records(2, 'thing ');
    const earlierState = { units: [...units], things: [...things] };
    const laterState = { units: [units[0]!, units[2]!, { id: '4', term: 'unit 4' }], things: [things[0]!] };
    const removed = [
      { collection: 'units', id: '2', label: 'unit 2' },
      { collection: 'things', id: '2', label: 'thing 2' },
    ];
    const source = await startTinySource({ collections: { units, things } });
    const become = (state: typeof earlierState) => {
      units.splice(0, units.length, ...state.units);
      things.splice(0, things.length, ...state.things);
    };
    try {
      const out = path.join(base, 'history');
      const at = (day: number) => createClock({ SOURCE_DATE_EPOCH: String(1700000000 + day * 86400) });
      const crawlAt = (state: typeof earlierState, day: number) => {
        become(state);
        return crawlForTest(source.root, out, { clock: at(day) });
      };
      const pageOf = (c: { collection: string; id: string }) =>
        path.join(out, `_catalogue/${c.collection}/removed-${c.id}.html`);
      await crawlAt(earlierState, 0);
      await crawlAt(laterState, 1);
      await crawlAt(laterState, 2);
      const removedIn = when(new Date((1700000000 + 86400) * 1000).toISOString());
      const changes = await readFile(path.join(out, CHANGES), 'utf8');
      const earlier = sections(changes).get('earlier')!;
      expect(earlier.count).toBe(removed.length);
      for (const c of removed) {
        expect(text(await readFile(pageOf(c), 'utf8'))).toContain(`Removed in the snapshot of ${removedIn}.`);
        const item = itemOf(earlier.items, c.label, c.id);
        expect(item).toContain(`removed in the snapshot of ${removedIn}`);
      }
      expect(sections(changes).has('removed')).toBe(false);
      expect((await verifySnapshot(out)).problems).toEqual([]);
      // Back in the source: the record has its own page again, and no tombstone.
      await crawlAt(earlierState, 3);
      for (const c of removed) {
        await expect(readFile(pageOf(c), 'utf8')).rejects.toThrow();
        await readFile(path.join(out, `_catalogue/${c.collection}/r-${c.id}.html`), 'utf8');
      }
      // What the tree keeps a page for now is the record the later state added, which the earlier one lacks.
      expect((await listFiles(out)).filter((f) => f.includes('/removed-')).sort()).toEqual([
        '_catalogue/units/removed-4.html',
      ]);
    } finally {
      await source.close();
    }
  });

  it('is checked by verify: its links resolve, and a broken one is found', async () => {
    const out = path.join(base, 'out');
    expect((await verifySnapshot(out)).problems).toEqual([]);
    // A copy of the snapshot, one of its links then broken.
    const copy = await copySnapshot(out, path.join(base, 'broken'));
    const page = await readFile(path.join(copy, CHANGES), 'utf8');
    const href = /<a href="([^"#]+\/r-[^"]+\.html)">/.exec(page)![1]!;
    await rewriteFile(copy, CHANGES, page.replace(`href="${href}"`, 'href="units/r-nowhere.html"'), true);
    const problems = (await verifySnapshot(copy)).problems.join('\n');
    expect(problems).toContain('units/r-nowhere.html');
  });

  it('is the same when the catalogue command builds it into an --out that held the earlier snapshot', async () => {
    await crawl(api1, 'plain', 'none');
    await crawl(api0, 'rebuilt');
    await addCatalogue({ input: path.join(base, 'plain'), out: path.join(base, 'rebuilt') });
    expect(await treeHashes(path.join(base, 'rebuilt'))).toEqual(await treeHashes(path.join(base, 'out')));
  });

  it('does not stop a crawl when the previous snapshot cannot be read, and says so', async () => {
    // The previous snapshot's catalogue is never read: its manifest is damaged. Any source will do.
    const source = await startTinySource();
    try {
      const out = path.join(base, 'damaged');
      await crawlForTest(source.root, out, { catalogue: 'none' });
      await writeFile(path.join(out, '_cv-snapshot/manifest.json'), '{"not": "a manifest"}');
      await crawlForTest(source.root, out);
      const page = await readFile(path.join(out, CHANGES), 'utf8');
      expect(text(page)).toContain('could not be read as one');
      expect(((await readJson(out, '_cv-snapshot/manifest.json')) as Manifest).changes).toEqual({ against: null });
    } finally {
      await source.close();
    }
  });

  it('names a successor given as data or as links only, and shows hostile terms as text', async () => {
    const HOSTILE = '<img src=x onerror="window.pwned=1">';
    /**
     * Two states of one source: later, record 1 is renamed to a hostile term and replaced by record 3, given as data;
     * record 2 is replaced by record 3 too, given as the service gives it (spec 2.4): links only in the list, the
     * target in the relationship document.
     */
    const replaced = { successor: { data: { type: 'Unit', id: '3' } } };
    const units: TinyRecord[] = [
      { id: '1', term: 'unit 1', relationships: { successor: { data: null } } },
      {
        id: '2',
        term: 'unit 2',
        relationships: (self) => ({ successor: { links: { self: `${self}relationships/successor` } } }),
      },
    ];
    let later = false;
    const source = await startTinySource({
      collections: { units },
      answers: {
        'units/2/relationships/successor': (res) =>
          sendJson(res, 200, { data: later ? replaced.successor.data : null }),
      },
    });
    try {
      const out = path.join(base, 'successor');
      await crawlForTest(source.root, out);
      later = true;
      units[0] = { ...units[0]!, term: HOSTILE, relationships: replaced };
      units.push({ id: '3', term: 'unit 3', relationships: { successor: { data: null } } });
      await crawlForTest(source.root, out);
      const page = await readFile(path.join(out, CHANGES), 'utf8');
      expect(page).not.toContain('<img');
      const found = sections(page);
      expect(found.get('successor')?.items).toEqual([
        `${HOSTILE} (Units, id 1) is replaced by unit 3 (Units, id 3)`,
        'unit 2 (Units, id 2) is replaced by unit 3 (Units, id 3)',
      ]);
      expect(found.get('renamed')?.items).toEqual([`“unit 1” is now ${HOSTILE} (Units, id 1)`]);
      expect(found.get('added')?.items).toEqual(['unit 3 (Units, id 3)']);
      const record = await readFile(path.join(out, '_catalogue/units/r-1.html'), 'utf8');
      expect(text(/<p class="changed">[\s\S]*?<\/p>/.exec(record)![0])).toBe(
        `Changed since the snapshot of ${when('2023-11-14T22:13:20Z')}: renamed from “unit 1”; replaced by a ` +
          'successor. All changes',
      );
      // `diff` itself reads the links-only successor from the stored relationship document.
      const previous = path.join(`${out}.cv-snapshot`, 'snapshot-1');
      const diff = await diffSnapshotDirs(previous, out);
      const unit2 = diff.collections.find((c) => c.name === 'units')!.changed.find((r) => r.id === '2')!;
      expect(unit2.relationships).toEqual([
        {
          name: 'successor',
          old: null,
          new: { type: 'Unit', id: '3' },
          added: [{ type: 'Unit', id: '3' }],
          removed: [],
        },
      ]);
    } finally {
      await source.close();
    }
  });
});
