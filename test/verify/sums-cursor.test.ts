/**
 * SHA256SUMS read again in step with verify's check (sums-cursor.ts), a small chunk at a time: every file's checksum
 * comes back as the file lists it, across chunk boundaries and past lines too long to be checksum lines, and a file
 * the list no longer names is told apart.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SumsChangedError, SumsCursor } from '../../src/verify/sums-cursor.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('SumsCursor', () => {
  it('gives each listed file its checksum in order, across chunks and past overlong lines', async () => {
    const files = Array.from({ length: 5000 }, (_, i) => `api/units/${String(i).padStart(5, '0')}/index.html`);
    const sumOf = (file: string): string => createHash('sha256').update(file).digest('hex');
    const lines = files.map((file) => `${sumOf(file)}  ${file}`);
    // Lines no checksum line can be (longer than 16 kB, one longer than a chunk), among the others.
    lines.splice(1000, 0, `${'0'.repeat(64)}  ${'x'.repeat(20_000)}`);
    lines.splice(3000, 0, `${'0'.repeat(64)}  ${'y'.repeat(200_000)}`);
    const dir = path.join(await tempDir(), 'snapshot');
    await mkdir(path.join(dir, '_cv-snapshot'), { recursive: true });
    await writeFile(path.join(dir, '_cv-snapshot', 'SHA256SUMS'), `${lines.join('\n')}\n`);
    const cursor = new SumsCursor(dir);
    try {
      for (const [i, file] of files.entries()) {
        // Every third file is one verify does not check (SHA256SUMS lists it; the tree lacks it): passed over.
        if (i % 3 === 1) continue;
        expect(cursor.sumOf(file), file).toBe(sumOf(file));
      }
      expect(() => cursor.sumOf(files[0]!)).toThrow(SumsChangedError);
    } finally {
      cursor.close();
    }
  });
});
