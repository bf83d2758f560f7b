import { describe, expect, it } from 'vitest';
import { createSampleData, type ReleaseChange, type SampleData } from '../../src/sample-api/index.js';

/** Every record-level difference between two data sets, worked out here from the records themselves. */
function differences(before: SampleData, after: SampleData): string[] {
  const out: string[] = [];
  for (const next of after.collections) {
    const previous = before.byName.get(next.name)!;
    for (const record of previous.records) if (!next.byId.has(record.id)) out.push(`removed ${next.name}/${record.id}`);
    for (const record of next.records) {
      const old = previous.byId.get(record.id);
      if (old === undefined) {
        out.push(`added ${next.name}/${record.id}`);
        continue;
      }
      for (const [name, value] of Object.entries(record.attributes)) {
        if (old.attributes[name] !== value)
          out.push(
            `attribute ${next.name}/${record.id} ${name} ${JSON.stringify(old.attributes[name])} ` +
              `${JSON.stringify(value)}`,
          );
      }
      for (const [name, value] of Object.entries(record.relationships)) {
        if (JSON.stringify(old.relationships[name]) !== JSON.stringify(value)) {
          out.push(
            `relationship ${next.name}/${record.id} ${name} ${JSON.stringify(old.relationships[name])} ` +
              `${JSON.stringify(value)}`,
          );
        }
      }
    }
  }
  return out.sort();
}

function describeChange(change: ReleaseChange): string {
  const where = `${change.collection}/${change.id}`;
  if (change.kind === 'attribute')
    return `attribute ${where} ${change.attribute} ${JSON.stringify(change.old)} ${JSON.stringify(change.new)}`;
  if (change.kind === 'relationship')
    return `relationship ${where} ${change.relationship} ${JSON.stringify(change.old)} ${JSON.stringify(change.new)}`;
  return `${change.kind} ${where}`;
}

describe("the sample data's next release", () => {
  for (const seed of [1, 2, 9]) {
    it(`differs from release 0 by exactly the changes it lists (seed ${seed})`, () => {
      const before = createSampleData({ seed, records: 12 });
      const after = createSampleData({ seed, records: 12, release: 1 });
      expect(after.changes.map(describeChange).sort()).toEqual(differences(before, after));
    });
  }

  it('lists additions, removals, attribute edits, an acceptance, a rename and retargeted relationships', () => {
    const { changes } = createSampleData({ seed: 1, records: 12, release: 1 });
    const kinds = new Set(changes.map((c) => c.kind));
    expect([...kinds].sort()).toEqual(['added', 'attribute', 'relationship', 'removed']);
    // spec 3: accepted means no requester, a global provenance and, for a site usage, linked site types.
    const accepted = changes.find((c) => c.kind === 'attribute' && c.attribute === 'status');
    expect(accepted).toMatchObject({ collection: 'siteusages', old: 'PENDING', new: 'ACCEPTED' });
    const sameRecord = changes.filter((c) => c.collection === 'siteusages' && c.id === accepted!.id);
    expect(sameRecord).toContainEqual(
      expect.objectContaining({ kind: 'attribute', attribute: 'requested_by_email', new: null }),
    );
    expect(sameRecord).toContainEqual(
      expect.objectContaining({ kind: 'relationship', relationship: 'global_provenance', old: null }),
    );
    expect(sameRecord).toContainEqual(
      expect.objectContaining({ kind: 'relationship', relationship: 'site_types', old: [] }),
    );
    expect(changes).toContainEqual(
      expect.objectContaining({
        kind: 'attribute',
        attribute: 'term',
        old: 'Software update',
        new: 'Software and firmware update',
      }),
    );
    expect(
      changes.filter((c) => c.kind === 'relationship' && c.collection !== 'siteusages').length,
    ).toBeGreaterThanOrEqual(2);
  });

  it('is release 0 without the option, and moves Last-Modified forward', () => {
    const zero = createSampleData({ seed: 3, records: 6 });
    expect(zero.release).toBe(0);
    expect(zero.changes).toEqual([]);
    expect(createSampleData({ seed: 3, records: 6, release: 0 })).toEqual(zero);
    expect(createSampleData({ seed: 3, records: 6, release: 1 }).lastModified.getTime()).toBeGreaterThan(
      zero.lastModified.getTime(),
    );
  });

  it('refuses an unknown release, and a data set too small for release 1', () => {
    expect(() => createSampleData({ release: 2 })).toThrow(RangeError);
    expect(() => createSampleData({ release: -1 })).toThrow(RangeError);
    expect(() => createSampleData({ records: 4, release: 1 })).toThrow(/records >= 5/);
    expect(createSampleData({ records: 5, release: 1 }).changes.length).toBeGreaterThan(0);
  });
});
