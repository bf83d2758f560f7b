import { ExitCode, StoppedError } from '../util/errors.js';
import { withSnapshotDir } from '../archive/index.js';
import { printableJson, printableLines, quoteUntrusted } from '../util/safe-text.js';
import { REPORT_PATH } from '../format/manifest.js';
import { verifySnapshot, type VerifyResult } from '../verify/verify-snapshot.js';
import { readFailure } from '../format/safe-read.js';
import { defineCommand } from './command.js';
import { EXTRACT_OPTIONS, extractLimits } from './extract-options.js';
import { flag } from './options.js';
import { plural } from '../util/plural.js';
import { partialSentence, shiftedOf } from '../format/partial.js';
import { isWacz, runVerifyWacz } from './verify-wacz.js';

const SHOWN_PROBLEMS = 50;

/**
 * `verify --json`: the outcome and its figures, and the problems as verifySnapshot lists them (the first 2,000; the
 * rest counted). docs/cli.md documents the fields.
 */
function verifyJson(snapshot: string, result: VerifyResult, exitCode: number): string {
  const { manifest } = result;
  const status = exitCode === ExitCode.ok ? 'sound' : exitCode === ExitCode.partial ? 'partial' : 'problems';
  const summary = {
    snapshot,
    status,
    exitCode,
    files: result.files,
    documents: result.documents,
    links: result.links,
    recordedErrors: result.recordedErrors,
    problems: result.problems,
    // Only past the cap, so that the output of an ordinary snapshot is what it always was.
    ...(result.problemCount > result.problems.length
      ? { problemsOmitted: result.problemCount - result.problems.length }
      : {}),
    missing: manifest.missing,
    shifted: shiftedOf(manifest),
  };
  return `${JSON.stringify(summary, null, 2)}\n`;
}

export const verifyCommand = defineCommand({
  name: 'verify',
  summary:
    'Check a snapshot offline: every file matches SHA256SUMS, every link resolves inside it, every document validates.',
  args: [
    {
      name: 'dir',
      description: 'the snapshot directory, or an archive made by pack (.tar.gz, or .wacz)',
      optional: true,
      default: 'out',
    },
  ],
  options: {
    quiet: flag('quiet', { description: 'Print nothing when the snapshot is sound.' }),
    json: flag('json', {
      description:
        'Print the outcome as JSON on stdout: status, figures, every problem up to 2,000 (on failure: {"error": ' +
        '{"message", "exitCode"}}).',
    }),
    ...EXTRACT_OPTIONS,
  },
  details: `
An archive is extracted into a temporary directory that is removed afterwards (also when interrupted), within the
--max-extract-* limits. A file changed after the crawl is reported as changed; symbolic links, named pipes and other
special files in the tree are reported, never opened; a collection whose stored documents do not add up to the
manifest's counts (list pages, records, documents) is named. A snapshot crawled with --warc must have a response in
its capture for every document it fetched. A .wacz (pack --format wacz) is checked on its own: its entries against
datapackage.json and their CRC-32, and each line of its index against the record it leads to.

Exit codes: 0 sound; 3 something is wrong (each problem is listed on stderr); 4 the snapshot is partial (made with
--allow-partial: documents are missing, or the pages of a collection disagreed every time they were fetched); 1 not
a snapshot; 2 bad command line; 130/143 interrupted.`,
  failure: ({ json }) => ({ json }),
  async run(args, options, io) {
    const { quiet, json } = options;
    const snapshot = args[0]!;
    if (isWacz(snapshot)) return runVerifyWacz(snapshot, { quiet, json }, io);
    const { signal } = io;
    let result: VerifyResult;
    try {
      result = await withSnapshotDir(snapshot, (dir) => verifySnapshot(dir, { signal, name: snapshot }), {
        signal,
        limits: extractLimits(options),
      });
    } catch (error) {
      if (error instanceof StoppedError) throw error.withDetail('verify stopped before the end; it changed nothing.');
      throw readFailure(error);
    }
    const exitCode = result.manifest.partial
      ? ExitCode.partial
      : result.problemCount > 0
        ? ExitCode.invalid
        : ExitCode.ok;
    for (const problem of result.problems.slice(0, SHOWN_PROBLEMS)) io.stderr.write(`${printableLines(problem)}\n`);
    if (exitCode === ExitCode.partial) {
      io.stderr.write(`${partialSentence(quoteUntrusted(snapshot), result.manifest)}\n`);
    } else if (exitCode === ExitCode.invalid) {
      if (result.problemCount > SHOWN_PROBLEMS) {
        io.stderr.write(`… and ${result.problemCount - SHOWN_PROBLEMS} more problems.\n`);
      }
      io.stderr.write(`${snapshot} failed verification with ${plural(result.problemCount, 'problem')}.\n`);
    }
    if (json) {
      io.stdout.write(printableJson(verifyJson(snapshot, result, exitCode)));
    } else if (exitCode === ExitCode.ok && !quiet) {
      const recorded =
        result.recordedErrors > 0
          ? `every document validates, except the ${plural(result.recordedErrors, 'source error')} the crawl ` +
            `recorded in ${REPORT_PATH}`
          : 'every document validates';
      io.stdout.write(
        `${snapshot} is sound: ${result.files} files match SHA256SUMS, ${result.links} links in ` +
          `${result.documents} documents resolve, ${recorded}.\n`,
      );
    }
    return exitCode;
  },
});
