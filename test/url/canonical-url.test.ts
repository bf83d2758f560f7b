import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalRoot, canonicalUrl, InvalidUrlError, isInScope, pageNumberOf } from '../../src/url/canonical-url.js';

const root = 'http://127.0.0.1:8080/sms/cv/api/v1/';

describe('canonicalUrl (DESIGN.md §4)', () => {
  it('drops format, decodes page%5Bnumber%5D, drops page 1, sorts the query and drops the fragment', () => {
    expect(canonicalUrl(`${root}units/?format=api`)).toBe(`${root}units/`);
    expect(canonicalUrl(`${root}units/?format=api&page%5Bnumber%5D=3`)).toBe(`${root}units/?page[number]=3`);
    expect(canonicalUrl(`${root}units/?page%5bnumber%5d=3`)).toBe(`${root}units/?page[number]=3`);
    expect(canonicalUrl(`${root}units/?page[number]=1&format=api`)).toBe(`${root}units/`);
    expect(canonicalUrl(`${root}units/?b=2&a=1#frag`)).toBe(`${root}units/?a=1&b=2`);
    expect(canonicalUrl(`${root}units/?page[number]=03`)).toBe(`${root}units/?page[number]=3`);
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
    const queryPart = fc.constantFrom('format=api', 'page%5Bnumber%5D=2', 'page[number]=2', 'page%5bnumber%5d=2', 'x=%C3%A9', 'a=1', 'b=', '');
    fc.assert(
      fc.property(fc.array(queryPart, { maxLength: 5 }), fc.constantFrom('units/', 'units/7/', 'units/7/relationships/x'), (parts, path) => {
        const url = `${root}${path}?${parts.join('&')}`;
        const once = canonicalUrl(url);
        expect(canonicalUrl(once)).toBe(once);
        const reversed = canonicalUrl(`${root}${path}?${[...parts].reverse().join('&')}#x`);
        expect(reversed).toBe(once);
        expect(once).not.toMatch(/format=|%5B|#/i);
      }),
    );
  });

  it('canonicalRoot ends in a slash and refuses a query', () => {
    expect(canonicalRoot('http://127.0.0.1:8080/cv/api/v1?format=api')).toBe('http://127.0.0.1:8080/cv/api/v1/');
    expect(() => canonicalRoot(`${root}?x=1`)).toThrow(InvalidUrlError);
  });
});

describe('isInScope (DESIGN.md §4)', () => {
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
  });
});
