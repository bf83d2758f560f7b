/** `export`: a snapshot's vocabularies as SKOS (Turtle, JSON-LD) or CSV (docs/vocabulary-export.md). */
export { EXPORT_FORMATS, type ExportFormat } from './export-snapshot.js';
export { ExportError } from '../util/errors.js';
export { exportSnapshotTo, exportSnapshotToFile, type ExportOptions, type ExportResult } from './write-export.js';
