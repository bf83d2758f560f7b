/**
 * What the catalogue's Changes page compares (docs/catalogue.md#changes): the snapshot being made, in its staged tree
 * with its manifest not yet written, against the snapshot --out held when the run started, through `diff`'s own
 * comparison (src/diff/). Until the new snapshot is published, --out still names the previous one; publishing keeps
 * it as the previous generation. Two crawls into new folders compare with nothing, so their trees stay identical.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CatalogueChanges } from '../catalogue/changes-page.js';
import { diffOpenSnapshots } from '../diff/diff-snapshots.js';
import { openSnapshot } from '../diff/collection-records.js';
import { MANIFEST_PATH, type Manifest } from '../format/manifest.js';
import { SUMS_PATH } from '../store/sums.js';
import type { OutInspection, OutputPaths } from '../store/output-dir.js';

/** The snapshot --out holds before a run publishes (its path, which still names it), or null when it holds none. */
export function previousSnapshot(paths: OutputPaths, before: OutInspection): string | null {
  const hasSnapshot = before.state.kind === 'link' || existsSync(path.join(paths.out, ...SUMS_PATH.split('/')));
  return before.state.kind !== 'absent' && hasSnapshot ? paths.out : null;
}

/** The manifest member that says what the Changes page compared with. */
export function changesMember(changes: CatalogueChanges): NonNullable<Manifest['changes']> {
  return { against: changes.against };
}

/**
 * Compares the staged snapshot with `previous` (a snapshot directory, or null). A previous snapshot that cannot be
 * read as one (edited by hand, written by something else) is not compared, and the page says so: it never stops the
 * run that replaces it.
 */
export async function changesSince(
  previous: string | null,
  staged: { dir: string; manifest: Manifest },
  signal?: AbortSignal,
): Promise<CatalogueChanges> {
  if (previous === null || !existsSync(path.join(previous, ...MANIFEST_PATH.split('/')))) {
    return { against: null, why: 'first' };
  }
  try {
    const before = openSnapshot(`the previous snapshot in ${previous}`, previous);
    const after = openSnapshot('the new snapshot', staged.dir, staged.manifest);
    const diff = await diffOpenSnapshots(before, after, signal);
    return { against: { root: before.reader.manifest.source.root, createdAt: before.reader.manifest.createdAt }, diff };
  } catch (error) {
    // Whatever the previous snapshot holds (edited by hand, damaged, another tool's) ends in "not compared", never in
    // a crawl that fails after every document is fetched; only the user's signal stops it.
    if (signal?.aborted === true) throw error;
    return { against: null, why: 'unreadable' };
  }
}
