/**
 * Link rewriting (`--links`, docs/snapshot-format.md#file-tree): `relative` turns every in-scope link into the
 * root-relative path at which the snapshot answers it; `absolute` prefixes that path with `--base-url` (the mirror's
 * own address, sub-paths allowed); `original` leaves the source's links untouched. A link that leaves the snapshot
 * (outside the root, or refused by the layout) is written as the absolute source URL it resolves to, so that it never
 * points into the mirror by accident (a source's `/etc/passwd` stays `http://source/etc/passwd`).
 */
import type { DocumentLink } from '../jsonapi/links.js';
import type { ApiLocation } from '../url/api-location.js';
import { InvalidUrlError } from '../url/canonical-url.js';
import type { ParsedUrl } from '../url/url-space.js';
import type { Layout } from './layout.js';

export type LinkMode = 'relative' | 'absolute' | 'original';
export const LINK_MODES: readonly LinkMode[] = ['relative', 'absolute', 'original'];

/**
 * The new text of a link whose target the run's space has parsed, or undefined to leave it as it is.
 * `fromListPage`: the link sits in a list page, where the bare collection URL means page 1. Everywhere else (the
 * root index, for one) it means the collection, which the snapshot serves complete at the bare collection path.
 */
export type LinkRewriter = (
  link: string,
  target: ParsedUrl,
  documentUrl: string,
  fromListPage: boolean,
) => string | undefined;

/** The link prefix of a mode: `/` for relative links, the base URL for absolute ones. */
export function linkPrefix(mode: LinkMode, baseUrl?: string): string {
  if (mode !== 'absolute') return '/';
  if (baseUrl === undefined) throw new Error('--links absolute needs --base-url');
  return baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
}

/** The absolute source URL a link leaves the snapshot as; undefined when the link is already that. */
function leaving(link: string, documentUrl: string): string | undefined {
  let absolute: string;
  try {
    absolute = new URL(link, documentUrl).href;
  } catch {
    return undefined;
  }
  return absolute === link ? undefined : absolute;
}

export function createLinkRewriter(layout: Layout, mode: LinkMode, baseUrl?: string): LinkRewriter | undefined {
  if (mode === 'original') return undefined;
  const prefix = linkPrefix(mode, baseUrl);
  return (link, target, documentUrl, fromListPage) => {
    if (!target.inScope) return leaving(link, documentUrl);
    if (!fromListPage) {
      const location = target.location;
      if (location.kind === 'list' && location.page === 1) {
        return prefix + layout.collectionIndex(location.collection).servedPath.slice(1);
      }
    }
    const placement = layout.placeParsed(target);
    if (!placement.ok) return leaving(link, documentUrl);
    return prefix + placement.servedPath.slice(1);
  };
}

/** Rewrites the links of a document in place; `links` are its links as `resolveLinks` gives them. */
export function rewriteDocumentLinks(
  links: readonly DocumentLink[],
  location: ApiLocation,
  documentUrl: string,
  rewriter: LinkRewriter | undefined,
): void {
  if (rewriter === undefined) return;
  const fromListPage = location.kind === 'list';
  for (const { holder, key, link, target } of links) {
    // A link that is not a usable URL is left as it is.
    if (target instanceof InvalidUrlError) continue;
    const next = rewriter(link, target, documentUrl, fromListPage);
    if (next !== undefined) holder[key] = next;
  }
}
