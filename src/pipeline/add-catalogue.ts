/**
 * `cv-snapshot catalogue`: a snapshot made without a catalogue (an older release, `--catalogue none`) gets one,
 * published into --out the way crawl publishes (docs/catalogue.md#for-an-existing-snapshot). The input is checked
 * against its SHA256SUMS first and is never changed: its files are copied into a staged tree with the catalogue
 * built beside them, the manifest records `catalogue: "html"`, and SHA256SUMS is written anew. Giving the same
 * --out as the input is allowed: the input stays whole as the previous generation.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ExtractLimits } from '../archive/extract.js';
import { withSnapshotDir } from '../archive/snapshot-dir.js';
import { buildCatalogue } from '../catalogue/build-catalogue.js';
import { createClock } from '../clock.js';
import { CvSnapshotError } from '../errors.js';
import { CATALOGUE_DIR, INDEX_FILE, Layout } from '../format/layout.js';
import {
  formatSums,
  MANIFEST_PATH,
  manifestSchema,
  parseSums,
  serializeManifest,
  SUMS_PATH,
  type Manifest,
} from '../format/manifest.js';
import { fileSystemError } from '../store/fs-errors.js';
import { outputPaths } from '../store/output-dir.js';
import { publish } from '../store/publish.js';
import { prepareStaging, removeStaging } from '../store/staging.js';
import { TreeWriter } from '../store/writer.js';
import { UrlSpace } from '../url/url-space.js';
import { verifySnapshot } from '../verify/verify-snapshot.js';
import { prepareOutput } from './prepare-output.js';

/** The input is not a sound snapshot: a catalogue is built only from files that match their checksums. */
export class UnsoundSnapshotError extends CvSnapshotError {}

export interface AddCatalogueOptions {
  /** A snapshot directory or an archive `pack` wrote. */
  input: string;
  out: string;
  signal?: AbortSignal;
  /** When the input is an archive: the limits of its extraction. */
  limits?: ExtractLimits;
}

export interface AddCatalogueResult {
  out: string;
  /** Files copied from the input (catalogue files it had are not among them). */
  copied: number;
  /** Catalogue pages written; null when the source's root is its host's root (no room for a catalogue). */
  pages: number | null;
}

/** A file of the input's catalogue, which the new one replaces. */
function isCatalogueFile(file: string, layout: Layout): boolean {
  if (layout.rootSegments().length === 0) return false;
  return file === INDEX_FILE || file.startsWith(`${CATALOGUE_DIR}/`);
}

export async function addCatalogue(options: AddCatalogueOptions): Promise<AddCatalogueResult> {
  return withSnapshotDir(options.input, (dir) => addCatalogueFrom(dir, options), {
    signal: options.signal,
    limits: options.limits ?? {},
  });
}

async function addCatalogueFrom(dir: string, options: AddCatalogueOptions): Promise<AddCatalogueResult> {
  const checked = await verifySnapshot(dir, { signal: options.signal, name: options.input });
  if (checked.problems.length > 0) {
    const more = checked.problems.length > 1 ? ` (and ${checked.problems.length - 1} more problems)` : '';
    throw new UnsoundSnapshotError(
      `${options.input} is not a sound snapshot: ${checked.problems[0]}${more}. Run cv-snapshot verify ` +
        `${options.input} to see every problem; a catalogue is built only for a snapshot that verifies.`,
    );
  }
  // The manifest as written, so that every member but the catalogue option keeps its bytes and order.
  const manifestText = await readFile(path.join(dir, ...MANIFEST_PATH.split('/')), 'utf8');
  const manifest = manifestSchema.parse(JSON.parse(manifestText));
  const raw = JSON.parse(manifestText) as Manifest;
  const sums = parseSums(await readFile(path.join(dir, ...SUMS_PATH.split('/')), 'utf8'));
  const root = manifest.source.root;
  const layout = new Layout(root, new UrlSpace(root));

  const clock = createClock();
  const paths = outputPaths(options.out);
  const { opened, before } = await prepareOutput(paths, clock);
  try {
    if (before instanceof Error) throw before;
    await prepareStaging(
      paths,
      opened,
      { fresh: false, resume: false },
      {
        root,
        links: manifest.options.links,
        baseUrl: manifest.options.baseUrl ?? null,
        collectionIndex: manifest.options.collectionIndex,
      },
    );
    const writer = new TreeWriter(paths.stagedTree);
    let copied = 0;
    for (const file of sums.keys()) {
      if (isCatalogueFile(file, layout) || file === MANIFEST_PATH) continue;
      writer.write(file, await readFile(path.join(dir, ...file.split('/'))));
      copied++;
      if (options.signal?.aborted) throw options.signal.reason;
    }
    // The source's list pages, in page order, as the crawl that made the snapshot stored them.
    const collections = Object.keys(manifest.collections)
      .sort()
      .map((name): [string, string[]] => {
        const files: string[] = [];
        for (let n = 1; ; n++) {
          const page = layout.pageOf(layout.collectionUrl(name), n);
          if (page === null || !sums.has(page.file)) break;
          files.push(page.file);
        }
        return [name, files];
      });
    const pages = buildCatalogue({
      layout,
      writer,
      collections,
      about: {
        root,
        createdAt: manifest.createdAt,
        tool: `${manifest.tool.name} ${manifest.tool.version}`,
        errors: manifest.validation.errors,
        warnings: manifest.validation.warnings,
      },
    });
    const options_ = { ...raw.options, catalogue: pages === null ? 'none' : 'html' };
    writer.write(MANIFEST_PATH, serializeManifest({ ...raw, options: options_ } as Manifest));
    writer.writeParts(SUMS_PATH, formatSums(writer.listing()));
    if (options.signal?.aborted) throw options.signal.reason;
    await publish(paths, before, opened.lock);
    await removeStaging(paths, opened.lock).catch(() => undefined);
    return { out: paths.out, copied, pages };
  } catch (error) {
    await removeStaging(paths, opened.lock).catch(() => undefined);
    throw fileSystemError(error, `Building the catalogue into ${paths.out}`);
  }
}
