/** A small HTTP client for the sample-API tests: undici `request`, raw bytes, no automatic decompression. */
import { Agent, request } from 'undici';
import { JSON_API } from './spec-expectations.js';

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
}

const agent = new Agent({ connections: 16, keepAliveTimeout: 1000 });

export async function get(
  url: string,
  options: {
    method?: 'GET' | 'HEAD' | 'OPTIONS' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
    headers?: Record<string, string>;
  } = {},
): Promise<Answer> {
  const response = await request(url, {
    method: options.method ?? 'GET',
    headers: { accept: JSON_API, ...options.headers },
    dispatcher: agent,
  });
  const body = Buffer.from(await response.body.arrayBuffer());
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { status: response.statusCode, headers, body, text: body.toString('utf8') };
}

/** GETs a JSON:API document and parses it. */
export async function getJson(url: string): Promise<{ answer: Answer; document: any }> {
  const answer = await get(url);
  return { answer, document: JSON.parse(answer.text) };
}

/**
 * The API's own link spelling minus `format`, as a crawler's canonical URL fetches it
 * (docs/architecture.md#crawling-rules).
 */
export function withoutFormat(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.delete('format');
  return parsed.href.replace(/\?$/, '');
}

/** Runs `work` over `items` with at most `limit` at a time. */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
}
