import { once } from 'node:events';
import { UsageError } from '../errors.js';
import { LATEST_RELEASE, MIN_RECORDS_FOR_RELEASE, startSampleApi, type SampleApiOptions } from '../sample-api/index.js';
import type { CommandDef, OptionDef, OptionValues } from './command.js';

export const SAMPLE_API_OPTIONS: OptionDef[] = [
  { name: 'records', type: 'number', placeholder: 'n', default: 12, min: 0, max: 1_000_000, description: 'Base records per global collection (community collections and relationships scale with it).' },
  { name: 'page-size', type: 'number', placeholder: 'n', default: 10, min: 1, max: 10_000, description: 'Records per list page.' },
  { name: 'latency', type: 'number', placeholder: 'ms', default: 0, min: 0, description: 'Time from each request\'s arrival to its response.' },
  { name: 'fault-rate', type: 'number', placeholder: 'p', default: 0, min: 0, max: 1, description: 'Share of requests answered with a fault (500, 503, 429, reset, stall, truncated or corrupt body); at most 3 in a row per URL.' },
  { name: 'seed', type: 'number', placeholder: 's', default: 1, min: 0, description: 'Seed of the deterministic data set and faults.' },
  {
    name: 'release',
    type: 'number',
    placeholder: 'n',
    default: 0,
    min: 0,
    max: LATEST_RELEASE,
    description: `Release of the data set: 1 is the "next release" of the same seed, with known additions, removals, edits, a PENDING term accepted, a rename and retargeted relationships (needs --records ${MIN_RECORDS_FOR_RELEASE} or more).`,
  },
];

export function sampleApiOptions(options: OptionValues): SampleApiOptions {
  if (!Number.isInteger(options.release)) throw new UsageError(`--release takes a whole number, not ${String(options.release)}.`);
  if ((options.release as number) > 0 && (options.records as number) < MIN_RECORDS_FOR_RELEASE) {
    throw new UsageError(`--release ${String(options.release)} edits the first ${MIN_RECORDS_FOR_RELEASE} records of a collection; give --records ${MIN_RECORDS_FOR_RELEASE} or more.`);
  }
  return {
    records: options.records as number,
    pageSize: options['page-size'] as number,
    latencyMs: options.latency as number,
    faultRate: options['fault-rate'] as number,
    seed: options.seed as number,
    release: options.release as number,
  };
}

export const sampleApiCommand: CommandDef = {
  name: 'sample-api',
  summary: 'Serve the embedded, spec-faithful CV API on this machine (for trying cv-snapshot, tests and benchmarks).',
  args: [],
  options: [
    { name: 'port', type: 'number', placeholder: 'n', default: 0, min: 0, max: 65535, description: 'Port to listen on; 0 picks a free one.' },
    { name: 'host', type: 'string', placeholder: 'address', default: '127.0.0.1', description: 'Address to listen on.' },
    { name: 'root-path', type: 'string', placeholder: 'path', default: '/sms/cv/api/v1/', description: 'Path of the root index (older deployments use /cv/api/v1/).' },
    ...SAMPLE_API_OPTIONS,
  ],
  details: 'The first line on stdout is the root URL. Stop it with Ctrl-C.',
  async run(_args, options, io) {
    const api = await startSampleApi({
      ...sampleApiOptions(options),
      port: options.port as number,
      host: options.host as string,
      rootPath: options['root-path'] as string,
      // Nobody reads the log of a server run from the command line, and it would grow with every request.
      logRequests: false,
    });
    io.stdout.write(`${api.rootUrl}\n`);
    if (!io.signal.aborted) await once(io.signal, 'abort');
    await api.close();
    return 0;
  },
};
