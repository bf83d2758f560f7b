/**
 * Link rewriting (`--links`, docs/snapshot-format.md#file-tree): `relative` turns every in-scope link into the
 * root-relative path at which the snapshot answers it; `absolute` prefixes that path with `--base-url` (the mirror's
 * own address, sub-paths allowed); `original` leaves the source's links untouched. A link that leaves the snapshot
 * (outside the root, or refused by the layout) is written as the absolute source URL it resolves to, so that it never
 * points into the mirror by accident (a source's `/etc/passwd` stays `http://source/etc/passwd`).
 */
import { visitLinks } from '../jsonapi/links.js';
import type { ApiLocation } from '../url/api-location.js';
import { isAbsoluteHttpUrl } from '../url/canonical-url.js';
import { Memo } from '../url/memo.js';
import type { ParsedUrl } from '../url/url-space.js';
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
  /** The absolute source URL a link leaves the snapshot as; undefined when the link is already that. */
  const leaving = (link: string, documentUrl: string): string | undefined => {
    let absolute: string;
    try {
      absolute = new URL(link, documentUrl).href;
    } catch {
      return undefined;
    }
    return absolute === link ? undefined : absolute;
  };
  const rewrite: LinkRewriter = (link, documentUrl, fromListPage) => {
    let target: ParsedUrl;
    try {
      target = layout.urls.resolve(link, documentUrl);
    } catch {
      return undefined;
    }
    if (!target.inScope) return leaving(link, documentUrl);
    if (!fromListPage) {
      const location = target.location;
      if (location.kind === 'list' && location.page === 1) {
        return prefix + layout.collectionIndex(location.collection).servedPath.slice(1);
      }
    }
    const placement = layout.place(target.url);
    if (!placement.ok) return leaving(link, documentUrl);
    return prefix + placement.servedPath.slice(1);
  };
  // Outside list pages the same link turns up in several documents (a record's self link in the record and in
  // related documents, relationship links in the record and in the relationship document); an absolute one is
  // rewritten alike wherever it is found. (Links on list pages are rarely met again soon: not worth remembering.)
  // null: left as it is.
  const memo = new Memo<string | null>(4096);
  return (link, documentUrl, fromListPage) => {
    if (fromListPage || !isAbsoluteHttpUrl(link)) return rewrite(link, documentUrl, fromListPage);
    const known = memo.get(link);
    if (known !== undefined) return known ?? undefined;
    const rewritten = rewrite(link, documentUrl, fromListPage);
    memo.set(link, rewritten ?? null);
    return rewritten;
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
