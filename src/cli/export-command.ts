import { ExitCode, StoppedError, UsageError } from '../util/errors.js';
import { readFailure } from '../format/safe-read.js';
import { shiftedSentence } from '../format/partial.js';
import { EXPORT_FORMATS } from '../export/index.js';
import { exportSnapshotTo, exportSnapshotToFile, type ExportResult } from '../export/index.js';
import { defineCommand } from './command.js';
import { EXTRACT_OPTIONS, extractLimits } from './extract-options.js';
import { choice, flag, list, quote, text } from './options.js';
import { plural } from '../util/plural.js';

/** BCP 47 as far as a tag's shape goes: `en`, `de-CH`, `zh-Hans`. */
const LANGUAGE_TAG = /^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$/;

export const exportCommand = defineCommand({
  name: 'export',
  summary:
    "Write a snapshot's vocabularies as SKOS (Turtle or JSON-LD) or CSV, offline and byte for byte reproducible.",
  args: [{ name: 'snapshot', description: 'the snapshot directory, or an archive made by pack (.tar.gz)' }],
  options: {
    format: choice('format', EXPORT_FORMATS, {
      default: undefined,
      description:
        'What to write: SKOS as Turtle or JSON-LD (one graph, the same in both), or CSV (one row per record).',
    }),
    output: text('output', {
      placeholder: 'file',
      default: undefined,
      defaultText: 'required; - for stdout',
      description: 'Where to write it; - writes to stdout. An existing file is replaced only with --force.',
    }),
    collections: list('collection', {
      placeholder: 'name',
      description: 'Export only this collection (as the root index names it, e.g. units); default: all of them.',
    }),
    language: text('language', {
      placeholder: 'tag',
      default: undefined,
      defaultText: 'none',
      description:
        'Tag labels, definitions and notes with this language (BCP 47, e.g. en); the source states none, so none ' +
        'is claimed unless you give one.',
    }),
    force: flag('force', { description: 'Replace an existing file at --output.' }),
    ...EXTRACT_OPTIONS,
  },
  details: `
Each collection becomes a skos:ConceptScheme at its URL at the source, each record a skos:Concept at its own
links.self at the source (format=api dropped), with its label, abbreviation, definition, note, provenance, status,
successor, community and the relations between vocabularies that mean one; docs/vocabulary-export.md has the whole
mapping and its reasons. The CSV has one row per record: uri, collection, id, label, definition, status, then every
attribute and relationship (RFC 4180, UTF-8, CRLF; a text that a spreadsheet would run as a formula starts with ').

Collections are written in name order, records in id order: the same snapshot gives the same bytes on any machine,
from its directory or its archive; it holds no time, not even the snapshot's createdAt. The file is written under a
temporary name and renamed into place, so a failed export leaves --output as it was.

Exit codes: 0 written; 1 not written (not a snapshot, an unreadable file in it, --output in the way or not
writable); 2 the command line is wrong (also a --collection the snapshot does not have); 130/143 interrupted.`,
  async run(args, options, io) {
    const snapshot = args[0]!;
    const { format, output, collections, language, force } = options;
    if (format === undefined) throw new UsageError(`export needs --format <${EXPORT_FORMATS.join('|')}>.`);
    if (output === undefined) throw new UsageError('export needs --output <file> (or --output - for stdout).');
    if (language !== undefined && !LANGUAGE_TAG.test(language)) {
      throw new UsageError(`--language takes a language tag such as en or de-CH, not ${quote(language)}.`);
    }
    const exportOptions = { format, collections, language, signal: io.signal, limits: extractLimits(options) };
    let result: ExportResult;
    try {
      result =
        output === '-'
          ? await exportSnapshotTo(snapshot, io.stdout, exportOptions)
          : await exportSnapshotToFile(snapshot, output, { ...exportOptions, force });
    } catch (error) {
      if (error instanceof StoppedError) throw error.withDetail('export stopped: --output is as it was.');
      // The reader of stdout went away (`| head`): it has what it wanted.
      if (output === '-' && (error as NodeJS.ErrnoException).code === 'EPIPE') return ExitCode.ok;
      throw readFailure(error);
    }
    if (result.partial) {
      io.stderr.write(
        `${snapshot} is a partial snapshot: the records on the list pages its manifest names as missing are not ` +
          'in the export. Crawl again to complete it.\n',
      );
    }
    if (result.shifted.length > 0) {
      io.stderr.write(
        `${snapshot} is a partial snapshot: ${shiftedSentence(result.shifted)} The export holds each record ` +
          'once, and may lack some. Crawl again to complete it.\n',
      );
    }
    if (output !== '-') {
      const n = result.collections.length;
      io.stdout.write(`${output}: ${plural(n, 'collection')} written as ${format}.\n`);
    }
    return ExitCode.ok;
  },
});
