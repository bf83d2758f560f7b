import path from 'node:path';
import { ExitCode, StoppedError, UsageError } from '../util/errors.js';
import { readFailure } from '../format/safe-read.js';
import { addCatalogue, type AddCatalogueResult } from '../pipeline/add-catalogue.js';
import { defineCommand } from './command.js';
import { EXTRACT_OPTIONS, extractLimits } from './extract-options.js';
import { shellWord } from './invocation.js';
import { readNamesFile, unusedNamesWarning } from '../format/human-names.js';
import { file, flag, text } from './options.js';
import { printableJson, printableLines } from '../util/safe-text.js';

export const catalogueCommand = defineCommand({
  name: 'catalogue',
  summary: 'Publish a copy of an existing snapshot (a directory or an archive) with the catalogue for people built in.',
  args: [{ name: 'snapshot', description: 'the snapshot directory, or an archive made by pack (.tar.gz)' }],
  options: {
    out: text('out', {
      placeholder: 'dir',
      default: undefined,
      defaultText: 'required',
      description:
        'Where to publish the snapshot with its catalogue, as crawl publishes: a symbolic link swapped in one step. ' +
        'It may be the --out the snapshot came from.',
    }),
    names: file(
      'names',
      {
        placeholder: 'file.json',
        default: undefined,
        description:
          "A JSON file of names for people of collections and fields and the site's title and introduction, as " +
          'crawl --names takes, in place of those the ' +
          "snapshot's manifest records ({} drops them); by default the recorded ones are kept.",
      },
      readNamesFile,
    ),
    json: flag('json', {
      description:
        'Print the result as JSON: {"out", "copied", "pages"} (on failure: {"error": {"message", "exitCode"}}).',
    }),
    ...EXTRACT_OPTIONS,
  },
  details: `
For a snapshot made without the catalogue (an older release, or crawl --catalogue none), or to rebuild it with this
version. Its files are copied unchanged into a new snapshot, each checked against SHA256SUMS as it is read (a file
that does not match, is missing, or is a symbolic link or special file stops the command before anything is
published), with the catalogue's pages built from its list pages (any catalogue it had is replaced, never merged),
the manifest's options.catalogue set to "html", and SHA256SUMS written anew. Nothing else changes: createdAt stays,
so the pages are byte for byte those crawl would have written.

--out is published the way crawl publishes it: an --out that crawl or this command wrote gets the new snapshot in
one step and keeps the one before it; anything else in the way is refused, never overwritten. The input itself is
never changed, so --out may be the input's own --out ("in place"): the input stays whole as the previous snapshot.
An input that publishing would delete (an older snapshot of that --out) is refused, and so is an --out whose staging
directory holds an interrupted crawl (finish it with crawl --resume, or discard it with crawl --fresh).

Exit codes: 0 published; 1 not published (not a snapshot, a snapshot that does not verify, an --out in the way, or a
file system error); 2 the command line is wrong; 130/143 interrupted (--out as it was).`,
  failure: ({ json }) => ({ json }),
  async run(args, options, io) {
    const input = args[0]!;
    const { out, json, names } = options;
    if (out === undefined) throw new UsageError('catalogue needs --out <dir>: where to publish the snapshot with it.');
    let result: AddCatalogueResult;
    try {
      result = await addCatalogue({
        input,
        out,
        signal: io.signal,
        limits: extractLimits(options),
        ...(names === undefined ? {} : { names }),
        ...(json ? {} : { progress: (line: string) => io.stderr.write(`${printableLines(line)}\n`) }),
      });
    } catch (error) {
      if (error instanceof StoppedError) throw error.withDetail('catalogue stopped: --out is as it was.');
      throw readFailure(error);
    }
    if (json) {
      io.stdout.write(`${printableJson(JSON.stringify(result, null, 2))}\n`);
    } else if (result.pages === null) {
      io.stdout.write(
        `${result.out}: published without a catalogue: the source's API root is its host's root, so its root ` +
          'document is the index.html the front page would need.\n',
      );
    } else {
      io.stdout.write(
        `${result.out}: ${result.copied} files copied, ${result.pages} catalogue pages built.\n` +
          `Browse it: open ${shellWord(path.resolve(result.out, 'index.html'))} in a browser.\n`,
      );
      const warning = unusedNamesWarning(result.unusedNames);
      if (warning !== '') io.stderr.write(`${printableLines(warning)}\n`);
    }
    if (!json) for (const kept of result.kept) io.stderr.write(`${printableLines(kept)}\n`);
    return ExitCode.ok;
  },
});
