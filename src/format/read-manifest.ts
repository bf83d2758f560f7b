/**
 * The manifest of a snapshot that may not be what crawl wrote, read safely (safe-read.ts) and through its schema:
 * every failure is a NotASnapshotError of one sentence that says what to give instead.
 */
import path from 'node:path';
import type * as z from 'zod';
import { CvSnapshotError } from '../util/errors.js';
import { JsonTooDeepError, parseJson } from '../json/parse-json.js';
import { manifestSchema, MANIFEST_PATH, type Manifest } from './manifest.js';
import { FileTooLargeError, firstLine, NotRegularFileError, readSnapshotFile } from './safe-read.js';
/** The path given is not a snapshot: missing, a file that is not an archive, a directory without a manifest. */
export class NotASnapshotError extends CvSnapshotError {}

/** What to give instead, appended to every NotASnapshotError. */
export const GIVE_A_SNAPSHOT = 'Give a directory that crawl wrote (--out) or an archive that pack wrote.';
/** A manifest may list every URL a partial crawl missed: far more than any real one, yet a bound on memory. */
const MAX_MANIFEST_BYTES = 256 << 20;

/**
 * The manifest of the snapshot in `dir`, read through the schema. `name` is the snapshot as the user gave it (an
 * archive's name, not its temporary extraction). Throws NotASnapshotError with one sentence saying what is wrong.
 */
export function readSnapshotManifest(dir: string, name: string, give = GIVE_A_SNAPSHOT): Manifest {
  return readSnapshotManifestJson(dir, name, give).manifest;
}

/**
 * The manifest as readSnapshotManifest checks it, with the JSON it was read from: every member as the file holds it,
 * in its order, unknown ones included, for a command that writes the manifest back changed (`cv-snapshot
 * catalogue`). The file is read once, so what is written back is what was checked.
 */
export function readSnapshotManifestJson(
  dir: string,
  name: string,
  give = GIVE_A_SNAPSHOT,
): { manifest: Manifest; json: Record<string, unknown> } {
  const json = readManifestJson(dir, name, give);
  const manifest = checkedManifest(manifestThrough(json, name, manifestSchema, give), name, give);
  // The schema took it as an object, so it is one.
  return { manifest, json: json as Record<string, unknown> };
}

/**
 * `manifest` (read through the schema) when it is one that crawl writes, else NotASnapshotError with one sentence:
 * what the schema cannot say (a root that is no http(s) URL, absolute links without a base URL). `give`: what to
 * give instead, the sentence that ends the message (a command that takes no archive says so).
 */
function checkedManifest(manifest: Manifest, name: string, give: string): Manifest {
  const { root } = manifest.source;
  const refuse = (why: string): NotASnapshotError =>
    new NotASnapshotError(`${name}: ${MANIFEST_PATH} is not a cv-snapshot manifest (${why}). ${give}`);
  if (!URL.canParse(root) || !/^https?:$/.test(new URL(root).protocol)) {
    throw refuse('"source.root" is not an http or https URL');
  }
  if (manifest.options.links === 'absolute' && manifest.options.baseUrl === null) {
    throw refuse('"options.links" is absolute, but "options.baseUrl" is null');
  }
  return manifest;
}

/**
 * The manifest read through `schema`: pack reads only the fields it needs, so that other manifest versions do. Every
 * failure is a NotASnapshotError of one sentence, ended by `give` as checkedManifest's are.
 */
export function readManifestWith<T>(dir: string, name: string, schema: z.ZodType<T>, give = GIVE_A_SNAPSHOT): T {
  return manifestThrough(readManifestJson(dir, name, give), name, schema, give);
}

/** The manifest file's JSON, not yet checked; NotASnapshotError (one sentence) when it cannot be read or parsed. */
function readManifestJson(dir: string, name: string, give: string): unknown {
  const where = `${name}: ${MANIFEST_PATH}`;
  let bytes: Buffer;
  try {
    bytes = readSnapshotFile(dir, MANIFEST_PATH, MAX_MANIFEST_BYTES);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new NotASnapshotError(`${name} is not a cv-snapshot snapshot: it has no ${MANIFEST_PATH}. ${give}`);
    }
    if (error instanceof NotRegularFileError) {
      const file = path.relative(dir, error.file) || '.';
      throw new NotASnapshotError(`${where} cannot be read: ${file} is ${error.kind}, which a snapshot never holds.`);
    }
    if (error instanceof FileTooLargeError) {
      throw new NotASnapshotError(
        `${where} is larger than ${MAX_MANIFEST_BYTES} bytes; it is not a manifest that crawl wrote.`,
      );
    }
    throw new NotASnapshotError(`${where} cannot be read (${firstLine(error)}).`);
  }
  let json: unknown;
  try {
    json = parseJson(bytes.toString('utf8'));
  } catch (error) {
    // The parser's own message quotes the bytes it stopped at, cut mid-word: what matters is that it is not JSON.
    const why =
      error instanceof JsonTooDeepError ? error.message : 'not valid JSON, so not a manifest that crawl wrote';
    const what = why.startsWith('it ') ? `unreadable (${why})` : why;
    throw new NotASnapshotError(`${where} is ${what}. ${give}`);
  }
  return json;
}

/** The manifest's JSON read through `schema`; NotASnapshotError naming the first field it refuses. */
function manifestThrough<T>(json: unknown, name: string, schema: z.ZodType<T>, give: string): T {
  const where = `${name}: ${MANIFEST_PATH}`;
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length > 0 ? `"${issue.path.join('.')}"` : 'the document';
    throw new NotASnapshotError(`${where} is not a cv-snapshot manifest (${field}: ${issue.message}). ${give}`);
  }
  return parsed.data;
}
