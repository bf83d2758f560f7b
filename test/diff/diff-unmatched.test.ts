/**
 * diff on collections whose lists hold an element without a string type and id (a source that gives a number as
 * the id): it cannot be matched record by record, so it is counted per collection and compared as a whole, never
 * silently left out of a diff that would then say "no differences" when it changed. The snapshots are crawls of a
 * tiny purpose-built source, each on its own port.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotDiffSchema } from '../../src/diff/index.js';
import { runMain } from '../helpers/cli.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { records, snapshotOf, type TinyRecord } from '../helpers/tiny-vocabulary.js';

let suite: { dir: string; remove: () => Promise<void> };
let before: string;
let after: string;
let again: string;

/** Records the source lists with a string id: the ones diff matches by type and id. */
const units = records(2);
/** The same record, listed with the number 7 as its id, before and after its term changed. */
const seven: TinyRecord = { id: '7', idJson: '7', term: 'seven' };
const renamed: TinyRecord = { ...seven, term: 'SEVEN' };

beforeAll(async () => {
  suite = await suiteDir();
  const at = (name: string) => path.join(suite.dir, name);
  [before, after, again] = await Promise.all([
    snapshotOf({ collections: { units: [...units, seven] } }, at('before')),
    snapshotOf({ collections: { units: [...units, renamed] } }, at('after')),
    snapshotOf({ collections: { units: [...units, seven] } }, at('again')),
  ]);
});
afterAll(() => suite.remove());

describe('diff of records without a string type and id', () => {
  it('counts them per collection; changed, they make the snapshots differ (exit 1 with --exit-code)', async () => {
    const json = await runMain(['diff', before, after, '--format', 'json', '--exit-code']);
    expect(json.code).toBe(1);
    const diff = snapshotDiffSchema.parse(JSON.parse(json.stdout));
    expect(diff.identical).toBe(false);
    // One element with a numeric id in each snapshot; the records with string ids are compared as ever.
    expect(diff.collections).toEqual([
      expect.objectContaining({
        name: 'units',
        change: 'changed',
        records: { old: units.length, new: units.length },
        unmatched: { old: 1, new: 1, same: false },
        added: [],
        removed: [],
        changed: [],
      }),
    ]);
    expect(diff.summary.records).toMatchObject({ added: 0, removed: 0, changed: 0, unmatched: 2 });

    const notes = await runMain(['diff', before, after]);
    expect(notes.code).toBe(0);
    expect(notes.stdout).toContain(
      'units: 2 records without a string type and id could not be compared record by record (1 in the old ' +
        'snapshot, 1 in the new), and they are not the same in both',
    );
    expect(notes.stdout).not.toContain('No differences');
  });

  it('two crawls of one state at other addresses: the same ones, counted, and the snapshots identical', async () => {
    const same = await runMain(['diff', before, again, '--format', 'json', '--exit-code']);
    expect(same.code).toBe(0);
    const diff = snapshotDiffSchema.parse(JSON.parse(same.stdout));
    expect(diff.identical).toBe(true);
    expect(diff.collections[0]!.unmatched).toEqual({ old: 1, new: 1, same: true });
    expect(diff.summary.records).toMatchObject({ added: 0, removed: 0, changed: 0, unmatched: 0 });

    const notes = (await runMain(['diff', before, again])).stdout;
    expect(notes).toContain(`No differences: the same ${units.length} records in 1 collections.`);
    expect(notes).toContain(
      'units: 1 record without a string type and id in each snapshot could not be compared record by record; ' +
        'compared as a whole, they are the same in both.',
    );
  });
});
