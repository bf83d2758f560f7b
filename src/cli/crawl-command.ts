import { progressMode } from '../crawl/progress.js';
import { sampleSettings } from '../derive/sample.js';
import { createSnapshot } from '../pipeline/create-snapshot.js';
import { defaultWorkers } from '../pipeline/document-pool.js';
import { DEFAULTS, type SnapshotOptions } from '../pipeline/snapshot-options.js';
import { parseHeader } from '../pipeline/request-headers.js';
import { COLLECTION_INDEX_MODES } from '../format/manifest.js';
import { CATALOGUE_MODES } from '../format/layout.js';
import { LINK_MODES } from '../format/rewrite-links.js';
import { defineCommand, type Io } from './command.js';
import { readNamesFile, unusedNamesWarning } from '../format/human-names.js';
import { choice, decimal, file, flag, integer, list, text, url, type Option, type OptionValues } from './options.js';
import { summaryJson, summaryTable } from './summary.js';
import { printableJson, printableLines } from '../util/safe-text.js';
import { createClock } from '../util/clock.js';

/**
 * The crawl's options, keyed by their `SnapshotOptions` names so that the parsed values go to `createSnapshot`
 * as they are (the `satisfies` below checks each key and type). Adding an option to the library's crawl is one
 * entry here; its default lives in `DEFAULTS`.
 */
export const CRAWL_OPTIONS = {
  out: text('out', {
    placeholder: 'dir',
    default: 'out',
    description:
      'Where to publish: a symbolic link to the snapshot, swapped in one step once the new snapshot is complete.',
  }),
  concurrency: integer('concurrency', {
    placeholder: 'n',
    default: DEFAULTS.concurrency,
    min: 1,
    max: 256,
    description: 'Requests in flight at once.',
  }),
  workers: integer('workers', {
    placeholder: 'n',
    default: defaultWorkers(),
    defaultText: 'the cores beyond two when that is 2 or more, at most 6; else 0',
    min: 0,
    max: 64,
    description:
      'Threads that fetch, read, validate and write documents, each with its own connections (and about 50 MB), ' +
      'while the main thread keeps the journal; 0 does everything on the main thread. The snapshot is the same ' +
      'with any number. --derive uses none.',
  }),
  retries: integer('retries', {
    placeholder: 'n',
    default: DEFAULTS.retries,
    min: 0,
    max: 100,
    description:
      'Retries per URL on network errors, timeouts, 5xx, 429 and bodies that do not read (cut off, empty, not ' +
      'JSON), with exponential backoff.',
  }),
  timeoutMs: integer('timeout', {
    placeholder: 'ms',
    default: DEFAULTS.timeoutMs,
    min: 1,
    max: 86_400_000,
    description:
      'Time allowed for response headers, and between body chunks; every attempt ends within 10 times this in all.',
  }),
  rate: decimal('rate', {
    placeholder: 'req/s',
    default: undefined,
    defaultText: 'no limit',
    min: 0.001,
    max: 1_000_000,
    description: 'At most this many requests per second, retries included.',
  }),
  maxBytes: integer('max-bytes', {
    placeholder: 'bytes',
    default: DEFAULTS.maxBytes,
    min: 1,
    // A body is decoded into one string, and V8's strings hold at most about 512 MiB.
    max: 256 * 1024 * 1024,
    description: 'Largest response accepted, after decompression.',
  }),
  maxDocuments: integer('max-documents', {
    placeholder: 'n',
    default: DEFAULTS.maxDocuments,
    min: 1,
    max: 100_000_000,
    description: 'Stop with an error past this many URLs, a guard against a source that generates links endlessly.',
  }),
  warc: flag('warc', {
    description:
      'Also record every HTTP exchange (requests, responses as the source sent them, retries, failures) in WARC ' +
      "files in the snapshot's _cv-snapshot/ folder, for web archives (docs/capture.md); pack --format wacz " +
      'packs them for replay. --header values are recorded as ***.',
  }),
  allowPartial: flag('allow-partial', {
    description:
      "Publish even when documents cannot be fetched after the retries, or go past what their list's first page " +
      'announced (the manifest marks the snapshot partial and lists them), or when the pages of a collection ' +
      'disagree each time they are fetched (the manifest marks the snapshot partial and names the collection ' +
      'under shifted).',
  }),
  links: choice('links', LINK_MODES, {
    default: DEFAULTS.links,
    description: "How links are written: root-relative paths, absolute under --base-url, or the source's own.",
  }),
  baseUrl: url('base-url', {
    placeholder: 'URL',
    default: undefined,
    example: 'https://cv.example.org/mirror/',
    description: 'The address the mirror will have (with --links absolute); sub-paths allowed.',
  }),
  collectionIndex: choice('collection-index', COLLECTION_INDEX_MODES, {
    default: DEFAULTS.collectionIndex,
    description: "What the bare collection URL holds: every record as one page, or the source's first page.",
  }),
  catalogue: choice('catalogue', CATALOGUE_MODES, {
    default: DEFAULTS.catalogue,
    description: 'Pages for people: a front page (index.html) and a page per collection and record, or none.',
  }),
  names: file(
    'names',
    {
      placeholder: 'file.json',
      default: undefined,
      description:
        'A JSON file of names for people that replace the derived ones in the catalogue: ' +
        '{"collections": {"units": "Measured quantity units"}, "fields": {"provenance_uri": "Provenance link"}}, ' +
        'and the site\'s own title and introduction: {"site": {"title": "…", "introduction": "…"}}. ' +
        'Recorded in the manifest (the catalogue command and --resume keep them).',
    },
    readNamesFile,
  ),
  headers: list('header', {
    placeholder: 'Name: value',
    check: (raw) => void parseHeader(raw),
    description: 'Extra request header, such as credentials; its value never reaches the snapshot or the logs.',
  }),
  strict: flag('strict', { description: 'Publish nothing when validation finds an error.' }),
  resume: flag('resume', {
    description:
      'Continue an interrupted or failed crawl from its staging directory, without refetching what is done; refused ' +
      'when the source changed since the crawl began (its root index, or the count on page 1 of a collection).',
  }),
  fresh: flag('fresh', { description: 'Discard a staging directory left by an earlier run and start over.' }),
  derive: flag('derive', {
    description:
      'Fetch the root, the lists and what they cannot explain; derive the other documents from the list entries, ' +
      'checked against a fetched sample of each kind.',
  }),
  verifySample: {
    ...text('verify-sample', {
      placeholder: 'share|n',
      default: undefined,
      defaultText: DEFAULTS.verifySample,
      description:
        'With --derive: the share (5%, 0.05) or number (20) of each kind of document fetched and compared, beyond ' +
        'one of each kind; 1 or 100% fetches everything.',
    }),
    accept: (raw: string) => {
      // The same check as the library's, refused here so that the message comes before anything runs.
      sampleSettings({ derive: true, verifySample: raw });
      return raw;
    },
  },
  verifySeed: integer('verify-seed', {
    placeholder: 'n',
    default: undefined,
    defaultText: 'random, recorded in the manifest',
    min: 0,
    max: 2 ** 31,
    description: "With --derive: the sample's seed; a seed from a manifest takes the same sample again.",
  }),
} satisfies { [K in keyof SnapshotOptions]?: Option<SnapshotOptions[K]> };

/** How a crawl reports: the progress line on stderr, the closing summary on stdout. */
export const REPORT_OPTIONS = {
  quiet: flag('quiet', { description: 'No progress line.' }),
  json: flag('json', {
    description: 'Print the closing summary as JSON (on failure: {"error": {"message", "exitCode"}}).',
  }),
};

type CrawlValues = Partial<OptionValues<typeof CRAWL_OPTIONS>> & OptionValues<typeof REPORT_OPTIONS> & { out: string };

export async function runCrawl(rootUrl: string, options: CrawlValues, io: Io): Promise<number> {
  const { quiet, json, ...snapshotOptions } = options;
  const result = await createSnapshot({
    ...snapshotOptions,
    // Commands that do not offer the option (demo) take the command line's default too.
    workers: snapshotOptions.workers ?? defaultWorkers(),
    rootUrl,
    // The environment main was given, not this process's: SOURCE_DATE_EPOCH is read from it.
    clock: createClock(io.env),
    signal: io.signal,
    progress: { stream: io.stderr, mode: progressMode(io.stderr, quiet) },
  });
  io.stdout.write(json ? printableJson(summaryJson(result)) : printableLines(summaryTable(result)));
  const warning = unusedNamesWarning(result.unusedNames);
  if (!json && warning !== '') io.stderr.write(`${printableLines(warning)}\n`);
  for (const kept of result.kept) io.stderr.write(`${printableLines(kept)}\n`);
  return 0;
}

export const crawlCommand = defineCommand({
  name: 'crawl',
  summary: 'Crawl a Controlled Vocabulary Service from its root index and publish a validated static snapshot.',
  args: [{ name: 'root-url', description: 'the API root, such as https://sms-cv.helmholtz.cloud/sms/cv/api/v1/' }],
  options: { ...CRAWL_OPTIONS, ...REPORT_OPTIONS },
  details: `
Example:
  cv-snapshot crawl https://sms-cv.helmholtz.cloud/sms/cv/api/v1/ --out cv-mirror

Exit codes: 0 published; 1 the crawl failed (the message names the URL), nothing published;
2 bad command line; 3 validation errors with --strict, nothing published; 130/143 interrupted.
--out is a symbolic link to the snapshot's directory in <out>.cv-snapshot/; it is swapped in one step when a
complete snapshot is ready, and refused when it holds files the snapshot does not list.`,
  failure: (options) => ({ json: options.json }),
  run: (args, options, io) => runCrawl(args[0]!, options, io),
});
