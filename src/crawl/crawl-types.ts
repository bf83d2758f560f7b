/**
 * The types the crawl's parts share (crawler.ts, response-handler.ts) and its callers see: a document or a settled
 * URL as the crawl hands it on, a body read elsewhere, and the callbacks the crawl calls. Here so that the parts import
 * them from below instead of from each other.
 */
import type { DocumentLink } from '../jsonapi/links.js';
import type { ApiLocation } from '../url/api-location.js';
import type { Finding } from '../validate/finding.js';
import type { DocumentTargets } from './discovery.js';
import type { FetchedResponse } from './fetcher.js';

export interface CrawledDocument {
  /** Canonical URL. */
  url: string;
  location: ApiLocation;
  response: FetchedResponse;
  /** The parsed JSON body; undefined when the caller's `readElsewhere` read it. */
  json: unknown;
  /** The links of `json`, resolved (empty when read elsewhere): link rewriting writes into their places. */
  links: readonly DocumentLink[];
  /** What `readElsewhere` made of the document, passed on as it is. */
  prepared?: unknown;
  /** In-scope links of this document seen for the first time in this crawl (canonical); they are fetched next. */
  discovered: string[];
}

/** A URL that was settled without a document: a redirect (with its in-scope target) or a dead link. */
export interface SettledUrl {
  url: string;
  discovered: string[];
}

/** A document read and handled elsewhere (a worker thread): what the crawl needs of it, and the caller's result. */
export interface ReadElsewhere {
  location: ApiLocation;
  /** The targets of its links, as `documentTargets` gives them. */
  targets: DocumentTargets;
  prepared: unknown;
}

/** A 200 answer's body as the fetch read it: parsed here, or elsewhere. */
export type ReadBody = { json: unknown } | { elsewhere: ReadElsewhere };

/** Where the crawl hands on what it settles: the part of `CrawlerOptions` that the response handler calls. */
export interface CrawlCallbacks {
  root: string;
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
}
