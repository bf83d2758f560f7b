/**
 * The command line: picks the command, parses its options from their one declaration, runs it, and maps every
 * failure to a sentence on stderr and an exit code (the only place that does).
 */
import { crawlCommand } from './crawl-command.js';
import { formatHelp, type Command, type FailureReport, type Io } from './command.js';
import { demoCommand } from './demo-command.js';
import { diffCommand } from './diff-command.js';
import { packCommand } from './pack-command.js';
import { sampleApiCommand } from './sample-api-command.js';
import { serveCommand } from './serve-command.js';
import { verifyCommand } from './verify-command.js';
import { CvSnapshotError, ExitCode } from '../errors.js';
import { TOOL_VERSION } from '../version.js';

const PROGRAM = 'cv-snapshot';
export const COMMANDS: Command[] = [
  crawlCommand,
  verifyCommand,
  serveCommand,
  diffCommand,
  packCommand,
  sampleApiCommand,
  demoCommand,
];

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
    io.stdout.write(topic ? formatHelp(PROGRAM, topic) : overview());
    return ExitCode.ok;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${TOOL_VERSION}\n`);
    return ExitCode.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 37)}...` : name);
    io.stderr.write(
      `${PROGRAM}: there is no command ${shown}. Commands: ${COMMANDS.map((c) => c.name).join(', ')}. ` +
        `Run "${program} --help" for what each does.\n`,
    );
    return ExitCode.usage;
  }
  let prepared: ReturnType<Command['prepare']>;
  try {
    prepared = command.prepare(rest, program);
  } catch (error) {
    const { message, exitCode } = failureOf(error, io.signal, {});
    io.stderr.write(`${PROGRAM} ${name}: ${message}\n`);
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
    io.stderr.write(`${PROGRAM} ${name}: ${message}\n`);
    if (prepared.failure.json) {
      const firstLine = message.split('\n')[0];
      io.stdout.write(`${JSON.stringify({ error: { message: firstLine, exitCode } }, null, 2)}\n`);
    }
    return exitCode;
  }
}
