import { CvSnapshotError } from '../util/errors.js';

/** `diff` could not read a snapshot: the message names the snapshot and file, and suggests `verify`. */
export class DiffError extends CvSnapshotError {}
