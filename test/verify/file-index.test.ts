/**
 * The index of a tree's files that verify keeps instead of Maps of strings (file-index.ts, packed-names.ts): every
 * name it was given comes back as it was and is found, no other name is, and SHA256SUMS' checksums are kept as given.
 */
import { describe, expect, it } from 'vitest';
import { FileIndex } from '../../src/verify/file-index.js';

/** Paths as a snapshot names them, with long shared prefixes, beside names in other scripts and of other lengths. */
function treeNames(): string[] {
  const names = new Set<string>(['404.html', 'index.html', '_cv-snapshot/manifest.json', 'a', 'ab', 'abc']);
  for (let id = 0; id < 700; id += 1) {
    names.add(`sms/cv/api/v1/units/${id}/index.html`);
    if (id % 3 === 0) names.add(`sms/cv/api/v1/units/${id}/relationships/successor`);
  }
  for (const name of [
    'é',
    'e\u0301',
    '\uFFFD',
    '\uE000',
    '\u{1F600}',
    '\u{1F600}\uE000',
    'ß'.repeat(200),
    'x'.repeat(2000),
  ]) {
    names.add(`_catalogue/${name}.html`);
  }
  return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

describe('FileIndex', () => {
  const names = treeNames();
  const index = new FileIndex(names);

  it('gives back every name in order, and finds each at its place', () => {
    expect(index.size).toBe(names.length);
    expect(Array.from({ length: index.size }, (_, i) => index.name(i))).toEqual(names);
    for (const [i, name] of names.entries()) {
      expect(index.indexOf(name)).toBe(i);
      expect(index.isFile(name)).toBe(true);
    }
  });

  it('finds no other name: prefixes, extensions, neighbours, a lone surrogate for U+FFFD', () => {
    const others = [
      '',
      'abcd',
      'sms/cv/api/v1/units/1',
      'sms/cv/api/v1/units/1/index.htm',
      'sms/cv/api/v1/units/1/index.html/',
      'sms/cv/api/v1/units/700/index.html',
      'sms/cv/api/v1/units/1/relationships/successor',
      '_catalogue/\uD800.html',
      '_catalogue/\uDE00\uD83D.html',
      `_catalogue/${'x'.repeat(1999)}.html`,
    ];
    for (const name of others) {
      expect(names).not.toContain(name);
      expect(index.indexOf(name), name).toBe(-1);
    }
  });

  it('keeps the checksums it is given, for files of the tree and for other listed paths', () => {
    const files = new FileIndex(names);
    const sha = (n: number): string => n.toString(16).padStart(64, '0');
    names.forEach((name, i) => {
      if (i % 2 === 0) files.set(name, sha(i));
    });
    files.set('_cv-snapshot/a-link', sha(1));
    names.forEach((name, i) => {
      expect(files.sumOf(i)).toBe(i % 2 === 0 ? sha(i) : undefined);
      expect(files.has(name)).toBe(i % 2 === 0);
    });
    expect(files.has('_cv-snapshot/a-link')).toBe(true);
    expect(files.isFile('_cv-snapshot/a-link')).toBe(false);
    expect(files.has('_cv-snapshot/other')).toBe(false);
  });
});
