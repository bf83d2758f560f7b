import { describe, expect, it } from 'vitest';
import { compareRecords, renameOf } from '../../src/diff/compare-records.js';
import { byId, type SnapshotRecord } from '../../src/format/records.js';

type ComparedRecord = Pick<SnapshotRecord, 'type' | 'id' | 'attributes' | 'relationships'>;

function record(attributes: Record<string, unknown>, relationships: Record<string, unknown> = {}): ComparedRecord {
  return { type: 'SiteUsage', id: '7', attributes, relationships };
}

const rel = (data: unknown, self = 'http://a:1/x') => ({ links: { self, related: `${self}/r` }, data });

describe('compareRecords', () => {
  it('finds nothing when only links differ, or a to-many list is in another order', () => {
    const a = record(
      { term: 'Urban' },
      {
        site_types: rel([
          { type: 'SiteType', id: '1' },
          { type: 'SiteType', id: '2' },
        ]),
        successor: { links: { self: 'x' } },
      },
    );
    const b = record(
      { term: 'Urban' },
      {
        site_types: rel(
          [
            { type: 'SiteType', id: '2' },
            { type: 'SiteType', id: '1', meta: { x: 1 } },
          ],
          '/sms/cv/api/v1/x',
        ),
        successor: { links: { self: 'y' } },
      },
    );
    expect(compareRecords(a, b)).toBeNull();
  });

  it('tells an absent attribute from a null one, and compares object values whatever their member order', () => {
    const change = compareRecords(
      record({ term: 'U', note: null, extra: { a: 1, b: 2 } }),
      record({ term: 'U', extra: { b: 2, a: 1 }, added: '' }),
    );
    expect(change?.attributes).toEqual([
      { name: 'added', new: '' },
      { name: 'note', old: null },
    ]);
  });

  it('gives old and new data of a changed relationship, and the targets gained and lost', () => {
    const change = compareRecords(
      record({ term: 'U' }, { global_provenance: rel(null), site_types: rel([{ type: 'SiteType', id: '1' }]) }),
      record(
        { term: 'U' },
        {
          global_provenance: rel({ type: 'GlobalProvenance', id: '3' }),
          site_types: rel([{ type: 'SiteType', id: '2' }]),
        },
      ),
    );
    expect(change?.relationships).toEqual([
      {
        name: 'global_provenance',
        old: null,
        new: { type: 'GlobalProvenance', id: '3' },
        added: [{ type: 'GlobalProvenance', id: '3' }],
        removed: [],
      },
      {
        name: 'site_types',
        old: [{ type: 'SiteType', id: '1' }],
        new: [{ type: 'SiteType', id: '2' }],
        added: [{ type: 'SiteType', id: '2' }],
        removed: [{ type: 'SiteType', id: '1' }],
      },
    ]);
  });

  it('takes a record without a term by its name for renames', () => {
    const before = { type: 'GlobalProvenance', id: '1', attributes: { name: 'QUDT' }, relationships: {} };
    expect(renameOf(before, { ...before, attributes: { name: 'QUDT.org' } })).toEqual({ old: 'QUDT', new: 'QUDT.org' });
    expect(renameOf(record({ term: 'a' }), record({ term: 'a', name: 'b' }))).toBeNull();
  });

  it('orders numeric ids as numbers, before any other', () => {
    expect(['10', '9', '100', 'b', '2a', 'a'].sort(byId)).toEqual(['9', '10', '100', '2a', 'a', 'b']);
  });
});
