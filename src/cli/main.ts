/**
 * The command line: picks the command, parses its options from their one declaration, runs it, and maps every
 * failure to a sentence on stderr and an exit code (the only place that does).
 */
import { crawlCommand } from './crawl-command.js';
import { formatHelp, parseCommandLine, type CommandDef, type Io } from './command.js';
import { demoCommand } from './demo-command.js';
import { diffCommand } from './diff-command.js';
import { packCommand } from './pack-command.js';
import { sampleApiCommand } from './sample-api-command.js';
import { serveCommand } from './serve-command.js';
import { verifyCommand } from './verify-command.js';
import { CvSnapshotError, ExitCode } from '../errors.js';
import { TOOL_VERSION } from '../version.js';

const PROGRAM = 'cv-snapshot';
export const COMMANDS: CommandDef[] = [crawlCommand, verifyCommand, serveCommand, diffCommand, packCommand, sampleApiCommand, demoCommand];

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
    `Run "${PROGRAM} <command> --help" for a command's options. Version ${TOOL_VERSION}.`,
    '',
  ].join('\n');
}

export async function main(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(overview());
    return name === undefined ? ExitCode.usage : ExitCode.ok;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${TOOL_VERSION}\n`);
    return ExitCode.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    io.stderr.write(`${PROGRAM}: there is no command "${name}". Commands: ${COMMANDS.map((c) => c.name).join(', ')}.\n`);
    return ExitCode.usage;
  }
  try {
    const parsed = parseCommandLine(command, rest);
    if (parsed.help) {
      io.stdout.write(formatHelp(PROGRAM, command));
      return ExitCode.ok;
    }
    return await command.run(parsed.args, parsed.options, io);
  } catch (error) {
    if (error instanceof CvSnapshotError) {
      io.stderr.write(`${PROGRAM} ${name}: ${error.message}\n`);
      return error.exitCode;
    }
    if (io.signal.aborted) {
      const signalName = String(io.signal.reason ?? 'SIGINT');
      io.stderr.write(`${PROGRAM} ${name}: interrupted by ${signalName}.\n`);
      return signalName === 'SIGTERM' ? ExitCode.sigterm : ExitCode.sigint;
    }
    io.stderr.write(`${PROGRAM} ${name}: unexpected failure: ${(error as Error).stack ?? String(error)}\nPlease report this.\n`);
    return ExitCode.failed;
  }
}

