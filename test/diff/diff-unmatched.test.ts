/**
 * diff on collections whose lists hold a record with a number as its id, and an element without an id. The record is
 * matched by the text of its id, as every reader of a snapshot reads it; the element cannot be matched record by
 * record, so it is counted per collection and compared as a whole, never silently left out of a diff that would then
 * say "no differences" when it changed. The snapshots are crawls of a tiny purpose-built source, each on its own port.
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

/** Records the source lists with a string id. */
const units = records(2);
/** A record listed with the number 7 as its id, before and after its term changed. */
const seven: TinyRecord = { id: '7', idJson: '7', term: 'seven' };
const renamed: TinyRecord = { ...seven, term: 'SEVEN' };
/** An element listed with a null id, before and after its term changed. */
const nameless: TinyRecord = { id: 'x', idJson: 'null', term: 'nobody' };
const namelessChanged: TinyRecord = { ...nameless, term: 'somebody' };

beforeAll(async () => {
  suite = await suiteDir();
  const at = (name: string) => path.join(suite.dir, name);
  [before, after, again] = await Promise.all([
    snapshotOf({ collections: { units: [...units, seven, nameless] } }, at('before')),
    snapshotOf({ collections: { units: [...units, renamed, namelessChanged] } }, at('after')),
    snapshotOf({ collections: { units: [...units, seven, nameless] } }, at('again')),
  ]);
});
afterAll(() => suite.remove());

describe('diff of a numeric id, and of elements without an id', () => {
  it('matches the record by its id as text; counts the others; changed, they make the snapshots differ', async () => {
    const json = await runMain(['diff', before, after, '--format', 'json', '--exit-code']);
    expect(json.code).toBe(1);
    const diff = snapshotDiffSchema.parse(JSON.parse(json.stdout));
    expect(diff.identical).toBe(false);
    expect(diff.collections).toEqual([
      expect.objectContaining({
        name: 'units',
        change: 'changed',
        records: { old: units.length + 1, new: units.length + 1 },
        unmatched: { old: 1, new: 1, same: false },
        added: [],
        removed: [],
        changed: [expect.objectContaining({ type: 'Unit', id: '7', label: 'SEVEN' })],
        renamed: [{ type: 'Unit', id: '7', old: 'seven', new: 'SEVEN' }],
      }),
    ]);
    expect(diff.summary.records).toMatchObject({ added: 0, removed: 0, changed: 1, unmatched: 2 });

    const notes = await runMain(['diff', before, after]);
    expect(notes.code).toBe(0);
    expect(notes.stdout).toContain(
      'units: 2 records without a type and id could not be compared record by record (1 in the old ' +
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
    expect(notes).toContain(`No differences: the same ${units.length + 1} records in 1 collections.`);
    expect(notes).toContain(
      'units: 1 record without a type and id in each snapshot could not be compared record by record; ' +
        'compared as a whole, they are the same in both.',
    );
  });
});
