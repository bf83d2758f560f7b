/**
 * What `pack` puts in an archive: exactly the snapshot, which is the files its SHA256SUMS lists, SHA256SUMS itself,
 * and the directories that hold them, in archive order (sorted by their UTF-8 path bytes, not the locale, not the
 * file system's order, so that each directory comes before its contents). Anything else in the tree is left out
 * and named, so the user learns about it.
 */

export interface SnapshotEntry {
  /** POSIX path relative to the snapshot directory, without a trailing slash. */
  rel: string;
  kind: 'file' | 'dir';
  /** Size when listed; packing checks that the file still has it. */
  size: number;
  /** The file's SHA-256 from SHA256SUMS (none for SHA256SUMS itself and for directories). */
  sha256?: string;
}

/** UTF-16 code unit → a key that orders like the code point (and so like UTF-8 bytes): surrogates go above U+FFFF. */
function unitKey(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

/**
 * Orders strings as their UTF-8 bytes would (Buffer.compare), without making a Buffer per path: JS's own `<`
 * compares UTF-16 code units, which puts U+E000–U+FFFF after characters beyond U+FFFF.
 */
function compareUtf8(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return unitKey(x) - unitKey(y);
  }
  return a.length - b.length;
}

/** Every directory that holds one of `files` (`a/b/c` → `a`, `a/b`). */
export function ancestorDirs(files: Iterable<string>): Set<string> {
  const dirs = new Set<string>();
  for (const file of files) {
    for (let slash = file.lastIndexOf('/'); slash > 0; slash = file.lastIndexOf('/', slash - 1)) {
      const dir = file.slice(0, slash);
      if (dirs.has(dir)) break;
      dirs.add(dir);
    }
  }
  return dirs;
}

/**
 * The archive's entries: the `listed` files (with their sizes and checksums), `sums` (SHA256SUMS itself) and their
 * directories, sorted. A path sorts before every path it is a prefix of, so a directory precedes its contents.
 */
export function snapshotEntries(
  listed: Map<string, { size: number; sha256: string }>,
  sums: { rel: string; size: number },
): SnapshotEntry[] {
  const entries: SnapshotEntry[] = [];
  for (const dir of ancestorDirs([...listed.keys(), sums.rel])) entries.push({ rel: dir, kind: 'dir', size: 0 });
  for (const [rel, { size, sha256 }] of listed) entries.push({ rel, kind: 'file', size, sha256 });
  entries.push({ rel: sums.rel, kind: 'file', size: sums.size });
  return entries.sort((a, b) => compareUtf8(a.rel, b.rel));
}

/**
 * The paths of the tree that are not part of the snapshot, as the user would name them: a directory none of whose
 * contents are listed is one path (`.git/`), not every file in it. Sorted.
 */
export function strayPaths(unlisted: Iterable<string>, snapshotDirs: Set<string>): string[] {
  const found = new Set<string>();
  for (const rel of unlisted) {
    const segments = rel.split('/');
    let shown = rel;
    for (let depth = 1; depth < segments.length; depth++) {
      const dir = segments.slice(0, depth).join('/');
      if (!snapshotDirs.has(dir)) {
        shown = `${dir}/`;
        break;
      }
    }
    found.add(shown);
  }
  return [...found].sort(compareUtf8);
}
