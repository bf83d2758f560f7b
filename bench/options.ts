/** The benchmark's command line: one option table, from which both the parser and --help are made. */
import { parseArgs } from 'node:util';

export type Scenario = 'cpu' | 'disk' | 'latency' | 'memory' | 'cores' | 'derive' | 'export';
const SCENARIOS: readonly Scenario[] = ['cpu', 'disk', 'latency', 'memory', 'cores', 'derive', 'export'];

export interface BenchOptions {
  scenarios: Scenario[];
  concurrency: number;
  pageSize: number;
  /** Sample API size of the CPU-bound scenario (base records per collection). */
  records: number;
  latencyMs: number;
  latencyRecords: number;
  memoryRecords: number[];
  deriveRecords: number[];
  /** Export scenario: sample API size of the snapshot exported. */
  exportRecords: number;
  runs: number;
  /** Worker counts the cpu and disk scenarios crawl with, each in every run; undefined: the crawl's default. */
  workers: number[] | undefined;
  sequential: boolean;
  /** Run the bare Node loop (parallel-fetch.ts) beside curl in the cpu, disk and latency scenarios. */
  nodeLoop: boolean;
  curl: boolean;
  dir: string | undefined;
  /** Where the disk scenario writes (a real disk); undefined: .bench/disk in the repository. */
  diskDir: string | undefined;
  json: string | undefined;
  keep: boolean;
}

interface OptionSpec {
  name: string;
  value?: string;
  default?: string;
  description: string;
}

const SPECS: OptionSpec[] = [
  {
    name: 'scenario',
    value: 'cpu|disk|latency|memory|cores|derive|export|all',
    default: 'all',
    description: 'Which scenario to run; repeat or comma-separate to run several.',
  },
  {
    name: 'records',
    value: 'n',
    default: '276',
    description: 'CPU-bound scenario: sample API records per collection (276 gives 50,937 documents).',
  },
  { name: 'page-size', value: 'n', default: '10', description: 'Records per list page of the sample API.' },
  {
    name: 'concurrency',
    value: 'n',
    default: '16',
    description: 'Requests in flight, for the crawl and for curl --parallel-max.',
  },
  { name: 'latency', value: 'ms', default: '20', description: 'Latency-bound scenario: delay of every response.' },
  {
    name: 'latency-records',
    value: 'n',
    default: '60',
    description: 'Latency-bound scenario: records per collection (60 gives 11,071 documents).',
  },
  {
    name: 'memory-records',
    value: 'n,n',
    default: '110,1100',
    description: 'Memory scenario: sizes to crawl (110 gives 20,296 documents, 1100 gives 202,951).',
  },
  {
    name: 'derive-records',
    value: 'n,n',
    default: '12,60',
    description:
      'Derive scenario: sizes at which a full crawl and crawl --derive are compared, at --latency per response ' +
      '(12 is the sample API default, 60 gives 11,071 documents).',
  },
  {
    name: 'export-records',
    value: 'n',
    default: '1100',
    description: 'Export scenario: size of the snapshot exported in each format (1100 gives 202,951 documents).',
  },
  {
    name: 'runs',
    value: 'n',
    default: '3',
    description:
      'CPU-bound, disk and latency-bound scenarios: repetitions of the crawl, curl and the bare Node loop, ' +
      'alternating; the median is reported.',
  },
  {
    name: 'no-sequential',
    description: 'Skip the sequential baseline (one request at a time) of the CPU-bound scenario.',
  },
  {
    name: 'workers',
    value: 'n,n',
    description:
      'Worker threads of the crawl (its --workers); the cpu and disk scenarios crawl once with each in every run, ' +
      "the others with the first. Default: the crawl's own default.",
  },
  {
    name: 'no-node-loop',
    description:
      'Skip the bare Node loop of the cpu, disk and latency scenarios (the same files as curl, fetched on undici ' +
      'as the crawl fetches, nothing checked): the floor for a client written in Node.',
  },
  { name: 'no-curl', description: 'Skip curl even when it is installed.' },
  {
    name: 'dir',
    value: 'path',
    description:
      'Where the runs write (default: /dev/shm when writable, else the temp dir); every run gets a fresh directory.',
  },
  {
    name: 'disk-dir',
    value: 'path',
    description:
      'Disk scenario: where its runs write, on the disk users write snapshots to (default: .bench/disk in the ' +
      'repository); every run is kept until the scenario ends, about 3.5 GB at the default size.',
  },
  { name: 'json', value: 'path', description: 'Also write the figures as JSON to this file.' },
  { name: 'keep', description: 'Keep what the runs wrote.' },
  { name: 'help', description: 'Show this help.' },
];

export function helpText(): string {
  const label = (spec: OptionSpec): string => `--${spec.name}${spec.value ? ` <${spec.value}>` : ''}`;
  const width = Math.max(...SPECS.map((spec) => label(spec).length));
  return [
    'Usage: npm run bench -- [options]',
    '',
    'Measures cv-snapshot against curl --parallel, a bare Node loop and a sequential fetch loop on the embedded sample',
    'API, which runs in a process of its own (docs/architecture.md#performance). Scenarios: cpu (no latency, output in',
    'memory), disk (the same, output on a disk), latency (fixed delay per response), memory (peak RSS at two sizes),',
    'cores (the cpu scenario on one CPU and on all, with 0, 1 and 2 worker threads; needs taskset) and derive (crawl',
    '--derive against a full crawl: requests and wall time) and export (a snapshot exported as Turtle, JSON-LD',
    'and CSV: time and peak RSS).',
    '',
    'Options:',
    ...SPECS.map(
      (spec) =>
        `  ${label(spec).padEnd(width)}  ${spec.description}${spec.default ? ` (default ${spec.default})` : ''}`,
    ),
    '',
  ].join('\n');
}

function whole(name: string, text: string, min: number): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min)
    throw new Error(`--${name} takes a whole number >= ${min}, not "${text}".`);
  return value;
}

/** Parses the command line; returns null when --help was asked for. */
export function parseOptions(argv: string[]): BenchOptions | null {
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries(
      SPECS.map((spec) => [
        spec.name,
        { type: spec.value ? 'string' : 'boolean', ...(spec.name === 'scenario' ? { multiple: true } : {}) },
      ]),
    ),
    strict: true,
  });
  if (values.help === true) return null;
  const text = (name: string): string => {
    const value = values[name];
    if (typeof value === 'string') return value;
    return SPECS.find((spec) => spec.name === name)?.default ?? '';
  };
  const asked = ((values.scenario as string[] | undefined) ?? ['all']).flatMap((s) => s.split(','));
  const scenarios = new Set<Scenario>();
  for (const name of asked) {
    if (name === 'all') SCENARIOS.forEach((s) => scenarios.add(s));
    else if ((SCENARIOS as readonly string[]).includes(name)) scenarios.add(name as Scenario);
    else throw new Error(`--scenario takes cpu, disk, latency, memory, cores, derive, export or all, not "${name}".`);
  }
  return {
    scenarios: SCENARIOS.filter((s) => scenarios.has(s)),
    concurrency: whole('concurrency', text('concurrency'), 1),
    pageSize: whole('page-size', text('page-size'), 1),
    records: whole('records', text('records'), 1),
    latencyMs: whole('latency', text('latency'), 1),
    latencyRecords: whole('latency-records', text('latency-records'), 1),
    memoryRecords: text('memory-records')
      .split(',')
      .map((n) => whole('memory-records', n, 1)),
    deriveRecords: text('derive-records')
      .split(',')
      .map((n) => whole('derive-records', n, 1)),
    exportRecords: whole('export-records', text('export-records'), 1),
    runs: whole('runs', text('runs'), 1),
    workers:
      typeof values.workers === 'string' ? values.workers.split(',').map((n) => whole('workers', n, 0)) : undefined,
    sequential: values['no-sequential'] !== true,
    nodeLoop: values['no-node-loop'] !== true,
    curl: values['no-curl'] !== true,
    dir: typeof values.dir === 'string' ? values.dir : undefined,
    diskDir: typeof values['disk-dir'] === 'string' ? values['disk-dir'] : undefined,
    json: typeof values.json === 'string' ? values.json : undefined,
    keep: values.keep === true,
  };
}
