/** cv-snapshot as a library: the same operations as the command line, without the process around them. */
export { createSnapshot } from './pipeline/create-snapshot.js';
export { DEFAULTS, type SnapshotOptions, type SnapshotResult } from './pipeline/snapshot-options.js';
export { addCatalogue, type AddCatalogueOptions, type AddCatalogueResult } from './pipeline/add-catalogue.js';
export { UnsoundSnapshotError } from './util/errors.js';
export { verifySnapshot, type VerifyOptions, type VerifyResult } from './verify/verify-snapshot.js';
export { NotASnapshotError } from './format/read-manifest.js';
export {
  packSnapshot,
  extractArchive,
  withSnapshotDir,
  ArchiveError,
  type PackOptions,
  type PackResult,
} from './archive/index.js';
export type { ExtractLimits } from './archive/index.js';
export { packWacz } from './archive/pack-wacz.js';
export { verifyWacz, type WaczResult } from './verify/verify-wacz.js';
export {
  diffSnapshots,
  diffSnapshotDirs,
  formatDiffJson,
  formatDiffMarkdown,
  snapshotDiffSchema,
  DiffError,
  DIFF_FORMAT_VERSION,
  type SnapshotDiff,
  type CollectionDiff,
} from './diff/index.js';
export {
  exportSnapshotTo,
  exportSnapshotToFile,
  EXPORT_FORMATS,
  ExportError,
  type ExportFormat,
  type ExportOptions,
  type ExportResult,
} from './export/index.js';
export { Layout, type Placement } from './format/layout.js';
export { META_DIR } from './store/sums.js';
export { readManifest, manifestSchema, type Manifest } from './format/manifest.js';
export type { DeriveManifest } from './format/derive-manifest.js';
export type { LinkMode } from './format/rewrite-links.js';
export { startServe, ServeError, type ServeHandle, type ServeOptions } from './serve/index.js';
export { startSampleApi, SampleApiError, type SampleApi, type SampleApiOptions } from './sample-api/index.js';
export { canonicalUrl, canonicalRoot, isInScope, InvalidUrlError } from './url/canonical-url.js';
export { locate, type ApiLocation } from './url/api-location.js';
export type { Finding } from './validate/finding.js';
export { createClock, type Clock } from './util/clock.js';
export * from './util/errors.js';
