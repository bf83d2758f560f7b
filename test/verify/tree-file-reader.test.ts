/**
 * verify's reader of the tree's files (tree-file-reader.ts), which reads them into one buffer used again: every file
 * of a crawled snapshot reads back with the checksum SHA256SUMS gives it, and files on either side of the buffer's
 * size come back whole, as their bytes, or hashed only.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NotRegularFileError } from '../../src/format/safe-read.js';
import { TreeFileReader } from '../../src/verify/tree-file-reader.js';
import { tempDir } from '../helpers/temp-dir.js';
import { records, snapshotOf } from '../helpers/tiny-vocabulary.js';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('TreeFileReader', () => {
  it('reads every file of a crawled snapshot with the checksum SHA256SUMS gives it, and its bytes', async () => {
    const dir = await snapshotOf(
      { collections: { things: records(30), units: records(7) }, pageSize: 4 },
      path.join(await tempDir(), 'snapshot'),
    );
    const sums = await readFile(path.join(dir, '_cv-snapshot', 'SHA256SUMS'), 'utf8');
    const lines = sums.split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(40);
    const reader = new TreeFileReader();
    for (const line of lines) {
      const [expected, file] = [line.slice(0, 64), line.slice(66)];
      const full = path.join(dir, ...file.split('/'));
      const read = reader.read(full, true, Number.MAX_SAFE_INTEGER);
      expect(read.sha256, file).toBe(expected);
      expect(read.bytes?.equals(await readFile(full)), file).toBe(true);
      expect(reader.read(full, false, Number.MAX_SAFE_INTEGER), file).toEqual({ bytes: null, sha256: expected });
    }
  });

  it('gives files larger than its buffer and of no bytes whole, and hashes those not wanted or too large', async () => {
    const sizes = [0, 1, 4096, (256 << 10) - 1, 256 << 10, (256 << 10) + 1, (1 << 20) + 1, 3 * (1 << 20) + 17];
    const dir = await tempDir();
    const files = await Promise.all(
      sizes.map(async (size, n) => {
        const bytes = Buffer.alloc(size);
        for (let i = 0; i < size; i += 1) bytes[i] = (i * 31 + n) & 0xff;
        const file = path.join(dir, `file-${size}`);
        await writeFile(file, bytes);
        return { file, bytes };
      }),
    );
    const reader = new TreeFileReader();
    for (const { file, bytes } of files) {
      const read = reader.read(file, true, 2 << 20);
      expect(read.sha256, file).toBe(sha256(bytes));
      if (bytes.length > 2 << 20) expect(read.bytes).toBeNull();
      else expect(read.bytes?.equals(bytes), file).toBe(true);
      expect(reader.read(file, false, 2 << 20)).toEqual({ bytes: null, sha256: sha256(bytes) });
    }
  });

  it('opens no directory', async () => {
    const dir = await tempDir();
    expect(() => new TreeFileReader().read(dir, true, 1 << 20)).toThrow(NotRegularFileError);
  });
});
