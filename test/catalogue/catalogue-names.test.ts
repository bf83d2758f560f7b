/**
 * `--names <file.json>`: the user's names for collections and fields, in place of the derived ones; a file that is
 * not such a map is refused naming the file and the key; the names are recorded in the manifest, so that the
 * catalogue command and --resume keep them, and the pages are the same bytes whichever way they were given.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCatalogue } from '../../src/pipeline/add-catalogue.js';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { runMain } from '../helpers/cli.js';
import { readJson, treeHashes } from '../helpers/snapshot.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';

const NAMES = {
  fields: { provenance_uri: 'Provenance link' },
  collections: { units: 'Units of measurement' },
};
/** As the manifest records them: keys sorted. */
const RECORDED = { collections: NAMES.collections, fields: NAMES.fields };

describe('names for people given by the user', () => {
  let api: SampleApi;
  let base: string;
  let remove: () => Promise<void>;
  let namesFile: string;
  /** The sample API crawled with the names, and without. */
  let named: string;
  let plain: string;

  beforeAll(async () => {
    ({ dir: base, remove } = await suiteDir());
    api = await startSampleApi({ records: 1, seed: 5 });
    namesFile = path.join(base, 'names.json');
    await writeFile(namesFile, JSON.stringify(NAMES));
    named = path.join(base, 'named');
    plain = path.join(base, 'plain');
    await crawlForTest(api.rootUrl, named, { names: NAMES });
    await crawlForTest(api.rootUrl, plain);
  });
  afterAll(async () => {
    await api.close();
    await remove();
  });

  it('refuses a file that is not a map of names, naming the file and the key', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['number.json', '{"collections": {"units": 3}}', /"collections"\."units" must be a name/],
      ['typo.json', '{"colections": {}}', /"colections" is not a key it may have/],
      ['empty.json', '{"fields": {"term": " "}}', /"fields"\."term" must be a name for people/],
      ['not-json.json', '{"fields": ', /is not JSON/],
    ];
    for (const [name, text, message] of cases) {
      const file = path.join(base, name);
      await writeFile(file, text);
      for (const args of [
        ['crawl', api.rootUrl, '--out', path.join(base, 'refused')],
        ['catalogue', plain, '--out', path.join(base, 'refused')],
      ]) {
        const run = await runMain([...args, '--names', file]);
        expect(run.code, `${args[0]} ${name}`).toBe(2);
        expect(run.stderr, name).toContain(`--names ${file}`);
        expect(run.stderr, name).toMatch(message);
      }
    }
    // A file that is not there, named as given.
    const missing = await runMain([
      'crawl',
      api.rootUrl,
      '--out',
      path.join(base, 'refused'),
      '--names',
      'nowhere.json',
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--names nowhere.json cannot be read (ENOENT)');
  });

  it('records the names in the manifest; the catalogue command keeps them, replaces them, or drops them', async () => {
    const manifest = (await readJson(named, '_cv-snapshot/manifest.json')) as { options: Record<string, unknown> };
    expect(manifest.options.names).toEqual(RECORDED);
    expect(Object.keys(manifest.options).at(-1)).toBe('names');
    expect(((await readJson(plain, '_cv-snapshot/manifest.json')) as any).options).not.toHaveProperty('names');

    // Rebuilt without --names: the recorded names, byte for byte what the crawl wrote.
    const rebuilt = path.join(base, 'rebuilt');
    await addCatalogue({ input: named, out: rebuilt });
    expect(await treeHashes(rebuilt)).toEqual(await treeHashes(named));
    // Given to the command: the same as given to the crawl.
    const given = path.join(base, 'given');
    const run = await runMain(['catalogue', plain, '--out', given, '--names', namesFile]);
    expect(run.code, run.stderr).toBe(0);
    expect(await treeHashes(given)).toEqual(await treeHashes(named));
    // {} drops them: the pages and manifest of a crawl without names.
    const dropped = path.join(base, 'dropped');
    await addCatalogue({ input: named, out: dropped, names: {} });
    expect(await treeHashes(dropped)).toEqual(await treeHashes(plain));
    expect((await verifySnapshot(given)).problems).toEqual([]);
  });

  it('warns of names that no collection or field of the snapshot takes, naming each, and of no other', async () => {
    // Two misspelt API names beside the two the sample API has (NAMES): `unit` (the collection is `units`) and
    // `provenance-uri`, and a field name with a control character, shown escaped.
    const misspelt = path.join(base, 'misspelt.json');
    const given = {
      collections: { ...NAMES.collections, unit: 'Units' },
      fields: { ...NAMES.fields, 'provenance-uri': 'Provenance', 'bell\u0007': 'Bell' },
    };
    await writeFile(misspelt, JSON.stringify(given));
    const expected = ['collections."unit"', 'fields."bell\\u0007"', 'fields."provenance-uri"'];

    const crawled = await runMain(
      ['crawl', api.rootUrl, '--out', path.join(base, 'misspelt'), '--quiet'].concat(['--names', misspelt]),
    );
    expect(crawled.code, crawled.stderr).toBe(0);
    expect(crawled.stderr).toContain(`3 names match no collection or field of this snapshot`);
    expect(crawled.stderr).toContain(expected.join(', '));
    for (const used of ['"units"', '"provenance_uri"']) expect(crawled.stderr).not.toContain(used);
    const json = await runMain(
      ['crawl', api.rootUrl, '--out', path.join(base, 'misspelt-json'), '--json'].concat(['--names', misspelt]),
    );
    expect(JSON.parse(json.stdout).unusedNames).toEqual(expected);

    const rebuilt = await runMain(
      ['catalogue', plain, '--out', path.join(base, 'misspelt-catalogue')].concat(['--names', misspelt]),
    );
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stderr).toContain(expected.join(', '));
    // Names that all match: not a word.
    const matched = await runMain(['catalogue', plain, '--out', path.join(base, 'matched'), '--names', namesFile]);
    expect(matched.stderr).not.toContain('--names');
  });

  it('keeps the names a crawl was started with when it is resumed without them', async () => {
    // A source that fails now and then: without retries the crawl stops and keeps its work for --resume.
    const flaky = await startSampleApi({ records: 1, seed: 5, faultRate: 0.3, stallMs: 10, retryAfterSeconds: 0 });
    try {
      const out = path.join(base, 'resumed');
      const crawl = ['crawl', flaky.rootUrl, '--out', out, '--quiet'];
      const first = await runMain([...crawl, '--names', namesFile, '--retries', '0']);
      expect(first.code).toBe(1);
      expect(first.stderr).toContain('--resume');
      const resumed = await runMain([...crawl, '--resume']);
      expect(resumed.code, resumed.stderr).toBe(0);
      const manifest = (await readJson(out, '_cv-snapshot/manifest.json')) as { options: Record<string, unknown> };
      expect(manifest.options.names).toEqual(RECORDED);
    } finally {
      await flaky.close();
    }
  });

  it('keeps the names a resume was given when it is resumed again without them', async () => {
    const flaky = await startSampleApi({ records: 1, seed: 5, faultRate: 0.3, stallMs: 10, retryAfterSeconds: 0 });
    try {
      const out = path.join(base, 'renamed');
      const other = path.join(base, 'other-names.json');
      await writeFile(other, JSON.stringify({ collections: { units: 'Measurement units' } }));
      const crawl = ['crawl', flaky.rootUrl, '--out', out, '--quiet'];
      expect((await runMain([...crawl, '--names', namesFile, '--retries', '0'])).code).toBe(1);
      // Resumed with other names, and stopped again before it finished.
      const second = await runMain([...crawl, '--resume', '--names', other, '--retries', '0']);
      expect(second.code, second.stderr).toBe(1);
      const third = await runMain([...crawl, '--resume']);
      expect(third.code, third.stderr).toBe(0);
      const manifest = (await readJson(out, '_cv-snapshot/manifest.json')) as { options: Record<string, unknown> };
      expect(manifest.options.names).toEqual({ collections: { units: 'Measurement units' } });
    } finally {
      await flaky.close();
    }
  }, 60_000);
});
