import { diffSnapshots, formatDiffJson, formatDiffMarkdown, type SnapshotDiff } from '../diff/index.js';
import { ExitCode, StoppedError } from '../util/errors.js';
import { readFailure } from '../format/safe-read.js';
import { defineCommand } from './command.js';
import { EXTRACT_OPTIONS, extractLimits } from './extract-options.js';
import { choice, flag } from './options.js';
import { printableJson, printableLines } from '../util/safe-text.js';

/** `--exit-code`: the snapshots differ (as `git diff --exit-code`, diff(1) and cmp(1)). */
const DIFFERENCES_EXIT_CODE = 1;
/** `--exit-code`: they could not be compared ("trouble" in diff(1) and cmp(1)), so a script never takes it for 1. */
const TROUBLE_EXIT_CODE = 2;

export const diffCommand = defineCommand({
  name: 'diff',
  summary:
    'Show what changed between two snapshots (directories or archives), record by record: as release notes or JSON.',
  args: [
    { name: 'old', description: 'the earlier snapshot: a directory that crawl wrote, or an archive that pack wrote' },
    { name: 'new', description: 'the later snapshot, likewise' },
  ],
  options: {
    format: choice('format', ['md', 'json'], {
      default: 'md',
      description: 'Markdown release notes, or JSON for scripts (documented in docs/diff.md).',
    }),
    exitCode: flag('exit-code', {
      description:
        'Exit 0 when the snapshots are the same, 1 when they differ, 2 when they cannot be compared (as diff(1)).',
    }),
    ...EXTRACT_OPTIONS,
  },
  details: `
Records are matched by type and id, in every collection of either snapshot. For each collection: records added
and removed, records changed (each attribute with its old and new value, each relationship whose targets
changed: compared by type and id, never by link), status changes (PENDING -> ACCEPTED), renamed terms, and the
record counts. Snapshots with other ports, root URLs or --links modes compare by content alone; the times
recorded and the tool versions are shown but not compared. A partial snapshot (--allow-partial) lacks list pages,
or holds collections whose pages shifted: records that only the other snapshot holds in those collections are "not
fetched", never added or removed. List elements without a type and id cannot be matched record by
record: each collection counts them and compares them as a whole; when they are not the same in both, the
collection has changed (--exit-code exits 1), though what changed in them cannot be told.
Archives are extracted into temporary directories, removed afterwards, within the --max-extract-* limits.

Exit codes: 0 compared; 1 diff failed (a snapshot cannot be read: stdout is empty and stderr says why, starting
"cv-snapshot diff:"); 2 bad command line. With --exit-code, as diff(1) and cmp(1): 0 the snapshots are the same;
1 they differ (the diff is on stdout, nothing on stderr); 2 they cannot be compared, or a bad command line.
Interrupted: 130/143 either way.`,
  failure: ({ exitCode }) => (exitCode ? { exitCode: TROUBLE_EXIT_CODE } : {}),
  async run(args, options, io) {
    let diff: SnapshotDiff;
    try {
      diff = await diffSnapshots(args[0]!, args[1]!, { signal: io.signal, limits: extractLimits(options) });
    } catch (error) {
      if (error instanceof StoppedError) throw error.withDetail('diff stopped before the end; it printed nothing.');
      throw readFailure(error);
    }
    io.stdout.write(
      options.format === 'json' ? printableJson(formatDiffJson(diff)) : printableLines(formatDiffMarkdown(diff)),
    );
    return options.exitCode && !diff.identical ? DIFFERENCES_EXIT_CODE : ExitCode.ok;
  },
});
