/**
 * The embedded CV API on node:http: the default source of `npm start`, of every test and of the benchmark. It
 * answers from in-memory records indexed by collection and id, so each request costs one page of work whatever
 * the data set's size. Latency and faults are deterministic (seeded by URL and attempt) and use timers only.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CvSnapshotError } from '../errors.js';
import { ApiError } from './api-error.js';
import { listDocumentUrls } from './document-urls.js';
import { answer, errorReply, type EndpointContext } from './endpoints.js';
import { FaultPlan, faultKey, jitterFor, type FaultKind } from './faults.js';
import { acceptsGzip } from './negotiation.js';
import { deliver, prepareReply, type BodyFault, type PreparedReply } from './respond.js';
import { createSampleData } from './sample-data.js';
import { DEFAULT_VARIANTS, type SampleVariants } from './variants.js';

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

export interface RequestLogEntry {
  method: string;
  /** Raw request target (path and query). */
  url: string;
  /** Status sent, or the fault: 'reset', 'stall', 'truncated', 'corrupt-gzip'; 'aborted' if the client left first. */
  status: number | string;
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

/** The sample API cannot start: its port is taken, or its address is not this machine's. */
export class SampleApiError extends CvSnapshotError {}

const HOST_HEADER = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

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

/** The host part of a URL for a listening address: wildcards become loopback, IPv6 gets brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startSampleApi(options: SampleApiOptions = {}): Promise<SampleApi> {
  const host = options.host ?? SAMPLE_API_DEFAULTS.host;
  const rootPath = normalizeRootPath(options.rootPath ?? SAMPLE_API_DEFAULTS.rootPath);
  const seed = options.seed ?? SAMPLE_API_DEFAULTS.seed;
  const pageSize = wholeNumber('pageSize', options.pageSize ?? SAMPLE_API_DEFAULTS.pageSize, 1);
  const latencyMs = wholeNumber('latencyMs', options.latencyMs ?? SAMPLE_API_DEFAULTS.latencyMs, 0);
  const jitterMs = wholeNumber('latencyJitterMs', options.latencyJitterMs ?? 0, 0);
  const stallMs = wholeNumber('stallMs', options.stallMs ?? 3000, 0);
  const retryAfter = wholeNumber('retryAfterSeconds', options.retryAfterSeconds ?? 1, 0);
  const faultRate = options.faultRate ?? SAMPLE_API_DEFAULTS.faultRate;
  if (!(faultRate >= 0 && faultRate <= 1))
    throw new RangeError(`sample API option faultRate must be in 0..1, got ${faultRate}.`);
  const compress = options.compress ?? true;
  const records = wholeNumber('records', options.records ?? SAMPLE_API_DEFAULTS.records, 0);
  const data = createSampleData({ seed, records, release: options.release ?? SAMPLE_API_DEFAULTS.release });
  const variants: SampleVariants = { ...DEFAULT_VARIANTS, ...options.variants };
  wholeNumber('relatedPageSize', variants.relatedPageSize, 0);
  const context: EndpointContext = { data, rootPath, pageSize, collections: new Set(data.byName.keys()), variants };
  const faults = new FaultPlan(seed, faultRate);
  const requestLog: RequestLogEntry[] = [];
  const logRequests = options.logRequests ?? true;
  const timers = new Set<NodeJS.Timeout>();
  let origin = '';

  const later = (ms: number, run: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };

  const statusFault = (kind: 500 | 503 | 429): ApiError => {
    if (kind === 429) {
      const seconds = `${retryAfter} second${retryAfter === 1 ? '' : 's'}`;
      return new ApiError(429, `Request was throttled. Expected available in ${seconds}.`, 'throttled', undefined, {
        'Retry-After': String(retryAfter),
      });
    }
    return kind === 503
      ? new ApiError(503, 'Service temporarily unavailable, try again later.', 'service_unavailable')
      : new ApiError(500, 'A server error occurred.', 'error');
  };

  /** The answer to `req`, prepared at once; a 'stall' fault is not an answer, and is handled when it is due. */
  const prepare = (req: IncomingMessage, fault: Exclude<FaultKind, 'stall'> | null): PreparedReply => {
    if (fault === 'reset') return { action: 'reset' };
    if (typeof fault === 'number') return prepareReply(req, errorReply(statusFault(fault)), { compress, fault: null });
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const hostHeader = req.headers.host;
    const reply = answer(context, {
      method: req.method ?? 'GET',
      origin: hostHeader !== undefined && HOST_HEADER.test(hostHeader) ? `http://${hostHeader}` : origin,
      path: queryAt < 0 ? target : target.slice(0, queryAt),
      rawQuery: queryAt < 0 ? '' : target.slice(queryAt + 1),
      accept: req.headers.accept,
    });
    return prepareReply(req, reply, { compress, fault: fault satisfies BodyFault | null });
  };

  const server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const arrivedMs = performance.now();
    const entry: RequestLogEntry = { method, url: target, status: 'pending' };
    if (logRequests) {
      requestLog.push(entry);
      res.on('close', () => {
        if (entry.status === 'pending') entry.status = 'aborted';
      });
    }
    const queryAt = target.indexOf('?');
    const key = queryAt < 0 ? target : faultKey(target.slice(0, queryAt), target.slice(queryAt + 1));
    // The attempt is counted on arrival, so concurrent retries of one URL are numbered in arrival order.
    const fault =
      method === 'GET' || method === 'HEAD' ? faults.next(key, acceptsGzip(req.headers['accept-encoding'])) : null;
    // The answer is prepared on arrival and sent when the latency has passed: the latency is the time to answer,
    // not a wait before the work (which, on this one event loop, would queue behind other requests' work).
    let prepared: PreparedReply | null = null;
    if (fault !== 'stall') {
      try {
        prepared = prepare(req, fault);
      } catch (error) {
        // A bug must not take the server down mid-benchmark; answer 500 and keep serving.
        prepared = prepareReply(req, errorReply(new ApiError(500, String(error), 'error')), {
          compress: false,
          fault: null,
        });
      }
    }
    const run = (): void => {
      if (res.destroyed || req.socket.destroyed) return;
      if (prepared === null) {
        later(stallMs, () => req.socket.destroy());
        entry.status = 'stall';
        return;
      }
      try {
        entry.status = deliver(req, res, prepared);
      } catch (error) {
        entry.status = deliver(
          req,
          res,
          prepareReply(req, errorReply(new ApiError(500, String(error), 'error')), { compress: false, fault: null }),
        );
      }
    };
    // The latency counts from the request's arrival, so the time spent preparing the answer is part of it.
    const delay = latencyMs + jitterFor(seed, key, jitterMs) - (performance.now() - arrivedMs);
    if (delay > 0) later(delay, run);
    else run();
  });
  server.keepAliveTimeout = 10_000;
  server.headersTimeout = 15_000;

  const requestedPort = options.port ?? SAMPLE_API_DEFAULTS.port;
  await new Promise<void>((resolve, reject) => {
    const refuse = (error: NodeJS.ErrnoException): void => {
      const where = `${host} port ${requestedPort}`;
      reject(
        new SampleApiError(
          error.code === 'EADDRINUSE'
            ? `Port ${requestedPort} on ${host} is in use by another program; ` +
                'choose another with --port (0 picks a free one).'
            : error.code === 'EADDRNOTAVAIL'
              ? `Cannot listen on ${where}: ${host} is not an address of this machine; give one with --host.`
              : `Cannot listen on ${where}: ${error.message}. Check --host and --port.`,
        ),
      );
    };
    server.once('error', refuse);
    server.listen(requestedPort, host, () => {
      server.off('error', refuse);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://${urlHost(host)}:${port}`;
  const rootUrl = `${origin}${rootPath}`;

  let closing: Promise<void> | undefined;
  return {
    rootUrl,
    requestLog,
    documentUrls: () => listDocumentUrls(data, rootUrl, pageSize, variants.relatedPageSize),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
