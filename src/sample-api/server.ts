/**
 * The embedded CV API on node:http: the default source of `npm start`, of every test and of the benchmark. It
 * answers from in-memory records indexed by collection and id, so each request costs one page of work whatever
 * the data set's size. Latency and faults are deterministic (seeded by URL and attempt) and use timers only.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SampleApiError } from '../util/errors.js';
import { listDocumentUrls } from './document-urls.js';
import type { EndpointContext } from './endpoints.js';
import { RequestHandler, type HandlerSettings, type RequestLogEntry } from './request-handler.js';
import { createSampleData } from './sample-data.js';
import { DEFAULT_VARIANTS, type SampleVariants } from './variants.js';
import { urlHost } from '../util/http-server.js';

export interface SampleApiOptions {
  host?: string;
  port?: number;
  /** Path of the root index; the central service uses `/sms/cv/api/v1/`, older deployments `/cv/api/v1/`. */
  rootPath?: string;
  /** Base records per collection. */
  records?: number;
  pageSize?: number;
  /** Time from a request's arrival to its answer (prepared meanwhile, as by a server with CPUs of its own). */
  latencyMs?: number;
  /** Extra delay per URL in [0, jitter), the same every time that URL is asked. */
  latencyJitterMs?: number;
  /** Share of requests (0..1) that fail; never more than three times in a row for one URL. */
  faultRate?: number;
  seed?: number;
  /** 0, or 1 for the data set's "next release" (sample-data.ts, release.ts); 1 needs records >= 5. */
  release?: number;
  /** gzip/br when the request's Accept-Encoding asks for it. */
  compress?: boolean;
  /** How long a 'stall' fault holds the connection before destroying it. */
  stallMs?: number;
  /** Retry-After of 429 faults. */
  retryAfterSeconds?: number;
  /** Documents served unlike their list entries (variants.ts); all off by default. */
  variants?: Partial<SampleVariants>;
  /**
   * Keep `requestLog` (default true: tests read it). A long-running server (the `sample-api` command, the bench)
   * turns it off, since the log grows by an entry per request.
   */
  logRequests?: boolean;
}

export interface SampleApi {
  /** e.g. `http://127.0.0.1:41234/sms/cv/api/v1/` */
  rootUrl: string;
  /**
   * Every URL that answers a 200 JSON document, spelled as the API's own links spell them (format=api may be
   * present: drop it before fetching). One per distinct document: page 1 of a collection is the collection URL.
   */
  documentUrls(): string[];
  /** Every request received, in order (empty with `logRequests: false`). */
  readonly requestLog: RequestLogEntry[];
  close(): Promise<void>;
}

const DEFAULT_ROOT_PATH = '/sms/cv/api/v1/';

/** The defaults of the options a user sets (the `sample-api` command shows and applies these same values). */
export const SAMPLE_API_DEFAULTS: Readonly<
  Required<
    Pick<SampleApiOptions, 'host' | 'port' | 'rootPath' | 'records' | 'pageSize' | 'latencyMs' | 'faultRate' | 'seed'>
  > & { release: number }
> = {
  host: '127.0.0.1',
  port: 0,
  rootPath: DEFAULT_ROOT_PATH,
  records: 12,
  pageSize: 10,
  latencyMs: 0,
  faultRate: 0,
  seed: 1,
  release: 0,
};

function wholeNumber(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`sample API option ${name} must be a whole number >= ${min}, got ${value}.`);
  }
  return value;
}

function normalizeRootPath(path: string): string {
  const withLeading = path.startsWith('/') ? path : `/${path}`;
  return withLeading.endsWith('/') ? withLeading : `${withLeading}/`;
}

export async function startSampleApi(options: SampleApiOptions = {}): Promise<SampleApi> {
  const host = options.host ?? SAMPLE_API_DEFAULTS.host;
  const rootPath = normalizeRootPath(options.rootPath ?? SAMPLE_API_DEFAULTS.rootPath);
  const pageSize = wholeNumber('pageSize', options.pageSize ?? SAMPLE_API_DEFAULTS.pageSize, 1);
  const settings = handlerSettings(options);
  const records = wholeNumber('records', options.records ?? SAMPLE_API_DEFAULTS.records, 0);
  const data = createSampleData({
    seed: settings.seed,
    records,
    release: options.release ?? SAMPLE_API_DEFAULTS.release,
  });
  const variants: SampleVariants = { ...DEFAULT_VARIANTS, ...options.variants };
  wholeNumber('relatedPageSize', variants.relatedPageSize, 0);
  const context: EndpointContext = { data, rootPath, pageSize, collections: new Set(data.byName.keys()), variants };
  const handler = new RequestHandler(context, settings);
  const server = createServer((req, res) => handler.handle(req, res));
  server.keepAliveTimeout = 10_000;
  server.headersTimeout = 15_000;
  await listen(server, host, options.port ?? SAMPLE_API_DEFAULTS.port);
  const { port } = server.address() as AddressInfo;
  handler.origin = `http://${urlHost(host)}:${port}`;
  const rootUrl = `${handler.origin}${rootPath}`;

  let closing: Promise<void> | undefined;
  return {
    rootUrl,
    requestLog: handler.requestLog,
    documentUrls: () => listDocumentUrls(data, rootUrl, pageSize, variants.relatedPageSize),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        handler.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** The options a request's answer depends on, checked. */
function handlerSettings(options: SampleApiOptions): HandlerSettings {
  const faultRate = options.faultRate ?? SAMPLE_API_DEFAULTS.faultRate;
  if (!(faultRate >= 0 && faultRate <= 1))
    throw new RangeError(`sample API option faultRate must be in 0..1, got ${faultRate}.`);
  return {
    seed: options.seed ?? SAMPLE_API_DEFAULTS.seed,
    latencyMs: wholeNumber('latencyMs', options.latencyMs ?? SAMPLE_API_DEFAULTS.latencyMs, 0),
    jitterMs: wholeNumber('latencyJitterMs', options.latencyJitterMs ?? 0, 0),
    stallMs: wholeNumber('stallMs', options.stallMs ?? 3000, 0),
    retryAfter: wholeNumber('retryAfterSeconds', options.retryAfterSeconds ?? 1, 0),
    faultRate,
    compress: options.compress ?? true,
    logRequests: options.logRequests ?? true,
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const refuse = (error: NodeJS.ErrnoException): void => {
      const where = `${host} port ${port}`;
      reject(
        new SampleApiError(
          error.code === 'EADDRINUSE'
            ? `Port ${port} on ${host} is in use by another program; ` +
                'choose another with --port (0 picks a free one).'
            : error.code === 'EADDRNOTAVAIL'
              ? `Cannot listen on ${where}: ${host} is not an address of this machine; give one with --host.`
              : `Cannot listen on ${where}: ${error.message}. Check --host and --port.`,
        ),
      );
    };
    server.once('error', refuse);
    server.listen(port, host, () => {
      server.off('error', refuse);
      resolve();
    });
  });
}
