/**
 * RunState from journal entries: a live crawl keeps no URL sets; a replay (--resume) rebuilds what is known and what
 * is still to fetch, and a URL that failed (--allow-partial) is missing only until a later run fetches it.
 */
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Journal, type JournalEntry } from '../../src/store/journal.js';
import { RunState } from '../../src/pipeline/run-state.js';
import type { TreeWriter } from '../../src/store/writer.js';
import { InvariantChecker } from '../../src/validate/invariants.js';
import { tempDir, tempWriter } from '../helpers/temp-dir.js';

const root = 'http://127.0.0.1:8080/sms/cv/api/v1/';
const units = `${root}units/`;
const unit1 = `${root}units/1/`;
const unit2 = `${root}units/2/`;
const SHA = 'ab'.repeat(32);

const doc = (url: string, discovered: string[], file: string | null = null): JournalEntry => ({
  t: 'doc',
  url,
  file: file === null ? null : { path: file, sha256: SHA, size: 2 },
  summary: { kind: 'record', resources: [], targets: [], roots: [] },
  records: null,
  discovered,
});
const failed = (url: string): JournalEntry => ({
  t: 'finding',
  finding: { url, pointer: '', rule: 'fetch.failed', severity: 'error', message: `${url} could not be fetched` },
});

async function state(resuming: boolean): Promise<{ state: RunState; writer: TreeWriter }> {
  const writer = await tempWriter();
  return { state: new RunState(root, new InvariantChecker(root), writer, { resuming }), writer };
}

describe('RunState', () => {
  it('after a replay, hands over every URL known and those not yet settled, failed ones included', async () => {
    const { state: replayed, writer } = await state(true);
    for (const entry of [
      doc(root, [units]),
      doc(units, [unit1, unit2], 'sms/cv/api/v1/units/index.html'),
      failed(unit1),
    ]) {
      replayed.apply(entry);
    }
    const { seen, pending } = replayed.takeResume();
    expect([...seen].sort()).toEqual([root, units, unit1, unit2].sort());
    expect(pending).toEqual([unit1, unit2]);
    expect(replayed.discovered).toBe(4);
    expect(replayed.missing()).toEqual([unit1]);
    // The replayed document's file is listed for SHA256SUMS.
    expect([...writer.listing()]).toEqual([['sms/cv/api/v1/units/index.html', SHA]]);
    // Fetched in the resumed run: no longer missing.
    replayed.apply(doc(unit1, []));
    expect(replayed.missing()).toEqual([]);
    expect(() => replayed.takeResume()).toThrow(/resuming: true/);
  });

  it('in a live crawl, counts what was discovered, lists no file twice, and reports a failure as missing', async () => {
    const { state: live, writer } = await state(false);
    live.apply(doc(root, [units]));
    live.apply(doc(units, [unit1, unit2], 'sms/cv/api/v1/units/index.html'));
    live.apply(failed(unit2));
    expect(live.discovered).toBe(4);
    expect(live.documents).toBe(2);
    expect(live.missing()).toEqual([unit2]);
    // The writer lists what it writes itself; applying the entry does not list it again.
    expect([...writer.listing()]).toEqual([]);
    expect(() => live.takeResume()).toThrow(/resuming: true/);
  });

  it('keeps relationship documents stored leading nowhere through a journal read back, until rewritten', async () => {
    const { state: replayed } = await state(true);
    const file = 'sms/cv/api/v1/units/1/relationships/successor';
    const stored = (leadsNowhere: boolean): JournalEntry => ({
      t: 'doc',
      url: `${unit1}relationships/successor`,
      file: { path: file, sha256: SHA, size: 2 },
      summary: { kind: 'relationship', resources: [], targets: [], roots: [] },
      records: null,
      ...(leadsNowhere ? { leadsNowhere: true as const } : {}),
      discovered: [],
    });
    const journal = path.join(await tempDir(), 'journal.ndjson');
    await writeFile(journal, `${JSON.stringify(stored(true))}\n`);
    for await (const entry of Journal.read(journal)) replayed.apply(entry);
    expect([...replayed.leadingNowhere]).toEqual([file]);
    // Fetched again in the resumed run, and leading somewhere now.
    replayed.apply(stored(false));
    expect([...replayed.leadingNowhere]).toEqual([]);
  });
});
