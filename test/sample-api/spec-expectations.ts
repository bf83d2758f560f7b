/** Values copied from docs/source-api.md, the source of the expectations in these tests. */

/** spec 2.2, global vocabularies. */
const GLOBAL_COLLECTIONS = [
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
];

/** spec 2.2, community vocabularies. */
export const COMMUNITY_COLLECTIONS = [
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
];

/** spec 2.2 */
export const ALL_COLLECTIONS = [...GLOBAL_COLLECTIONS, ...COMMUNITY_COLLECTIONS, 'communities'];

/** spec 2.3, global vocabulary attributes. */
const GLOBAL_ATTRIBUTE_KEYS = [
  'term',
  'definition',
  'provenance',
  'provenance_uri',
  'category',
  'note',
  'status',
  'requested_by_email',
  'discussion_url',
];

/** spec 2.3, community attributes. */
const COMMUNITY_ATTRIBUTE_KEYS = ['term', 'abbreviation', 'definition', 'provenance', 'provenance_uri', 'note'];

/** spec 2.3 and 2.4: the tabulated types, their collections, attributes and relationship kinds. */
export const TABULATED: Record<
  string,
  {
    collection: string;
    attributes: string[];
    relationships: Record<string, ['to-one' | 'to-many' | 'links-only', string | null]>;
  }
> = {
  ActionCategory: {
    collection: 'actioncategories',
    attributes: GLOBAL_ATTRIBUTE_KEYS,
    relationships: {
      global_provenance: ['to-one', 'GlobalProvenance'],
      action_types: ['to-many', 'ActionType'],
      successor: ['links-only', null],
    },
  },
  SiteUsage: {
    collection: 'siteusages',
    attributes: GLOBAL_ATTRIBUTE_KEYS,
    relationships: {
      global_provenance: ['to-one', 'GlobalProvenance'],
      site_types: ['to-many', 'SiteType'],
      successor: ['links-only', null],
    },
  },
  License: {
    collection: 'licenses',
    attributes: GLOBAL_ATTRIBUTE_KEYS,
    relationships: { global_provenance: ['to-one', 'GlobalProvenance'], successor: ['links-only', null] },
  },
  ActionCategoryCommunity: {
    collection: 'actioncategories-communities',
    attributes: COMMUNITY_ATTRIBUTE_KEYS,
    relationships: { root: ['to-one', 'ActionCategory'], community: ['to-one', 'Community'] },
  },
  AggregationTypeCommunity: {
    collection: 'aggregationtypes-communities',
    attributes: COMMUNITY_ATTRIBUTE_KEYS,
    relationships: { root: ['to-one', 'AggregationType'], community: ['to-one', 'Community'] },
  },
  ManufacturerCommunity: {
    collection: 'manufacturers-communities',
    attributes: COMMUNITY_ATTRIBUTE_KEYS,
    relationships: { root: ['to-one', 'Manufacturer'], community: ['to-one', 'Community'] },
  },
  UnitCommunity: {
    collection: 'units-communities',
    attributes: COMMUNITY_ATTRIBUTE_KEYS,
    relationships: { root: ['to-one', 'Unit'], community: ['to-one', 'Community'] },
  },
  MeasuredQuantityCommunity: {
    collection: 'measuredquantities-communities',
    attributes: COMMUNITY_ATTRIBUTE_KEYS,
    relationships: {
      root: ['to-one', 'MeasuredQuantity'],
      community: ['to-one', 'Community'],
      sampling_media: ['to-one', 'SamplingMedium'],
      aggregation_type: ['to-one', 'AggregationType'],
    },
  },
};

export const JSON_API = 'application/vnd.api+json';
