/**
 * removeTree: a directory the tool made is removed whole, a directory at a time (fs.rm's recursive removal started
 * every entry at once and took 558 MB of memory on a 200,000-document generation); symbolic links in it are removed,
 * never followed, and a tree already gone, in part or whole, is fine.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeTree } from '../../src/store/remove-tree.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Files under `dir`, as relative paths. */
async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

describe('removeTree', () => {
  it('removes a wide and nested tree, its empty directories and links, and never what a link leads to', async () => {
    const top = await tempDir();
    const outside = path.join(top, 'outside');
    await mkdir(path.join(outside, 'kept'), { recursive: true });
    await writeFile(path.join(outside, 'kept', 'file.json'), 'mine');
    await writeFile(path.join(outside, 'note.txt'), 'mine');
    const before = await filesUnder(outside);

    const tree = path.join(top, 'generation');
    for (let collection = 0; collection < 5; collection++) {
      for (let record = 0; record < 300; record++) {
        const dir = path.join(tree, 'api', `c${collection}`, String(record), 'relationships', 'unit');
        await mkdir(dir, { recursive: true });
        await writeFile(path.join(dir, 'index.html'), '{}');
        await writeFile(path.join(tree, 'api', `c${collection}`, String(record), 'index.html'), '{}');
      }
    }
    await mkdir(path.join(tree, 'empty', 'deeper'), { recursive: true });
    await symlink(path.join(outside, 'kept'), path.join(tree, 'api', 'to-a-directory'));
    await symlink(path.join(outside, 'note.txt'), path.join(tree, 'api', 'c0', 'to-a-file'));
    await symlink(path.join(top, 'nowhere'), path.join(tree, 'dangling'));
    expect((await filesUnder(tree)).length).toBeGreaterThan(4500);

    await removeTree(tree);
    expect(existsSync(tree)).toBe(false);
    expect(await filesUnder(outside)).toEqual(before);
    expect(await readdir(top)).toEqual(['outside']);
  });

  it('is content with a tree that is not there, and removes a file given in place of one', async () => {
    const top = await tempDir();
    await removeTree(path.join(top, 'never-made'));
    await writeFile(path.join(top, 'a-file'), 'x');
    await removeTree(path.join(top, 'a-file'));
    expect(await readdir(top)).toEqual([]);
  });
});
