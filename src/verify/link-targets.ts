/**
 * Where a link of a snapshot points, read back through the layout as the crawl wrote it (`--links`): a file of the
 * snapshot, or outside it; and what the link stood for at the source.
 */
import type { Layout } from '../format/layout.js';
import type { Manifest } from '../format/manifest.js';
import { StoredLinks } from '../format/rewrite-links.js';
import type { ParsedUrl } from '../url/url-space.js';

export class LinkTargets {
  readonly #links: StoredLinks;

  constructor(
    private readonly layout: Layout,
    options: Manifest['options'],
  ) {
    this.#links = StoredLinks.of(layout, options);
  }

  /**
   * The file of the snapshot `link` (in the document at `documentUrl`) points to; null when it points outside the
   * snapshot, undefined when no file could answer it.
   */
  file(link: string, documentUrl: string): string | null | undefined {
    const { layout } = this;
    if (this.#links.prefix === null) {
      let target: ParsedUrl;
      try {
        target = layout.urls.resolve(link, documentUrl);
      } catch {
        return undefined;
      }
      if (!target.inScope) return null;
      const location = target.location;
      if (location.kind === 'list' && location.page === 1) return layout.collectionIndex(location.collection).file;
      const placement = layout.place(target.url);
      return placement.ok ? placement.file : undefined;
    }
    const servedPath = this.#links.servedPathOf(link);
    if (servedPath === null) return null;
    return layout.fileOfServedPath(servedPath) ?? undefined;
  }

  /** The source form of a link, for validation: what the link stood for before it was rewritten. */
  source(link: string): string | undefined {
    return this.#links.rewrittenSourceUrl(link);
  }
}
