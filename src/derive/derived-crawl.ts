/**
 * `crawl --derive` on top of the crawler: the lists are crawled with every record, relationship and related URL
 * deferred, then a DeriveRun decides what to fetch (through the crawler again) and what to derive; a derived
 * document goes to the same `onDocument` as a fetched one (validation, link rewriting, layout, hashes, journal).
 */
import path from 'node:path';
import { crawl, type CrawledDocument, type CrawlerOptions } from '../crawl/crawler.js';
import type { FetchedResponse } from '../crawl/fetcher.js';
import { OutputDirError } from '../util/errors.js';
import { Discovery, documentTargets } from '../crawl/discovery.js';
import { resolveLinks } from '../jsonapi/links.js';
import { parseJson } from '../json/parse-json.js';
import { UrlSet } from '../url/url-set.js';
import { UrlSpace } from '../url/url-space.js';
import { DERIVE_JOURNAL_FILE, DeriveJournal, readDeriveJournal } from './derive-journal.js';
import { DeriveRun, isDerivableLocation, type DeriveHost } from './derive-run.js';
import { DEFAULT_SAMPLE, randomSeed, type SampleSize } from './sample.js';

/**
 * What a crawl, full or derived, settles its lists with: `again` stores a page fetched again (over the file the crawl
 * wrote), and `settle` runs the rounds below with the crawl's own `refetch`.
 */
export interface ListSettler {
  readonly again: (document: CrawledDocument) => void;
  readonly settle: (refetch: (pending: string[]) => Promise<void>) => Promise<void>;
}

export interface DerivedCrawlOptions {
  /** The crawler's options as a full crawl uses them; `resume` and `defer` are this module's. */
  crawl: Omit<CrawlerOptions, 'resume' | 'defer'>;
  /** The staging directory: the derive journal lives there. */
  staging: string;
  /** What an interrupted run left (from the crawl journal), with --resume. */
  resume?: { seen: UrlSet; pending: string[] };
  /** The sample's seed (default: a random one, recorded). */
  seed?: number;
  sample?: SampleSize;
  /** Called with the run as soon as it exists, so progress can show what it derived. */
  onStart?(run: DeriveRun): void;
  /**
   * Fetches again the lists whose pages disagree, before anything is derived from them: a page that shifted while
   * it was crawled lists a record twice and another not at all, and a record no list holds would be missing.
   */
  lists: ListSettler;
}

/** What a derived document is handed on with in place of a response: nothing was fetched. */
const DERIVED: FetchedResponse = { status: 200, headers: {}, body: Buffer.alloc(0), attempts: 0 };

/**
 * The list entries' texts while the run derives, beside the derive journal in the staging directory: a scratch file,
 * removed when the run ends (the journal holds the lists for --resume).
 */
const ENTRIES_FILE = 'derive-entries.bin';

/** How often deriving gives the event loop a turn (signals, the progress line). */
const YIELD_EVERY = 64;

function openRun(options: DerivedCrawlOptions, urls: UrlSpace, journal: DeriveJournal | null): DeriveRun {
  const file = path.join(options.staging, DERIVE_JOURNAL_FILE);
  const entries = path.join(options.staging, ENTRIES_FILE);
  if (options.resume === undefined) {
    const run = new DeriveRun(
      urls,
      options.seed ?? randomSeed(),
      options.sample ?? DEFAULT_SAMPLE,
      (line) => journal?.append(line),
      entries,
    );
    run.start();
    return run;
  }
  const lines = readDeriveJournal(file);
  const header = lines?.[0];
  if (lines === null || header?.t !== 'derive') {
    throw new OutputDirError(
      `The crawl kept in ${options.staging} was not a derived crawl (it has no ${DERIVE_JOURNAL_FILE}): ` +
        'resume it without --derive, or start over with --fresh.',
    );
  }
  // The interrupted run's seed and sample size: the sample it began is the one this run completes.
  const run = new DeriveRun(urls, header.seed, header.sample, (line) => journal?.append(line), entries);
  for (const line of lines.slice(1)) run.replay(line);
  return run;
}

export async function derivedCrawl(options: DerivedCrawlOptions): Promise<DeriveRun> {
  // One URL space for the lists, the derivations and the crawls: each URL is parsed once.
  const urls = options.crawl.urls ?? new UrlSpace(options.crawl.root);
  const journal = new DeriveJournal(path.join(options.staging, DERIVE_JOURNAL_FILE));
  let run: DeriveRun | undefined;
  try {
    run = openRun(options, urls, journal);
    options.onStart?.(run);
    await crawlDerived({ ...options, crawl: { ...options.crawl, urls } }, run, urls);
    return run;
  } finally {
    // What the run learned is not needed past this point (the snapshot's finishing holds its accounts only).
    run?.close();
    journal.close();
  }
}

async function crawlDerived(options: DerivedCrawlOptions, run: DeriveRun, urls: UrlSpace): Promise<void> {
  const { root, signal } = options.crawl;
  const seen = options.resume?.seen ?? new UrlSet(root, [root]);
  // Only a resumed run has settled URLs before it starts; within a run, DeriveRun never asks for one URL twice.
  let settled: Set<string> | null = null;
  if (options.resume) {
    const unsettled = new Set(options.resume.pending);
    settled = new Set([...seen].filter((url) => !unsettled.has(url)));
  }
  const deferrable = (url: string): boolean => isDerivableLocation(urls.locate(url));
  const observed =
    (store: CrawlerOptions['onDocument']): CrawlerOptions['onDocument'] =>
    (document: CrawledDocument) => {
      run.observe(document.url, document.location, document.json);
      return store(document);
    };
  const base: CrawlerOptions = {
    ...options.crawl,
    onDocument: observed((document) => options.crawl.onDocument(document)),
  };

  // Step 1: the root and the lists (and anything else that is neither a record nor below one), settled.
  const pending = options.resume ? options.resume.pending.filter((url) => !deferrable(url)) : [root];
  await crawl({ ...base, resume: { seen, pending }, defer: deferrable });
  const again = observed(options.lists.again);
  await options.lists.settle((pages) =>
    crawl({ ...base, onDocument: again, resume: { seen, pending: pages }, defer: deferrable }),
  );
  // Read once, before anything more is fetched (which adds to `seen`), without a copy of every URL.
  const deferred = (function* () {
    for (const url of seen) if (deferrable(url)) yield url;
  })();

  // A derived document's links are discovered as a fetched one's are: the same guards, the same findings.
  const { maxDocuments, firstPages } = options.crawl;
  const discovery = new Discovery({
    root,
    urls,
    seen,
    ...(maxDocuments !== undefined ? { maxDocuments } : {}),
    ...(firstPages !== undefined ? { firstPages } : {}),
    onFinding: (finding) => options.crawl.onFinding(finding),
  });
  let stored = 0;
  const followed: string[] = [];
  const host: DeriveHost = {
    locate: (url) => urls.locate(url),
    settled: (url) => settled?.has(url) ?? false,
    fetch: (urls) => crawl({ ...base, resume: { seen, pending: [...urls] } }),
    store: async (url, text) => {
      signal?.throwIfAborted();
      const json = parseJson(text);
      const links = resolveLinks(json, false, url, urls);
      const discovered = discovery.admit(documentTargets(links, url, root));
      await options.crawl.onDocument({ url, location: urls.locate(url), response: DERIVED, json, links, discovered });
      for (const url of discovered) followed.push(url); // not spread: a document may hold 100,000s of links
      stored += 1;
      if (stored % YIELD_EVERY === 0) await new Promise(setImmediate);
    },
  };
  await run.run(deferred, host);
  // A derived document can only hold links its sources held; should one be new all the same, it is fetched.
  if (followed.length > 0) await crawl({ ...base, resume: { seen, pending: followed } });
}
