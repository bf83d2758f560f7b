/**
 * The one table of the SKOS mapping (docs/vocabulary-export.md): the prefixes, which attribute and which
 * relationship of a record becomes which property, and the status words. The Turtle, the JSON-LD and the CSV are
 * all written from what record-nodes.ts builds with it, so the formats cannot say different things.
 */

/** Prefixes used by the export, in the order the Turtle and the JSON-LD @context list them. */
export const PREFIXES = {
  adms: 'http://www.w3.org/ns/adms#',
  dc: 'http://purl.org/dc/elements/1.1/',
  dct: 'http://purl.org/dc/terms/',
  owl: 'http://www.w3.org/2002/07/owl#',
  prov: 'http://www.w3.org/ns/prov#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  skos: 'http://www.w3.org/2004/02/skos/core#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
} as const;

/** A property or class as a prefixed name (`skos:prefLabel`). */
export type Prefixed = `${keyof typeof PREFIXES}:${string}`;

/** Where its definition comes from (a global provenance and a community have a `description`). */
export const DEFINITION_ATTRIBUTES = ['definition', 'description'] as const;

/** Attributes written as literals, each with its property; `tagged`: carries the --language tag. */
export const TEXT_ATTRIBUTES: ReadonlyArray<{ name: string; property: Prefixed; tagged: boolean }> = [
  { name: 'abbreviation', property: 'skos:altLabel', tagged: true },
  { name: 'note', property: 'skos:note', tagged: true },
  { name: 'provenance', property: 'dc:source', tagged: false },
  { name: 'category', property: 'dc:subject', tagged: false },
];

/** Attributes whose http(s) URL value is written as an IRI. */
export const LINK_ATTRIBUTES: ReadonlyArray<{ name: string; property: Prefixed }> = [
  { name: 'provenance_uri', property: 'dct:source' },
  { name: 'uri', property: 'rdfs:seeAlso' },
  { name: 'discussion_url', property: 'rdfs:seeAlso' },
];

/**
 * Relationships that mean a SKOS (or Dublin Core, PROV) relation, each with its property. Any other relationship is
 * left out of the graph (the CSV has it): a relation is never guessed from a name.
 */
export const RELATIONSHIPS: ReadonlyMap<string, Prefixed> = new Map<string, Prefixed>([
  ['action_types', 'skos:narrowMatch'],
  ['action_category', 'skos:broadMatch'],
  ['site_types', 'skos:relatedMatch'],
  ['unit', 'skos:relatedMatch'],
  ['measured_quantity', 'skos:relatedMatch'],
  ['sampling_media', 'skos:relatedMatch'],
  ['aggregation_type', 'skos:relatedMatch'],
  ['root', 'skos:closeMatch'],
  ['community', 'dct:publisher'],
  ['global_provenance', 'prov:wasDerivedFrom'],
  ['successor', 'dct:isReplacedBy'],
]);

/** The relationship whose target replaces the record: the record is then `owl:deprecated`. */
export const SUCCESSOR = 'successor';

/** The source's status words with the ADMS status each means; another word is written as a plain literal. */
export const STATUSES: ReadonlyMap<string, string> = new Map([
  ['ACCEPTED', 'http://purl.org/adms/status/Completed'],
  ['PENDING', 'http://purl.org/adms/status/UnderDevelopment'],
]);
