/**
 * Link rewriting (DESIGN.md §6, `--links`): `relative` turns every in-scope link into the root-relative path at
 * which the snapshot answers it; `absolute` prefixes that path with `--base-url` (the mirror's own address, sub-paths
 * allowed); `original` leaves the source's links untouched. A link that leaves the snapshot (outside the root, or
 * refused by the layout) is written as the absolute source URL it resolves to, so that it never points into the
 * mirror by accident (a source's `/etc/passwd` stays `http://source/etc/passwd`).
 */
import { visitLinks } from '../jsonapi/links.js';
import { locate, type ApiLocation } from '../url/api-location.js';
import { canonicalUrl, isInScope } from '../url/canonical-url.js';
import type { Layout } from './layout.js';

export type LinkMode = 'relative' | 'absolute' | 'original';
export const LINK_MODES: readonly LinkMode[] = ['relative', 'absolute', 'original'];

/**
 * `fromListPage`: the link sits in a list page, where the bare collection URL means page 1. Everywhere else (the
 * root index, for one) it means the collection, which the snapshot serves complete at the bare collection path.
 */
export type LinkRewriter = (link: string, documentUrl: string, fromListPage: boolean) => string | undefined;

/** The link prefix of a mode: `/` for relative links, the base URL for absolute ones. */
export function linkPrefix(mode: LinkMode, baseUrl?: string): string {
  if (mode !== 'absolute') return '/';
  if (baseUrl === undefined) throw new Error('--links absolute needs --base-url');
  return baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
}

export function createLinkRewriter(layout: Layout, mode: LinkMode, baseUrl?: string): LinkRewriter | undefined {
  if (mode === 'original') return undefined;
  const prefix = linkPrefix(mode, baseUrl);
  return (link, documentUrl, fromListPage) => {
    let target: string;
    let absolute: string;
    try {
      target = canonicalUrl(link, documentUrl);
      absolute = new URL(link, documentUrl).href;
    } catch {
      return undefined;
    }
    if (!isInScope(target, layout.root)) return absolute === link ? undefined : absolute;
    if (!fromListPage) {
      const location = locate(target, layout.root);
      if (location.kind === 'list' && location.page === 1) {
        return prefix + layout.collectionIndex(location.collection).servedPath.slice(1);
      }
    }
    const placement = layout.place(target);
    if (!placement.ok) return absolute === link ? undefined : absolute;
    return prefix + placement.servedPath.slice(1);
  };
}

/** Rewrites the links of `document` in place. */
export function rewriteDocumentLinks(
  document: unknown,
  location: ApiLocation,
  documentUrl: string,
  rewriter: LinkRewriter | undefined,
): void {
  if (rewriter === undefined) return;
  const fromListPage = location.kind === 'list';
  visitLinks(document, location.kind === 'root', (link) => rewriter(link, documentUrl, fromListPage));
}
