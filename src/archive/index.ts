/** Archives of snapshots: `pack` writes them reproducibly; `verify` and `diff` read them like directories. */
export { ArchiveError } from './archive-error.js';
export { extractArchive } from './extract.js';
export { GZIP_OS_UNIX, packSnapshot, type PackResult } from './pack.js';
export { withSnapshotDir } from './snapshot-dir.js';
