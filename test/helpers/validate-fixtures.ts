/**
 * Documents as docs/source-api.md describes them (2.1–2.4, 4, 4.1), for the validation tests. Values are typed in from
 * the spec here on purpose, not imported from src/, so a mistake in the code cannot hide in its own fixtures.
 */

export const ROOT = 'http://127.0.0.1:4000/sms/cv/api/v1/';

/** Spec 2.2. */
export const SPEC_COLLECTIONS = [
  'actioncategories',
  'actiontypes',
  'aggregationtypes',
  'globalprovenances',
  'compartments',
  'contactroles',
  'countries',
  'equipmentstatus',
  'equipmenttypes',
  'licenses',
  'manufacturers',
  'measuredquantityunits',
  'measuredquantities',
  'platformtypes',
  'samplingmedia',
  'sitetypes',
  'siteusages',
  'softwaretypes',
  'units',
  'actioncategories-communities',
  'actiontypes-communities',
  'aggregationtypes-communities',
  'compartments-communities',
  'contactroles-communities',
  'equipmentstatus-communities',
  'equipmenttypes-communities',
  'manufacturers-communities',
  'measuredquantities-communities',
  'platformtypes-communities',
  'samplingmedia-communities',
  'sitetypes-communities',
  'siteusages-communities',
  'softwaretypes-communities',
  'units-communities',
  'communities',
];

type Json = Record<string, unknown>;
export type Resource = {
  type: string;
  id: string;
  attributes: Json;
  relationships: Record<string, Json>;
  links: { self: string };
};

/** Spec 4: list page links carry format=api and page[number]=<n> (sent as page%5Bnumber%5D). */
export function pageUrl(collection: string, n: number, root = ROOT): string {
  return `${root}${collection}/?format=api&page%5Bnumber%5D=${n}`;
}

export function recordUrl(collection: string, id: string, root = ROOT): string {
  return `${root}${collection}/${id}/`;
}

/** Spec 2.4: relationship links. */
function relationshipLinks(collection: string, id: string, name: string, root = ROOT) {
  return {
    self: `${root}${collection}/${id}/relationships/${name}?format=api`,
    related: `${root}${collection}/${id}/${name}/?format=api`,
  };
}

function toOne(collection: string, id: string, name: string, data: { type: string; id: string } | null, root: string) {
  return { links: relationshipLinks(collection, id, name, root), data };
}

function toMany(collection: string, id: string, name: string, data: Array<{ type: string; id: string }>, root: string) {
  return { links: relationshipLinks(collection, id, name, root), data, meta: { count: data.length } };
}

function linksOnly(collection: string, id: string, name: string, root: string) {
  return { links: relationshipLinks(collection, id, name, root) };
}

/** Spec 2.3 global attributes for an accepted record (no requester). */
function acceptedAttributes(term: string) {
  return {
    term,
    definition: `Definition of ${term}.`,
    provenance: '',
    provenance_uri: 'https://example.org/vocab/1',
    category: null,
    note: '',
    status: 'ACCEPTED',
    requested_by_email: null,
    discussion_url: null,
  };
}

export interface Options {
  root?: string;
}

export function actionCategory(
  id: string,
  actionTypeIds: string[] = ['1', '2'],
  { root = ROOT }: Options = {},
): Resource {
  const c = 'actioncategories';
  return {
    type: 'ActionCategory',
    id,
    attributes: acceptedAttributes(`Action category ${id}`),
    relationships: {
      global_provenance: toOne(c, id, 'global_provenance', { type: 'GlobalProvenance', id: '1' }, root),
      action_types: toMany(
        c,
        id,
        'action_types',
        actionTypeIds.map((t) => ({ type: 'ActionType', id: t })),
        root,
      ),
      successor: linksOnly(c, id, 'successor', root),
    },
    links: { self: `${recordUrl(c, id, root)}?format=api` },
  };
}

/** Spec 3: a pending site usage has a requester, null global provenance and no site types. */
export function siteUsage(
  id: string,
  status: 'ACCEPTED' | 'PENDING' = 'ACCEPTED',
  { root = ROOT }: Options = {},
): Resource {
  const c = 'siteusages';
  const pending = status === 'PENDING';
  return {
    type: 'SiteUsage',
    id,
    attributes: {
      ...acceptedAttributes(`Site usage ${id}`),
      status,
      requested_by_email: pending ? 'requester@example.org' : null,
      discussion_url: pending ? 'https://example.org/discussion/7' : null,
      definition: pending ? null : '',
    },
    relationships: {
      global_provenance: toOne(
        c,
        id,
        'global_provenance',
        pending ? null : { type: 'GlobalProvenance', id: '2' },
        root,
      ),
      site_types: toMany(c, id, 'site_types', pending ? [] : [{ type: 'SiteType', id: '3' }], root),
      successor: linksOnly(c, id, 'successor', root),
    },
    links: { self: `${recordUrl(c, id, root)}?format=api` },
  };
}

export function license(id: string, { root = ROOT }: Options = {}): Resource {
  const c = 'licenses';
  return {
    type: 'License',
    id,
    attributes: acceptedAttributes(`License ${id}`),
    relationships: {
      global_provenance: toOne(c, id, 'global_provenance', { type: 'GlobalProvenance', id: '1' }, root),
      successor: linksOnly(c, id, 'successor', root),
    },
    links: { self: `${recordUrl(c, id, root)}?format=api` },
  };
}

/** Spec 2.3/2.4 community types: collection and root type. */
export const COMMUNITY_TYPES = {
  ActionCategoryCommunity: { collection: 'actioncategories-communities', rootType: 'ActionCategory' },
  AggregationTypeCommunity: { collection: 'aggregationtypes-communities', rootType: 'AggregationType' },
  ManufacturerCommunity: { collection: 'manufacturers-communities', rootType: 'Manufacturer' },
  UnitCommunity: { collection: 'units-communities', rootType: 'Unit' },
  MeasuredQuantityCommunity: { collection: 'measuredquantities-communities', rootType: 'MeasuredQuantity' },
} as const;

export type CommunityType = keyof typeof COMMUNITY_TYPES;

/** Spec 2.4 rule 1: the root's id may differ from the record's own id. */
export function communityRecord(
  type: CommunityType,
  id: string,
  rootId: string,
  { root = ROOT, communityId = '1' }: Options & { communityId?: string } = {},
): Resource {
  const { collection: c, rootType } = COMMUNITY_TYPES[type];
  const relationships: Record<string, Json> = {
    root: toOne(c, id, 'root', { type: rootType, id: rootId }, root),
    community: toOne(c, id, 'community', { type: 'Community', id: communityId }, root),
  };
  if (type === 'MeasuredQuantityCommunity') {
    relationships.sampling_media = toOne(c, id, 'sampling_media', { type: 'SamplingMedium', id: '4' }, root);
    relationships.aggregation_type = toOne(c, id, 'aggregation_type', null, root);
  }
  return {
    type,
    id,
    attributes: {
      term: `${type} ${id}`,
      abbreviation: null,
      definition: '',
      provenance: null,
      provenance_uri: '',
      note: null,
    },
    relationships,
    links: { self: `${recordUrl(c, id, root)}?format=api` },
  };
}

/** A resource of a type the spec does not tabulate ("Fields ... not shown"). */
export function otherResource(type: string, collection: string, id: string, { root = ROOT }: Options = {}): Resource {
  return {
    type,
    id,
    attributes: { term: `${type} ${id}`, anything: 1 },
    relationships: {},
    links: { self: `${recordUrl(collection, id, root)}?format=api` },
  };
}

/** Spec 4: the root index. */
export function rootIndex(collections: string[] = SPEC_COLLECTIONS, root = ROOT) {
  return { data: Object.fromEntries(collections.map((c) => [c, `${root}${c}/?format=api`])) };
}

/** Spec 4.1: page `page` of `pages`, with `count` records over all pages. */
export function listPage(
  collection: string,
  data: Resource[],
  {
    page = 1,
    pages = 1,
    count = data.length,
    root = ROOT,
  }: { page?: number; pages?: number; count?: number; root?: string } = {},
) {
  return {
    links: {
      first: pageUrl(collection, 1, root),
      last: pageUrl(collection, pages, root),
      next: page < pages ? pageUrl(collection, page + 1, root) : null,
      prev: page > 1 ? pageUrl(collection, page - 1, root) : null,
    },
    data,
    meta: { pagination: { page, pages, count } },
  };
}

export function recordDocument(resource: Resource) {
  return { data: resource };
}

/** docs/source-api.md#relationships: relationship self documents carry only links.self beside the linkage. */
export function relationshipDocument(
  collection: string,
  id: string,
  name: string,
  data: null | { type: string; id: string } | Array<{ type: string; id: string }>,
  root = ROOT,
) {
  return { data, links: { self: relationshipLinks(collection, id, name, root).self } };
}

export function relatedDocument(data: null | Resource | Resource[]) {
  return { data };
}

/** A deep copy to break without touching the original. */
export function clone<T>(value: T): T {
  return structuredClone(value);
}
