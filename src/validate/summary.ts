/**
 * What one document leaves behind for the cross-document checks, which run on these compact summaries and never
 * hold every document in memory (docs/architecture.md#validation). A summary is plain JSON: the journal keeps it on
 * disk for --resume, and `documentSummary` checks it when the journal is read back.
 */
import * as z from 'zod';

/** A resource seen in the document: [type, id]. */
const resourceRef = z.tuple([z.string(), z.string()]);

/** A relationship target: [type, id, JSON pointer of the linkage in the document]. */
const targetRef = z.tuple([z.string(), z.string(), z.string()]);

/** How a list page's next or prev link looked: a URL, null, or missing/not a string (already a shape finding). */
const pageLink = z.enum(['link', 'null', 'absent']);

const resourceSummaryFields = {
  /** Resource objects in data and included. */
  resources: z.array(resourceRef),
  /** Relationship targets, except community roots. */
  targets: z.array(targetRef),
  /** Targets of relationships named `root` (a community record's base term, spec 2.4 rule 1). */
  roots: z.array(targetRef),
};

export const documentSummary = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('root'),
    /** Member names of the root index's data, in document order. */
    collections: z.array(z.string()),
  }),
  z.strictObject({
    kind: z.literal('list'),
    collection: z.string(),
    /** Page number from the URL. */
    page: z.int(),
    /** meta.pagination.pages and .count; null when missing or not an integer. */
    pages: z.int().nullable(),
    count: z.int().nullable(),
    /** Length of data. */
    records: z.int(),
    /**
     * How many of `resources` (the first ones) are the records of data, for the check that no record is listed
     * twice; absent in journals of earlier versions, where the check reads none.
     */
    listed: z.int().min(0).optional(),
    next: pageLink,
    prev: pageLink,
    ...resourceSummaryFields,
  }),
  z.strictObject({
    kind: z.enum(['record', 'relationship', 'related', 'other']),
    ...resourceSummaryFields,
  }),
]);

export type DocumentSummary = z.infer<typeof documentSummary>;
export type ListSummary = Extract<DocumentSummary, { kind: 'list' }>;
