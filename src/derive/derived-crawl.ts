/**
 * `crawl --derive` on top of the crawler: the lists are crawled with every record, relationship and related URL
 * deferred, then a DeriveRun decides what to fetch (through the crawler again) and what to derive; a derived
 * document goes to the same `onDocument` as a fetched one (validation, link rewriting, layout, hashes, journal).
 */
import path from 'node:path';
import { crawl, type CrawledDocument, type CrawlerOptions } from '../crawl/crawler.js';
import type { FetchedResponse } from '../crawl/fetcher.js';
import { OutputDirError } from '../errors.js';
import { extractLinks } from '../jsonapi/links.js';
import { parseJson } from '../json/parse-json.js';
import { locate } from '../url/api-location.js';
import { canonicalUrl, InvalidUrlError, isInScope } from '../url/canonical-url.js';
import type { Finding } from '../validate/finding.js';
import { DERIVE_JOURNAL_FILE, DeriveJournal, readDeriveJournal } from './derive-journal.js';
import { DeriveRun, isDerivableLocation, type DeriveHost } from './derive-run.js';
import { DEFAULT_SAMPLE, randomSeed, type SampleSize } from './sample.js';

export interface DerivedCrawlOptions {
  /** The crawler's options as a full crawl uses them; `resume` and `defer` are this module's. */
  crawl: Omit<CrawlerOptions, 'resume' | 'defer'>;
  /** The staging directory: the derive journal lives there. */
  staging: string;
  /** What an interrupted run left (from the crawl journal), with --resume. */
  resume?: { seen: Set<string>; pending: string[] };
  /** The sample's seed (default: a random one, recorded). */
  seed?: number;
  sample?: SampleSize;
  /** Called with the run as soon as it exists, so progress can show what it derived. */
  onStart?(run: DeriveRun): void;
}

/** What a derived document is handed on with in place of a response: nothing was fetched. */
const DERIVED: FetchedResponse = { status: 200, headers: {}, body: Buffer.alloc(0), attempts: 0 };

/** How often deriving gives the event loop a turn (signals, the progress line). */
const YIELD_EVERY = 64;

function openRun(options: DerivedCrawlOptions, root: string, journal: DeriveJournal | null): DeriveRun {
  const file = path.join(options.staging, DERIVE_JOURNAL_FILE);
  if (options.resume === undefined) {
    const run = new DeriveRun(root, options.seed ?? randomSeed(), options.sample ?? DEFAULT_SAMPLE, (line) =>
      journal?.append(line),
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
  const run = new DeriveRun(root, header.seed, header.sample, (line) => journal?.append(line));
  for (const line of lines.slice(1)) run.replay(line);
  return run;
}

/**
 * The links of a derived document, as the crawler treats a fetched one's: an invalid link or one outside the root is
 * a finding of this document (once per document, as the crawler reports them), a new one in scope is marked seen
 * and returned to be fetched.
 */
function discoverLinks(
  json: unknown,
  url: string,
  root: string,
  seen: Set<string>,
  onFinding: (finding: Finding) => void,
): string[] {
  const discovered: string[] = [];
  const reported = new Set<string>();
  for (const link of extractLinks(json, false)) {
    let target: string;
    try {
      target = canonicalUrl(link, url);
    } catch (error) {
      if (!(error instanceof InvalidUrlError)) throw error;
      if (reported.has(link)) continue;
      reported.add(link);
      onFinding({ url, pointer: '', rule: 'link.invalid', severity: 'warning', message: error.message });
      continue;
    }
    if (!isInScope(target, root)) {
      if (reported.has(target)) continue;
      reported.add(target);
      const message = `The link ${target} is outside the root URL ${root}; it was recorded, not fetched.`;
      onFinding({ url, pointer: '', rule: 'scope.outside', severity: 'warning', message });
      continue;
    }
    if (seen.has(target)) continue;
    seen.add(target);
    discovered.push(target);
  }
  return discovered;
}

export async function derivedCrawl(options: DerivedCrawlOptions): Promise<DeriveRun> {
  const { root } = options.crawl;
  const journal = new DeriveJournal(path.join(options.staging, DERIVE_JOURNAL_FILE));
  try {
    const run = openRun(options, root, journal);
    options.onStart?.(run);
    await crawlDerived(options, run);
    return run;
  } finally {
    journal.close();
  }
}

async function crawlDerived(options: DerivedCrawlOptions, run: DeriveRun): Promise<void> {
  const { root, signal } = options.crawl;
  const seen = options.resume?.seen ?? new Set([root]);
  // Only a resumed run has settled URLs before it starts; within a run, DeriveRun never asks for one URL twice.
  let settled: Set<string> | null = null;
  if (options.resume) {
    const unsettled = new Set(options.resume.pending);
    settled = new Set([...seen].filter((url) => !unsettled.has(url)));
  }
  const deferrable = (url: string): boolean => isDerivableLocation(locate(url, root));
  const base: CrawlerOptions = {
    ...options.crawl,
    onDocument: (document: CrawledDocument) => {
      run.observe(document.url, document.location, document.json);
      return options.crawl.onDocument(document);
    },
  };

  // Step 1: the root and the lists (and anything else that is neither a record nor below one).
  const pending = options.resume ? options.resume.pending.filter((url) => !deferrable(url)) : [root];
  await crawl({ ...base, resume: { seen, pending }, defer: deferrable });
  const deferred = [...seen].filter(deferrable);

  let stored = 0;
  const followed: string[] = [];
  const host: DeriveHost = {
    locate: (url) => locate(url, root),
    settled: (url) => settled?.has(url) ?? false,
    fetch: (urls) => crawl({ ...base, resume: { seen, pending: [...urls] } }),
    store: async (url, text) => {
      signal?.throwIfAborted();
      const json = parseJson(text);
      const discovered = discoverLinks(json, url, root, seen, options.crawl.onFinding);
      await options.crawl.onDocument({ url, location: locate(url, root), response: DERIVED, json, discovered });
      followed.push(...discovered);
      stored += 1;
      if (stored % YIELD_EVERY === 0) await new Promise(setImmediate);
    },
  };
  await run.run(deferred, host);
  // A derived document can only hold links its sources held; should one be new all the same, it is fetched.
  if (followed.length > 0) await crawl({ ...base, resume: { seen, pending: followed } });
}
