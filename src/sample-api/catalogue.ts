/**
 * The collections of the CV API (spec 2.2) with their resource types, attributes and relationships (spec 2.3, 2.4).
 * Types the spec tabulates carry exactly its fields; the others follow the same families (global vocabulary,
 * community variant) so the sample looks like the real service.
 */

export type CollectionKind = 'global' | 'community' | 'other';

/**
 * `links-only` is spec 2.4's `successor`: links and no `data` member. Its relationship and related documents
 * answer `data: null`.
 */
export type RelationshipKind = 'to-one' | 'to-many' | 'links-only';

export interface RelationshipDefinition {
  readonly name: string;
  readonly kind: RelationshipKind;
  /** Collection that holds the targets. */
  readonly target: string;
  /** Resource type of the targets (the `type` of their linkage). */
  readonly targetType: string;
}

export interface CollectionDefinition {
  readonly name: string;
  readonly type: string;
  readonly kind: CollectionKind;
  readonly attributes: readonly string[];
  readonly relationships: readonly RelationshipDefinition[];
  /** For community collections: the global collection holding the base terms (`root`). */
  readonly root?: string;
}

/** spec 2.3: attributes of global vocabulary records. */
const GLOBAL_ATTRIBUTES = [
  'term',
  'definition',
  'provenance',
  'provenance_uri',
  'category',
  'note',
  'status',
  'requested_by_email',
  'discussion_url',
] as const;

/** spec 2.3: attributes of community records (no status, category, requested_by_email, discussion_url). */
const COMMUNITY_ATTRIBUTES = ['term', 'abbreviation', 'definition', 'provenance', 'provenance_uri', 'note'] as const;

const GLOBAL_PROVENANCE_ATTRIBUTES = ['name', 'description', 'uri'] as const;
const COMMUNITY_GROUP_ATTRIBUTES = ['term', 'abbreviation', 'description'] as const;

/** spec 2.2, in the spec's order, with the resource type each collection serves. */
const GLOBAL_TYPES: ReadonlyArray<readonly [string, string]> = [
  ['actioncategories', 'ActionCategory'],
  ['actiontypes', 'ActionType'],
  ['aggregationtypes', 'AggregationType'],
  ['globalprovenances', 'GlobalProvenance'],
  ['compartments', 'Compartment'],
  ['contactroles', 'ContactRole'],
  ['countries', 'Country'],
  ['equipmentstatus', 'EquipmentStatus'],
  ['equipmenttypes', 'EquipmentType'],
  ['licenses', 'License'],
  ['manufacturers', 'Manufacturer'],
  ['measuredquantityunits', 'MeasuredQuantityUnit'],
  ['measuredquantities', 'MeasuredQuantity'],
  ['platformtypes', 'PlatformType'],
  ['samplingmedia', 'SamplingMedium'],
  ['sitetypes', 'SiteType'],
  ['siteusages', 'SiteUsage'],
  ['softwaretypes', 'SoftwareType'],
  ['units', 'Unit'],
];

/** spec 2.2: the global collections that have a `-communities` variant, in the spec's order. */
const COMMUNITY_ROOTS = [
  'actioncategories',
  'actiontypes',
  'aggregationtypes',
  'compartments',
  'contactroles',
  'equipmentstatus',
  'equipmenttypes',
  'manufacturers',
  'measuredquantities',
  'platformtypes',
  'samplingmedia',
  'sitetypes',
  'siteusages',
  'softwaretypes',
  'units',
] as const;

export const GLOBAL_PROVENANCES = 'globalprovenances';
export const COMMUNITIES = 'communities';

const TYPE_OF: ReadonlyMap<string, string> = new Map<string, string>([...GLOBAL_TYPES, [COMMUNITIES, 'Community']]);

function relationship(name: string, kind: RelationshipKind, target: string): RelationshipDefinition {
  const targetType = TYPE_OF.get(target);
  if (targetType === undefined) throw new Error(`relationship ${name} targets unknown collection ${target}`);
  return { name, kind, target, targetType };
}

function toOne(name: string, target: string): RelationshipDefinition {
  return relationship(name, 'to-one', target);
}

/** spec 2.4, plus the links the untabulated types need to be useful (action_category, unit, measured_quantity). */
function globalRelationships(collection: string): RelationshipDefinition[] {
  const provenance = toOne('global_provenance', GLOBAL_PROVENANCES);
  const successor = relationship('successor', 'links-only', collection);
  switch (collection) {
    case GLOBAL_PROVENANCES:
      return [];
    case 'actioncategories':
      return [provenance, relationship('action_types', 'to-many', 'actiontypes'), successor];
    case 'siteusages':
      return [provenance, relationship('site_types', 'to-many', 'sitetypes'), successor];
    case 'actiontypes':
      return [provenance, toOne('action_category', 'actioncategories'), successor];
    case 'measuredquantityunits':
      return [provenance, toOne('unit', 'units'), toOne('measured_quantity', 'measuredquantities'), successor];
    default:
      return [provenance, successor];
  }
}

function buildCatalogue(): CollectionDefinition[] {
  const globals: CollectionDefinition[] = GLOBAL_TYPES.map(([name, type]) => ({
    name,
    type,
    kind: 'global',
    attributes: name === GLOBAL_PROVENANCES ? GLOBAL_PROVENANCE_ATTRIBUTES : GLOBAL_ATTRIBUTES,
    relationships: globalRelationships(name),
  }));
  const communities: CollectionDefinition[] = COMMUNITY_ROOTS.map((root) => {
    const relationships = [toOne('root', root), toOne('community', COMMUNITIES)];
    if (root === 'measuredquantities') {
      relationships.push(toOne('sampling_media', 'samplingmedia'), toOne('aggregation_type', 'aggregationtypes'));
    }
    return {
      name: `${root}-communities`,
      type: `${TYPE_OF.get(root) ?? root}Community`,
      kind: 'community',
      attributes: COMMUNITY_ATTRIBUTES,
      relationships,
      root,
    };
  });
  const other: CollectionDefinition = {
    name: COMMUNITIES,
    type: 'Community',
    kind: 'other',
    attributes: COMMUNITY_GROUP_ATTRIBUTES,
    relationships: [],
  };
  return [...globals, ...communities, other];
}

/** Every collection of spec 2.2, in the order the root index lists them. */
export const CATALOGUE: readonly CollectionDefinition[] = buildCatalogue();
