/**
 * The writer's list of files, which becomes SHA256SUMS: every file once, with the hash of the bytes last written
 * there, sorted by path, however many 1 MB pieces of its off-heap log it spans.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FileCollisionError, TreeWriter } from '../../src/store/writer.js';
import { tempDir, tempWriter } from '../helpers/temp-dir.js';

function hashOf(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

describe('TreeWriter listing', () => {
  it('lists each file once, with the hash of what is on disk, sorted by path', async () => {
    const dir = await tempDir();
    const writer = await tempWriter(dir);
    writer.write('b/index.html', '{"first":true}');
    writer.write('a', 'alpha');
    writer.writeParts('b/c', ['{"data":', '[1,2]', '}']);
    // Written again (a document fetched again after --resume): listed once, with the new bytes' hash.
    writer.write('b/index.html', '{"second":true}');
    writer.write('ä/x', 'non-ASCII path');

    const listing = [...writer.listing()];
    expect(listing.map(([file]) => file)).toEqual(['a', 'b/c', 'b/index.html', 'ä/x']);
    for (const [file, sha256] of listing) {
      expect(sha256).toBe(hashOf(await readFile(path.join(dir, ...file.split('/')))));
    }
  });

  it('keeps every entry across the 1 MB pieces of its log, the last one of a path winning', async () => {
    const writer = await tempWriter();
    const files = 12_000; // about 1.7 MB of log entries
    const name = (i: number): string =>
      `sms/cv/api/v1/collection-with-a-long-name/${String(i).padStart(6, '0')}/relationships/${'r'.repeat(60)}`;
    for (let i = 0; i < files; i += 1) writer.record(name(i), hashOf(`first ${i}`));
    for (let i = 0; i < files; i += 7) writer.record(name(i), hashOf(`again ${i}`));

    const listing = [...writer.listing()];
    expect(listing).toHaveLength(files);
    listing.forEach(([file, sha256], i) => {
      expect(file).toBe(name(i));
      expect(sha256).toBe(hashOf(i % 7 === 0 ? `again ${i}` : `first ${i}`));
    });
  });
});

describe('TreeWriter listing in groups (one directory a few levels down at a time)', () => {
  it('reads back every group whole when the groups were written interleaved across megabytes of log', async () => {
    const writer = await tempWriter();
    // Three collections written in turn, as a crawl writes them, each entry a different length; the log spans
    // several of the megabytes it is read back in, and these lengths put an entry of each group across an edge.
    const files: Array<[string, string]> = [];
    for (let i = 0; i < 30_000; i += 1) {
      const file = `sms/cv/api/v1/c${i % 3}/${i}/${'x'.repeat(i % 89)}/index.html`;
      writer.record(file, hashOf(file));
      files.push([file, hashOf(file)]);
    }
    files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    expect([...writer.listing()]).toEqual(files);
  });

  it('gives the order of one sort of every path, whatever the depths and characters', async () => {
    const dir = await tempDir();
    let runs = 0;
    // Segments that sort around the slash and across UTF-16 (an astral character and one just below the surrogates).
    const segment = fc.constantFrom('a', 'a-b', 'a.b', 'b', 'ä', '\u{1D11E}', '\uFFFD', 'page', '1', '10', '2');
    const entry = fc.tuple(fc.array(segment, { minLength: 1, maxLength: 8 }), fc.nat(3));
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 60 }), (entries) => {
        const writer = new TreeWriter(dir, { listing: path.join(dir, `files-${(runs += 1)}.list`) });
        const last = new Map<string, string>();
        for (const [segments, version] of entries) {
          const file = segments.join('/');
          const sha = hashOf(`${file} ${version}`);
          writer.record(file, sha);
          last.set(file, sha);
        }
        const expected = [...last].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        expect([...writer.listing()]).toEqual(expected);
        writer.close();
      }),
      { numRuns: 300 },
    );
  });

  it('splits a directory with more files than a group holds a level further down', async () => {
    const writer = await tempWriter();
    const name = (i: number) => `sms/cv/api/v1/units/${i % 1000}/relationships/r${Math.floor(i / 1000)}`;
    const files = 70_000;
    for (let i = 0; i < files; i += 1) writer.record(name(i), hashOf(String(i)));
    const listing = [...writer.listing()].map(([file]) => file);
    expect(listing).toHaveLength(files);
    expect(listing).toEqual([...listing].sort());
  });
});

describe('TreeWriter exclusive writes (a fresh crawl writes each document once)', () => {
  it('refuses to write over a file that exists, keeps its bytes, and lists it once', async () => {
    const dir = await tempDir();
    const writer = await tempWriter(dir);
    writer.write('units/a/index.html', '{"first":true}', { exclusive: true });
    // What a case-folding file system does with units/A/ and units/a/: one file for two names.
    const second = () => writer.write('units/a/index.html', '{"second":true}', { exclusive: true });
    expect(second).toThrow(FileCollisionError);
    expect(second).toThrow(/already claims that path/);
    expect(await readFile(path.join(dir, 'units', 'a', 'index.html'), 'utf8')).toBe('{"first":true}');
    expect([...writer.listing()][0]).toEqual(['units/a/index.html', hashOf('{"first":true}')]);
    // The message says what is in the way: a directory at the path, or a file where one of its directories goes.
    writer.write('units/b/index.html', '{}', { exclusive: true });
    expect(() => writer.write('units/b', '{}', { exclusive: true })).toThrow(/claims that path as a directory/);
    writer.write('units/c', '{}', { exclusive: true });
    expect(() => writer.write('units/c/index.html', '{}', { exclusive: true })).toThrow(/claims that path as a file/);
    const below = () => writer.write('units/c/d/index.html', '{}', { exclusive: true });
    expect(below).toThrow(/^units\/c cannot be written: .* that path as a file/);
    // Without `exclusive` (a resumed crawl rewriting what the interrupted run left) the file is replaced.
    writer.write('units/a/index.html', '{"again":true}');
    expect(await readFile(path.join(dir, 'units', 'a', 'index.html'), 'utf8')).toBe('{"again":true}');
  });
});

describe('TreeWriter bytes', () => {
  it('writes and hashes any mix of parts as their UTF-8, whatever their sizes and characters', async () => {
    const dir = await tempDir();
    const writer = await tempWriter(dir);
    // Text of every width in UTF-8, a lone surrogate (written as U+FFFD), and lengths on both sides of a join of
    // small parts and of the largest string encoded in one piece of memory.
    const piece = fc.constantFrom('a', '"', 'é', '—', '\u{1D11E}', '\uD800', '\uFFFD');
    const text = fc.tuple(fc.array(piece, { maxLength: 40 }), fc.constantFrom(0, 1, 60_000, 70_000, 140_000));
    const part = fc.oneof(
      text.map(([pieces, repeat]) => pieces.join('') + '—'.repeat(repeat)),
      fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    );
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(part, { maxLength: 6 }), async (parts) => {
        const file = `f/${(runs += 1)}`;
        const expected = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
        const written = writer.writeParts(file, parts);
        const onDisk = await readFile(path.join(dir, 'f', String(runs)));
        expect(onDisk.equals(expected)).toBe(true);
        expect(written).toEqual({ size: expected.length, sha256: hashOf(expected) });
      }),
      { numRuns: 60 },
    );
  });
});
