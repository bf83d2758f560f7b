import { mkdir } from 'node:fs/promises';
import type { Clock } from '../util/clock.js';
import { OutputDirError } from '../util/errors.js';
import { fileSystemError } from '../store/fs-errors.js';
import { assertOutsideToolDirs, inspectOut, type OutInspection, type OutputPaths } from '../store/output-dir.js';
import { recoverInterruptedPublish } from '../store/publish.js';
import { assertLinksWork, openStaging, type OpenedStaging } from '../store/staging.js';

/**
 * Readies --out before anything is fetched: its parent (made when missing), the staging directory and its lock, a
 * publish a kill interrupted, and what --out holds. Returns the staging directory opened and what --out was.
 */
export async function prepareOutput(
  paths: OutputPaths,
  clock: Clock,
): Promise<{ opened: OpenedStaging; before: OutInspection | Error }> {
  try {
    await mkdir(paths.parent, { recursive: true }).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      throw new OutputDirError(
        `The parent of --out, ${paths.parent}, is a file, not a directory; choose another --out.`,
      );
    });
    await assertOutsideToolDirs(paths);
  } catch (error) {
    throw fileSystemError(error, `Preparing --out ${paths.out}`);
  }
  const opened = await openStaging(paths, clock).catch((error: unknown) => {
    throw fileSystemError(error, `Preparing --out ${paths.out}`);
  });
  try {
    await recoverInterruptedPublish(paths);
    await assertLinksWork(paths);
    return { opened, before: await inspectOut(paths) };
  } catch (error) {
    // Refused or failed before any work: the staging directory is handed back as it was found.
    return { opened, before: fileSystemError(error, `Preparing --out ${paths.out}`) as Error };
  }
}
