import { ExitCode } from '../errors.js';
import { withSnapshotDir } from '../archive/index.js';
import { REPORT_PATH } from '../snapshot/manifest.js';
import { verifySnapshot } from '../snapshot/verify.js';
import type { CommandDef } from './command.js';

export const verifyCommand: CommandDef = {
  name: 'verify',
  summary: 'Check a snapshot offline: every file matches SHA256SUMS, every link resolves inside it, every document validates.',
  args: [{ name: 'dir', description: 'the snapshot directory, or an archive made by pack (.tar.gz)', optional: true, default: 'out' }],
  options: [{ name: 'quiet', type: 'boolean', description: 'Print nothing when the snapshot is sound.' }],
  details: 'Exit codes: 0 sound; 3 something is wrong (each problem is listed on stderr); 4 the snapshot is partial (made with --allow-partial and documents are missing); 1 not a snapshot.',
  async run(args, options, io) {
    const result = await withSnapshotDir(args[0]!, (dir) => verifySnapshot(dir));
    const { missing } = result.manifest;
    if (result.manifest.partial) {
      for (const problem of result.problems.slice(0, 50)) io.stderr.write(`${problem}\n`);
      io.stderr.write(
        `${args[0]} is a partial snapshot: ${missing.length} document${missing.length === 1 ? '' : 's'} could not be fetched when it was made ` +
          `(listed under "missing" in its manifest, for example ${missing[0] ?? 'none'}). Crawl again to complete it.\n`,
      );
      return ExitCode.partial;
    }
    if (result.problems.length > 0) {
      for (const problem of result.problems.slice(0, 50)) io.stderr.write(`${problem}\n`);
      if (result.problems.length > 50) io.stderr.write(`… and ${result.problems.length - 50} more problems.\n`);
      io.stderr.write(`${args[0]} failed verification with ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'}.\n`);
      return ExitCode.invalid;
    }
    if (options.quiet !== true) {
      const recorded =
        result.recordedErrors > 0
          ? `every document validates, except the ${result.recordedErrors} source error${result.recordedErrors === 1 ? '' : 's'} the crawl recorded in ${REPORT_PATH}`
          : 'every document validates';
      io.stdout.write(`${args[0]} is sound: ${result.files} files match SHA256SUMS, ${result.links} links in ${result.documents} documents resolve, ${recorded}.\n`);
    }
    return ExitCode.ok;
  },
};
