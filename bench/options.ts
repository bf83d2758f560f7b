/** The benchmark's command line: one option table, from which both the parser and --help are made. */
import { parseArgs } from 'node:util';

export type Scenario = 'cpu' | 'disk' | 'latency' | 'memory' | 'cores' | 'derive' | 'export';
const SCENARIOS: readonly Scenario[] = ['cpu', 'disk', 'latency', 'memory', 'cores', 'derive', 'export'];
/** What `--targets` runs: the scenarios that measure the targets (targets.ts). */
const TARGET_SCENARIOS: readonly Scenario[] = ['cpu', 'latency', 'memory', 'derive', 'export'];

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
  /** cpu scenario: also crawl with `--catalogue none` in every run, alternating (the catalogue by difference). */
  withoutCatalogue: boolean;
  /** cpu scenario: one more crawl under `node --cpu-prof`, summarised by cpu-profile.ts. */
  profile: boolean;
  /** Functions (and modules) the profile summary lists. */
  profileTop: number;
  /** Where the profiled crawl's .cpuprofile files are kept; undefined: removed with the run. */
  profileDir: string | undefined;
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
    default: '110',
    description:
      'CPU-bound scenarios (cpu, disk, cores, and the CPU-bound pairs of derive): sample API records per collection ' +
      '(110 gives 20,296 documents, 276 gives 50,937).',
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
    description:
      'Memory scenario: sizes to crawl (110 gives 20,296 documents, 1100 gives 202,951); at the largest it also ' +
      'runs crawl --derive, diff, verify and catalogue, and the export scenario reuses its snapshot.',
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
      'cpu, disk, latency and cores scenarios and the CPU-bound pairs of derive: repetitions of each program, ' +
      'alternating; the median is reported.',
  },
  {
    name: 'targets',
    description:
      'Run the scenarios the targets need (cpu, latency, memory, derive, export); with --scenario, as well as ' +
      'those. The table of targets ends every bench.',
  },
  {
    name: 'no-without-catalogue',
    description:
      'Skip the crawls with --catalogue none of the cpu, latency and derive scenarios (one of each crawl in every ' +
      'run, alternating).',
  },
  {
    name: 'no-profile',
    description: "Skip the cpu scenario's profiled crawl (one more crawl under node --cpu-prof).",
  },
  {
    name: 'profile-top',
    value: 'n',
    default: '12',
    description: 'How many functions (and modules) the profile summary lists by self and by inclusive time.',
  },
  {
    name: 'profile-dir',
    value: 'path',
    description: "Keep the profiled crawl's .cpuprofile files here (open them in Chrome DevTools or speedscope).",
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
      'repository); every run is kept until the scenario ends, about 1.4 GB at the default size (3.5 GB at ' +
      '--records 276).',
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
    'Measures cv-snapshot on the embedded sample API, which runs in a process of its own, with curl --parallel, a',
    'bare Node loop and a sequential fetch loop beside it as anchors (docs/performance.md). Scenarios: cpu (no',
    "latency, output in memory: the crawl's CPU per document, by phase, the catalogue's share and a profile's top",
    'functions), disk (the same, output on a disk), latency (fixed delay per response), memory (peak RSS of the',
    'crawl at two sizes, and of crawl --derive, diff, verify and catalogue at the largest), cores (the cpu scenario',
    'on one CPU and on all, with 0, 1 and 2 worker threads; needs taskset), derive (crawl --derive against a full',
    'crawl: wall and CPU without latency, requests and wall time with it) and export (a snapshot exported as',
    'Turtle, JSON-LD and CSV: time and peak RSS). A table of the targets, met or missed, ends the output.',
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
  const given = (values.scenario as string[] | undefined)?.flatMap((s) => s.split(','));
  const asked = values.targets === true ? [...(given ?? []), ...TARGET_SCENARIOS] : (given ?? ['all']);
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
    withoutCatalogue: values['no-without-catalogue'] !== true,
    profile: values['no-profile'] !== true,
    profileTop: whole('profile-top', text('profile-top'), 1),
    profileDir: typeof values['profile-dir'] === 'string' ? values['profile-dir'] : undefined,
  };
}
