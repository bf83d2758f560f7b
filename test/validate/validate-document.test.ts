import { describe, expect, it } from 'vitest';
import { validateDocument } from '../../src/validate/validate-document.js';
import {
  actionCategory,
  clone,
  communityRecord,
  COMMUNITY_TYPES,
  license,
  listPage,
  otherResource,
  pageUrl,
  recordDocument,
  recordUrl,
  relatedDocument,
  relationshipDocument,
  ROOT,
  rootIndex,
  siteUsage,
  SPEC_COLLECTIONS,
  type CommunityType,
} from '../helpers/validate-fixtures.js';

const AC_LIST = `${ROOT}actioncategories/`;
const AC_1 = recordUrl('actioncategories', '1');

/** The (pointer, rule, severity) triples of a check, for compact assertions. */
function found(doc: unknown, url: string, root = ROOT) {
  return validateDocument(doc, url, root).findings.map((f) => [f.pointer, f.rule, f.severity]);
}

describe('validateDocument: valid documents', () => {
  const communityTypes = Object.keys(COMMUNITY_TYPES) as CommunityType[];

  it('accepts the root index and summarises its collections', () => {
    const check = validateDocument(rootIndex(), `${ROOT}?format=api`, ROOT);
    expect(check.findings).toEqual([]);
    expect(check.summary).toEqual({ kind: 'root', collections: SPEC_COLLECTIONS });
  });

  it('accepts a list page of every tabulated type', () => {
    const pages: Array<[string, unknown[]]> = [
      ['actioncategories', [actionCategory('1'), actionCategory('2', [])]],
      ['siteusages', [siteUsage('1'), siteUsage('2', 'PENDING')]],
      ['licenses', [license('1')]],
      ...communityTypes.map((t): [string, unknown[]] => [
        COMMUNITY_TYPES[t].collection,
        [communityRecord(t, '3', '9')],
      ]),
    ];
    for (const [collection, data] of pages) {
      const doc = listPage(collection, data as never, { page: 2, pages: 3, count: 7 });
      const check = validateDocument(doc, pageUrl(collection, 2), ROOT);
      expect(check.findings, collection).toEqual([]);
    }
  });

  it('summarises a list page: pagination, records, resources and targets', () => {
    const doc = listPage('actioncategories', [actionCategory('1', ['5'])], { page: 2, pages: 3, count: 7 });
    const check = validateDocument(doc, pageUrl('actioncategories', 2), ROOT);
    expect(check.summary).toEqual({
      kind: 'list',
      collection: 'actioncategories',
      page: 2,
      pages: 3,
      count: 7,
      records: 1,
      listed: 1,
      next: 'link',
      prev: 'link',
      resources: [['ActionCategory', '1']],
      targets: [
        ['GlobalProvenance', '1', '/data/0/relationships/global_provenance/data'],
        ['ActionType', '5', '/data/0/relationships/action_types/data/0'],
      ],
      roots: [],
    });
  });

  it('accepts a record document of every tabulated type, with or without ?format=api', () => {
    const records = [
      actionCategory('1'),
      siteUsage('4', 'PENDING'),
      license('2'),
      ...communityTypes.map((t) => communityRecord(t, '5', '5')),
    ];
    for (const resource of records) {
      const collection = new URL(resource.links.self).pathname.split('/').at(-3)!;
      const url = recordUrl(collection, resource.id);
      expect(found(recordDocument(resource), url), resource.type).toEqual([]);
      expect(found(recordDocument(resource), `${url}?format=api`), resource.type).toEqual([]);
    }
  });

  it('summarises a community record: its root apart from the other targets', () => {
    const doc = recordDocument(communityRecord('UnitCommunity', '8', '3', { communityId: '2' }));
    const check = validateDocument(doc, recordUrl('units-communities', '8'), ROOT);
    expect(check.findings).toEqual([]);
    expect(check.summary).toEqual({
      kind: 'record',
      resources: [['UnitCommunity', '8']],
      targets: [['Community', '2', '/data/relationships/community/data']],
      roots: [['Unit', '3', '/data/relationships/root/data']],
    });
  });

  it('accepts relationship documents (to-one, null, to-many) and summarises their targets', () => {
    const toOne = relationshipDocument('units-communities', '8', 'root', { type: 'Unit', id: '3' });
    const check = validateDocument(toOne, `${ROOT}units-communities/8/relationships/root?format=api`, ROOT);
    expect(check.findings).toEqual([]);
    expect(check.summary).toEqual({
      kind: 'relationship',
      resources: [],
      targets: [],
      roots: [['Unit', '3', '/data']],
    });

    const none = relationshipDocument('siteusages', '4', 'global_provenance', null);
    expect(found(none, `${ROOT}siteusages/4/relationships/global_provenance`)).toEqual([]);

    const many = relationshipDocument('actioncategories', '1', 'action_types', [
      { type: 'ActionType', id: '1' },
      { type: 'ActionType', id: '2' },
    ]);
    const manyCheck = validateDocument(many, `${ROOT}actioncategories/1/relationships/action_types`, ROOT);
    expect(manyCheck.findings).toEqual([]);
    expect(manyCheck.summary.kind === 'relationship' && manyCheck.summary.targets).toEqual([
      ['ActionType', '1', '/data/0'],
      ['ActionType', '2', '/data/1'],
    ]);
  });

  it('accepts related documents: a resource, null and a list', () => {
    const one = relatedDocument(actionCategory('3'));
    expect(found(one, `${ROOT}actioncategories-communities/4/root/`)).toEqual([]);
    expect(found(relatedDocument(null), `${ROOT}siteusages/4/global_provenance/`)).toEqual([]);
    const types = [otherResource('ActionType', 'actiontypes', '1'), otherResource('ActionType', 'actiontypes', '2')];
    const check = validateDocument(relatedDocument(types), `${ROOT}actioncategories/1/action_types/?format=api`, ROOT);
    expect(check.findings).toEqual([]);
    expect(check.summary.kind === 'related' && check.summary.resources).toEqual([
      ['ActionType', '1'],
      ['ActionType', '2'],
    ]);
  });

  it('works under any root path', () => {
    const root = 'https://cv.example.org/cv/api/v1/';
    expect(found(rootIndex(SPEC_COLLECTIONS, root), root, root)).toEqual([]);
    const doc = listPage('licenses', [license('1', { root })], { pages: 2, count: 2, root });
    expect(found(doc, `${root}licenses/`, root)).toEqual([]);
    expect(found(recordDocument(license('1', { root })), `${root}licenses/1/`, root)).toEqual([]);
  });

  it('accepts other types with the generic resource schema', () => {
    const doc = listPage('actiontypes', [otherResource('ActionType', 'actiontypes', '1')]);
    expect(found(doc, `${ROOT}actiontypes/`)).toEqual([]);
  });

  it('reports the canonical URL of the document', () => {
    const doc = recordDocument(actionCategory('1'));
    doc.data.attributes.status = 'RETIRED';
    const [first] = validateDocument(doc, `${AC_1}?format=api`, ROOT).findings;
    expect(first?.url).toBe(AC_1);
  });
});

describe('validateDocument: JSON:API and document shapes', () => {
  it('jsonapi.document: data beside errors', () => {
    const doc = { data: null, errors: [{ detail: 'x' }], meta: {} };
    expect(found(doc, `${ROOT}other?x=1`)).toEqual([['/errors', 'jsonapi.document', 'error']]);
  });

  it('jsonapi.document: a resource with a numeric id, without restating it as a list.shape or record.self', () => {
    const item = actionCategory('2') as unknown as Record<string, unknown>;
    item.id = 2;
    const doc = listPage('actioncategories', [actionCategory('1'), item as never]);
    expect(found(doc, AC_LIST)).toEqual([['/data/1/id', 'jsonapi.document', 'error']]);
  });

  it('jsonapi.document: a relationship object with an unknown member and an attribute named id', () => {
    const resource = otherResource('Thing', 'things', '1');
    resource.relationships.owner = { data: null, extra: true };
    resource.attributes.id = '1';
    const findings = found({ data: resource }, `${ROOT}things/1/`);
    expect(findings).toEqual([
      ['/data/relationships/owner/extra', 'jsonapi.document', 'error'],
      ['/data/attributes/id', 'jsonapi.document', 'error'],
    ]);
    delete resource.relationships.owner;
    expect(found({ data: resource }, `${ROOT}things/1/`)).toEqual([
      ['/data/attributes/id', 'jsonapi.document', 'error'],
    ]);
  });

  it('jsonapi.document: a broken relationship object inside a list page, on any type', () => {
    const other = otherResource('Thing', 'things', '2');
    other.relationships.owner = { links: { about: 'x' } };
    const tabulated = actionCategory('3');
    tabulated.relationships.successor = { ...tabulated.relationships.successor, extra: 1 };
    const doc = listPage('actioncategories', [actionCategory('1'), other, tabulated]);
    // The JSON:API breach is reported once as such, not again as cv.relationships.
    expect(found(doc, AC_LIST)).toEqual([
      ['/data/1/links/self', 'record.self', 'error'],
      ['/data/1/relationships/owner/links', 'jsonapi.document', 'error'],
      ['/data/2/relationships/successor/extra', 'jsonapi.document', 'error'],
    ]);
  });

  it('jsonapi.document: a document with neither data, errors nor meta', () => {
    expect(found({ links: {} }, `${ROOT}other?x=1`)).toEqual([['', 'jsonapi.document', 'error']]);
    expect(found([], `${ROOT}other?x=1`)).toEqual([['', 'jsonapi.document', 'error']]);
  });

  it('root.shape: a root index whose data is not a name → URL map', () => {
    expect(found({ data: [] }, ROOT)).toEqual([['/data', 'root.shape', 'error']]);
    const doc = rootIndex() as { data: Record<string, unknown> };
    doc.data.units = 3;
    expect(found(doc, ROOT)).toEqual([['/data/units', 'root.shape', 'error']]);
  });

  it('root.links: a collection URL that addresses another collection', () => {
    const doc = rootIndex();
    doc.data.units = `${ROOT}unit/?format=api`;
    const check = validateDocument(doc, ROOT, ROOT);
    expect(check.findings.map((f) => [f.pointer, f.rule])).toEqual([['/data/units', 'root.links']]);
    expect(check.findings[0]?.message).toContain('units');
  });

  it('list.shape: missing pagination, a link object for next, data not an array', () => {
    const doc = clone(listPage('licenses', [license('1')], { pages: 2, count: 2 })) as Record<string, any>;
    doc.meta = { count: 2 };
    expect(found(doc, `${ROOT}licenses/`)).toEqual([['/meta/pagination', 'list.shape', 'error']]);
    const withObject = clone(listPage('licenses', [license('1')], { pages: 2, count: 2 })) as Record<string, any>;
    withObject.links.next = { href: withObject.links.next };
    expect(found(withObject, `${ROOT}licenses/`)).toEqual([['/links/next', 'list.shape', 'error']]);
    const notArray = clone(listPage('licenses', [license('1')])) as Record<string, any>;
    notArray.data = license('1');
    expect(found(notArray, `${ROOT}licenses/`)).toEqual([['/data', 'list.shape', 'error']]);
  });

  it('list.shape: pagination numbers that are not integers', () => {
    const doc = clone(listPage('licenses', [license('1')])) as Record<string, any>;
    doc.meta.pagination.count = '1';
    doc.meta.pagination.pages = 0;
    expect(found(doc, `${ROOT}licenses/`)).toEqual([
      ['/meta/pagination/pages', 'list.shape', 'error'],
      ['/meta/pagination/count', 'list.shape', 'error'],
    ]);
  });

  it('record.shape: a record address answering null or a list', () => {
    expect(found({ data: null }, AC_1)).toEqual([['/data', 'record.shape', 'error']]);
    expect(found({ data: [actionCategory('1')] }, AC_1)).toEqual([['/data', 'record.shape', 'error']]);
  });

  it('relationship.shape: no links.self, or full resources instead of linkage', () => {
    const url = `${ROOT}actioncategories/1/relationships/global_provenance`;
    expect(found({ data: { type: 'GlobalProvenance', id: '1' } }, url)).toEqual([
      ['/links', 'relationship.shape', 'error'],
    ]);
    const doc = relationshipDocument('actioncategories', '1', 'global_provenance', null) as Record<string, unknown>;
    doc.data = otherResource('GlobalProvenance', 'globalprovenances', '1');
    expect(found(doc, url)).toEqual([
      ['/data/attributes', 'relationship.shape', 'error'],
      ['/data/relationships', 'relationship.shape', 'error'],
      ['/data/links', 'relationship.shape', 'error'],
    ]);
  });

  it('related.shape: a related address answering only meta', () => {
    expect(found({ meta: {} }, `${ROOT}siteusages/4/global_provenance/`)).toEqual([
      ['/data', 'related.shape', 'error'],
    ]);
  });
});

describe('validateDocument: tabulated types (spec 2.3, 2.4)', () => {
  it('cv.attributes: an unknown attribute, a wrong type, a missing attribute', () => {
    const resource = actionCategory('1');
    resource.attributes.colour = 'red';
    resource.attributes.definition = 5;
    delete resource.attributes.term;
    const check = validateDocument(recordDocument(resource), AC_1, ROOT);
    expect(check.findings.map((f) => [f.pointer, f.rule, f.severity])).toEqual([
      ['/data/attributes/term', 'cv.attributes', 'error'],
      ['/data/attributes/definition', 'cv.attributes', 'error'],
      ['/data/attributes/colour', 'cv.attributes', 'error'],
    ]);
    expect(check.findings[0]?.message).toMatch(/ActionCategory 1: `attributes\/term` is missing/);
    expect(check.findings[1]?.message).toMatch(/must be a string, not number/);
  });

  it('cv.attributes: a community record carrying status (spec 2.3)', () => {
    const resource = communityRecord('ManufacturerCommunity', '2', '7');
    resource.attributes.status = 'ACCEPTED';
    const doc = listPage('manufacturers-communities', [communityRecord('ManufacturerCommunity', '1', '7'), resource]);
    expect(found(doc, `${ROOT}manufacturers-communities/`)).toEqual([
      ['/data/1/attributes/status', 'cv.attributes', 'error'],
    ]);
  });

  it('cv.relationships: wrong target type, missing and extra relationships', () => {
    const resource = actionCategory('1');
    (resource.relationships.global_provenance as { data: unknown }).data = { type: 'Provenance', id: '1' };
    delete resource.relationships.successor;
    resource.relationships.owner = { data: null };
    expect(found(recordDocument(resource), AC_1)).toEqual([
      ['/data/relationships/global_provenance/data/type', 'cv.relationships', 'error'],
      ['/data/relationships/successor', 'cv.relationships', 'error'],
      ['/data/relationships/owner', 'cv.relationships', 'error'],
    ]);
  });

  it('cv.relationships: successor with data, to-many without meta, a null community root', () => {
    const resource = siteUsage('1');
    resource.relationships.successor = { ...resource.relationships.successor, data: null };
    delete resource.relationships.site_types!.meta;
    expect(found(recordDocument(resource), recordUrl('siteusages', '1'))).toEqual([
      ['/data/relationships/site_types/meta', 'cv.relationships', 'error'],
      ['/data/relationships/successor/data', 'cv.relationships', 'error'],
    ]);
    const community = communityRecord('UnitCommunity', '1', '1');
    (community.relationships.root as { data: unknown }).data = null;
    expect(found(recordDocument(community), recordUrl('units-communities', '1'))).toEqual([
      ['/data/relationships/root/data', 'cv.relationships', 'error'],
    ]);
  });

  it('cv.status: an unknown status is a warning', () => {
    const resource = license('1');
    resource.attributes.status = 'RETIRED';
    expect(found(recordDocument(resource), recordUrl('licenses', '1'))).toEqual([
      ['/data/attributes/status', 'cv.status', 'warning'],
    ]);
  });

  it('cv.format: a provenance_uri that is no URI and a requester that is no e-mail address', () => {
    const resource = siteUsage('2', 'PENDING');
    resource.attributes.provenance_uri = 'see the handbook';
    resource.attributes.requested_by_email = 'the lab';
    const doc = listPage('siteusages', [resource]);
    expect(found(doc, `${ROOT}siteusages/`)).toEqual([
      ['/data/0/attributes/provenance_uri', 'cv.format', 'warning'],
      ['/data/0/attributes/requested_by_email', 'cv.format', 'warning'],
    ]);
  });

  it('resource.id: an id that is not numeric text', () => {
    const resource = otherResource('Country', 'countries', 'de');
    expect(found(recordDocument(resource), recordUrl('countries', 'de'))).toEqual([
      ['/data/id', 'resource.id', 'warning'],
    ]);
  });

  it('relationship.count: to-many meta.count differs from data, on tabulated and other types', () => {
    const resource = actionCategory('1', ['1', '2']);
    (resource.relationships.action_types!.meta as { count: number }).count = 3;
    const check = validateDocument(listPage('actioncategories', [resource]), AC_LIST, ROOT);
    expect(check.findings.map((f) => [f.url, f.pointer, f.rule])).toEqual([
      [AC_LIST, '/data/0/relationships/action_types/meta/count', 'relationship.count'],
    ]);
    const other = otherResource('Platform', 'platforms', '1');
    other.relationships.parts = { data: [], meta: { count: 1 } };
    expect(found(recordDocument(other), recordUrl('platforms', '1'))).toEqual([
      ['/data/relationships/parts/meta/count', 'relationship.count', 'error'],
    ]);
  });
});

describe('validateDocument: addresses', () => {
  it('record.self: a list record whose self names another record or collection', () => {
    const wrongId = actionCategory('2');
    wrongId.links.self = recordUrl('actioncategories', '3');
    const wrongCollection = actionCategory('4');
    wrongCollection.links.self = recordUrl('actiontypes', '4');
    const doc = listPage('actioncategories', [actionCategory('1'), wrongId, wrongCollection]);
    expect(found(doc, AC_LIST)).toEqual([
      ['/data/1/links/self', 'record.self', 'error'],
      ['/data/2/links/self', 'record.self', 'error'],
    ]);
  });

  it('record.self: a record document whose self names another collection, or has no links', () => {
    const resource = license('1');
    resource.links.self = recordUrl('licences', '1');
    expect(found(recordDocument(resource), recordUrl('licenses', '1'))).toEqual([
      ['/data/links/self', 'record.self', 'error'],
    ]);
    const bare = otherResource('Country', 'countries', '1') as Partial<ReturnType<typeof otherResource>>;
    delete bare.links;
    expect(found({ data: bare }, recordUrl('countries', '1'))).toEqual([['/data', 'record.self', 'error']]);
  });

  it('record.self: a related resource whose self names another id, or another host', () => {
    const one = otherResource('GlobalProvenance', 'globalprovenances', '1');
    one.links.self = recordUrl('globalprovenances', '2');
    expect(found(relatedDocument(one), `${ROOT}licenses/1/global_provenance/`)).toEqual([
      ['/data/links/self', 'record.self', 'error'],
    ]);
    const tabulated = actionCategory('1');
    tabulated.links.self = 'https://elsewhere.example/sms/cv/api/v1/actioncategories/1/';
    expect(found(relatedDocument([tabulated]), `${ROOT}actioncategories-communities/1/root/`)).toEqual([
      ['/data/0/links/self', 'record.self', 'error'],
    ]);
  });

  it('record.self: root-relative links (a rewritten snapshot) resolve against the document', () => {
    const resource = actionCategory('1');
    resource.links.self = '/sms/cv/api/v1/actioncategories/1/';
    expect(found(recordDocument(resource), AC_1)).toEqual([]);
    resource.links.self = '/sms/cv/api/v1/actioncategories/2/';
    expect(found(recordDocument(resource), AC_1)).toEqual([['/data/links/self', 'record.self', 'error']]);
  });

  it('record.id: a record address answering another record', () => {
    const check = validateDocument(recordDocument(actionCategory('2')), AC_1, ROOT);
    expect(check.findings.map((f) => [f.url, f.pointer, f.rule])).toEqual([[AC_1, '/data/id', 'record.id']]);
  });

  it('pagination.page: meta says another page than the URL', () => {
    // Page 2's document served at page 3's address: its prev link (page 1) is also wrong for page 3. Its next link
    // on what is the last page is pagination.next's business (invariants).
    const doc = listPage('licenses', [license('1')], { page: 2, pages: 3, count: 3 });
    expect(found(doc, pageUrl('licenses', 3))).toEqual([
      ['/meta/pagination/page', 'pagination.page', 'error'],
      ['/links/prev', 'pagination.links', 'error'],
    ]);
  });

  it('pagination.links: first, last, next and prev addressing the wrong page or collection', () => {
    const doc = listPage('licenses', [license('1')], { page: 2, pages: 3, count: 3 });
    doc.links.first = pageUrl('licenses', 2);
    doc.links.last = pageUrl('siteusages', 3);
    doc.links.next = pageUrl('licenses', 2);
    doc.links.prev = `${ROOT}licenses/?format=api&page%5Bnumber%5D=1&filter=x`;
    expect(found(doc, pageUrl('licenses', 2))).toEqual([
      ['/links/first', 'pagination.links', 'error'],
      ['/links/last', 'pagination.links', 'error'],
      ['/links/next', 'pagination.links', 'error'],
      ['/links/prev', 'pagination.links', 'error'],
    ]);
  });
});
