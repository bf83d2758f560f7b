/** The embedded, spec-faithful Controlled Vocabulary Service API (docs/source-api.md). */
export { startSampleApi, SAMPLE_API_DEFAULTS, type SampleApi, type SampleApiOptions } from './server.js';
export { SampleApiError } from '../util/errors.js';
export type { RequestLogEntry } from './request-handler.js';
export { createSampleData, type SampleData, type SampleDataOptions, type SampleCollection } from './sample-data.js';
export type { SampleRecord, AttributeValue, RelationshipValue } from './records.js';
export { LATEST_RELEASE, MIN_RECORDS_FOR_RELEASE, type ReleaseChange } from './release.js';
export {
  CATALOGUE,
  type CollectionDefinition,
  type CollectionKind,
  type RelationshipDefinition,
  type RelationshipKind,
} from './catalogue.js';
export { listDocumentUrls } from './document-urls.js';
export {
  DEFAULT_VARIANTS,
  RELATIONSHIP_DOCUMENT_SHAPES,
  type RelationshipDocumentShape,
  type SampleVariants,
} from './variants.js';
export type { ListPage, ParsedQuery } from './list-query.js';
export type { FaultKind } from './faults.js';
