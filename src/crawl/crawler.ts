/**
 * The crawl loop (DESIGN.md §4): start at the root index, follow every link in scope, fetch each canonical URL once
 * with bounded concurrency, parse it, and hand it on. What happens to a document after parsing (validation,
 * writing) is the caller's `onDocument`, so this module owns only discovery and fetching. The body is parsed
 * within the fetch (read-document.ts), so that a body that does not read is fetched again like a stall.
 */
import pLimit from 'p-limit';
import {
  FetchError,
  NotJsonError,
  NotRootIndexError,
  RootScopeError,
  TooManyDocumentsError,
  UnusableDocumentError,
} from '../errors.js';
import { extractLinks } from '../jsonapi/links.js';
import type { ApiLocation } from '../url/api-location.js';
import { InvalidUrlError, urlParts } from '../url/canonical-url.js';
import { UrlSpace } from '../url/url-space.js';
import type { Finding } from '../validate/finding.js';
import type { Fetcher, FetchedResponse } from './fetcher.js';
import { headerText } from './body-text.js';
import { readDocument } from './read-document.js';

export interface CrawledDocument {
  /** Canonical URL. */
  url: string;
  location: ApiLocation;
  response: FetchedResponse;
  /** The parsed JSON body. */
  json: unknown;
  /** In-scope links of this document seen for the first time in this crawl (canonical); they are fetched next. */
  discovered: string[];
}

/** A URL that was settled without a document: a redirect (with its in-scope target) or a dead link. */
export interface SettledUrl {
  url: string;
  discovered: string[];
}

export interface CrawlerOptions {
  root: string;
  /** The run's parsed URLs (shared with validation and the layout); a crawl of its own when absent. */
  urls?: UrlSpace;
  fetcher: Fetcher;
  concurrency: number;
  signal?: AbortSignal;
  /** Stop with an error past this many URLs (a guard against endless link generation). */
  maxDocuments?: number;
  /**
   * Record a document that cannot be fetched after the retries as a `fetch.failed` finding and go on, instead of
   * failing the crawl (`--allow-partial`). The root index is always required.
   */
  allowPartial?: boolean;
  /** Validation and writing; called once per document, one document at a time. A throw stops the crawl. */
  onDocument(document: CrawledDocument): Promise<void> | void;
  /** Called when a URL is settled without a document (a redirect, a dead link). Not for failures. */
  onSettled?(settled: SettledUrl): Promise<void> | void;
  /** Things the crawl noticed that belong in the report (out-of-scope links, dead links, redirects). */
  onFinding(finding: Finding): void;
  /**
   * Continue an earlier crawl: `seen` are the URLs known to it (the crawl takes the set over and adds to it),
   * `pending` those of them still to fetch. Without it the crawl starts at the root.
   */
  resume?: { seen: Set<string>; pending: Iterable<string> };
}

const DEAD_STATUSES = new Set([404, 410]);

/** Throws NotRootIndexError unless `json` is `{ data: { <collection>: <url> } }` (spec §4). */
function assertRootIndex(url: string, json: unknown): void {
  const data = (json as { data?: unknown } | null)?.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new NotRootIndexError(url, 'its JSON has no "data" object mapping collection names to URLs');
  }
  const entries = Object.entries(data);
  if (entries.length === 0) throw new NotRootIndexError(url, 'its "data" object lists no collection');
  const bad = entries.find(([, value]) => typeof value !== 'string');
  if (bad) throw new NotRootIndexError(url, `its "data" member "${bad[0]}" is not a URL string`);
}

/** The directory a URL is in: where a root URL would be for a collection URL. */
function parentDirectory(url: string): string {
  const { origin, pathname } = urlParts(url);
  const trimmed = pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  return `${origin}${trimmed.slice(0, trimmed.lastIndexOf('/') + 1)}`;
}

/**
 * Throws RootScopeError when not one collection URL of the root index is in scope: the crawl would find nothing
 * and publish an empty snapshot. (Some outside and some inside are findings, as any link outside the root is.)
 */
function assertRootLeadsInScope(url: string, json: unknown, urls: UrlSpace): void {
  const data = (json as { data: Record<string, string> }).data;
  const outside: string[] = [];
  for (const link of Object.values(data)) {
    let target: string;
    try {
      target = urls.canonical(link, url);
    } catch {
      continue;
    }
    if (urls.inScope(target)) return;
    outside.push(target);
  }
  const where = [...new Set(outside.map(parentDirectory))];
  const named = where.slice(0, 3).join(', ') + (where.length > 3 ? ` and ${where.length - 3} more` : '');
  const listed = `the root index lists ${outside.length} collection URL${outside.length === 1 ? '' : 's'}`;
  throw new RootScopeError(
    url,
    `${listed} and none is below the root URL ` +
      (outside.length === 0
        ? '(none is a usable http(s) URL), so there is nothing to crawl.'
        : `(they are under ${named}), so there is nothing to crawl. Only URLs on the root's origin and below its ` +
          `path are fetched: give the root URL the collections belong to, such as ${where[0]}.`),
  );
}

/** meta.pagination.pages of a list page, when it is a positive integer. */
function declaredPages(json: unknown): number | undefined {
  const pages = (json as { meta?: { pagination?: { pages?: unknown } } } | null)?.meta?.pagination?.pages;
  return typeof pages === 'number' && Number.isInteger(pages) && pages > 0 ? pages : undefined;
}

/** A first-in, first-out queue of URLs: strings in an array, not a task and a promise per URL. */
class Frontier {
  #urls: string[] = [];
  #head = 0;

  get size(): number {
    return this.#urls.length - this.#head;
  }

  push(url: string): void {
    this.#urls.push(url);
  }

  /** The oldest URL; only called when size > 0. */
  shift(): string {
    const url = this.#urls[this.#head]!;
    this.#head += 1;
    // Drop the consumed part now and then, so the array does not keep every URL the crawl ever queued.
    if (this.#head >= 4096 && this.#head * 2 >= this.#urls.length) {
      this.#urls = this.#urls.slice(this.#head);
      this.#head = 0;
    }
    return url;
  }
}

/** A response that has arrived and waits to be processed (or the error that came instead). */
type Arrival =
  { url: string; response: FetchedResponse; error?: undefined } | { url: string; response?: undefined; error: unknown };

export async function crawl(options: CrawlerOptions): Promise<void> {
  const { root, fetcher, concurrency } = options;
  const urls = options.urls ?? new UrlSpace(root);
  // Only the fetch holds one of the `concurrency` slots: a slot is handed to the next URL the moment its response
  // has arrived, before that response is processed, so the connection is never idle while the CPU is busy.
  const limit = pLimit(concurrency);
  const frontier = new Frontier();
  /** Arrived responses not yet processed: at most `concurrency`, so memory stays bounded when the CPU is slower. */
  const arrivals: Arrival[] = [];
  let fetching = 0;
  let draining = false;
  let drainScheduled = false;
  // Adopted, not copied, on --resume: the largest structure of a crawl is not held twice.
  const seen = options.resume?.seen ?? new Set<string>();
  const failure = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, failure.signal]) : failure.signal;
  /** The first failure, as thrown (boxed: whatever was thrown, even undefined, is rethrown). */
  let firstFailure: { error: unknown } | undefined;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));

  const fail = (error: unknown): void => {
    firstFailure ??= { error };
    // Requests in flight see the abort and settle at once; nothing new is started.
    failure.abort(error);
  };

  /**
   * The canonical in-scope target of a link, or null (recorded as a finding) when it is not to be fetched. A link is
   * reported once per document (`reported`), in every document that has it: the report then does not depend on the
   * order documents arrive in, and no set of every outside URL grows with the crawl.
   */
  const target = (link: string, from: string, reported: Set<string>): string | null => {
    let url: string;
    try {
      url = urls.canonical(link, from);
    } catch (error) {
      if (!(error instanceof InvalidUrlError)) throw error;
      if (!reported.has(link)) {
        reported.add(link);
        options.onFinding({
          url: from,
          pointer: '',
          rule: 'link.invalid',
          severity: 'warning',
          message: error.message,
        });
      }
      return null;
    }
    if (!urls.inScope(url)) {
      if (!reported.has(url)) {
        reported.add(url);
        options.onFinding({
          url: from,
          pointer: '',
          rule: 'scope.outside',
          severity: 'warning',
          message: `The link ${url} is outside the root URL ${root}; it was recorded, not fetched.`,
        });
      }
      return null;
    }
    return url;
  };

  /**
   * Marks the new targets of `links` as seen and returns them, in document order. A list page that declares
   * `pages` cannot send the crawl past that page of its collection: a source that paginates endlessly is a
   * finding, not a hang.
   */
  const discover = (links: string[], from: string, listPages?: { collection: string; pages: number }): string[] => {
    const found: string[] = [];
    const reported = new Set<string>();
    for (const link of links) {
      const url = target(link, from, reported);
      if (url === null || seen.has(url)) continue;
      if (listPages !== undefined) {
        const location = urls.locate(url);
        if (
          location.kind === 'list' &&
          location.collection === listPages.collection &&
          location.page > listPages.pages
        ) {
          if (reported.has(url)) continue;
          reported.add(url);
          options.onFinding({
            url: from,
            pointer: '',
            rule: 'pagination.runaway',
            severity: 'error',
            message:
              `${from} links to page ${location.page} of ${listPages.collection}, past the ${listPages.pages} ` +
              `pages it declares; that page was not fetched.`,
          });
          continue;
        }
      }
      if (options.maxDocuments !== undefined && seen.size >= options.maxDocuments) {
        throw new TooManyDocumentsError(options.maxDocuments, url);
      }
      seen.add(url);
      found.push(url);
    }
    return found;
  };

  const schedule = (url: string): void => {
    frontier.push(url);
    pump();
  };

  /**
   * Starts fetches while a slot is free, URLs wait, and the processing keeps up. `limit` holds the bound; URLs wait
   * here, in the frontier, as strings rather than as queued tasks.
   */
  const pump = (): number => {
    let started = 0;
    while (!signal.aborted && fetching < concurrency && arrivals.length < concurrency && frontier.size > 0) {
      const url = frontier.shift();
      fetching += 1;
      started += 1;
      limit(() => fetcher.fetch(url, signal, (response) => readDocument(url, response))).then(
        (response) => arrive({ url, response }),
        (error: unknown) => arrive({ url, error }),
      );
    }
    return started;
  };

  const arrive = (arrival: Arrival): void => {
    fetching -= 1;
    arrivals.push(arrival);
    pump();
    // Processed from a later turn of the event loop: the requests just started are written out first (undici
    // writes to a reused connection from setImmediate), instead of waiting behind the CPU work.
    if (!draining && !drainScheduled) {
      drainScheduled = true;
      setImmediate(() => void drain());
    }
  };

  const drain = async (): Promise<void> => {
    drainScheduled = false;
    draining = true;
    while (arrivals.length > 0) {
      const arrival = arrivals.shift()!;
      if (!signal.aborted) await visit(arrival);
      // One document per turn of the event loop: responses that arrive meanwhile are read, and the requests they
      // free are started, without waiting for the whole backlog to be processed.
      pump();
      await new Promise(setImmediate);
    }
    draining = false;
    if (fetching === 0 && (signal.aborted || frontier.size === 0)) finished();
  };

  const visit = async ({ url, response, error }: Arrival): Promise<void> => {
    try {
      if (response === undefined) throw error;
      await handle(url, response);
    } catch (error) {
      const unfetchable =
        error instanceof FetchError || error instanceof NotJsonError || error instanceof UnusableDocumentError;
      if (!options.allowPartial || url === root || signal.aborted || !unfetchable) {
        fail(error);
        return;
      }
      options.onFinding({ url, pointer: '', rule: 'fetch.failed', severity: 'error', message: error.message });
    }
  };

  /** A redirect: its target is fetched when it is in scope; anything else is a finding (or, for the root, an error). */
  const redirected = async (url: string, response: FetchedResponse): Promise<void> => {
    const header = response.headers.location;
    if (header === undefined) {
      throw new FetchError(
        url,
        `HTTP ${response.status} without a Location header`,
        response.attempts,
        response.status,
      );
    }
    const location = headerText(header);
    let redirectTarget: string;
    try {
      redirectTarget = urls.canonical(location, url);
    } catch (error) {
      if (!(error instanceof InvalidUrlError)) throw error;
      const what = `redirects to a location that cannot be followed: ${error.message}`;
      if (url === root) throw new RootScopeError(url, `the root URL ${what}`);
      options.onFinding({
        url,
        pointer: '',
        rule: 'scope.redirect',
        severity: 'error',
        message: `${url} ${what} The redirect was not followed.`,
      });
      await options.onSettled?.({ url, discovered: [] });
      return;
    }
    if (url === root) {
      throw new RootScopeError(
        url,
        `the root URL answers HTTP ${response.status}, a redirect to ${redirectTarget}. ` +
          'Give that URL as the root, if it is the API root.',
      );
    }
    let discovered: string[] = [];
    if (!urls.inScope(redirectTarget)) {
      options.onFinding({
        url,
        pointer: '',
        rule: 'scope.redirect',
        severity: 'error',
        message: `${url} redirects outside the root URL, to ${redirectTarget}; the redirect was not followed.`,
      });
    } else {
      options.onFinding({
        url,
        pointer: '',
        rule: 'link.redirect',
        severity: 'warning',
        message:
          `${url} redirects to ${redirectTarget}; the snapshot stores the target, and links to ${url} find no ` +
          `document there.`,
      });
      discovered = discover([redirectTarget], url);
    }
    await options.onSettled?.({ url, discovered });
    discovered.forEach(schedule);
  };

  const handle = async (url: string, response: FetchedResponse): Promise<void> => {
    if (response.status >= 300 && response.status < 400) {
      await redirected(url, response);
      return;
    }
    if (DEAD_STATUSES.has(response.status) && url !== root) {
      options.onFinding({
        url,
        pointer: '',
        rule: 'link.dead',
        severity: 'error',
        message: `${url} answered HTTP ${response.status}; the mirror will answer 404 there too.`,
      });
      await options.onSettled?.({ url, discovered: [] });
      return;
    }
    if (response.status !== 200) {
      throw new FetchError(url, `HTTP ${response.status}`, response.attempts, response.status);
    }
    const json = response.document;
    const location = urls.locate(url);
    if (location.kind === 'root') {
      assertRootIndex(url, json);
      assertRootLeadsInScope(url, json, urls);
    }
    // Links are marked seen before the document is handed on, so that whoever records the document can record
    // what it discovered with it (--resume relies on that).
    const pages = location.kind === 'list' ? declaredPages(json) : undefined;
    const discovered = discover(
      extractLinks(json, location.kind === 'root'),
      url,
      location.kind === 'list' && pages !== undefined ? { collection: location.collection, pages } : undefined,
    );
    await options.onDocument({ url, location, response, json, discovered });
    discovered.forEach(schedule);
  };

  if (options.resume) {
    for (const url of options.resume.pending) frontier.push(url);
  } else {
    // The root alone first: a wrong root URL ends the crawl with one clear message before anything else happens.
    seen.add(root);
    frontier.push(root);
  }
  if (pump() === 0) finished();
  await done;
  if (firstFailure !== undefined) throw firstFailure.error;
  options.signal?.throwIfAborted();
}
