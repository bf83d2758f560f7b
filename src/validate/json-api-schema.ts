/**
 * JSON:API 1.0 document structure (https://jsonapi.org/format/1.0/), as zod schemas built once at module load.
 * JSON:API 1.0: "Unless otherwise noted, objects defined by this specification MUST NOT contain any additional
 * members", hence strict objects everywhere except meta and attributes, which are free-form.
 */
import * as z from 'zod';

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A free-form JSON object (meta, attributes). Checked in place rather than as z.looseObject({}), which copies every
 * member: a third of the cost of a resource on the hot path.
 */
const jsonObject = z.custom<Record<string, unknown>>(isJsonObject, 'must be an object');

export const metaObject = jsonObject;

const linkObject = z.strictObject({ href: z.string(), meta: metaObject.optional() });

/** A link: a URL string, null (an absent optional link) or a link object. */
export const link = z.union([z.string(), z.null(), linkObject]);

/** Named members first: zod checks a known shape faster than a record of unknown keys. */
export const linksObject = z
  .object({
    self: link.optional(),
    related: link.optional(),
    first: link.optional(),
    last: link.optional(),
    next: link.optional(),
    prev: link.optional(),
  })
  .catchall(link);

const resourceIdentifier = z.strictObject({ type: z.string(), id: z.string(), meta: metaObject.optional() });

export const resourceLinkage = z.union([z.null(), resourceIdentifier, z.array(resourceIdentifier)]);

const relationshipObject = z
  .strictObject({ links: linksObject.optional(), data: resourceLinkage.optional(), meta: metaObject.optional() })
  .check((ctx) => {
    const { links, data, meta } = ctx.value;
    if (links === undefined && data === undefined && meta === undefined) {
      ctx.issues.push({ code: 'custom', input: ctx.value, path: [], message: 'must hold links, data or meta' });
    } else if (links !== undefined && !('self' in links) && !('related' in links)) {
      ctx.issues.push({ code: 'custom', input: links, path: ['links'], message: 'must hold self or related' });
    }
  });

/** Fields (attributes and relationships) share one namespace and may not be called type or id. */
function checkFieldNames(
  ctx: z.core.ParsePayload<{
    attributes?: Record<string, unknown> | undefined;
    relationships?: Record<string, unknown> | undefined;
  }>,
): void {
  const { attributes, relationships } = ctx.value;
  if (attributes !== undefined) {
    for (const name of ['type', 'id', 'relationships', 'links']) {
      if (Object.hasOwn(attributes, name)) {
        ctx.issues.push({
          code: 'custom',
          input: attributes,
          path: ['attributes', name],
          message: 'is a reserved name',
        });
      }
    }
  }
  if (relationships !== undefined) {
    for (const name of Object.keys(relationships)) {
      if (name === 'type' || name === 'id') {
        ctx.issues.push({
          code: 'custom',
          input: relationships,
          path: ['relationships', name],
          message: 'is a reserved name',
        });
      } else if (attributes !== undefined && Object.hasOwn(attributes, name)) {
        ctx.issues.push({
          code: 'custom',
          input: relationships,
          path: ['relationships', name],
          message: 'names a field that is also an attribute',
        });
      }
    }
  }
}

/** Relationships by name; catchall rather than z.record: the same check at about half the cost. */
export const relationshipsObject = z.object({}).catchall(relationshipObject);

const resourceMembers = {
  type: z.string(),
  id: z.string(),
  attributes: jsonObject.optional(),
  links: linksObject.optional(),
  meta: metaObject.optional(),
};

/** A resource object, relationships included. */
export const resourceObject = z
  .strictObject({ ...resourceMembers, relationships: relationshipsObject.optional() })
  .check(checkFieldNames);

/**
 * A resource object with its relationships checked only as an object. The document shapes use it because
 * relationships are most of a resource's cost and each resource's relationships get checked once anyway: by the
 * exact schema of a tabulated type, or by `relationshipsObject` (resource-checks.ts).
 */
export const resourceObjectShallow = z
  .strictObject({ ...resourceMembers, relationships: jsonObject.optional() })
  .check(checkFieldNames);

const errorObject = z.strictObject({
  id: z.string().optional(),
  links: z.strictObject({ about: link }).optional(),
  status: z.string().optional(),
  code: z.string().optional(),
  title: z.string().optional(),
  detail: z.string().optional(),
  source: z.strictObject({ pointer: z.string().optional(), parameter: z.string().optional() }).optional(),
  meta: metaObject.optional(),
});

export const jsonapiObject = z.strictObject({ version: z.string().optional(), meta: metaObject.optional() });

/** Any JSON:API 1.0 top-level document. */
export const jsonApiDocument = z
  .strictObject({
    data: z.union([z.null(), resourceObject, z.array(resourceObject)]).optional(),
    errors: z.array(errorObject).optional(),
    meta: metaObject.optional(),
    links: linksObject.optional(),
    jsonapi: jsonapiObject.optional(),
    included: z.array(resourceObject).optional(),
  })
  .check((ctx) => {
    const { data, errors, meta, included } = ctx.value;
    if (data === undefined && errors === undefined && meta === undefined) {
      ctx.issues.push({ code: 'custom', input: ctx.value, path: [], message: 'must hold data, errors or meta' });
    }
    if (data !== undefined && errors !== undefined) {
      ctx.issues.push({ code: 'custom', input: ctx.value, path: ['errors'], message: 'may not appear beside data' });
    }
    if (included !== undefined && data === undefined) {
      ctx.issues.push({ code: 'custom', input: ctx.value, path: ['included'], message: 'may not appear without data' });
    }
  });
