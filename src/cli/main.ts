/**
 * The command line: picks the command, parses its options from their one declaration, runs it, and maps every
 * failure to a sentence on stderr and an exit code (the only place that does).
 */
import { formatHelp, type Command, type FailureReport, type Io } from './command.js';
import { CvSnapshotError, ExitCode } from '../util/errors.js';
import { TOOL_VERSION } from '../version.js';
import { printableJson, printableLines } from '../util/safe-text.js';

const PROGRAM = 'cv-snapshot';

/** A command as the overview lists it; its module, and all that the module imports, loads only when it is used. */
interface CommandEntry {
  readonly name: string;
  /** The command's own summary, repeated here so that `--help` loads no command (a test keeps the two equal). */
  readonly summary: string;
  load(): Promise<Command>;
}

// Loading every command would load the crawler, undici, zod and the sample API, about half a second before even
// `--help` could answer; each command takes only what it needs.
const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'crawl',
    summary: 'Crawl a Controlled Vocabulary Service from its root index and publish a validated static snapshot.',
    load: async () => (await import('./crawl-command.js')).crawlCommand,
  },
  {
    name: 'verify',
    summary:
      'Check a snapshot offline: every file matches SHA256SUMS, every link resolves inside it, every document ' +
      'validates.',
    load: async () => (await import('./verify-command.js')).verifyCommand,
  },
  {
    name: 'serve',
    summary:
      'Serve a snapshot like the live API: pages, page[size], sort, filter and include answered from its records.',
    load: async () => (await import('./serve-command.js')).serveCommand,
  },
  {
    name: 'diff',
    summary:
      'Show what changed between two snapshots (directories or archives), record by record: as release notes or JSON.',
    load: async () => (await import('./diff-command.js')).diffCommand,
  },
  {
    name: 'pack',
    summary: 'Write a reproducible .tar.gz of a snapshot (or a WACZ of its capture), with a sha256sum sidecar.',
    load: async () => (await import('./pack-command.js')).packCommand,
  },
  {
    name: 'export',
    summary:
      "Write a snapshot's vocabularies as SKOS (Turtle or JSON-LD) or CSV, offline and byte for byte reproducible.",
    load: async () => (await import('./export-command.js')).exportCommand,
  },
  {
    name: 'catalogue',
    summary:
      'Publish a copy of an existing snapshot (a directory or an archive) with the catalogue for people built in.',
    load: async () => (await import('./catalogue-command.js')).catalogueCommand,
  },
  {
    name: 'sample-api',
    summary: 'Serve the embedded, spec-faithful CV API on this machine (for trying cv-snapshot, tests and benchmarks).',
    load: async () => (await import('./sample-api-command.js')).sampleApiCommand,
  },
  {
    name: 'demo',
    summary:
      'Start the sample API in this process, crawl it into --out, verify the snapshot, and print the summary ' +
      '(npm start).',
    load: async () => (await import('./demo-command.js')).demoCommand,
  },
];

/** Every command, loaded: for the option tables of docs/cli.md (reference.ts) and tests that go through them all. */
export function loadCommands(): Promise<Command[]> {
  return Promise.all(COMMANDS.map((entry) => entry.load()));
}

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    'Turn a Controlled Vocabulary Service (JSON:API) into an offline, validated, static snapshot.',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    `Run "${PROGRAM} <command> --help" (or -h) for a command's options. Version ${TOOL_VERSION}.`,
    '',
  ].join('\n');
}

/** The sentence and exit code of a failure; an interruption keeps its own code whatever the command asks. */
function failureOf(error: unknown, signal: AbortSignal, report: FailureReport): { message: string; exitCode: number } {
  if (error instanceof CvSnapshotError) {
    const interrupted = error.exitCode === ExitCode.sigint || error.exitCode === ExitCode.sigterm;
    return { message: error.message, exitCode: interrupted ? error.exitCode : (report.exitCode ?? error.exitCode) };
  }
  if (signal.aborted) {
    const signalName = String(signal.reason ?? 'SIGINT');
    const exitCode = signalName === 'SIGTERM' ? ExitCode.sigterm : ExitCode.sigint;
    return { message: `interrupted by ${signalName}.`, exitCode };
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { message: `unexpected failure: ${stack}\nPlease report this.`, exitCode: report.exitCode ?? ExitCode.failed };
}

export async function main(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  const program = io.invocation?.program ?? PROGRAM;
  if (name === undefined) {
    // A usage error: the overview goes where errors go, so a script's stdout stays empty.
    io.stderr.write(overview());
    return ExitCode.usage;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
    io.stdout.write(topic ? formatHelp(PROGRAM, await topic.load()) : overview());
    return ExitCode.ok;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${TOOL_VERSION}\n`);
    return ExitCode.ok;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (entry === undefined) {
    const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 37)}...` : name);
    io.stderr.write(
      `${PROGRAM}: there is no command ${shown}. Commands: ${COMMANDS.map((c) => c.name).join(', ')}. ` +
        `Run "${program} --help" for what each does.\n`,
    );
    return ExitCode.usage;
  }
  const command = await entry.load();
  let prepared: ReturnType<Command['prepare']>;
  try {
    prepared = command.prepare(rest, program);
  } catch (error) {
    const { message, exitCode } = failureOf(error, io.signal, {});
    io.stderr.write(`${PROGRAM} ${name}: ${printableLines(message)}\n`);
    return exitCode;
  }
  if (prepared === 'help') {
    io.stdout.write(formatHelp(PROGRAM, command));
    return ExitCode.ok;
  }
  try {
    return await prepared.run(io);
  } catch (error) {
    const { message, exitCode } = failureOf(error, io.signal, prepared.failure);
    io.stderr.write(`${PROGRAM} ${name}: ${printableLines(message)}\n`);
    if (prepared.failure.json) {
      const firstLine = message.split('\n')[0];
      io.stdout.write(`${printableJson(JSON.stringify({ error: { message: firstLine, exitCode } }, null, 2))}\n`);
    }
    return exitCode;
  }
}
