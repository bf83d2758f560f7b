import { once } from 'node:events';
import { UsageError } from '../util/errors.js';
import {
  DEFAULT_VARIANTS,
  RELATIONSHIP_DOCUMENT_SHAPES,
  LATEST_RELEASE,
  MIN_RECORDS_FOR_RELEASE,
  SAMPLE_API_DEFAULTS,
  startSampleApi,
  type SampleApiOptions,
  type SampleVariants,
} from '../sample-api/index.js';
import { defineCommand } from './command.js';
import { choice, decimal, flag, integer, text, type Option, type OptionValues } from './options.js';

/** The data set and its behaviour, keyed by their `SampleApiOptions` names (shared with `demo`). */
export const SAMPLE_DATA_OPTIONS = {
  records: integer('records', {
    placeholder: 'n',
    default: SAMPLE_API_DEFAULTS.records,
    min: 0,
    max: 1_000_000,
    description: 'Base records per global collection (community collections and relationships scale with it).',
  }),
  pageSize: integer('page-size', {
    placeholder: 'n',
    default: SAMPLE_API_DEFAULTS.pageSize,
    min: 1,
    max: 10_000,
    description: 'Records per list page.',
  }),
  latencyMs: integer('latency', {
    placeholder: 'ms',
    default: SAMPLE_API_DEFAULTS.latencyMs,
    min: 0,
    max: 600_000,
    description: "Time from each request's arrival to its response.",
  }),
  faultRate: decimal('fault-rate', {
    placeholder: 'p',
    default: SAMPLE_API_DEFAULTS.faultRate,
    min: 0,
    max: 1,
    description:
      'Share of requests answered with a fault (500, 503, 429, reset, stall, truncated or corrupt body); at most 3 ' +
      'in a row per URL.',
  }),
  seed: integer('seed', {
    placeholder: 's',
    default: SAMPLE_API_DEFAULTS.seed,
    min: 0,
    max: 4_294_967_295,
    description: 'Seed of the deterministic data set and faults.',
  }),
  release: integer('release', {
    placeholder: 'n',
    default: SAMPLE_API_DEFAULTS.release,
    min: 0,
    max: LATEST_RELEASE,
    description:
      'Release of the data set: 1 is the "next release" of the same seed, with known additions, removals, edits, a ' +
      'PENDING term accepted, a rename and retargeted relationships ' +
      `(needs --records ${MIN_RECORDS_FOR_RELEASE} or more).`,
  }),
} satisfies { [K in keyof SampleApiOptions]?: Option<SampleApiOptions[K]> };

/**
 * Documents served unlike their list entries, as other JSON:API servers serve them: what `crawl --derive` must
 * notice (docs/derive.md). Keyed by their `SampleVariants` names.
 */
const SAMPLE_VARIANT_OPTIONS = {
  relatedPageSize: integer('related-page-size', {
    placeholder: 'n',
    default: DEFAULT_VARIANTS.relatedPageSize,
    min: 0,
    max: 10_000,
    description: 'Serve related to-many documents in pages of n, with links and meta.pagination; 0 does not page them.',
  }),
  relationshipDocuments: choice('relationship-documents', RELATIONSHIP_DOCUMENT_SHAPES, {
    default: DEFAULT_VARIANTS.relationshipDocuments,
    description:
      'Relationship documents as {data, links.self} (plain), with links before data (reordered), or with ' +
      'links.related and jsonapi added (extended).',
  }),
  recordMeta: flag('record-meta', {
    description: "Give one record's record document a meta member that its list entry lacks.",
  }),
} satisfies { [K in keyof SampleVariants]?: Option<SampleVariants[K]> };

/** Checks what no single option can: a release edits records that a small data set does not have. */
type SampleData = OptionValues<typeof SAMPLE_DATA_OPTIONS>;

export function sampleData(options: SampleData): SampleData {
  if (options.release > 0 && options.records < MIN_RECORDS_FOR_RELEASE) {
    throw new UsageError(
      `--release ${options.release} edits the first ${MIN_RECORDS_FOR_RELEASE} records of a collection; ` +
        `give --records ${MIN_RECORDS_FOR_RELEASE} or more.`,
    );
  }
  return options;
}

export const sampleApiCommand = defineCommand({
  name: 'sample-api',
  summary: 'Serve the embedded, spec-faithful CV API on this machine (for trying cv-snapshot, tests and benchmarks).',
  args: [],
  options: {
    port: integer('port', {
      placeholder: 'n',
      default: SAMPLE_API_DEFAULTS.port,
      min: 0,
      max: 65535,
      description: 'Port to listen on; 0 picks a free one.',
    }),
    host: text('host', {
      placeholder: 'address',
      default: SAMPLE_API_DEFAULTS.host,
      description: 'Address to listen on.',
    }),
    rootPath: text('root-path', {
      placeholder: 'path',
      default: SAMPLE_API_DEFAULTS.rootPath,
      description: 'Path of the root index (older deployments use /cv/api/v1/).',
    }),
    ...SAMPLE_DATA_OPTIONS,
    ...SAMPLE_VARIANT_OPTIONS,
  } satisfies { [K in keyof (SampleApiOptions & SampleVariants)]?: Option<(SampleApiOptions & SampleVariants)[K]> },
  details: `
The first line on stdout is the root URL. Stop it with Ctrl-C.

Exit codes: 0 stopped by Ctrl-C or SIGTERM; 1 it cannot listen (the port is in use, or the address is not this
machine's); 2 bad command line.`,
  async run(_args, { port, host, rootPath, relatedPageSize, relationshipDocuments, recordMeta, ...data }, io) {
    const api = await startSampleApi({
      ...sampleData(data),
      variants: { relatedPageSize, relationshipDocuments, recordMeta },
      port,
      host,
      rootPath,
      // Nobody reads the log of a server run from the command line, and it would grow with every request.
      logRequests: false,
    });
    io.stdout.write(`${api.rootUrl}\n`);
    if (!io.signal.aborted) await once(io.signal, 'abort');
    await api.close();
    return 0;
  },
});
