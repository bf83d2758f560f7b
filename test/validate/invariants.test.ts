import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvariantChecker } from '../../src/validate/invariants.js';
import type { DocumentSummary } from '../../src/validate/summary.js';
import { validateDocument } from '../../src/validate/validate-document.js';
import {
  actionCategory,
  communityRecord,
  listPage,
  otherResource,
  pageUrl,
  recordDocument,
  recordUrl,
  relationshipDocument,
  ROOT,
  rootIndex,
  SPEC_COLLECTIONS,
} from '../helpers/validate-fixtures.js';

type Ref = [string, string, string];
type Entry = [string, DocumentSummary];

/** The canonical URL of page n (spec 4.1 link spelling minus format, page 1 bare). */
function canonicalPage(collection: string, n: number): string {
  return n === 1 ? `${ROOT}${collection}/` : `${ROOT}${collection}/?page[number]=${n}`;
}

function page(
  collection: string,
  n: number,
  pages: number,
  count: number,
  resources: Array<[string, string]>,
  more: Partial<Extract<DocumentSummary, { kind: 'list' }>> = {},
): Entry {
  return [
    pageUrl(collection, n),
    {
      kind: 'list',
      collection,
      page: n,
      pages,
      count,
      records: resources.length,
      listed: resources.length,
      next: n < pages ? 'link' : 'null',
      prev: n > 1 ? 'link' : 'null',
      resources,
      targets: [],
      roots: [],
      ...more,
    },
  ];
}

function record(url: string, resources: Array<[string, string]>, targets: Ref[] = [], roots: Ref[] = []): Entry {
  return [url, { kind: 'record', resources, targets, roots }];
}

function rootEntry(collections = SPEC_COLLECTIONS): Entry {
  return [`${ROOT}?format=api`, { kind: 'root', collections }];
}

/** Every spec 2.2 collection not in `entries` as one empty page, as the service answers an empty collection. */
function withEmptyCollections(entries: Entry[]): Entry[] {
  const present = new Set(entries.map(([, s]) => (s.kind === 'list' ? s.collection : '')));
  const empty = SPEC_COLLECTIONS.filter((c) => !present.has(c)).map((c) => page(c, 1, 1, 0, []));
  return [...entries, ...empty];
}

/** A small consistent snapshot: actioncategories over two pages, their targets, and a community record. */
function snapshot(): Entry[] {
  return withEmptyCollections([
    rootEntry(),
    page(
      'actioncategories',
      1,
      2,
      3,
      [
        ['ActionCategory', '1'],
        ['ActionCategory', '2'],
      ],
      {
        targets: [['ActionType', '1', '/data/0/relationships/action_types/data/0']],
      },
    ),
    page('actioncategories', 2, 2, 3, [['ActionCategory', '3']]),
    record(
      recordUrl('actioncategories', '1'),
      [['ActionCategory', '1']],
      [
        ['GlobalProvenance', '1', '/data/relationships/global_provenance/data'],
        ['ActionType', '1', '/data/relationships/action_types/data/0'],
      ],
    ),
    page('actiontypes', 1, 1, 1, [['ActionType', '1']]),
    page('globalprovenances', 1, 1, 1, [['GlobalProvenance', '1']]),
    page('units', 1, 1, 1, [['Unit', '3']]),
    page('communities', 1, 1, 1, [['Community', '1']]),
    page('units-communities', 1, 1, 1, [['UnitCommunity', '8']], {
      targets: [['Community', '1', '/data/0/relationships/community/data']],
      roots: [['Unit', '3', '/data/0/relationships/root/data']],
    }),
  ]);
}

function check(entries: Entry[]) {
  const checker = new InvariantChecker(ROOT);
  for (const [url, summary] of entries) checker.add(url, summary);
  return checker.finish();
}

function triples(entries: Entry[]) {
  return check(entries).map((f) => [f.url, f.pointer, f.rule, f.severity]);
}

function replace(entries: Entry[], url: string, entry: Entry | undefined): Entry[] {
  const out = entries.filter(([u]) => u !== url);
  if (entry !== undefined) out.push(entry);
  return out;
}

const AC = 'actioncategories';

describe('InvariantChecker', () => {
  it('finds nothing in a consistent snapshot', () => {
    expect(check(snapshot())).toEqual([]);
  });

  it('finds nothing in a snapshot made of spec documents run through validateDocument', () => {
    const docs: Array<[unknown, string]> = [
      [rootIndex(), ROOT],
      [
        listPage(AC, [actionCategory('1', ['1']), actionCategory('2', [])], { page: 1, pages: 2, count: 3 }),
        pageUrl(AC, 1),
      ],
      [listPage(AC, [actionCategory('3', [])], { page: 2, pages: 2, count: 3 }), pageUrl(AC, 2)],
      [recordDocument(actionCategory('1', ['1'])), recordUrl(AC, '1')],
      [
        relationshipDocument(AC, '1', 'action_types', [{ type: 'ActionType', id: '1' }]),
        `${ROOT}${AC}/1/relationships/action_types`,
      ],
      [listPage('actiontypes', [otherResource('ActionType', 'actiontypes', '1')]), pageUrl('actiontypes', 1)],
      [
        listPage('globalprovenances', [otherResource('GlobalProvenance', 'globalprovenances', '1')]),
        `${ROOT}globalprovenances/`,
      ],
      [listPage('units-communities', [communityRecord('UnitCommunity', '8', '3')]), `${ROOT}units-communities/`],
      [listPage('units', [otherResource('Unit', 'units', '3')]), `${ROOT}units/`],
      [listPage('communities', [otherResource('Community', 'communities', '1')]), `${ROOT}communities/`],
    ];
    const present = new Set(docs.map(([, url]) => new URL(url).pathname.split('/').at(-2)));
    for (const c of SPEC_COLLECTIONS) if (!present.has(c)) docs.push([listPage(c, [], { count: 0 }), `${ROOT}${c}/`]);
    const checker = new InvariantChecker(ROOT);
    for (const [doc, url] of docs) {
      const result = validateDocument(doc, url, ROOT);
      expect(result.findings, url).toEqual([]);
      checker.add(url, result.summary);
    }
    expect(checker.finish()).toEqual([]);
    expect(checker.undescribedTypes()).toEqual({ ActionType: 1, Community: 1, GlobalProvenance: 1, Unit: 1 });
  });

  it('pagination.count: the pages hold fewer records than meta.pagination.count', () => {
    const entries = replace(snapshot(), pageUrl(AC, 2), page(AC, 2, 2, 3, []));
    expect(triples(entries)).toEqual([[canonicalPage(AC, 1), '/meta/pagination/count', 'pagination.count', 'error']]);
  });

  it('pagination.duplicate: a record on two pages stands in for one on none (1, 2, 2 of 3)', () => {
    const entries = replace(snapshot(), pageUrl(AC, 2), page(AC, 2, 2, 3, [['ActionCategory', '2']]));
    const findings = check(entries);
    expect(findings.map((f) => [f.url, f.pointer, f.rule])).toEqual([
      [canonicalPage(AC, 1), '/meta/pagination/count', 'pagination.count'],
      [canonicalPage(AC, 2), '/data/0', 'pagination.duplicate'],
    ]);
    expect(findings[1]?.message).toContain('lists ActionCategory 2 on pages 1 and 2');
    expect(findings[0]?.message).toContain('hold 2 distinct ones (3 listed)');
  });

  it('pagination.count: pages disagree on the count', () => {
    const entries = replace(snapshot(), pageUrl(AC, 2), page(AC, 2, 2, 4, [['ActionCategory', '3']]));
    const findings = check(entries);
    expect(findings.map((f) => [f.url, f.pointer, f.rule])).toEqual([
      [canonicalPage(AC, 2), '/meta/pagination/count', 'pagination.count'],
    ]);
    expect(findings[0]?.message).toContain('page 1 says 3');
  });

  it('pagination.pages: a page of 1..pages is missing', () => {
    const entries = replace(snapshot(), pageUrl(AC, 2), undefined);
    const findings = check(entries);
    expect(findings.map((f) => [f.url, f.pointer, f.rule])).toEqual([
      [canonicalPage(AC, 1), '/meta/pagination/pages', 'pagination.pages'],
    ]);
    expect(findings[0]?.message).toContain('page 2');
  });

  it('pagination.pages: pages disagree, and a page lies beyond pages', () => {
    const entries = [
      ...replace(snapshot(), pageUrl(AC, 2), page(AC, 2, 3, 3, [['ActionCategory', '3']], { next: 'null' })),
      page(AC, 3, 2, 3, [], { next: 'null' }),
    ];
    expect(triples(entries)).toEqual([
      [canonicalPage(AC, 2), '/meta/pagination/pages', 'pagination.pages', 'error'],
      [canonicalPage(AC, 3), '/meta/pagination/page', 'pagination.pages', 'error'],
    ]);
  });

  it('pagination.pages: a huge pages value is reported without walking every page number', () => {
    const entries = replace(snapshot(), pageUrl(AC, 2), undefined);
    const huge = page(AC, 1, Number.MAX_SAFE_INTEGER, 3, [
      ['ActionCategory', '1'],
      ['ActionCategory', '2'],
    ]);
    const withHuge = replace(entries, pageUrl(AC, 1), huge);
    const findings = check(withHuge);
    expect(findings.map((f) => f.rule)).toEqual(['pagination.pages']);
    expect(findings[0]?.message).toMatch(/pages 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and \d+ more/);
  });

  it('pagination.next: null before the last page, and a link on the last page', () => {
    const entries = replace(
      snapshot(),
      pageUrl(AC, 1),
      page(
        AC,
        1,
        2,
        3,
        [
          ['ActionCategory', '1'],
          ['ActionCategory', '2'],
        ],
        { next: 'null' },
      ),
    );
    const last = replace(entries, pageUrl(AC, 2), page(AC, 2, 2, 3, [['ActionCategory', '3']], { next: 'link' }));
    expect(triples(last)).toEqual([
      [canonicalPage(AC, 1), '/links/next', 'pagination.next', 'error'],
      [canonicalPage(AC, 2), '/links/next', 'pagination.next', 'error'],
    ]);
  });

  it('pagination.prev: a link on the first page, and null after it', () => {
    const entries = replace(
      snapshot(),
      pageUrl(AC, 1),
      page(
        AC,
        1,
        2,
        3,
        [
          ['ActionCategory', '1'],
          ['ActionCategory', '2'],
        ],
        { prev: 'link' },
      ),
    );
    const both = replace(entries, pageUrl(AC, 2), page(AC, 2, 2, 3, [['ActionCategory', '3']], { prev: 'null' }));
    expect(triples(both)).toEqual([
      [canonicalPage(AC, 1), '/links/prev', 'pagination.prev', 'error'],
      [canonicalPage(AC, 2), '/links/prev', 'pagination.prev', 'error'],
    ]);
  });

  it('reference.target: a target that is nowhere in the snapshot, reported once at its first referrer', () => {
    const entries = snapshot();
    entries.push(
      record(
        recordUrl(AC, '2'),
        [['ActionCategory', '2']],
        [['ActionType', '9', '/data/relationships/action_types/data/0']],
      ),
    );
    entries.push(
      record(
        `${ROOT}${AC}/1/action_types/`,
        [['ActionType', '1']],
        [['ActionType', '9', '/data/relationships/x/data']],
      ),
    );
    const findings = check(entries);
    expect(findings.map((f) => [f.url, f.pointer, f.rule, f.severity])).toEqual([
      [`${ROOT}${AC}/1/action_types/`, '/data/relationships/x/data', 'reference.target', 'error'],
    ]);
    expect(findings[0]?.message).toContain('ActionType 9');
    expect(findings[0]?.message).toContain('1 more time');
  });

  it('reference.target: a resource seen only as a target does not count as present', () => {
    const entries = replace(snapshot(), pageUrl('globalprovenances', 1), page('globalprovenances', 1, 1, 0, []));
    expect(triples(entries)).toEqual([
      [recordUrl(AC, '1'), '/data/relationships/global_provenance/data', 'reference.target', 'error'],
    ]);
  });

  it('community.root: a community record whose root is not in the snapshot', () => {
    const entries = replace(snapshot(), pageUrl('units', 1), page('units', 1, 1, 0, []));
    expect(triples(entries)).toEqual([
      [`${ROOT}units-communities/`, '/data/0/relationships/root/data', 'community.root', 'error'],
    ]);
  });

  it('root.collections: missing collections are errors, extra ones warnings', () => {
    const collections = [...SPEC_COLLECTIONS.filter((c) => c !== 'units' && c !== 'communities'), 'things'];
    const entries = [...replace(snapshot(), `${ROOT}?format=api`, rootEntry(collections)), page('things', 1, 1, 0, [])];
    const findings = check(entries);
    expect(findings.map((f) => [f.url, f.pointer, f.rule, f.severity])).toEqual([
      [ROOT, '/data', 'root.collections', 'error'],
      [ROOT, '/data', 'root.collections', 'error'],
      [ROOT, '/data/things', 'root.collections', 'warning'],
    ]);
    expect(findings[0]?.message).toContain('communities');
    expect(findings[1]?.message).toContain('units');
  });

  it('pagination.pages: a collection the root index lists has no pages in the snapshot', () => {
    const entries = replace(snapshot(), pageUrl('countries', 1), undefined);
    expect(triples(entries)).toEqual([[ROOT, '/data/countries', 'pagination.pages', 'error']]);
  });

  it('root.collections: a snapshot without a root index', () => {
    expect(triples(replace(snapshot(), `${ROOT}?format=api`, undefined))).toEqual([
      [ROOT, '', 'root.collections', 'error'],
    ]);
  });

  it('counts the distinct resources of types the spec does not describe', () => {
    const checker = new InvariantChecker(ROOT);
    for (const [url, summary] of snapshot()) checker.add(url, summary);
    expect(checker.undescribedTypes()).toEqual({ ActionType: 1, Community: 1, GlobalProvenance: 1, Unit: 1 });
  });

  it('gives the same findings whatever order the summaries arrive in', () => {
    const entries = [
      ...replace(snapshot(), pageUrl(AC, 2), page(AC, 2, 3, 4, [['ActionCategory', '3']], { prev: 'null' })),
      record(
        recordUrl(AC, '2'),
        [['ActionCategory', '2']],
        [['ActionType', '9', '/data/relationships/action_types/data/0']],
      ),
      record(
        `${ROOT}${AC}/1/action_types/`,
        [['ActionType', '1']],
        [['ActionType', '9', '/data/relationships/x/data']],
      ),
      record(
        recordUrl('units-communities', '9'),
        [['UnitCommunity', '9']],
        [],
        [['Unit', '4', '/data/relationships/root/data']],
      ),
    ];
    const expected = check(entries);
    expect(expected.length).toBeGreaterThan(4);
    fc.assert(
      fc.property(fc.shuffledSubarray(entries, { minLength: entries.length }), (shuffled) => {
        expect(check(shuffled)).toEqual(expected);
      }),
      { numRuns: 50 },
    );
  });
});
