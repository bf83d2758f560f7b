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
function linkPrefix(mode: LinkMode, baseUrl?: string): string {
  if (mode !== 'absolute') return '/';
  if (baseUrl === undefined) throw new Error('--links absolute needs --base-url');
  return baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
}

/**
 * The inverse of the rewriting, the one place that undoes it: how a snapshot's links were written (`prefix`) and the
 * source URL a stored link stands for. Its readers: verify (link targets), export (IRIs), the catalogue and `diff`
 * (through the links-only reader). `serve` builds its own links from the root instead (src/serve/server.ts).
 */
export class StoredLinks {
  /** The prefix of the rewritten links (`/`, the base URL with a trailing `/`); null for `original` links. */
  readonly prefix: string | null;
  readonly #layout: Layout;

  /** `--links absolute` without a base URL throws (linkPrefix), as the crawl refuses it. */
  constructor(layout: Layout, mode: LinkMode, baseUrl?: string | null) {
    this.#layout = layout;
    this.prefix = mode === 'original' ? null : linkPrefix(mode, baseUrl ?? undefined);
  }

  /** How the links of the snapshot whose manifest has these options were written. */
  static of(layout: Layout, options: { links: string; baseUrl: string | null }): StoredLinks {
    return new StoredLinks(layout, options.links as LinkMode, options.baseUrl);
  }

  /**
   * The served path (`/…`) a stored link names when the crawl rewrote it (it begins with the prefix); null for a link
   * the crawl left as the source had it (every link of `original`, and links that leave the snapshot).
   */
  servedPathOf(link: string): string | null {
    if (this.prefix === null || !link.startsWith(this.prefix)) return null;
    const rest = link.slice(this.prefix.length);
    // `//host/…` begins with the relative prefix but names another host: the crawl writes no such link.
    return rest.startsWith('/') ? null : `/${rest}`;
  }

  /**
   * The source URL of a link the crawl rewrote (Layout.sourceUrlOfServedPath: page paths back to `?page[number]=n`);
   * undefined for one it did not rewrite. Throws InvalidUrlError when the path stands for no URL.
   */
  rewrittenSourceUrl(link: string): string | undefined {
    const servedPath = this.servedPathOf(link);
    return servedPath === null ? undefined : this.#layout.sourceUrlOfServedPath(servedPath);
  }

  /**
   * The source URL any stored link stands for: a rewritten one read back through the layout (null when it stands for
   * no URL), any other as the source wrote it (callers resolve or refuse what is not an absolute URL).
   */
  sourceUrlOf(link: string): string | null {
    try {
      return this.rewrittenSourceUrl(link) ?? link;
    } catch {
      return null;
    }
  }
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
