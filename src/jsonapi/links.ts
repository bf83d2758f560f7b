/**
 * The places in a CV API document that hold links (docs/source-api.md): every member of every `links` object
 * (top-level, resource and relationship links; a member may be a string or a link object with `href`), and the
 * collection URLs that the root index lists under `data`. The link extractor and the link rewriter both walk exactly
 * these places.
 */

export type LinkVisitor = (link: string) => string | undefined;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// The walks use `for…in` over parsed JSON (own, enumerable members only, in the same order as Object.entries)
// rather than Object.entries, which allocates an array per member: this runs over every document of a crawl.

function visitLinksObject(links: Record<string, unknown>, visit: LinkVisitor): void {
  for (const key in links) {
    const value = links[key];
    if (typeof value === 'string') {
      const next = visit(value);
      if (next !== undefined) links[key] = next;
    } else if (isObject(value) && typeof value.href === 'string') {
      const next = visit(value.href);
      if (next !== undefined) value.href = next;
    }
  }
}

function walk(value: unknown, visit: LinkVisitor): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit);
    return;
  }
  if (!isObject(value)) return;
  for (const key in value) {
    const member = value[key];
    if (key === 'links' && isObject(member)) visitLinksObject(member, visit);
    else if (key !== 'attributes' && key !== 'meta') walk(member, visit);
  }
}

/**
 * Calls `visit` for every link in `document`; a returned string replaces the link in place. `isRootIndex` says the
 * document is the root index, whose `data` maps collection names to URLs (spec §4).
 */
export function visitLinks(document: unknown, isRootIndex: boolean, visit: LinkVisitor): void {
  if (isRootIndex && isObject(document) && isObject(document.data)) {
    visitLinksObject(document.data, visit);
    for (const [key, member] of Object.entries(document)) {
      if (key === 'links' && isObject(member)) visitLinksObject(member, visit);
      else if (key !== 'data' && key !== 'meta') walk(member, visit);
    }
    return;
  }
  walk(document, visit);
}

/** Every link in `document`, in document order. */
export function extractLinks(document: unknown, isRootIndex: boolean): string[] {
  const found: string[] = [];
  visitLinks(document, isRootIndex, (link) => {
    found.push(link);
    return undefined;
  });
  return found;
}
