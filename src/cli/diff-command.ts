import { diffSnapshots, formatDiffJson, formatDiffMarkdown } from '../diff/index.js';
import { ExitCode } from '../errors.js';
import { defineCommand } from './command.js';
import { choice, flag } from './options.js';

/** `--exit-code`: the snapshots differ (as `git diff --exit-code`). */
export const DIFFERENCES_EXIT_CODE = 1;

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
      description: 'Markdown release notes, or JSON for scripts (documented in the README).',
    }),
    exitCode: flag('exit-code', {
      description:
        'Exit 1 when the snapshots differ, 0 when they do not (as git diff --exit-code).',
    }),
  },
  details: `
Records are matched by type and id, in every collection of either snapshot. For each collection: records added
and removed, records changed (each attribute with its old and new value, each relationship whose targets
changed: compared by type and id, never by link), status changes (PENDING -> ACCEPTED), renamed terms, and the
record counts. Snapshots with other ports, root URLs or --links modes compare by content alone; the times
recorded and the tool versions are shown but not compared.

Exit codes: 0 compared (and, with --exit-code, no differences); 1 with --exit-code: the snapshots differ, and the
diff is on stdout with nothing on stderr; 1 also means diff failed (a snapshot cannot be read): then stdout is
empty and stderr says why, starting "cv-snapshot diff:"; 2 bad command line. A script tells the two 1s apart by
stdout: "if out=$(cv-snapshot diff --exit-code a b); then same; elif [ -n "$out" ]; then differ; else fail; fi".`,
  async run(args, options, io) {
    const diff = await diffSnapshots(args[0]!, args[1]!);
    io.stdout.write(options.format === 'json' ? formatDiffJson(diff) : formatDiffMarkdown(diff));
    return options.exitCode && !diff.identical ? DIFFERENCES_EXIT_CODE : ExitCode.ok;
  },
});
