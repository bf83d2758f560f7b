/**
 * The crawl loop (DESIGN.md §4): start at the root index, follow every link in scope, fetch each canonical URL once
 * with bounded concurrency, parse it, and hand it on. What happens to a document after parsing (validation,
 * writing) is the caller's `onDocument`, so this module owns only discovery and fetching.
 */
import pLimit from 'p-limit';
import { FetchError, NotJsonError, NotRootIndexError } from '../errors.js';
import { extractLinks } from '../jsonapi/links.js';
import { locate, type ApiLocation } from '../url/api-location.js';
import { canonicalUrl, isInScope, InvalidUrlError } from '../url/canonical-url.js';
import type { Finding } from '../validate/finding.js';
import type { Fetcher, FetchedResponse } from './fetcher.js';

export interface CrawledDocument {
  /** Canonical URL. */
  url: string;
  location: ApiLocation;
  response: FetchedResponse;
  /** The parsed JSON body. */
  json: unknown;
}

export interface CrawlerOptions {
  root: string;
  fetcher: Fetcher;
  concurrency: number;
  signal?: AbortSignal;
  /** Stop with an error past this many documents (a guard against endless link generation). */
  maxDocuments?: number;
  /** Validation and writing; called once per document, concurrently. A throw stops the crawl. */
  onDocument(document: CrawledDocument): Promise<void>;
  /** Things the crawl noticed that belong in the report (out-of-scope links, dead links, redirects). */
  onFinding(finding: Finding): void;
  onProgress?(event: CrawlProgress): void;
}

export interface CrawlProgress {
  done: number;
  discovered: number;
}

export interface CrawlResult {
  documents: number;
  /** Canonical URLs that answered 404 or 410. */
  missing: string[];
  /** In-scope URLs that redirect, with their canonical target. */
  redirects: Array<[string, string]>;
  /** Distinct links outside the root URL, never fetched. */
  outOfScope: string[];
}

const DEAD_STATUSES = new Set([404, 410]);

/** Throws NotRootIndexError unless `json` is `{ data: { <collection>: <url> } }` (spec §4). */
export function assertRootIndex(url: string, json: unknown): void {
  const data = (json as { data?: unknown } | null)?.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new NotRootIndexError(url, 'its JSON has no "data" object mapping collection names to URLs');
  }
  const entries = Object.entries(data);
  if (entries.length === 0) throw new NotRootIndexError(url, 'its "data" object lists no collection');
  const bad = entries.find(([, value]) => typeof value !== 'string');
  if (bad) throw new NotRootIndexError(url, `its "data" member "${bad[0]}" is not a URL string`);
}

export function parseJsonBody(url: string, response: FetchedResponse): unknown {
  const type = response.headers['content-type'] ?? '';
  if (/text\/html/i.test(type)) throw new NotJsonError(url, `it sent ${type}, the browsable HTML page`);
  try {
    return JSON.parse(response.body.toString('utf8'));
  } catch (error) {
    throw new NotJsonError(url, `its body is not valid JSON: ${(error as Error).message}`);
  }
}

export async function crawl(options: CrawlerOptions): Promise<CrawlResult> {
  const { root, fetcher } = options;
  const limit = pLimit(options.concurrency);
  const seen = new Set<string>();
  const outOfScope = new Set<string>();
  const missing: string[] = [];
  const redirects: Array<[string, string]> = [];
  const failure = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, failure.signal]) : failure.signal;
  let firstError: unknown;
  let done = 0;
  const pending = new Set<Promise<void>>();

  const fail = (error: unknown): void => {
    if (firstError === undefined) firstError = error;
    failure.abort(error);
    limit.clearQueue();
  };

  const enqueue = (link: string, from: string): void => {
    let target: string;
    try {
      target = canonicalUrl(link, from);
    } catch (error) {
      if (!(error instanceof InvalidUrlError)) throw error;
      options.onFinding({ url: from, pointer: '', rule: 'link.invalid', severity: 'warning', message: error.message });
      return;
    }
    if (!isInScope(target, root)) {
      if (!outOfScope.has(target)) {
        outOfScope.add(target);
        options.onFinding({
          url: from,
          pointer: '',
          rule: 'scope.outside',
          severity: 'warning',
          message: `The link ${target} is outside the root URL ${root}; it was recorded, not fetched.`,
        });
      }
      return;
    }
    if (seen.has(target) || signal.aborted) return;
    if (options.maxDocuments !== undefined && seen.size >= options.maxDocuments) {
      fail(
        new FetchError(
          target,
          `the crawl found more than --max-documents ${options.maxDocuments} URLs; the source may generate links endlessly. Raise --max-documents if it is really that large`,
          0,
        ),
      );
      return;
    }
    seen.add(target);
    options.onProgress?.({ done, discovered: seen.size });
    const task = limit(() => visit(target, from)).then(
      () => undefined,
      (error: unknown) => fail(error),
    );
    pending.add(task);
    void task.finally(() => pending.delete(task));
  };

  const visit = async (url: string, from: string): Promise<void> => {
    if (signal.aborted) return;
    const response = await fetcher.fetch(url, signal);
    if (response.status >= 300 && response.status < 400) {
      const location = response.headers.location;
      if (location === undefined) throw new FetchError(url, `HTTP ${response.status} without a Location header`, response.attempts, response.status);
      const target = canonicalUrl(location, url);
      if (!isInScope(target, root)) {
        options.onFinding({
          url,
          pointer: '',
          rule: 'scope.redirect',
          severity: 'error',
          message: `${url} redirects outside the root URL, to ${target}; the redirect was not followed.`,
        });
      } else {
        redirects.push([url, target]);
        enqueue(target, url);
      }
      return;
    }
    if (DEAD_STATUSES.has(response.status) && url !== root) {
      missing.push(url);
      options.onFinding({
        url,
        pointer: '',
        rule: 'link.dead',
        severity: 'error',
        message: `${url} answered HTTP ${response.status}; it was linked from ${from}, and the mirror will answer 404 there too.`,
      });
      return;
    }
    if (response.status !== 200) {
      throw new FetchError(url, `HTTP ${response.status}`, response.attempts, response.status);
    }
    const json = parseJsonBody(url, response);
    const location = locate(url, root);
    if (location.kind === 'root') assertRootIndex(url, json);
    await options.onDocument({ url, location, response, json });
    for (const link of extractLinks(json, location.kind === 'root')) enqueue(link, url);
    done += 1;
    options.onProgress?.({ done, discovered: seen.size });
  };

  // The root first: a wrong root URL ends the crawl with one clear message before anything else happens.
  seen.add(root);
  try {
    await visit(root, root);
  } catch (error) {
    fail(error);
  }
  while (pending.size > 0) await Promise.all([...pending]);
  if (firstError !== undefined) throw firstError;
  if (options.signal?.aborted) throw options.signal.reason;
  return {
    documents: done,
    missing: missing.sort(),
    redirects: redirects.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    outOfScope: [...outOfScope].sort(),
  };
}
