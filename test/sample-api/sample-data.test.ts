import { describe, expect, it } from 'vitest';
import { createSampleData, type SampleData, type SampleRecord } from '../../src/sample-api/index.js';
import { ALL_COLLECTIONS, COMMUNITY_COLLECTIONS, TABULATED } from './spec-expectations.js';

function collection(sample: SampleData, name: string) {
  const found = sample.byName.get(name);
  if (found === undefined) throw new Error(`no collection ${name}`);
  return found;
}

function allRecords(sample: SampleData): Array<[string, SampleRecord]> {
  return sample.collections.flatMap((c) => c.records.map((r): [string, SampleRecord] => [c.name, r]));
}

// Every case the spec names holds in release 0 and in the "next release" alike.
describe.each([0, 1])('createSampleData, release %i', (release) => {
  const data = createSampleData({ seed: 1, records: 12, release });

  it('is deterministic for a seed and differs across seeds', () => {
    expect(createSampleData({ seed: 1, records: 12, release })).toEqual(data);
    expect(createSampleData({ seed: 2, records: 12, release })).not.toEqual(data);
  });

  it('has every collection of spec 2.2, in order, each scaled by records', () => {
    expect(data.collections.map((c) => c.name)).toEqual(ALL_COLLECTIONS);
    for (const c of data.collections) {
      const net = data.changes
        .filter((x) => x.collection === c.name)
        .reduce((n, x) => n + (x.kind === 'added' ? 1 : x.kind === 'removed' ? -1 : 0), 0);
      expect(c.records).toHaveLength(12 + net);
    }
    for (const c of createSampleData({ records: 0 }).collections) expect(c.records).toHaveLength(0);
  });

  it('gives tabulated types exactly the attributes and relationships of spec 2.3/2.4', () => {
    for (const [type, expected] of Object.entries(TABULATED)) {
      const c = collection(data, expected.collection);
      expect(c.type).toBe(type);
      expect(c.relationships.map((r) => r.name).sort()).toEqual(Object.keys(expected.relationships).sort());
      for (const r of c.relationships) {
        const [kind, targetType] = expected.relationships[r.name] ?? [];
        expect(r.kind).toBe(kind);
        if (targetType !== null) expect(r.targetType).toBe(targetType);
      }
      for (const record of c.records)
        expect(Object.keys(record.attributes).sort()).toEqual([...expected.attributes].sort());
    }
  });

  it('names community types <RootType>Community', () => {
    for (const name of COMMUNITY_COLLECTIONS) {
      const c = collection(data, name);
      const root = collection(data, name.replace(/-communities$/, ''));
      expect(c.type).toBe(`${root.type}Community`);
    }
    expect(collection(data, 'units-communities').type).toBe('UnitCommunity');
  });

  it('has numeric-text ids, ascending, with gaps', () => {
    for (const c of data.collections) {
      const ids = c.records.map((r) => r.id);
      for (const id of ids) expect(id).toMatch(/^[1-9]\d*$/);
      const numbers = ids.map(Number);
      expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(ids.length);
      expect(numbers.at(-1)! - numbers[0]!).toBeGreaterThan(ids.length - 1);
    }
  });

  it('points every relationship at an existing record of the right collection', () => {
    for (const [name, record] of allRecords(data)) {
      for (const definition of collection(data, name).relationships) {
        const value = record.relationships[definition.name];
        if (definition.kind === 'links-only') {
          expect(value).toBeUndefined();
          continue;
        }
        const ids = definition.kind === 'to-many' ? (value as string[]) : value === null ? [] : [value as string];
        if (definition.kind === 'to-many') expect(Array.isArray(value)).toBe(true);
        for (const id of ids) expect(collection(data, definition.target).byId.has(id)).toBe(true);
      }
    }
  });

  it('makes action_types the inverse of action_category (spec 2.4 rule 3), with empty lists too', () => {
    const counts = collection(data, 'actioncategories').records.map((category) => {
      const listed = category.relationships.action_types as string[];
      const pointing = collection(data, 'actiontypes')
        .records.filter((t) => t.relationships.action_category === category.id)
        .map((t) => t.id);
      expect(listed).toEqual(pointing);
      return listed.length;
    });
    expect(counts).toContain(0);
    expect(Math.max(...counts)).toBeGreaterThan(1);
  });

  it('has community ids equal to and different from their root id, and several communities per base term', () => {
    for (const name of COMMUNITY_COLLECTIONS) {
      const records = collection(data, name).records;
      const roots = records.map((r) => r.relationships.root as string);
      expect(records.some((r) => r.id === r.relationships.root)).toBe(true);
      expect(records.some((r) => r.id !== r.relationships.root)).toBe(true);
      const byRoot = new Map<string, Set<string>>();
      records.forEach((r, i) =>
        byRoot.set(roots[i]!, (byRoot.get(roots[i]!) ?? new Set()).add(r.relationships.community as string)),
      );
      expect(Math.max(...[...byRoot.values()].map((s) => s.size))).toBeGreaterThan(1);
    }
  });

  it('has a PENDING SiteUsage as spec 3 describes it, and ACCEPTED records without a requester', () => {
    const usages = collection(data, 'siteusages').records;
    const pending = usages.filter((r) => r.attributes.status === 'PENDING');
    expect(pending.length).toBeGreaterThan(0);
    for (const r of pending) {
      expect(r.attributes.requested_by_email).toMatch(/^[^@\s]+@[^@\s]+$/);
      expect(r.relationships.global_provenance).toBeNull();
      expect(r.relationships.site_types).toEqual([]);
    }
    for (const name of ['actioncategories', 'siteusages', 'licenses']) {
      for (const r of collection(data, name).records.filter((x) => x.attributes.status === 'ACCEPTED')) {
        expect(r.attributes.requested_by_email).toBeNull();
        expect(r.relationships.global_provenance).not.toBeNull();
        if (name === 'siteusages') expect((r.relationships.site_types as string[]).length).toBeGreaterThan(0);
      }
    }
    expect(collection(data, 'actioncategories').records.every((r) => r.attributes.status === 'ACCEPTED')).toBe(true);
  });

  it('has null and empty-string values of the nullable attributes, and non-ASCII text', () => {
    for (const type of ['ActionCategory', 'SiteUsage', 'License', 'UnitCommunity', 'MeasuredQuantityCommunity']) {
      const records = collection(data, TABULATED[type]!.collection).records;
      for (const attribute of ['definition', 'provenance', 'provenance_uri', 'note']) {
        const values = records.map((r) => r.attributes[attribute]);
        expect(values, `${type}.${attribute}`).toContain(null);
        expect(values, `${type}.${attribute}`).toContain('');
      }
    }
    const text = JSON.stringify(allRecords(data));
    for (const word of ['µmol/m²·s', 'Å', 'Zürich', 'Côte d’Ivoire']) expect(text).toContain(word);
  });

  it('keeps the special cases at a small size', () => {
    const small = createSampleData({ seed: 7, records: release === 0 ? 3 : 5, release });
    expect(collection(small, 'siteusages').records.some((r) => r.attributes.status === 'PENDING')).toBe(true);
    const units = collection(small, 'units-communities').records;
    expect(units.some((r) => r.id === r.relationships.root)).toBe(true);
    expect(units.some((r) => r.id !== r.relationships.root)).toBe(true);
  });

  it('refuses a negative or fractional size', () => {
    expect(() => createSampleData({ records: -1 })).toThrow(RangeError);
    expect(() => createSampleData({ records: 1.5 })).toThrow(RangeError);
  });
});
