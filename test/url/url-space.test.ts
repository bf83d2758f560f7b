/**
 * A run's space of parsed URLs answers what the pure functions answer, whatever was asked of it before: a
 * remembered answer is never different from a computed one, and two runs never share what they remember.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { locate } from '../../src/url/api-location.js';
import { canonicalUrl, isInScope } from '../../src/url/canonical-url.js';
import { UrlSpace } from '../../src/url/url-space.js';

const root = 'http://127.0.0.1:8080/sms/cv/api/v1/';

/** Links as a crawl meets them: relative and absolute, in and out of scope, with queries that need escaping. */
const link = fc.oneof(
  fc.constantFrom(
    'units/',
    'units/?page[number]=2',
    'units/?page%5Bnumber%5D=2&format=api',
    "units/?filter[term]=it's",
    "units/?q='a b'&z=1",
    'units/7/',
    'units/7/relationships/quantities',
    'units/7/quantities/?page[number]=3',
    '../v2/units/',
    'http://elsewhere.example/units/',
    `${root}units/%7e/`,
    `${root}`,
  ),
  fc.string({ maxLength: 8 }).map((text) => `units/${encodeURIComponent(text)}/?x=${encodeURIComponent(text)}`),
);

describe('UrlSpace', () => {
  it('answers as the pure functions do, whatever order the URLs are asked in', () => {
    fc.assert(
      fc.property(fc.array(link, { minLength: 1, maxLength: 20 }), (links) => {
        const space = new UrlSpace(root);
        for (const input of links) {
          const canonical = canonicalUrl(input, root);
          expect(space.canonical(input, root)).toBe(canonical);
          const parsed = space.resolve(canonical);
          expect(parsed.inScope).toBe(isInScope(canonical, root));
          expect(parsed.location).toEqual(locate(canonical, root));
          // The query of a canonical URL is its own spelling, whether or not the space had seen the URL.
          const fresh = new UrlSpace(root).resolve(canonical);
          expect(parsed.parts).toEqual(fresh.parts);
          expect(canonical.endsWith(parsed.parts.search)).toBe(true);
        }
      }),
    );
  });

  it("keeps a query's own spelling (a quote stays a quote) when it parses a URL it never made", () => {
    const canonical = canonicalUrl(`${root}units/?filter[term]=it's`);
    expect(canonical).toContain("it's");
    const made = new UrlSpace(root);
    made.canonical(canonical);
    // `new URL` would spell the quote %27; the parts must not depend on which path filled the space.
    expect(new UrlSpace(root).resolve(canonical).parts.search).toBe(made.resolve(canonical).parts.search);
    expect(made.resolve(canonical).parts.search).toBe("?filter[term]=it's");
  });

  it('remembers nothing across spaces: two roots on one origin locate the same URL each their own way', () => {
    const url = `${root}units/7/`;
    expect(new UrlSpace(root).locate(url)).toEqual({ kind: 'record', collection: 'units', id: '7' });
    const parent = 'http://127.0.0.1:8080/sms/cv/api/';
    expect(new UrlSpace(parent).locate(url)).toEqual(locate(url, parent));
    expect(locate(url, parent).kind).not.toBe('record');
    expect(new UrlSpace(root).locate(url)).toEqual({ kind: 'record', collection: 'units', id: '7' });
  });
});
