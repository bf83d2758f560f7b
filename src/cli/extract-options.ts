/**
 * The limits on extracting an archive, shared by the commands that read one (`verify`, `diff`). Keyed by their
 * `ExtractLimits` names, so the parsed values go to the library as they are.
 */
import { EXTRACT_DEFAULTS, type ExtractLimits } from '../archive/extract.js';
import { integer, type OptionValues } from './options.js';

const d = EXTRACT_DEFAULTS;

export const EXTRACT_OPTIONS = {
  maxBytes: integer('max-extract-bytes', {
    placeholder: 'bytes',
    default: undefined,
    defaultText: `${d.bytesPerArchiveByte} times the archive's size, at least ${d.minBytes / (1 << 20)} MiB`,
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    description: 'When given an archive: the most bytes its files may expand to; extraction stops before that.',
  }),
  maxEntries: integer('max-extract-entries', {
    placeholder: 'n',
    default: undefined,
    defaultText:
      `one per ${d.archiveBytesPerEntry} bytes of the archive, at least ${d.minEntries}; ` +
      `at most ${d.entriesPerDocument} per document its manifest counts`,
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    description: 'When given an archive: the most files and directories it may hold.',
  }),
} as const;

export function extractLimits(values: OptionValues<typeof EXTRACT_OPTIONS>): ExtractLimits {
  return { maxBytes: values.maxBytes, maxEntries: values.maxEntries };
}
