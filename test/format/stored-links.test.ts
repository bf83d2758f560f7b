/**
 * StoredLinks (src/format/rewrite-links.ts), the one inverse of `--links`: a link the crawl stored reads back as the
 * source URL it was rewritten from (docs/snapshot-format.md#file-tree), in every link mode, with a base URL that has
 * a sub-path, for a link outside the root and for a link whose query the layout cannot store (both written as the
 * absolute source URL). The stored texts expected are the documented ones; the round trip goes through the rewriter.
 */
import { describe, expect, it } from 'vitest';
import { Layout } from '../../src/format/layout.js';
import { createLinkRewriter, StoredLinks, type LinkMode } from '../../src/format/rewrite-links.js';
import { canonicalUrl } from '../../src/url/canonical-url.js';

const root = 'http://127.0.0.1:8080/sms/cv/api/v1/';
const layout = new Layout(root);
const base = 'https://mirror.example/cv';

/** Source links as a list page of `units` holds them, with the path each is answered at (null: not answered). */
const SOURCE_LINKS: Array<{ link: string; servedPath: string | null }> = [
  { link: `${root}units/3/`, servedPath: '/sms/cv/api/v1/units/3/' },
  { link: `${root}units/3/relationships/root`, servedPath: '/sms/cv/api/v1/units/3/relationships/root' },
  { link: `${root}units/?page[number]=4`, servedPath: '/sms/cv/api/v1/units/page/4/' },
  { link: 'http://elsewhere.example/units/3/', servedPath: null },
  { link: `${root}units/?filter[term]=metre`, servedPath: null },
];

/** What the crawl stores for `link` (found in page 1 of `units`). */
function stored(mode: LinkMode, link: string): string {
  const rewriter = createLinkRewriter(layout, mode, base);
  const documentUrl = `${root}units/`;
  return rewriter?.(link, layout.urls.resolve(link, documentUrl), documentUrl, true) ?? link;
}

describe('StoredLinks: the inverse of the link rewriting', () => {
  it("knows each mode's prefix, and refuses absolute links without a base URL as the crawl does", () => {
    expect(new StoredLinks(layout, 'relative').prefix).toBe('/');
    expect(new StoredLinks(layout, 'absolute', base).prefix).toBe(`${base}/`);
    expect(new StoredLinks(layout, 'absolute', `${base}/`).prefix).toBe(`${base}/`);
    expect(new StoredLinks(layout, 'original', base).prefix).toBeNull();
    expect(StoredLinks.of(layout, { links: 'relative', baseUrl: null }).prefix).toBe('/');
    expect(() => StoredLinks.of(layout, { links: 'absolute', baseUrl: null })).toThrow(/--base-url/);
  });

  for (const mode of ['relative', 'absolute', 'original'] as const) {
    it(`reads each link stored with --links ${mode} back as its source URL`, () => {
      const links = new StoredLinks(layout, mode, base);
      for (const { link, servedPath } of SOURCE_LINKS) {
        const text = stored(mode, link);
        // The stored text is the documented one: the served path, under the base URL, or the source's own link.
        if (mode === 'original' || servedPath === null) expect(text).toBe(link);
        else expect(text).toBe(mode === 'relative' ? servedPath : `${base}${servedPath}`);
        expect(links.servedPathOf(text)).toBe(mode === 'original' ? null : servedPath);
        const rewritten = mode !== 'original' && servedPath !== null;
        expect(links.rewrittenSourceUrl(text)).toBe(rewritten ? canonicalUrl(link) : undefined);
        expect(links.sourceUrlOf(text)).toBe(rewritten ? canonicalUrl(link) : link);
      }
    });
  }

  it('leaves a link it did not rewrite as it is', () => {
    const absolute = new StoredLinks(layout, 'absolute', base);
    // A root-relative link in a tree of absolute links was not written by the crawl: not read through the layout.
    expect(absolute.servedPathOf('/sms/cv/api/v1/units/3/')).toBeNull();
    expect(absolute.sourceUrlOf('/sms/cv/api/v1/units/3/')).toBe('/sms/cv/api/v1/units/3/');
    expect(absolute.sourceUrlOf('https://mirror.example/other/units/3/')).toBe('https://mirror.example/other/units/3/');
    // A network-path link (`//host/…`) names another host: the crawl never writes one for a path of the snapshot.
    const relative = new StoredLinks(layout, 'relative');
    expect(relative.servedPathOf('//elsewhere.example/sms/cv/api/v1/units/3/')).toBeNull();
    expect(relative.sourceUrlOf('//elsewhere.example/units/3/')).toBe('//elsewhere.example/units/3/');
  });
});
