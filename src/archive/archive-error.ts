import { CvSnapshotError } from '../util/errors.js';

/**
 * An archive could not be written or read: the snapshot holds something a deterministic archive cannot carry, or
 * the archive is damaged or unsafe to extract. The message names the file or entry and what to do about it.
 */
export class ArchiveError extends CvSnapshotError {}
