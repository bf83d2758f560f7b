/**
 * `diff` against real sample APIs: release 0 and the "next release" of the same seed are crawled (with other ports,
 * link modes and collection-index modes), and the diff must list exactly the changes the data definition says
 * release 1 makes (SampleData.changes), nothing else, in both formats.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packSnapshot } from '../../src/archive/index.js';
import { snapshotDiffSchema, type CollectionDiff, type SnapshotDiff } from '../../src/diff/index.js';
import {
  CATALOGUE,
  createSampleData,
  startSampleApi,
  type RelationshipValue,
  type SampleData,
  type SampleRecord,
} from '../../src/sample-api/index.js';
import type { SnapshotOptions } from '../../src/pipeline/snapshot-options.js';
import { MANIFEST_PATH } from '../../src/format/manifest.js';
import { runMain } from '../helpers/cli.js';
import { crawlForTest } from '../helpers/crawl.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { copySnapshot } from '../helpers/tiny-vocabulary.js';

const SEED = 4;
const RECORDS = 6;
const release0 = createSampleData({ seed: SEED, records: RECORDS });
const release1 = createSampleData({ seed: SEED, records: RECORDS, release: 1 });

let dir: string;
let removeSuite: () => Promise<void>;
/** Release 0 twice (relative links; original links, first-page index and no catalogue, from another API), release 1. */
let old: string;
let oldAgain: string;
let next: string;

async function crawlRelease(release: number, out: string, extra: Partial<SnapshotOptions>): Promise<string> {
  const api = await startSampleApi({ seed: SEED, records: RECORDS, pageSize: 4, release });
  try {
    const result = await crawlForTest(api.rootUrl, out, extra);
    // Both releases are spec-faithful: nothing to report.
    expect({ errors: result.report.errors, warnings: result.report.warnings }).toEqual({ errors: 0, warnings: 0 });
  } finally {
    await api.close();
  }
  return out;
}

beforeAll(async () => {
  ({ dir, remove: removeSuite } = await suiteDir());
  [old, oldAgain, next] = await Promise.all([
    crawlRelease(0, path.join(dir, 'release-0'), {}),
    // Without the catalogue too: the pages for people are not what diff compares.
    crawlRelease(0, path.join(dir, 'release-0-again'), {
      links: 'original',
      collectionIndex: 'first-page',
      catalogue: 'none',
    }),
    crawlRelease(1, path.join(dir, 'release-1'), { links: 'absolute', baseUrl: 'https://cv.example.org/mirror/' }),
  ]);
}, 120_000);
afterAll(() => removeSuite());

async function diffJson(a: string, b: string): Promise<SnapshotDiff> {
  const { code, stdout, stderr } = await runMain(['diff', a, b, '--format', 'json']);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return snapshotDiffSchema.parse(JSON.parse(stdout));
}

// ---- The expected diff, worked out from the data definition alone. ----

const definition = (collection: string) => CATALOGUE.find((c) => c.name === collection)!;

function record(data: SampleData, collection: string, id: string): SampleRecord {
  return data.byName.get(collection)!.byId.get(id)!;
}

function ref(data: SampleData, collection: string, id: string) {
  const r = record(data, collection, id);
  const label = r.attributes.term ?? r.attributes.name ?? null;
  return { type: definition(collection).type, id, label, status: r.attributes.status ?? null };
}

function linkage(collection: string, relationship: string, value: RelationshipValue) {
  const targetType = definition(collection).relationships.find((r) => r.name === relationship)!.targetType;
  if (value === null) return null;
  if (typeof value === 'string') return { type: targetType, id: value };
  return value.map((id) => ({ type: targetType, id }));
}

const byId = (a: { id: string }, b: { id: string }) => Number(a.id) - Number(b.id);

/** A collection's expected diff; its changed relationships without the targets gained and lost. */
type ExpectedCollection = Partial<Omit<CollectionDiff, 'changed'>> & { changed?: unknown[] };

function expectedCollections(): Map<string, ExpectedCollection> {
  const expected = new Map<string, ExpectedCollection>();
  for (const c of release1.collections) {
    const mine = release1.changes.filter((x) => x.collection === c.name);
    const changedIds = [
      ...new Set(mine.filter((x) => x.kind === 'attribute' || x.kind === 'relationship').map((x) => x.id)),
    ];
    const changed = changedIds.map((id) => ({
      type: c.type,
      id,
      label: record(release1, c.name, id).attributes.term ?? null,
      attributes: mine
        .flatMap((x) => (x.kind === 'attribute' && x.id === id ? [{ name: x.attribute, old: x.old, new: x.new }] : []))
        .sort((a, b) => (a.name < b.name ? -1 : 1)),
      relationships: mine
        .flatMap((x) =>
          x.kind === 'relationship' && x.id === id
            ? [
                {
                  name: x.relationship,
                  old: linkage(c.name, x.relationship, x.old),
                  new: linkage(c.name, x.relationship, x.new),
                },
              ]
            : [],
        )
        .sort((a, b) => (a.name < b.name ? -1 : 1)),
    }));
    expected.set(c.name, {
      name: c.name,
      change: mine.length > 0 ? 'changed' : 'unchanged',
      records: { old: release0.byName.get(c.name)!.records.length, new: c.records.length },
      added: mine
        .filter((x) => x.kind === 'added')
        .map((x) => ref(release1, c.name, x.id))
        .sort(byId),
      removed: mine
        .filter((x) => x.kind === 'removed')
        .map((x) => ref(release0, c.name, x.id))
        .sort(byId),
      changed: changed.sort(byId),
      statusChanges: mine
        .flatMap((x) =>
          x.kind === 'attribute' && x.attribute === 'status'
            ? [
                {
                  type: c.type,
                  id: x.id,
                  label: record(release1, c.name, x.id).attributes.term ?? null,
                  old: x.old,
                  new: x.new,
                },
              ]
            : [],
        )
        .sort(byId),
      renamed: mine
        .flatMap((x) =>
          x.kind === 'attribute' && x.attribute === 'term'
            ? [{ type: c.type, id: x.id, old: x.old!, new: x.new! }]
            : [],
        )
        .sort(byId),
    });
  }
  return expected;
}

describe('diff between release 0 and the next release', () => {
  it('lists exactly the changes the data definition makes, and nothing else (JSON)', async () => {
    const diff = await diffJson(old, next);
    const expected = expectedCollections();
    expect(diff.collections.map((c) => c.name)).toEqual([...expected.keys()].sort());
    for (const c of diff.collections) {
      const { changed, ...rest } = expected.get(c.name)!;
      expect(c, c.name).toMatchObject(rest);
      // Relationship changes: the data as the source serves it, plus the targets gained and lost.
      expect(
        c.changed.map(({ relationships, ...r }) => ({
          ...r,
          relationships: relationships.map(({ name, old, new: now }) => ({ name, old, new: now })),
        })),
        c.name,
      ).toEqual(changed);
    }
    const changes = release1.changes;
    expect(diff.identical).toBe(false);
    expect(diff.summary.records).toEqual({
      added: changes.filter((x) => x.kind === 'added').length,
      removed: changes.filter((x) => x.kind === 'removed').length,
      changed: new Set(
        changes
          .filter((x) => x.kind === 'attribute' || x.kind === 'relationship')
          .map((x) => `${x.collection}/${x.id}`),
      ).size,
      notFetched: 0,
      unmatched: 0,
    });
    expect(diff.summary.statusChanges).toBe(1);
    expect(diff.summary.renamed).toBe(1);
    expect(diff.summary.collections).toMatchObject({ added: 0, removed: 0 });
    expect(diff.old.records).toBe(release0.collections.reduce((n, c) => n + c.records.length, 0));
    expect(diff.new.records).toBe(release1.collections.reduce((n, c) => n + c.records.length, 0));
    expect(diff.new.lastModified).toBe(release1.lastModified.toUTCString());
  });

  it('gives the targets each changed relationship gained and lost', async () => {
    const diff = await diffJson(old, next);
    const usages = diff.collections.find((c) => c.name === 'siteusages')!;
    const accepted = usages.statusChanges[0]!;
    expect(accepted).toMatchObject({ old: 'PENDING', new: 'ACCEPTED' });
    const siteTypes = usages.changed
      .find((c) => c.id === accepted.id)!
      .relationships.find((r) => r.name === 'site_types')!;
    const change = release1.changes.find((x) => x.kind === 'relationship' && x.relationship === 'site_types')!;
    expect(siteTypes.removed).toEqual([]);
    expect(siteTypes.added).toEqual((change as { new: readonly string[] }).new.map((id) => ({ type: 'SiteType', id })));
  });

  it('writes release notes: a summary table, then a section per changed collection, removals first', async () => {
    const { code, stdout, stderr } = await runMain(['diff', old, next]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const expected = expectedCollections();
    const changedNames = [...expected.values()].filter((c) => c.change === 'changed').map((c) => c.name!);
    const sections = [...stdout.matchAll(/^## (.+)$/gm)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
    expect(sections.sort()).toEqual([...changedNames].sort());
    for (const name of changedNames) {
      const c = expected.get(name)!;
      const cells = [
        c.records!.old,
        c.records!.new,
        c.added!.length,
        c.removed!.length,
        c.changed!.length,
        c.statusChanges!.length,
        c.renamed!.length,
      ];
      expect(stdout).toContain(`| ${name} | ${cells.join(' | ')} |`);
    }
    // Removals break the URIs clients store, so their collections come first; then the accepted term.
    const order = [...stdout.matchAll(/^## (.+)$/gm)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
    const withRemovals = changedNames.filter((n) => expected.get(n)!.removed!.length > 0);
    expect(order.slice(0, withRemovals.length).sort()).toEqual(withRemovals.sort());
    expect(order[withRemovals.length]).toBe('siteusages');
    const rename = release1.changes.find((x) => x.kind === 'attribute' && x.attribute === 'term') as {
      old: string;
      new: string;
    };
    expect(stdout).toContain(`\`${rename.old}\` → \`${rename.new}\``);
    expect(stdout).toMatch(/: `PENDING` → `ACCEPTED`/);
    for (const removed of release1.changes.filter((x) => x.kind === 'removed')) {
      expect(stdout).toContain(`| ${definition(removed.collection).type} | ${removed.id} |`);
    }
  });

  it("says in its header that the ETag is the root index's, and when the new one is the old one", async () => {
    const manifestOf = (snapshot: string) => path.join(snapshot, ...MANIFEST_PATH.split('/'));
    const sourceOf = async (snapshot: string) =>
      (JSON.parse(await readFile(manifestOf(snapshot), 'utf8')) as { source: { etag: string; lastModified: string } })
        .source;
    const lines = (markdown: string) =>
      ['Old', 'New'].map((side) => markdown.split('\n').find((l) => l.startsWith(`- ${side}:`))!);
    const before = await sourceOf(old);
    // Two root indexes that differ (their links name their ports): each line shows its own ETag.
    const after = await sourceOf(next);
    expect(after.etag).not.toBe(before.etag);
    const [oldLine, newLine] = lines((await runMain(['diff', old, next])).stdout);
    expect(oldLine).toContain(`(root index: Last-Modified ${before.lastModified}, ETag \`${before.etag}\`)`);
    expect(newLine).toContain(`(root index: Last-Modified ${after.lastModified}, ETag \`${after.etag}\`)`);
    // The same root index, served again with a later date, as one service's next release is: said once, and why.
    const same = await copySnapshot(next, path.join(dir, 'release-1-same-root'));
    const manifest = JSON.parse(await readFile(manifestOf(same), 'utf8')) as { source: { etag: string } };
    manifest.source.etag = before.etag;
    await writeFile(manifestOf(same), JSON.stringify(manifest));
    const [, sameLine] = lines((await runMain(['diff', old, same])).stdout);
    expect(sameLine).toContain(
      `(root index: Last-Modified ${after.lastModified}, the same ETag: the root index itself is unchanged)`,
    );
    expect(sameLine).not.toContain(before.etag);
  });

  it('finds two crawls of the same state identical, whatever their ports, link modes and index modes', async () => {
    const diff = await diffJson(old, oldAgain);
    expect(diff.identical).toBe(true);
    expect(diff.old.root).not.toBe(diff.new.root);
    expect(diff.collections.every((c) => c.change === 'unchanged' && c.records.old === c.records.new)).toBe(true);
    const md = await runMain(['diff', old, oldAgain, '--exit-code']);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('No differences');
  });

  it('reads archives; --exit-code exits 1 on differences, the diff on stdout and nothing on stderr', async () => {
    const archive = (await packSnapshot(old, path.join(dir, 'release-0.tar.gz'))).output;
    const fromArchive = await diffJson(archive, next);
    expect(fromArchive.collections).toEqual((await diffJson(old, next)).collections);
    const result = await runMain(['diff', archive, next, '--exit-code', '--format', 'json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout).identical).toBe(false);
  });

  it('--exit-code fails with 2 ("trouble"), nothing on stdout, the reason on stderr when it cannot read', async () => {
    const result = await runMain(['diff', path.join(dir, 'nowhere'), next, '--exit-code']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^cv-snapshot diff: .*nowhere does not exist\. Give a directory/);
    expect((await runMain(['diff', old])).code).toBe(2);
  });

  it('reports a collection only one snapshot has as added or removed, with its records', async () => {
    const fewer = path.join(dir, 'without-communities');
    await copySnapshot(old, fewer); // old is a symbolic link to the snapshot
    const manifestFile = path.join(fewer, ...MANIFEST_PATH.split('/'));
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as { collections: Record<string, unknown> };
    delete manifest.collections.communities;
    await writeFile(manifestFile, JSON.stringify(manifest));
    const communities = release0.byName.get('communities')!.records;

    const added = (await diffJson(fewer, old)).collections.find((c) => c.name === 'communities')!;
    expect(added).toMatchObject({ change: 'added', records: { old: null, new: communities.length } });
    expect(added.added.map((r) => r.id)).toEqual(communities.map((r) => r.id));
    const removed = await diffJson(old, fewer);
    expect(removed.summary.collections).toMatchObject({ added: 0, removed: 1, changed: 0 });
    expect(removed.collections.find((c) => c.name === 'communities')).toMatchObject({
      change: 'removed',
      records: { old: communities.length, new: null },
    });
    const md = await runMain(['diff', old, fewer]);
    expect(md.stdout).toContain('## communities');
    expect(md.stdout).toContain('Collection removed');
  });
});
