import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalize,
  canonicalizeUnderRoot,
  canonicalRoot,
  canonicalUrl,
  InvalidUrlError,
  isInScope,
  pageNumberOf,
  urlParts,
} from '../../src/url/canonical-url.js';

const root = 'http://127.0.0.1:8080/sms/cv/api/v1/';

describe('canonicalUrl (docs/architecture.md#crawling-rules)', () => {
  it('drops format, decodes page%5Bnumber%5D, drops page 1, sorts the query and drops the fragment', () => {
    expect(canonicalUrl(`${root}units/?format=api`)).toBe(`${root}units/`);
    expect(canonicalUrl(`${root}units/?format=api&page%5Bnumber%5D=3`)).toBe(`${root}units/?page[number]=3`);
    expect(canonicalUrl(`${root}units/?page%5bnumber%5d=3`)).toBe(`${root}units/?page[number]=3`);
    expect(canonicalUrl(`${root}units/?page[number]=1&format=api`)).toBe(`${root}units/`);
    expect(canonicalUrl(`${root}units/?b=2&a=1#frag`)).toBe(`${root}units/?a=1&b=2`);
  });

  it('keeps a page[number] that is not a canonical whole number ≥ 1 as it is, never folded onto a page', () => {
    // Only `1` (the bare URL) is folded away; every other spelling stays a URL of its own.
    for (const value of ['1.0', '+2', '%2B2', '0', '01', '03', '-1', '1e0', '', 'last', ' 2', '2%20']) {
      const url = canonicalUrl(`${root}units/?page[number]=${value}`);
      expect(url, value).not.toBe(`${root}units/`);
      // The value the server would read is kept: the URL is fetched as the source wrote it.
      const read = new URLSearchParams(`p=${value}`).get('p');
      expect(new URL(url).searchParams.getAll('page[number]'), value).toEqual([read]);
      expect(pageNumberOf(url), value).toBeNull();
    }
    // `+` is a space in a query, as servers read it; spelled `+` or `%20` it is one URL.
    expect(canonicalUrl(`${root}units/?page[number]=+2`)).toBe(canonicalUrl(`${root}units/?page[number]=%202`));
    // A second page[number] is not dropped with the first, and the URL is not a page.
    const twice = canonicalUrl(`${root}units/?page[number]=1&page[number]=2`);
    expect(twice).toBe(`${root}units/?page[number]=1&page[number]=2`);
    expect(pageNumberOf(twice)).toBeNull();
    expect(pageNumberOf(canonicalUrl(`${root}units/?page[number]=1&page[number]=1`))).toBeNull();
    expect(pageNumberOf(canonicalUrl(`${root}units/?page[number]=${'9'.repeat(16)}`))).toBeNull();
  });

  it('spells each decoded path one way: RFC 3986 equivalents and anything a decoder folds', () => {
    const same = [
      [`${root}units/%41/`, `${root}units/A/`],
      [`${root}units/%7E/`, `${root}units/~/`],
      [`${root}units/%7e/`, `${root}units/~/`],
      [`${root}units/%21%24%26%27%28%29%2A%2B%2C%3B%3D%3A%40/`, `${root}units/!$&'()*+,;=:@/`],
      [`${root}units/%c3%a9/`, `${root}units/%C3%A9/`],
      [`${root}units/é/`, `${root}units/%C3%A9/`],
      [`${root}units/[x]/`, `${root}units/%5Bx%5D/`],
      [`${root}units/a|b^c/`, `${root}units/a%7Cb%5Ec/`],
      [`${root}%75nits/3/`, `${root}units/3/`],
    ];
    for (const [a, b] of same) expect(canonicalUrl(a!), a).toBe(canonicalUrl(b!));
    expect(canonicalUrl(`${root}units/%41/`)).toBe(`${root}units/A/`);
    // What would change the path's shape stays encoded; what does not decode stays as it is.
    expect(canonicalUrl(`${root}units/a%2Fb/`)).toBe(`${root}units/a%2Fb/`);
    expect(canonicalUrl(`${root}units/a%5Cb/`)).toBe(`${root}units/a%5Cb/`);
    expect(canonicalUrl(`${root}units/%zz/`)).toBe(`${root}units/%zz/`);
    expect(canonicalUrl(`${root}units/%25/`)).toBe(`${root}units/%25/`);
    // The paths of the real service are left exactly as they are.
    const relationship = `${root}units-communities/7/relationships/root`;
    expect(canonicalUrl(relationship)).toBe(relationship);
  });

  it('resolves relative links against the document URL', () => {
    expect(canonicalUrl('../4/', `${root}units/3/`)).toBe(`${root}units/4/`);
    expect(canonicalUrl('/sms/cv/api/v1/', `${root}units/3/`)).toBe(root);
  });

  it('refuses what is not an http(s) URL, and credentials', () => {
    expect(() => canonicalUrl('ftp://example.org/')).toThrow(InvalidUrlError);
    expect(() => canonicalUrl('not a url')).toThrow(InvalidUrlError);
    expect(() => canonicalUrl('http://user:secret@example.org/')).toThrow(/credentials/);
  });

  it('is idempotent and gives one spelling per document', () => {
    const queryPart = fc.constantFrom(
      ...['format=api', 'page%5Bnumber%5D=2', 'page[number]=2', 'page%5bnumber%5d=2', 'page[number]=02'],
      ...['x=%C3%A9', 'a=1', 'b=', '=c', 'd+e=%2B', ''],
    );
    const paths = fc.constantFrom('units/', 'units/7/', 'units/7/relationships/x', 'u%6Eits/%41:b/', '[a]/%7e');
    fc.assert(
      fc.property(fc.array(queryPart, { maxLength: 5 }), paths, (parts, path) => {
        const url = `${root}${path}?${parts.join('&')}`;
        const once = canonicalUrl(url);
        expect(canonicalUrl(once)).toBe(once);
        const reversed = canonicalUrl(`${root}${path}?${[...parts].reverse().join('&')}#x`);
        expect(reversed).toBe(once);
        expect(once).not.toMatch(/format=|#/i);
        expect(new URL(once).search).not.toMatch(/%5B/i);
      }),
    );
  });

  it('canonicalRoot ends in a slash and refuses a query', () => {
    expect(canonicalRoot('http://127.0.0.1:8080/cv/api/v1?format=api')).toBe('http://127.0.0.1:8080/cv/api/v1/');
    expect(() => canonicalRoot(`${root}?x=1`)).toThrow(InvalidUrlError);
  });
});

describe('isInScope (docs/architecture.md#crawling-rules)', () => {
  it('keeps the root origin and paths below the root path', () => {
    expect(isInScope(`${root}units/1/`, root)).toBe(true);
    expect(isInScope(root.slice(0, -1), root)).toBe(true);
    expect(isInScope('http://127.0.0.1:8080/sms/cv/api/v2/units/', root)).toBe(false);
    expect(isInScope('http://127.0.0.1:8081/sms/cv/api/v1/units/', root)).toBe(false);
    expect(isInScope('https://127.0.0.1:8080/sms/cv/api/v1/units/', root)).toBe(false);
    expect(isInScope(canonicalUrl(`${root}../../../../etc/passwd`), root)).toBe(false);
    expect(isInScope(canonicalUrl(`${root}%2e%2e/%2e%2e/x`), root)).toBe(false);
    expect(isInScope('http://127.0.0.1:8080/sms/cv/api/v1x/', root)).toBe(false);
  });

  it('reads the page number', () => {
    expect(pageNumberOf(`${root}units/`)).toBe(1);
    expect(pageNumberOf(canonicalUrl(`${root}units/?page%5Bnumber%5D=7`))).toBe(7);
    expect(pageNumberOf(canonicalUrl(`${root}units/?page%5Bnumber%5D=7&sort=term`))).toBeNull();
  });
});

describe('canonicalizeUnderRoot', () => {
  const rootParts = urlParts(root);
  /** Pieces of links below the root: plain names, and every character or spelling the short way must leave alone. */
  const piece = fc.constantFrom(
    'units',
    '7',
    'relationships',
    'action_types',
    'a.b',
    '...',
    '.',
    '..',
    '',
    '%41',
    '%2e',
    "A~!$&'()*+,;=:@",
    ' ',
    '"',
    '#x',
    '<',
    '\\',
    'é',
    '\t',
    '?',
    '%5B',
    '[a]',
    'page',
  );
  const query = fc.constantFrom(
    '',
    '?',
    '?format=api',
    '?format=api&page%5Bnumber%5D=2',
    '?page%5Bnumber%5D=2&format=api',
    '?page[number]=1',
    '?page%5Bnumber%5D=01',
    '?page%5bnumber%5d=3',
    '?format=json',
    '?format=api&format=api',
    '?page[number]=2&x=1',
    '?format=api&page%5Bnumber%5D=999999999999999',
    '?format=api&page%5Bnumber%5D=1#top',
    '#top',
  );

  it('gives exactly what canonicalize gives, whenever it gives anything', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 5 }), fc.boolean(), query, (pieces, slash, q) => {
        const input = `${root}${pieces.join('/')}${slash ? '/' : ''}${q}`;
        const short = canonicalizeUnderRoot(input, rootParts);
        if (short !== undefined) expect(short).toEqual(canonicalize(input));
      }),
      { numRuns: 2000 },
    );
  });

  it('takes the links the sample API writes, and nothing outside the root', () => {
    for (const link of [
      `${root}units/7/`,
      `${root}units/7/relationships/quantities?format=api`,
      `${root}units/7/quantities/?format=api`,
      `${root}units/?format=api&page%5Bnumber%5D=3`,
      `${root}units/?format=api&page%5Bnumber%5D=1`,
      root,
    ]) {
      expect(canonicalizeUnderRoot(link, rootParts), link).toEqual(canonicalize(link));
    }
    for (const link of ['http://127.0.0.1:8080/sms/cv/api/v2/units/', 'HTTP://127.0.0.1:8080/sms/cv/api/v1/units/']) {
      expect(canonicalizeUnderRoot(link, rootParts), link).toBeUndefined();
    }
  });
});
