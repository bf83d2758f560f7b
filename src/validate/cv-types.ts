/**
 * What the spec says about the vocabulary itself: the collections of 2.2 and the exact attribute (2.3) and
 * relationship (2.4) shapes of the types it tabulates. Every other type is "not described by the spec".
 */
import * as z from 'zod';

/** Spec 2.2, in the spec's order. */
export const SPEC_COLLECTIONS: readonly string[] = [
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

/** Spec 3: the observed status values; the complete set is "not shown", so others are warnings. */
export const OBSERVED_STATUSES: ReadonlySet<string> = new Set(['ACCEPTED', 'PENDING']);

/** Spec 2.3, global vocabulary records. */
const globalAttributes = z.strictObject({
  term: z.string(),
  definition: z.string().nullable(),
  provenance: z.string().nullable(),
  provenance_uri: z.string().nullable(),
  category: z.string().nullable(),
  note: z.string().nullable(),
  status: z.string(),
  requested_by_email: z.string().nullable(),
  discussion_url: z.string().nullable(),
});

/** Spec 2.3, community records: no status, category, requested_by_email or discussion_url. */
const communityAttributes = z.strictObject({
  term: z.string(),
  abbreviation: z.string().nullable(),
  definition: z.string().nullable(),
  provenance: z.string().nullable(),
  provenance_uri: z.string().nullable(),
  note: z.string().nullable(),
});

/** Spec 2.4: every relationship carries links.self and links.related. */
const relationshipLinks = z.strictObject({ self: z.string(), related: z.string() });

function identifierOf(target: string) {
  return z.strictObject({ type: z.literal(target), id: z.string() });
}

/**
 * Spec 2.4: a to-one `data` is `{type, id}` or null. A community record's root and community are what make it a
 * community record (spec 1, 2.4 rule 1), so those two are never null.
 */
function toOne(target: string, nullable = true) {
  const identifier = identifierOf(target);
  return z.strictObject({ links: relationshipLinks, data: nullable ? identifier.nullable() : identifier });
}

/** Spec 2.4: to-many carries meta.count (checked against data's length separately, rule relationship.count). */
function toMany(target: string) {
  return z.strictObject({
    links: relationshipLinks,
    data: z.array(identifierOf(target)),
    meta: z.strictObject({ count: z.int().min(0) }),
  });
}

/** Spec 2.4: `successor` carries links only. */
const linksOnly = z.strictObject({ links: relationshipLinks });

function globalType(relationships: z.core.$ZodLooseShape) {
  return z.looseObject({ attributes: globalAttributes, relationships: z.strictObject(relationships) });
}

function communityType(root: string, more: z.core.$ZodLooseShape = {}) {
  return z.looseObject({
    attributes: communityAttributes,
    relationships: z.strictObject({ root: toOne(root, false), community: toOne('Community', false), ...more }),
  });
}

interface CvType {
  /** Spec 2.3 names the global collections; community collections follow 2.2's `<global>-communities`. */
  collection: string;
  /** Checks `attributes` and `relationships`; an issue's first path segment says which. */
  schema: z.ZodType;
}

/** Spec 2.3 and 2.4, by resource type. */
export const CV_TYPES: ReadonlyMap<string, CvType> = new Map<string, CvType>([
  [
    'ActionCategory',
    {
      collection: 'actioncategories',
      schema: globalType({
        global_provenance: toOne('GlobalProvenance'),
        action_types: toMany('ActionType'),
        successor: linksOnly,
      }),
    },
  ],
  [
    'SiteUsage',
    {
      collection: 'siteusages',
      schema: globalType({
        global_provenance: toOne('GlobalProvenance'),
        site_types: toMany('SiteType'),
        successor: linksOnly,
      }),
    },
  ],
  [
    'License',
    {
      collection: 'licenses',
      schema: globalType({ global_provenance: toOne('GlobalProvenance'), successor: linksOnly }),
    },
  ],
  ['ActionCategoryCommunity', { collection: 'actioncategories-communities', schema: communityType('ActionCategory') }],
  [
    'AggregationTypeCommunity',
    { collection: 'aggregationtypes-communities', schema: communityType('AggregationType') },
  ],
  ['ManufacturerCommunity', { collection: 'manufacturers-communities', schema: communityType('Manufacturer') }],
  ['UnitCommunity', { collection: 'units-communities', schema: communityType('Unit') }],
  [
    'MeasuredQuantityCommunity',
    {
      collection: 'measuredquantities-communities',
      schema: communityType('MeasuredQuantity', {
        sampling_media: toOne('SamplingMedium'),
        aggregation_type: toOne('AggregationType'),
      }),
    },
  ],
]);

/** Whether the spec tabulates `type` (2.3, 2.4); the rest are counted as not described. */
export function isDescribedType(type: string): boolean {
  return CV_TYPES.has(type);
}
