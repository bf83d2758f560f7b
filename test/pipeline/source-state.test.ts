/**
 * `--resume` checks each sign of the source's state on its own: the root index's content (its ETag unchanged), its
 * ETag (its content unchanged), its Last-Modified, and the count page 1 of a collection states. Any one that differs
 * refuses the resume; none differing lets it go on.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { closedAfterEach, sendJson } from '../helpers/http-server.js';
import { records, startTinySource, type TinyAnswer, type TinyRecord, type TinySource } from '../helpers/tiny-source.js';
import { tempDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';

const tinySource = closedAfterEach(startTinySource);

interface StateSource {
  source: TinySource;
  /** What the root index says and the headers it is sent with (null: not sent). */
  etag: string | null;
  lastModified: string | null;
  motto: string;
  /** The records of `units`, all on one page. */
  units: TinyRecord[];
}

/** A source of a root index and one collection, whose state each test changes one sign of. */
async function startStateSource(): Promise<StateSource> {
  const root: TinyAnswer = (res, base) => {
    if (state.etag !== null) res.setHeader('etag', state.etag);
    if (state.lastModified !== null) res.setHeader('last-modified', state.lastModified);
    sendJson(res, 200, { data: { units: `${base}units/` }, meta: { motto: state.motto } });
  };
  const units = records(2, 'unit ');
  const state: StateSource = {
    source: await tinySource({ collections: { units }, answers: { '': root } }),
    etag: '"state-1"',
    lastModified: 'Mon, 02 Nov 2026 10:00:00 GMT',
    motto: 'first',
    units,
  };
  return state;
}

/** A crawl of the source interrupted while a record is in flight: its work kept in staging for --resume. */
async function interrupted({ source }: StateSource): Promise<string> {
  const out = path.join(await tempDir(), 'out');
  const controller = new AbortController();
  void source.hold().then(() => controller.abort('SIGINT'));
  await expect(crawlForTest(source.root, out, { signal: controller.signal })).rejects.toThrow(/Interrupted by SIGINT/);
  source.release();
  return out;
}

const resume = ({ source }: StateSource, out: string) => crawlForTest(source.root, out, { resume: true });

describe('--resume and the state of the source, one sign at a time', () => {
  it('goes on when nothing changed', async () => {
    const source = await startStateSource();
    const out = await interrupted(source);
    const result = await resume(source, out);
    expect(result.documents).toBe(4);
  });

  it('refuses a root index whose content changed under the same ETag and Last-Modified', async () => {
    const source = await startStateSource();
    const out = await interrupted(source);
    source.motto = 'second';
    await expect(resume(source, out)).rejects.toThrow(
      `The source at ${source.source.root} has changed since the interrupted crawl began (the root index's content ` +
        'differs)',
    );
  });

  it('refuses a root index whose ETag changed, its content the same', async () => {
    const source = await startStateSource();
    const out = await interrupted(source);
    source.etag = '"state-2"';
    await expect(resume(source, out)).rejects.toThrow(`(the root index's ETag was "state-1" and is "state-2" now)`);
  });

  it('refuses a root index whose Last-Modified changed, with no ETag and its content the same', async () => {
    const source = await startStateSource();
    source.etag = null;
    const out = await interrupted(source);
    source.lastModified = 'Tue, 03 Nov 2026 10:00:00 GMT';
    await expect(resume(source, out)).rejects.toThrow(
      "(the root index's Last-Modified was Mon, 02 Nov 2026 10:00:00 GMT and is Tue, 03 Nov 2026 10:00:00 GMT now)",
    );
  });

  it('refuses a collection whose first page counts other records, the root index the same in every way', async () => {
    const source = await startStateSource();
    const out = await interrupted(source);
    source.units.push({ id: '3', term: 'unit 3' });
    await expect(resume(source, out)).rejects.toThrow('(units counted 2 records and counts 3 now)');
  });
});
