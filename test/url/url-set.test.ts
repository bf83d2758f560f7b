/**
 * The crawl's set of URLs seen answers exactly as a Set of strings would, whatever it is given: URLs below its root
 * kept as bytes, and everything else.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UrlSet } from '../../src/url/url-set.js';

const root = 'http://127.0.0.1:8080/sms/cv/api/v1/';

describe('UrlSet', () => {
  it('answers has, add, size and iteration as a Set does', () => {
    const url = fc.oneof(
      fc.string({ maxLength: 12 }).map((tail) => `${root}${tail}`),
      fc.constantFrom(root, root.slice(0, -1), 'http://elsewhere.example/units/', `${root}é/`, `${root}\u{1D11E}/`, ''),
      fc.nat(50).map((n) => `${root}units/${n}/`),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), url), { maxLength: 200 }), (steps) => {
        const set = new UrlSet(root);
        const reference = new Set<string>();
        for (const [adding, value] of steps) {
          if (adding) {
            set.add(value);
            reference.add(value);
          }
          expect(set.has(value)).toBe(reference.has(value));
          expect(set.size).toBe(reference.size);
        }
        expect(new Set(set)).toEqual(reference);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps every URL across its pieces and tables as they grow', () => {
    const count = 60_000; // about 2 MB of entries: three pieces, and the table doubled many times
    const urls = Array.from(
      { length: count },
      (_, i) => `${root}collection-${i % 37}/${i}/relationships/${'r'.repeat(i % 20)}`,
    );
    const set = new UrlSet(root, urls.slice(0, count / 2));
    for (const url of urls.slice(count / 2)) set.add(url);
    expect(set.size).toBe(count);
    expect([...set]).toEqual(urls);
    for (const url of urls) expect(set.has(url)).toBe(true);
    expect(set.has(`${root}collection-1/1/`)).toBe(false);
    expect(set.has(`${urls[5]}x`)).toBe(false);
    expect(set.has(urls[5]!.slice(0, -1))).toBe(false);
  });

  it('stays exact once its byte store is full: URLs stored before are found, later ones are kept aside', () => {
    const count = 60_000; // about 2 MB of entries: the store of two 1 MB pieces fills up part way
    const urls = Array.from({ length: count }, (_, i) => `${root}collection-${i % 37}/${i}/relationships/r`);
    const set = new UrlSet(root, [], 2 * 1024 * 1024);
    for (const url of urls) set.add(url);
    for (const url of urls) set.add(url);
    expect(set.size).toBe(count);
    expect(new Set(set)).toEqual(new Set(urls));
    expect([...set]).toHaveLength(count);
    for (const url of urls) expect(set.has(url)).toBe(true);
    expect(set.has(`${root}collection-1/1/`)).toBe(false);
  });
});
