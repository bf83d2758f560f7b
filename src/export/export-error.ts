import { CvSnapshotError } from '../util/errors.js';

/** The export cannot be written: a file of the snapshot is unusable, a name is wrong, the output is in the way. */
export class ExportError extends CvSnapshotError {}
