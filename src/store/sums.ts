/**
 * SHA256SUMS, the list of every file the tool wrote into a snapshot with its SHA-256, in `sha256sum` format: the
 * writer hashes as it writes, and the list is what tells the tool's own files from anyone else's (docs/safety.md).
 */

/** Folder of the snapshot's own metadata (manifest, report, SHA256SUMS). */
export const META_DIR = '_cv-snapshot';
export const SUMS_PATH = `${META_DIR}/SHA256SUMS`;

/**
 * `sha256sum` format, one line per file in the order given (sorted by path); paths are relative to the snapshot
 * directory. Yields the text in pieces of about 64 kB, so a large listing is never one string.
 */
export function* formatSums(files: Iterable<[string, string]>): Generator<string> {
  let piece = '';
  for (const [file, sha256] of files) {
    piece += `${sha256}  ${file}\n`;
    if (piece.length >= 65_536) {
      yield piece;
      piece = '';
    }
  }
  yield piece;
}

export function parseSums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const { file, sha256 } of sumsEntries(text)) sums.set(file, sha256);
  return sums;
}

/** The files SHA256SUMS's text lists, in its order, with their checksums; any other line is passed over. */
export function* sumsEntries(text: string): Generator<{ file: string; sha256: string }> {
  for (let at = 0; at < text.length;) {
    const newline = text.indexOf('\n', at);
    const end = newline === -1 ? text.length : newline;
    const listed = sumsLine(text.slice(at, end));
    if (listed !== null) yield listed;
    at = end + 1;
  }
}

const SUMS_LINE = /^([0-9a-f]{64}) [ *](.+)$/;

/** A line of SHA256SUMS, `<sha256>  <path>` (or ` *<path>`): the path and its checksum; null for any other line. */
export function sumsLine(line: string): { file: string; sha256: string } | null {
  const match = SUMS_LINE.exec(line);
  return match === null ? null : { file: match[2]!, sha256: match[1]! };
}
