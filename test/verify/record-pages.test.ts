/**
 * The record pages verify has checked (record-pages.ts), kept as hashes and page numbers rather than a Map of keys:
 * they answer as a Map would, also for records whose keys share a hash, which it tells apart by what the pages say.
 */
import { describe, expect, it } from 'vitest';
import { FileIndex } from '../../src/verify/file-index.js';
import { RecordPages } from '../../src/verify/record-pages.js';
import { textHash } from '../../src/verify/text-hash.js';

const keyOf = (id: number): string => JSON.stringify(['Thing', String(id)]);

/** Pairs of record keys with the same hash, found among the first ids. */
function collidingPairs(count: number): [string, string][] {
  const byHash = new Map<number, string>();
  const pairs: [string, string][] = [];
  for (let id = 0; pairs.length < count; id += 1) {
    const key = keyOf(id);
    const other = byHash.get(textHash(key));
    if (other === undefined) byHash.set(textHash(key), key);
    else pairs.push([other, key]);
  }
  return pairs;
}

describe('RecordPages', () => {
  const pairs = collidingPairs(4);
  /** Records with pages: 3,000 of their own, and one of each colliding pair; the other of each has none. */
  const records = [...Array.from({ length: 3000 }, (_, i) => keyOf(-1 - i)), ...pairs.map(([a]) => a)];
  const pageName = (i: number): string => `_catalogue/things/r-${String(i).padStart(5, '0')}.html`;
  const pageOf = new Map(records.map((record, i) => [record, pageName(i)]));
  const files = new FileIndex([...pageOf.values(), 'index.html'].sort());
  /** What each page says it is for (as the page would be read again). */
  const claims = new Map([...pageOf].map(([record, page]) => [page, record]));
  const reads: string[] = [];
  const seen = new RecordPages(files, (file) => {
    reads.push(file);
    return claims.get(file) ?? null;
  });

  it('has each record set by its page, and no other record, whatever their hashes', () => {
    expect(pairs.every(([a, b]) => a !== b && textHash(a) === textHash(b))).toBe(true);
    for (const record of records) {
      expect(seen.get(record)).toBeUndefined();
      seen.set(record, pageOf.get(record)!);
    }
    for (const record of records) expect(seen.get(record), record).toBe(pageOf.get(record));
    for (const [, unset] of pairs) expect(seen.get(unset), unset).toBeUndefined();
    expect(seen.get(keyOf(-3001))).toBeUndefined();
  });

  it('reads a page again only when its record and the one asked about have the same hash', () => {
    reads.length = 0;
    for (const [, unset] of pairs) seen.get(unset);
    expect(reads.sort()).toEqual(pairs.map(([set]) => pageOf.get(set)).sort());
  });

  it('keeps a page that is not a file of the tree by its name', () => {
    seen.set(keyOf(-5000), 'elsewhere/r-x.html');
    expect(seen.get(keyOf(-5000))).toBe('elsewhere/r-x.html');
  });
});
