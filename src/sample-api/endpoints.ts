/**
 * From a request (method, path, query, Accept) to the answer of spec 4, with the real service's rules where the
 * spec is silent (docs/source-api.md): 404 for unknown paths, 301 to the slash form, 405 for writes, 406 and the HTML
 * page for `format=api`, 400 for unknown query parameters, 404 for out-of-range pages.
 */
import { ApiError, errorDocument, notFound } from './api-error.js';
import { browsablePage } from './browsable-page.js';
import type { RelationshipDefinition } from './catalogue.js';
import {
  ApiLinks,
  listDocument,
  recordDocument,
  relatedDocument,
  relationshipDocument,
  rootDocument,
} from './documents.js';
import { decodeQuery, FORMAT, parseRelatedQuery } from '../jsonapi/query.js';
import { QueryError, queryErrorDocument } from '../jsonapi/query-error.js';
import { parseQuery, selectPage, type ParsedQuery } from './list-query.js';
import { selectRenderer } from './negotiation.js';
import { HTML, JSON_API, type Reply } from './respond.js';
import { allowOf, matchRoute, type Route } from './routes.js';
import type { SampleRecord } from './records.js';
import type { SampleCollection, SampleData } from './sample-data.js';
import type { SampleVariants } from './variants.js';

export interface EndpointContext {
  readonly data: SampleData;
  readonly rootPath: string;
  readonly pageSize: number;
  readonly collections: ReadonlySet<string>;
  readonly variants: SampleVariants;
}

export interface EndpointRequest {
  readonly method: string;
  /** `http://host:port`, as the client addressed the server. */
  readonly origin: string;
  readonly path: string;
  readonly rawQuery: string;
  readonly accept: string | undefined;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const READ_ALLOW = 'GET, HEAD, OPTIONS';

export function errorReply(error: ApiError, allow?: string): Reply {
  const headers: Record<string, string> = { Vary: 'Accept', ...error.headers };
  if (allow !== undefined && headers.Allow === undefined) headers.Allow = allow;
  return { status: error.status, headers, body: JSON.stringify(errorDocument(error)), contentType: JSON_API };
}

function collectionOf(context: EndpointContext, name: string): SampleCollection {
  const collection = context.data.byName.get(name);
  if (collection === undefined) throw notFound();
  return collection;
}

function recordOf(collection: SampleCollection, id: string): SampleRecord {
  const record = collection.byId.get(id);
  if (record === undefined) throw notFound(`No ${collection.type} matches the given query.`);
  return record;
}

function relationshipOf(collection: SampleCollection, name: string): RelationshipDefinition {
  const definition = collection.relationships.find((candidate) => candidate.name === name);
  if (definition === undefined) throw notFound(`${collection.type} has no relationship "${name}".`);
  return definition;
}

/** The query of a related address with `relatedPageSize`: `format` and one `page[number]`. */
function relatedQuery(rawQuery: string): ParsedQuery {
  let format: string | null = null;
  for (const [key, value] of decodeQuery(rawQuery)) if (key === FORMAT) format = value;
  try {
    parseRelatedQuery(rawQuery);
    return { format, list: null, problem: null };
  } catch (error) {
    if (error instanceof QueryError) return { format, list: null, problem: error };
    throw error;
  }
}

/** The page a related address asks for (1 unless paginated); a page that is not a positive number is not found. */
function relatedPageOf(rawQuery: string, paginated: boolean): number {
  if (!paginated) return 1;
  const text = parseRelatedQuery(rawQuery) ?? '1';
  if (!/^[1-9][0-9]{0,8}$/.test(text)) throw notFound('Invalid page.');
  return Number(text);
}

type Endpoint = Exclude<Route, { kind: 'redirect' } | { kind: 'not-found' }>;

/** The document of a GET, and the title the HTML page gives it. */
function documentOf(
  context: EndpointContext,
  route: Endpoint,
  query: ParsedQuery,
  links: ApiLinks,
  page: number,
): [unknown, string] {
  if (route.kind === 'root') return [rootDocument(links, context.data), 'Api Root'];
  const collection = collectionOf(context, route.collection);
  switch (route.kind) {
    case 'list': {
      if (query.list === null) throw new Error('a list route without a list query');
      const page = selectPage(context.data, collection, query.list, context.pageSize);
      return [listDocument(links, collection, page), `${collection.type} List`];
    }
    case 'record': {
      const record = recordOf(collection, route.id);
      const document = recordDocument(links, context.data, collection, record, context.variants);
      return [document, `${collection.type} Instance`];
    }
    case 'relationship': {
      const record = recordOf(collection, route.id);
      const definition = relationshipOf(collection, route.relationship);
      const document = relationshipDocument(links, collection, record, definition, context.variants);
      return [document, `${collection.type} Relationship`];
    }
    case 'related': {
      const record = recordOf(collection, route.id);
      const definition = relationshipOf(collection, route.relationship);
      try {
        const document = relatedDocument(links, context.data, collection, record, definition, context.variants, page);
        return [document, `${collection.type} Related`];
      } catch (error) {
        if (error instanceof RangeError) throw notFound('Invalid page.');
        throw error;
      }
    }
  }
}

function optionsDocument(route: Endpoint, allow: string): unknown {
  return {
    data: {
      name: route.kind === 'root' ? 'Api Root' : route.collection,
      description: '',
      renders: [JSON_API, 'text/html'],
      parses: [JSON_API],
      allowed_methods: allow.split(', '),
    },
  };
}

export function answer(context: EndpointContext, request: EndpointRequest): Reply {
  const route = matchRoute(request.path, context.rootPath, context.collections);
  if (route.kind === 'not-found') return errorReply(notFound());
  if (route.kind === 'redirect') {
    // Django's APPEND_SLASH keeps the query.
    const query = request.rawQuery === '' ? '' : `?${request.rawQuery}`;
    return { status: 301, headers: { Location: `${request.origin}${route.path}${query}` }, body: '' };
  }
  const allow = allowOf(route);
  try {
    const paginatedRelated = route.kind === 'related' && context.variants.relatedPageSize > 0;
    const query = paginatedRelated
      ? relatedQuery(request.rawQuery)
      : parseQuery(request.rawQuery, route.kind === 'list');
    const renderer = selectRenderer(request.accept, query.format);
    if (renderer === 'not-found') throw notFound();
    if (renderer === 'not-acceptable') {
      throw new ApiError(406, 'Could not satisfy the request Accept header.', 'not_acceptable');
    }
    if (!READ_METHODS.has(request.method)) {
      // The sample is read-only: RFC 9110 wants the 405's Allow to list what this server really supports.
      const error = new ApiError(405, `Method "${request.method}" not allowed.`, 'method_not_allowed');
      return errorReply(error, READ_ALLOW);
    }
    const links = new ApiLinks(`${request.origin}${context.rootPath}`);
    const headers: Record<string, string> = { Vary: 'Accept', Allow: allow };
    if (request.method === 'OPTIONS') {
      return { status: 200, headers, body: JSON.stringify(optionsDocument(route, allow)), contentType: JSON_API };
    }
    if (query.problem !== null) throw query.problem;
    const [document, title] = documentOf(
      context,
      route,
      query,
      links,
      relatedPageOf(request.rawQuery, paginatedRelated),
    );
    if (renderer === 'html') {
      const url = `${request.origin}${request.path}${request.rawQuery === '' ? '' : `?${request.rawQuery}`}`;
      return {
        status: 200,
        headers,
        body: browsablePage(title, request.method, url, document, allow),
        contentType: HTML,
      };
    }
    if (route.kind === 'root') headers['Last-Modified'] = context.data.lastModified.toUTCString();
    return { status: 200, headers, body: JSON.stringify(document), contentType: JSON_API, etag: true };
  } catch (error) {
    if (error instanceof ApiError) return errorReply(error, allow);
    if (error instanceof QueryError) {
      // The query engine's errors, in the one shape `cv-snapshot serve` answers them too.
      const body = JSON.stringify(queryErrorDocument(error));
      return { status: error.status, headers: { Vary: 'Accept', Allow: allow }, body, contentType: JSON_API };
    }
    throw error;
  }
}
