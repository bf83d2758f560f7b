/**
 * The error a collection query answers when a parameter is wrong: 400 for a parameter the API does not take or a
 * malformed value, 404 for a page number that names no page (as Django's paginator answers, "Invalid page.").
 * The sample API and `cv-snapshot serve` both render it with `queryErrorDocument`, so the mirror's errors are the
 * source's errors byte for byte.
 */

export class QueryError extends Error {
  constructor(
    readonly status: 400 | 404,
    /** The query parameter at fault, as the client named it after decoding (`page[size]`, `filter[term]`). */
    readonly parameter: string,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'QueryError';
  }

  get title(): string {
    return this.status === 404 ? 'Not Found' : 'Invalid query parameter';
  }

  /** The code the real service's framework gives these errors. */
  get code(): string {
    return this.status === 404 ? 'not_found' : 'invalid';
  }
}

/** `{"errors":[{"status","title","detail","source":{"parameter"},"code"}]}` (JSON:API 1.0 error object). */
export function queryErrorDocument(error: QueryError): { errors: unknown[] } {
  return {
    errors: [
      {
        status: String(error.status),
        title: error.title,
        detail: error.detail,
        source: { parameter: error.parameter },
        code: error.code,
      },
    ],
  };
}

export const invalidParameter = (parameter: string, detail: string): QueryError =>
  new QueryError(400, parameter, detail);
