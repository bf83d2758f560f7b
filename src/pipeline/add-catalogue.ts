/**
 * `cv-snapshot catalogue`: a snapshot made without a catalogue (an older release, `--catalogue none`) gets one,
 * published into --out the way crawl publishes (docs/catalogue.md#for-an-existing-snapshot). The input is never
 * changed: its files are copied into a staged tree, each checked against SHA256SUMS as it is read (one that does not
 * match stops the run before anything is published), with the catalogue built beside them; the manifest records
 * `catalogue: "html"` and what the Changes page compared with (the snapshot --out held before, as crawl does), and
 * SHA256SUMS is written anew. Giving the same --out as the input is allowed: the input
 * stays whole as the previous generation.
 */
import { closeSync, lstatSync } from 'node:fs';
import { readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ExtractLimits } from '../archive/extract.js';
import { withSnapshotDir } from '../archive/snapshot-dir.js';
import { aboutSnapshot, buildCatalogue } from '../catalogue/build-catalogue.js';
import { checkNames, type CatalogueNames } from '../format/human-names.js';
import { recordedNames } from './check-options.js';
import { createClock } from '../util/clock.js';
import { OutputDirError, throwIfStopped, UnsoundSnapshotError } from '../util/errors.js';
import { isHostFile, writeHostFiles } from '../format/host-files.js';
import { CATALOGUE_DIR, INDEX_FILE, Layout } from '../format/layout.js';
import { SnapshotReader } from '../format/stored-records.js';
import { META_DIR } from '../store/sums.js';
import { htmlSafeJsonBytes } from '../json/html-safe.js';
import { MANIFEST_PATH, serializeManifest, type Manifest } from '../format/manifest.js';
import { formatSums, sumsLine, SUMS_PATH } from '../store/sums.js';
import { fileSystemError } from '../store/fs-errors.js';
import { outputPaths, RUN_FILE, type OutInspection, type OutputPaths } from '../store/output-dir.js';
import { publish } from '../store/publish.js';
import { removeStaging, type OpenedStaging } from '../store/staging.js';
import { FileCollisionError, sha256, TreeWriter } from '../store/writer.js';
import { Memo } from '../url/memo.js';
import { UrlSpace } from '../url/url-space.js';
import { GIVE_A_SNAPSHOT, NotASnapshotError, readSnapshotManifestJson } from '../format/read-manifest.js';
import { fileLines, openSums } from '../format/read-sums.js';
import { CHECKED_DIRS, firstLine, readSnapshotFile } from '../format/safe-read.js';
import { prepareOutput } from './prepare-output.js';
import { changesMember, changesSince, previousSnapshot } from './changes-since.js';
import { noComparison, type ChangesFeed } from '../catalogue/first-pass.js';
import { removeTree } from '../store/remove-tree.js';

export interface AddCatalogueOptions {
  /** A snapshot directory or an archive `pack` wrote. */
  input: string;
  out: string;
  signal?: AbortSignal;
  /** When the input is an archive: the limits of its extraction. */
  limits?: ExtractLimits;
  /** Told what the run is doing, a sentence at a time (it may take a minute at 200,000 documents). */
  progress?: (line: string) => void;
  /**
   * Names for people of collections and fields (`--names`), in place of those the input's manifest records (`{}`
   * drops them); by default the recorded ones, so a rebuild keeps them.
   */
  names?: CatalogueNames;
}

export interface AddCatalogueResult {
  out: string;
  /** Files copied from the input (its catalogue, manifest and host files, written anew, are not among them). */
  copied: number;
  /** Catalogue pages written; null when the source's root is its host's root (no room for a catalogue). */
  pages: number | null;
  /** The names of `names` that no collection or field of the snapshot took: a misspelt API name, most likely. */
  unusedNames: string[];
  /**
   * A sentence for each older generation of --out that publishing kept, not deleted, because a file in it was edited
   * since the tool wrote it (as crawl's result says).
   */
  kept: string[];
}

/** A file of the input's catalogue, which the new one replaces. */
function isCatalogueFile(file: string, layout: Layout): boolean {
  if (!layout.hasCatalogueRoom()) return false;
  return file === INDEX_FILE || file.startsWith(`${CATALOGUE_DIR}/`);
}

/**
 * Refuses an input that publishing into --out would remove: a generation of --out other than the one kept for
 * rollback, or anything in --out's staging directory.
 */
async function assertInputSurvives(input: string, paths: OutputPaths, before: OutInspection): Promise<void> {
  const real = await realpath(input);
  const inside = async (dir: string): Promise<string | null> => {
    const base = await realpath(dir).catch(() => null);
    if (base === null) return null;
    const rel = path.relative(base, real);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel)) ? rel : null;
  };
  const another = 'Copy it elsewhere first, or choose another --out.';
  if ((await inside(paths.staging)) !== null) {
    throw new OutputDirError(
      `${input} is inside ${paths.staging}, which publishing into ${paths.out} clears. ${another}`,
    );
  }
  const inGenerations = await inside(paths.generations);
  if (inGenerations === null) return;
  const kept =
    before.state.kind === 'link' ? before.state.generation : before.state.kind === 'absent' ? before.keep : null;
  if (inGenerations.split(path.sep)[0] !== kept) {
    throw new OutputDirError(
      `${input} is an older snapshot in ${paths.generations}, which publishing into ${paths.out} would delete (only ` +
        `the snapshot --out names now is kept). ${another}`,
    );
  }
}

/**
 * Readies the staging directory. A tree an interrupted crawl left there is that crawl's work (for `crawl --resume`)
 * and is never touched; one an interrupted `catalogue` run left is cleared.
 */
async function prepareCatalogueStaging(paths: OutputPaths, opened: OpenedStaging, input: string): Promise<void> {
  const runFile = path.join(paths.staging, RUN_FILE);
  if (opened.leftover) {
    const earlier = await readFile(runFile, 'utf8').then(
      (text) => (JSON.parse(text) as { command?: unknown }).command,
      () => undefined,
    );
    if (earlier !== 'catalogue') {
      throw new OutputDirError(
        `An earlier crawl into ${paths.out} did not finish; its work is in ${paths.staging}. Finish it with ` +
          'cv-snapshot crawl … --resume, discard it with --fresh, or choose another --out.',
      );
    }
    await removeTree(paths.stagedTree);
  }
  // Not a crawl's settings: crawl --resume refuses this staging directory, crawl --fresh discards it.
  await writeFile(runFile, JSON.stringify({ command: 'catalogue', input }));
}

export async function addCatalogue(options: AddCatalogueOptions): Promise<AddCatalogueResult> {
  return withSnapshotDir(options.input, (dir) => addCatalogueFrom(dir, options), {
    signal: options.signal,
    limits: options.limits ?? {},
  });
}

/**
 * Copies the input's files into the staged tree, each checked against its checksum; returns how many. Its catalogue,
 * manifest and host files are written anew instead. A document stored before stored JSON was escaped
 * (docs/snapshot-format.md#json-that-is-never-markup) is copied with the escapes written, the same JSON value: the
 * catalogue links to it, and a host may serve it as a page. SHA256SUMS is read a line at a time as the files are
 * copied: at 200,000 documents its paths and checksums held in memory were a quarter of the run's peak.
 */
function copyInput(dir: string, layout: Layout, writer: TreeWriter, options: AddCatalogueOptions): number {
  const unsound = (file: string, what: string) =>
    new UnsoundSnapshotError(
      `${file} in ${options.input} ${what}. Run cv-snapshot verify ${options.input} to see every problem; a ` +
        'catalogue is built only for a snapshot whose files match their checksums.',
    );
  let copied = 0;
  // SHA256SUMS as crawl writes it is sorted, so neighbouring files share their directories: each is checked once.
  const checked = new Memo<true>(CHECKED_DIRS);
  const fd = openSums(dir);
  try {
    for (const line of fileLines(fd)) {
      const listed = line === null ? null : sumsLine(line);
      if (listed === null) continue;
      const { file, sha256: expected } = listed;
      if (isCatalogueFile(file, layout) || isHostFile(file) || file === MANIFEST_PATH) continue;
      let bytes: Buffer;
      try {
        // Never through a symbolic link, never out of the snapshot, never a named pipe.
        bytes = readSnapshotFile(dir, file, undefined, checked);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw unsound(file, 'is missing');
        throw unsound(file, `cannot be read (${firstLine(error)})`);
      }
      if (copyChecked(writer, file, bytes) !== expected) throw unsound(file, 'does not match its SHA256SUMS');
      copied++;
      throwIfStopped(options.signal);
    }
  } finally {
    closeSync(fd);
  }
  return copied;
}

/**
 * Writes a file of the input into the staged tree; the SHA-256 of the input's bytes. A path SHA256SUMS lists twice
 * is copied once (the file is already there: no set of the paths copied is kept), and checked again.
 */
function copyChecked(writer: TreeWriter, file: string, bytes: Buffer): string {
  // Every file outside the metadata folder is a document.
  const safe = file.startsWith(`${META_DIR}/`) ? bytes : htmlSafeJsonBytes(bytes);
  try {
    // Hashed once: as it is written when it is copied unchanged.
    const actual = writer.write(file, bytes, { exclusive: true }).sha256;
    if (safe !== bytes) writer.write(file, safe);
    return actual;
  } catch (error) {
    const there = lstatSync(path.join(writer.dir, file), { throwIfNoEntry: false });
    if (!(error instanceof FileCollisionError) || there?.isFile() !== true) throw error;
    return sha256(bytes);
  }
}

/**
 * The Changes page's comparison: the input against the snapshot --out held before, as crawl makes it. Rebuilt in
 * place (the input is what --out holds), against the generation before the input instead, if it is still there:
 * what the crawl that made the input would have compared with, so that the tree is the one that crawl would have
 * written with its catalogue.
 */
async function catalogueChanges(
  dir: string,
  paths: OutputPaths,
  before: OutInspection,
  staged: { dir: string; manifest: Manifest },
  signal: AbortSignal | undefined,
): Promise<ChangesFeed> {
  let previous = previousSnapshot(paths, before);
  const real = (p: string) => realpath(p).catch(() => p);
  if (previous !== null && (await real(previous)) === (await real(dir))) {
    const current = before.state.kind === 'link' ? before.generations.indexOf(before.state.generation) : -1;
    const earlier = current > 0 ? before.generations[current - 1] : undefined;
    previous = earlier === undefined ? null : path.join(paths.generations, earlier);
  }
  return changesSince(previous, staged, signal);
}

async function addCatalogueFrom(dir: string, options: AddCatalogueOptions): Promise<AddCatalogueResult> {
  // Checked as every command checks it (one that crawl does not write is refused in a sentence naming the field),
  // and kept as read, to be written back: every member but the catalogue option keeps its value and order.
  const { manifest, json: raw } = readSnapshotManifestJson(dir, options.input);
  try {
    closeSync(openSums(dir)); // read as the files are copied (copyInput)
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? `has no ${SUMS_PATH}: the snapshot is incomplete (its crawl did not finish, or the file was removed)`
        : `has no readable ${SUMS_PATH} (${firstLine(error)})`;
    throw new NotASnapshotError(`${options.input} ${why}. ${GIVE_A_SNAPSHOT}`, { cause: error });
  }
  const root = manifest.source.root;
  const layout = new Layout(root, new UrlSpace(root));

  const clock = createClock();
  const paths = outputPaths(options.out);
  const { opened, before } = await prepareOutput(paths, clock);
  /** Whether the staging directory holds this run's work only (not an interrupted crawl's). */
  let ours = !opened.leftover;
  /** The staged tree's writer, once there is one. */
  let writer: TreeWriter | undefined;
  try {
    if (before instanceof Error) throw before;
    await assertInputSurvives(options.input, paths, before);
    await prepareCatalogueStaging(paths, opened, options.input);
    ours = true;
    writer = new TreeWriter(paths.stagedTree, { listing: paths.fileList });
    options.progress?.(`Copying the files of ${options.input}, each checked against SHA256SUMS…`);
    const copied = copyInput(dir, layout, writer, options);
    writeHostFiles(writer, layout);
    options.progress?.('Building the catalogue…');
    const names = options.names === undefined ? manifest.options.names : checkNames(options.names, 'The names option');
    const built = await buildCatalogue({
      // No catalogue (buildCatalogue) without room for it, so nothing to compare for it.
      changes: !layout.hasCatalogueRoom()
        ? noComparison('first')
        : await catalogueChanges(dir, paths, before, { dir: paths.stagedTree, manifest }, options.signal),
      layout,
      writer,
      reader: new SnapshotReader(options.input, paths.stagedTree, manifest),
      about: aboutSnapshot(manifest),
      ...(names ? { names } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const pages = built === null ? null : built.pages;
    // The manifest as crawl writes it: the names, when any, last.
    const { names: _recorded, ...kept } = raw.options as Manifest['options'];
    const options_ = { ...kept, catalogue: pages === null ? 'none' : 'html', ...recordedNames(names ?? {}) };
    const written = { ...raw, options: options_ } as Manifest;
    if (built !== null) written.changes = changesMember(built.changes);
    else delete written.changes;
    writer.write(MANIFEST_PATH, serializeManifest(written));
    writer.writeParts(SUMS_PATH, formatSums(writer.listing()));
    writer.close();
    throwIfStopped(options.signal);
    const keptGenerations = await publish(paths, before, opened.lock);
    await removeStaging(paths, opened.lock).catch(() => undefined);
    return { out: paths.out, copied, pages, unusedNames: built?.unusedNames ?? [], kept: keptGenerations };
  } catch (error) {
    writer?.close();
    if (ours) await removeStaging(paths, opened.lock).catch(() => undefined);
    else await opened.lock.release().catch(() => undefined);
    throw fileSystemError(error, `Building the catalogue into ${paths.out}`);
  }
}
