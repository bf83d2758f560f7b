import { packSnapshot, type PackResult } from '../archive/pack.js';
import { packWacz } from '../archive/pack-wacz.js';
import { ExitCode, StoppedError } from '../util/errors.js';
import { printable, printableJson, printableLines } from '../util/safe-text.js';
import { SUMS_PATH } from '../store/sums.js';
import { readFailure } from '../format/safe-read.js';
import { defineCommand } from './command.js';
import { choice, flag, text } from './options.js';

const PACK_FORMATS = ['tar.gz', 'wacz'] as const;

/** Paths left out named on stderr; the rest are counted (--json lists them all). */
const NAMED_LEFT_OUT = 10;

function leftOutWarning(dir: string, leftOut: string[]): string {
  const named = leftOut.slice(0, NAMED_LEFT_OUT).map((rel) => printable(rel, 200));
  const more = leftOut.length > NAMED_LEFT_OUT ? ` and ${leftOut.length - NAMED_LEFT_OUT} more` : '';
  return (
    `Left out of the archive: ${named.join(', ')}${more} in ${dir}, which ${leftOut.length === 1 ? 'is' : 'are'} ` +
    `not part of the snapshot (not listed in ${SUMS_PATH}).\n`
  );
}

export const packCommand = defineCommand({
  name: 'pack',
  summary: 'Write a reproducible .tar.gz of a snapshot (or a WACZ of its capture), with a sha256sum sidecar.',
  args: [{ name: 'dir', description: 'the snapshot directory' }],
  options: {
    format: choice('format', PACK_FORMATS, {
      default: 'tar.gz',
      description:
        'tar.gz: the snapshot itself. wacz: the capture of a snapshot crawled with --warc, as a WACZ 1.1.1 for ' +
        'ReplayWeb.page and pywb (docs/capture.md).',
    }),
    output: text('output', {
      placeholder: 'file',
      default: undefined,
      defaultText: '<dir>.tar.gz (or <dir>.wacz) beside the directory',
      description: 'Where to write the archive. An existing file there is replaced only when pack wrote it.',
    }),
    force: flag('force', {
      description: 'Replace the file at the output (and its .sha256) even when it is not an archive pack wrote.',
    }),
    json: flag('json', {
      description:
        'Print the result as JSON: {"archive", "sha256", "bytes", "checksumFile", "leftOut", "partial"} (on ' +
        'failure: {"error": {"message", "exitCode"}}).',
    }),
  },
  details: `
The archive holds exactly the snapshot: the files its _cv-snapshot/SHA256SUMS lists, that file itself, and their
directories. Each file is checked against its checksum as it is packed; a file that is missing or changed, or a
listed path that is a symbolic link or special file, stops pack with nothing written. Anything else in the
directory (a .git/, a .env) is left out of the archive and named on stderr. A partial snapshot (made with
--allow-partial) is packed as it is, and stderr says why it is partial, as verify does.

The archive's bytes depend only on the snapshot's files: packing the same snapshot again gives the same SHA-256,
whatever the time zone, locale, file order, mtimes or permissions. Entries are sorted by path, every mtime is the
manifest's createdAt, owners are 0/0 with no names, modes are 0755/0644, and the gzip header carries no name or
time. The snapshot's files are at the archive's top level.

Writes <output> and <output>.sha256 (sha256sum format) under temporary names beside them, then renames them into
place: a pack that fails or is interrupted leaves an earlier archive as it was. An existing <output> is replaced
only when it is an archive pack wrote (its .sha256 beside it matches it), or with --force. Prints two lines on
stdout: the archive's path and its SHA-256 (or, with --json, one JSON object).

With --format wacz, the archive is a WACZ (a ZIP of stored entries): archive/ with the snapshot's capture files,
indexes/index.cdxj (sorted SURT keys, each record's offset and length), pages/pages.jsonl (the root index and each
collection), datapackage.json (each file's sha256 and size) and datapackage-digest.json. Its bytes too depend only
on the snapshot: every entry has the manifest's createdAt as its time. verify checks a .wacz.

Check and unpack with standard tools:
  sha256sum -c out.tar.gz.sha256
  mkdir out-copy && tar -xzf out.tar.gz -C out-copy && (cd out-copy && sha256sum -c _cv-snapshot/SHA256SUMS)

Exit codes: 0 written; 1 not written (not a snapshot, a file missing or changed, an output in the way or inside a
snapshot, or the output cannot be written); 2 the command line is wrong; 130/143 interrupted (nothing written).`,
  failure: ({ json }) => ({ json }),
  async run(args, { format, output, force, json }, io) {
    const dir = args[0]!;
    let result: PackResult;
    try {
      const pack = format === 'wacz' ? packWacz : packSnapshot;
      result = await pack(dir, { output, force, signal: io.signal });
    } catch (error) {
      if (error instanceof StoppedError) {
        throw error.withDetail('pack stopped before the end: no archive was written, and an earlier one is as it was.');
      }
      throw readFailure(error);
    }
    if (result.leftOut.length > 0) io.stderr.write(printableLines(leftOutWarning(dir, result.leftOut)));
    if (result.partial !== null) io.stderr.write(`${result.partial} The archive holds it as it is.\n`);
    if (json) {
      const summary = {
        archive: result.output,
        sha256: result.sha256,
        bytes: result.bytes,
        checksumFile: `${result.output}.sha256`,
        leftOut: result.leftOut,
        partial: result.partial !== null,
      };
      io.stdout.write(`${printableJson(JSON.stringify(summary, null, 2))}\n`);
    } else {
      io.stdout.write(`${result.output}\n${result.sha256}\n`);
    }
    return ExitCode.ok;
  },
});
