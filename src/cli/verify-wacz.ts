/** `verify <file>.wacz`: a WACZ that `pack --format wacz` wrote, checked on its own (docs/capture.md#wacz). */
import { ExitCode, StoppedError } from '../util/errors.js';
import { plural } from '../util/plural.js';
import { printableJson, printableLines } from '../util/safe-text.js';
import { verifyWacz } from '../verify/verify-wacz.js';
import type { Io } from './command.js';

const SHOWN_PROBLEMS = 50;

export function isWacz(file: string): boolean {
  return /\.wacz$/i.test(file);
}

export async function runVerifyWacz(file: string, { quiet, json }: { quiet: boolean; json: boolean }, io: Io) {
  let result;
  try {
    result = await verifyWacz(file, io.signal);
  } catch (error) {
    if (error instanceof StoppedError) throw error.withDetail('verify stopped before the end; it changed nothing.');
    throw error;
  }
  const exitCode = result.problemCount > 0 ? ExitCode.invalid : ExitCode.ok;
  for (const problem of result.problems.slice(0, SHOWN_PROBLEMS)) io.stderr.write(`${printableLines(problem)}\n`);
  if (exitCode === ExitCode.invalid) {
    if (result.problemCount > SHOWN_PROBLEMS)
      io.stderr.write(`… and ${result.problemCount - SHOWN_PROBLEMS} more problems.\n`);
    io.stderr.write(`${file} failed verification with ${plural(result.problemCount, 'problem')}.\n`);
  }
  if (json) {
    const status = exitCode === ExitCode.ok ? 'sound' : 'problems';
    const summary = {
      wacz: file,
      status,
      exitCode,
      entries: result.entries,
      records: result.records,
      problems: result.problems,
    };
    io.stdout.write(printableJson(`${JSON.stringify(summary, null, 2)}\n`));
  } else if (exitCode === ExitCode.ok && !quiet) {
    io.stdout.write(
      `${file} is sound: its ${result.entries} entries match datapackage.json and their CRC-32, and the ` +
        `${result.records} lines of its index lead to their records.\n`,
    );
  }
  return exitCode;
}
