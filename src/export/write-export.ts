/**
 * An export into a file or a stream: the snapshot (a directory, or an archive extracted for the time of the export
 * within the same limits as verify) is read, never changed, and the network is never used. A file is written under
 * a temporary name beside it and renamed into place at the end, so a failed or interrupted export leaves whatever
 * was there as it was; an existing file is replaced only with `force`.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { lstat, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { withSnapshotDir, type SnapshotDirOptions } from '../archive/snapshot-dir.js';
import { ExportError, throwIfStopped, UsageError } from '../util/errors.js';
import { firstLine } from '../format/safe-read.js';
import { exportedCollections, exportParts, type ExportFormat } from './export-snapshot.js';
import { openExportSource } from './export-source.js';
import { shiftedOf } from '../format/partial.js';
import { surveySnapshot } from './survey.js';

export interface ExportOptions extends SnapshotDirOptions {
  format: ExportFormat;
  /** Collection names to export (default: all of them). */
  collections?: readonly string[];
  /** The language tag of labels and texts (BCP 47), or none. */
  language?: string | undefined;
}

export interface ExportResult {
  collections: string[];
  /**
   * The snapshot is partial and lacks documents: the records on the list pages its manifest names as `missing` are
   * not exported.
   */
  partial: boolean;
  /**
   * The exported collections whose pages disagreed every time they were fetched (the manifest's `shifted`), sorted:
   * a record may be missing from them (one listed twice is exported once).
   */
  shifted: string[];
}

/**
 * Writes `parts` to `out`, waiting whenever its buffer is full; the signal is checked between pieces. An error of
 * the stream (a full disk, a reader that went away) is thrown here, never left as an unhandled event.
 */
async function drain(parts: Iterable<string>, out: NodeJS.WritableStream, signal?: AbortSignal): Promise<void> {
  let failed: Error | undefined;
  const onError = (error: Error): void => {
    failed ??= error;
  };
  out.on('error', onError);
  try {
    for (const part of parts) {
      if (failed !== undefined) throw failed;
      if (!out.write(part)) {
        try {
          await once(out, 'drain', signal === undefined ? {} : { signal });
        } catch (error) {
          throwIfStopped(signal);
          throw error;
        }
      }
      throwIfStopped(signal);
    }
    if (failed !== undefined) throw failed;
  } finally {
    out.off('error', onError);
  }
}

function unknownCollections(named: readonly string[], known: string[], snapshot: string): UsageError {
  const list = known.length > 8 ? `${known.slice(0, 8).join(', ')} and ${known.length - 8} more` : known.join(', ');
  const names = named.map((name) => JSON.stringify(name)).join(', ');
  return new UsageError(
    `${snapshot} has no collection ${names}. Its collections are: ${list || 'none'}. ` +
      'Give --collection with one of these names (as the root index spells it).',
  );
}

/** Writes the export of `snapshot` to `out`, which is left open. */
export async function exportSnapshotTo(
  snapshot: string,
  out: NodeJS.WritableStream,
  options: ExportOptions,
): Promise<ExportResult> {
  const { signal } = options;
  return withSnapshotDir(
    snapshot,
    async (dir) => {
      const source = openExportSource(snapshot, dir);
      const named = options.collections ?? [];
      const unknown = named.filter((name) => !Object.hasOwn(source.manifest.collections, name));
      if (unknown.length > 0) throw unknownCollections(unknown, Object.keys(source.manifest.collections), snapshot);
      const collections = exportedCollections(source, named);
      const survey = surveySnapshot(source, { signal });
      const plan = { source, survey, collections, format: options.format, language: options.language };
      await drain(exportParts(plan), out, signal);
      const shifted = shiftedOf(source.manifest).filter((name) => collections.includes(name));
      return { collections, partial: source.manifest.missing.length > 0, shifted };
    },
    options,
  );
}

/** Whether `file` is `dir` or below it. */
function isInside(file: string, dir: string): boolean {
  const relative = path.relative(path.resolve(dir), path.resolve(file));
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** Writes the export of `snapshot` into the file `output`. */
export async function exportSnapshotToFile(
  snapshot: string,
  output: string,
  options: ExportOptions & { force?: boolean },
): Promise<ExportResult> {
  const existing = await lstat(output).catch(() => null);
  if (existing?.isDirectory()) throw new ExportError(`${output} is a directory. Give --output a file name.`);
  if (existing !== null && options.force !== true) {
    throw new ExportError(`${output} already exists. Give another --output, or --force to replace it.`);
  }
  if ((await stat(snapshot).catch(() => null))?.isDirectory() && isInside(output, snapshot)) {
    throw new ExportError(
      `${output} is inside the snapshot ${snapshot}, which export never changes. Write it elsewhere.`,
    );
  }
  const temp = path.join(path.dirname(output), `.${path.basename(output)}.${process.pid}.cv-export`);
  const stream = createWriteStream(temp, { flags: 'wx' });
  try {
    await once(stream, 'open');
  } catch (error) {
    throw new ExportError(`Cannot write ${output} (${firstLine(error)}). Check its directory and permissions.`);
  }
  // A write error (a full disk) is raised by `drain` or `finished`, not as an unhandled event.
  stream.on('error', () => {});
  try {
    const result = await exportSnapshotTo(snapshot, stream, options);
    stream.end();
    await finished(stream);
    await rename(temp, output);
    return result;
  } catch (error) {
    stream.destroy();
    await rm(temp, { force: true });
    throw error;
  }
}
