import { packSnapshot } from '../archive/pack.js';
import { ExitCode } from '../errors.js';
import { defineCommand } from './command.js';
import { flag, text } from './options.js';

export const packCommand = defineCommand({
  name: 'pack',
  summary: 'Write a reproducible .tar.gz of a snapshot, with a sha256sum sidecar.',
  args: [{ name: 'dir', description: 'the snapshot directory' }],
  options: {
    output: text('output', {
      placeholder: 'file.tar.gz',
      default: undefined,
      defaultText: '<dir>.tar.gz beside the directory',
      description: 'Where to write the archive.',
    }),
    json: flag('json', {
      description:
        'Print the result as JSON: {"archive", "sha256", "bytes", "checksumFile"} (on failure: {"error": {"message", ' +
        '"exitCode"}}).',
    }),
  },
  details: `
The archive's bytes depend only on the snapshot's files: packing the same snapshot again gives the same SHA-256,
whatever the time zone, locale, file order, mtimes or permissions. Entries are sorted by path, every mtime is the
manifest's createdAt, owners are 0/0 with no names, modes are 0755/0644, and the gzip header carries no name or
time. The snapshot's files are at the archive's top level.

Writes <output> and <output>.sha256 (sha256sum format). Prints two lines on stdout: the archive's path and its
SHA-256 (or, with --json, one JSON object).

Check and unpack with standard tools:
  sha256sum -c out.tar.gz.sha256
  mkdir out-copy && tar -xzf out.tar.gz -C out-copy && (cd out-copy && sha256sum -c _cv-snapshot/SHA256SUMS)

Exit codes: 0 written; 1 not written (not a snapshot, a symlink or special file in it, or the output cannot be
written); 2 the command line is wrong.`,
  failure: ({ json }) => ({ json }),
  async run(args, { output, json }, io) {
    const result = await packSnapshot(args[0]!, output);
    if (json) {
      const summary = {
        archive: result.output,
        sha256: result.sha256,
        bytes: result.bytes,
        checksumFile: `${result.output}.sha256`,
      };
      io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    } else {
      io.stdout.write(`${result.output}\n${result.sha256}\n`);
    }
    return ExitCode.ok;
  },
});
