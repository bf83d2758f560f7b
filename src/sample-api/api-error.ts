/**
 * Error answers in the shape the real service sends (docs/source-api.md#errors; Django REST framework JSON:API):
 * `{"errors":[{"detail","status","source","code"}]}` with the JSON:API media type.
 */

export type ErrorSource = { pointer: string } | { parameter: string };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly code: string,
    readonly source: ErrorSource = { pointer: '/data' },
    /** Extra headers the answer needs (Allow on 405, Retry-After on 429). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

export function errorDocument(error: ApiError): unknown {
  return {
    errors: [{ detail: error.detail, status: String(error.status), source: error.source, code: error.code }],
  };
}

export const notFound = (detail = 'Not found.'): ApiError => new ApiError(404, detail, 'not_found');
