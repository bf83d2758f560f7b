/**
 * What the crawl makes of each response: a redirect (its target is discovered when in scope), a dead link, a
 * failure, or a document, whose links are discovered before it is handed on. With --allow-partial a document that
 * cannot be fetched is a finding instead of the end of the crawl (never the root index).
 */
import { FetchError, NotJsonError, RootScopeError, UnusableDocumentError } from '../util/errors.js';
import { resolveLinks } from '../jsonapi/links.js';
import { InvalidUrlError } from '../url/canonical-url.js';
import type { UrlSpace } from '../url/url-space.js';
import { headerText } from './body-text.js';
import type { CrawlCallbacks, ReadBody } from './crawl-types.js';
import { documentTargets, listPages, type Discovery } from './discovery.js';
import type { FetchedResponse } from './fetcher.js';
import { assertRootIndex, assertRootLeadsInScope } from './root-index.js';
import type { Arrival } from './scheduler.js';

const DEAD_STATUSES = new Set([404, 410]);

export class ResponseHandler {
  readonly #options: CrawlCallbacks;
  readonly #urls: UrlSpace;
  readonly #discovery: Discovery;
  /** Where discovered URLs go to be fetched. */
  readonly #schedule: (url: string) => void;

  constructor(options: CrawlCallbacks, urls: UrlSpace, discovery: Discovery, schedule: (url: string) => void) {
    this.#options = options;
    this.#urls = urls;
    this.#discovery = discovery;
    this.#schedule = schedule;
  }

  /**
   * Handles one arrival. Throws what ends the crawl; a document that cannot be fetched is a `fetch.failed` finding
   * instead with --allow-partial (`stopping`: the crawl is ending anyway, so nothing is recorded).
   */
  async process({ url, response, error }: Arrival, stopping: () => boolean): Promise<void> {
    try {
      if (response === undefined) throw error;
      await this.#handle(url, response);
    } catch (error) {
      const unfetchable =
        error instanceof FetchError || error instanceof NotJsonError || error instanceof UnusableDocumentError;
      if (!this.#options.allowPartial || url === this.#options.root || stopping() || !unfetchable) throw error;
      const message = withoutUrl(error.message, url);
      this.#options.onFinding({ url, pointer: '', rule: 'fetch.failed', severity: 'error', message });
    }
  }

  async #handle(url: string, response: FetchedResponse): Promise<void> {
    const { root } = this.#options;
    if (response.status >= 300 && response.status < 400) {
      await this.#redirected(url, response);
      return;
    }
    if (DEAD_STATUSES.has(response.status) && url !== root) {
      this.#options.onFinding({
        url,
        pointer: '',
        rule: 'link.dead',
        severity: 'error',
        message: `${url} answered HTTP ${response.status}; the mirror will answer 404 there too.`,
      });
      await this.#options.onSettled?.({ url, discovered: [] });
      return;
    }
    if (response.status !== 200) {
      throw new FetchError(url, `HTTP ${response.status}`, response.attempts, response.status);
    }
    const read = response.document as ReadBody;
    if ('elsewhere' in read) {
      const { location, targets, prepared } = read.elsewhere;
      // Links are marked seen before the document is handed on, so that whoever records the document can record
      // what it discovered with it (--resume relies on that).
      const discovered = this.#discovery.admit(targets);
      await this.#options.onDocument({ url, location, response, json: undefined, links: [], prepared, discovered });
      discovered.forEach(this.#schedule);
      return;
    }
    const { json } = read;
    const location = this.#urls.locate(url);
    if (location.kind === 'root') {
      assertRootIndex(url, json);
      assertRootLeadsInScope(url, json, this.#urls);
    }
    const links = resolveLinks(json, location.kind === 'root', url, this.#urls);
    const discovered = this.#discovery.admit(documentTargets(links, url, root, listPages(location, json)));
    await this.#options.onDocument({ url, location, response, json, links, discovered });
    discovered.forEach(this.#schedule);
  }

  /** A redirect: its target is fetched when it is in scope; anything else is a finding (or, for the root, an error). */
  async #redirected(url: string, response: FetchedResponse): Promise<void> {
    const { root } = this.#options;
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
      redirectTarget = this.#urls.canonical(location, url);
    } catch (error) {
      if (!(error instanceof InvalidUrlError)) throw error;
      const what = `redirects to a location that cannot be followed: ${error.message}`;
      if (url === root) throw new RootScopeError(url, `the root URL ${what}`);
      this.#options.onFinding({
        url,
        pointer: '',
        rule: 'scope.redirect',
        severity: 'error',
        message: `${url} ${what} The redirect was not followed.`,
      });
      await this.#options.onSettled?.({ url, discovered: [] });
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
    if (!this.#urls.inScope(redirectTarget)) {
      this.#options.onFinding({
        url,
        pointer: '',
        rule: 'scope.redirect',
        severity: 'error',
        message: `${url} redirects outside the root URL, to ${redirectTarget}; the redirect was not followed.`,
      });
    } else {
      this.#options.onFinding({
        url,
        pointer: '',
        rule: 'link.redirect',
        severity: 'warning',
        message:
          `${url} redirects to ${redirectTarget}; the snapshot stores the target, and links to ${url} find no ` +
          `document there.`,
      });
      discovered = this.#discovery.discover([redirectTarget], url);
    }
    await this.#options.onSettled?.({ url, discovered });
    discovered.forEach(this.#schedule);
  }
}

/**
 * An error's message as a finding's: a finding is printed after its URL, so the message does not say it again
 * ("https://…/units/2/ could not be fetched: …" reads "Could not be fetched: …").
 */
function withoutUrl(message: string, url: string): string {
  if (!message.startsWith(`${url} `)) return message;
  const rest = message.slice(url.length + 1);
  return `${rest.charAt(0).toUpperCase()}${rest.slice(1)}`;
}
