/**
 * Ways the sample API can serve documents that differ from their list entries, as other JSON:API servers do. A
 * derived crawl (docs/derive.md) must notice each where its sample covers it; all are off by default, so
 * the sample API's defaults stay the central service's behaviour.
 */

export const RELATIONSHIP_DOCUMENT_SHAPES = ['plain', 'reordered', 'extended'] as const;
export type RelationshipDocumentShape = (typeof RELATIONSHIP_DOCUMENT_SHAPES)[number];

export interface SampleVariants {
  /**
   * Related to-many documents in pages of this many resources, with `links` (first, last, next, prev) and
   * `meta.pagination` as list pages have; 0 serves each in one unpaginated document.
   */
  readonly relatedPageSize: number;
  /**
   * Relationship documents as `plain` `{data, links: {self}}` (to-many ones add `meta.count`), `reordered` (links
   * first, then meta, then data), or `extended` (also `links.related` and `jsonapi.version`).
   */
  readonly relationshipDocuments: RelationshipDocumentShape;
  /** One record (the first of the first collection with records) whose record document carries a `meta`. */
  readonly recordMeta: boolean;
}

export const DEFAULT_VARIANTS: SampleVariants = {
  relatedPageSize: 0,
  relationshipDocuments: 'plain',
  recordMeta: false,
};
