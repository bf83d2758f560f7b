/** Archives of snapshots: `pack` writes them reproducibly; `verify` and `diff` read them like directories. */
export { ArchiveError } from '../util/errors.js';
export { extractArchive, type ExtractLimits, type ExtractOptions } from './extract.js';
export { packSnapshot, type PackOptions, type PackResult } from './pack.js';
export { withSnapshotDir, type SnapshotDirOptions } from './snapshot-dir.js';
