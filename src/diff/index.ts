/** `diff`: what changed between two snapshots, as data, as JSON for scripts and as Markdown release notes. */
export { DiffError } from '../util/errors.js';
export { diffSnapshotDirs, diffSnapshots } from './diff-snapshots.js';
export {
  DIFF_FORMAT_VERSION,
  formatDiffJson,
  snapshotDiffSchema,
  type AttributeChange,
  type CollectionDiff,
  type DiffSide,
  type Identifier,
  type Linkage,
  type RecordChange,
  type RecordRef,
  type RelationshipChange,
  type SnapshotDiff,
} from './diff-format.js';
export { formatDiffMarkdown } from './format-markdown.js';
