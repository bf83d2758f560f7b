/**
 * The document each kind of address answers with (spec 4, 4.1, and docs/source-api.md on how the real service behaves).
 * Each shape is a JSON:API 1.0 document narrowed to what the spec says, so one parse checks both; resources'
 * relationships are checked per resource (resource-checks.ts).
 */
import * as z from 'zod';
import {
  jsonapiObject,
  link,
  linksObject,
  metaObject,
  resourceLinkage,
  resourceObjectShallow as resourceObject,
} from './json-api-schema.js';

/** Spec 4: `{ data: { <collection name>: <URL string>, ... } }`; not a resource object, so not JSON:API data. */
export const rootIndexDocument = z.strictObject({
  data: z.record(z.string(), z.string()),
  links: linksObject.optional(),
  meta: metaObject.optional(),
  jsonapi: jsonapiObject.optional(),
});

/** Spec 4.1. Django's paginator reports one (empty) page for an empty collection, so pages is at least 1. */
export const listDocument = z.strictObject({
  links: z
    .object({ first: z.string(), last: z.string(), next: z.string().nullable(), prev: z.string().nullable() })
    .catchall(link),
  data: z.array(resourceObject),
  meta: z.looseObject({
    pagination: z.looseObject({ page: z.int().min(1), pages: z.int().min(1), count: z.int().min(0) }),
  }),
  jsonapi: jsonapiObject.optional(),
  included: z.array(resourceObject).optional(),
});

/** Spec 4: the body of a record address is the resource object of 2.1. */
export const recordDocument = z.strictObject({
  data: resourceObject,
  links: linksObject.optional(),
  meta: metaObject.optional(),
  jsonapi: jsonapiObject.optional(),
  included: z.array(resourceObject).optional(),
});

/** A relationship address answers resource linkage and its own links.self (docs/source-api.md). */
export const relationshipDocument = z.strictObject({
  data: resourceLinkage,
  links: z.object({ self: z.string() }).catchall(link),
  meta: metaObject.optional(),
  jsonapi: jsonapiObject.optional(),
});

/** A related address answers the related resource, null, or the related resources (not paginated). */
export const relatedDocument = z.strictObject({
  data: z.union([z.null(), resourceObject, z.array(resourceObject)]),
  links: linksObject.optional(),
  meta: metaObject.optional(),
  jsonapi: jsonapiObject.optional(),
  included: z.array(resourceObject).optional(),
});
