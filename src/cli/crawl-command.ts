import { progressMode } from '../crawl/progress.js';
import { createSnapshot, DEFAULTS } from '../snapshot/create-snapshot.js';
import { COLLECTION_INDEX_MODES, type CollectionIndexMode } from '../snapshot/manifest.js';
import { LINK_MODES, type LinkMode } from '../snapshot/rewrite-links.js';
import type { CommandDef, OptionDef, OptionValues } from './command.js';
import { summaryJson, summaryTable } from './summary.js';

/** Options shared by `crawl` and `demo`, so both parse and document them alike. */
export const CRAWL_OPTIONS: OptionDef[] = [
  { name: 'out', type: 'string', placeholder: 'dir', default: 'out', description: 'Directory to publish the snapshot into; replaced only when the new snapshot is complete.' },
  { name: 'concurrency', type: 'number', placeholder: 'n', default: DEFAULTS.concurrency, min: 1, max: 256, description: 'Requests in flight at once.' },
  { name: 'retries', type: 'number', placeholder: 'n', default: DEFAULTS.retries, min: 0, max: 100, description: 'Retries per URL on network errors, timeouts, 5xx, 429 and bodies that do not read (cut off, empty, not JSON), with exponential backoff.' },
  { name: 'timeout', type: 'number', placeholder: 'ms', default: DEFAULTS.timeoutMs, min: 1, description: 'Time allowed for response headers, and between body chunks; every attempt ends within 10 times this in all.' },
  { name: 'rate', type: 'number', placeholder: 'req/s', min: 0.001, description: 'At most this many requests per second, retries included (default: no limit).' },
  { name: 'max-bytes', type: 'number', placeholder: 'bytes', default: DEFAULTS.maxBytes, min: 1, description: 'Largest response accepted, after decompression.' },
  { name: 'max-documents', type: 'number', placeholder: 'n', default: DEFAULTS.maxDocuments, min: 1, description: 'Stop with an error past this many URLs, a guard against a source that generates links endlessly.' },
  { name: 'allow-partial', type: 'boolean', description: 'Publish even when documents cannot be fetched after the retries; the manifest marks the snapshot partial and lists them.' },
  { name: 'links', type: 'string', choices: LINK_MODES, default: DEFAULTS.links, description: 'How links are written: root-relative paths, absolute under --base-url, or the source\'s own.' },
  { name: 'base-url', type: 'string', placeholder: 'URL', description: 'The address the mirror will have (with --links absolute); sub-paths allowed.' },
  { name: 'collection-index', type: 'string', choices: COLLECTION_INDEX_MODES, default: DEFAULTS.collectionIndex, description: 'What the bare collection URL holds: every record as one page, or the source\'s first page.' },
  { name: 'header', type: 'string', placeholder: 'Name: value', multiple: true, description: 'Extra request header, such as credentials; its value never reaches the snapshot or the logs.' },
  { name: 'strict', type: 'boolean', description: 'Publish nothing when validation finds an error.' },
  { name: 'resume', type: 'boolean', description: 'Continue an interrupted or failed crawl from its staging directory, without refetching what is done.' },
  { name: 'fresh', type: 'boolean', description: 'Discard a staging directory left by an earlier run and start over.' },
  { name: 'quiet', type: 'boolean', description: 'No progress line.' },
  { name: 'json', type: 'boolean', description: 'Print the closing summary as JSON.' },
];

export async function runCrawl(rootUrl: string, options: OptionValues, io: Parameters<CommandDef['run']>[2]): Promise<number> {
  const result = await createSnapshot({
    rootUrl,
    out: options.out as string,
    concurrency: options.concurrency as number,
    retries: options.retries as number,
    timeoutMs: options.timeout as number,
    maxBytes: options['max-bytes'] as number,
    links: options.links as LinkMode,
    collectionIndex: options['collection-index'] as CollectionIndexMode,
    headers: options.header as string[],
    strict: options.strict === true,
    fresh: options.fresh === true,
    resume: options.resume === true,
    signal: io.signal,
    progress: { stream: io.stderr, mode: progressMode(io.stderr, options.quiet === true) },
    ...(options.rate !== undefined ? { rate: options.rate as number } : {}),
    ...(options['base-url'] !== undefined ? { baseUrl: options['base-url'] as string } : {}),
    maxDocuments: options['max-documents'] as number,
    allowPartial: options['allow-partial'] === true,
  });
  io.stdout.write(options.json === true ? summaryJson(result) : summaryTable(result));
  return 0;
}

export const crawlCommand: CommandDef = {
  name: 'crawl',
  summary: 'Crawl a Controlled Vocabulary Service from its root index and publish a validated static snapshot.',
  args: [{ name: 'root-url', description: 'the API root, such as https://sms-cv.helmholtz.cloud/sms/cv/api/v1/' }],
  options: CRAWL_OPTIONS,
  details: `
Example:
  cv-snapshot crawl https://sms-cv.helmholtz.cloud/sms/cv/api/v1/ --out cv-mirror

Exit codes: 0 published; 1 the crawl failed (the message names the URL), nothing published;
2 bad command line; 3 validation errors with --strict, nothing published; 130/143 interrupted.
The previous contents of --out are left untouched unless a complete snapshot replaces them.`,
  run: (args, options, io) => runCrawl(args[0]!, options, io),
};
