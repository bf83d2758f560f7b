/**
 * The kinds of document a derived crawl derives (docs/derive.md): each is learned, sampled and, when a
 * sample differs, fetched in full per collection. List pages and the root index are always fetched.
 */

export const DOCUMENT_KINDS = [
  'record',
  'relationship-to-one',
  'relationship-to-many',
  'related-to-one',
  'related-to-many',
] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/** One kind in one collection: the unit that is learned, sampled, and fetched in full when a sample differs. */
export interface KindKey {
  collection: string;
  kind: DocumentKind;
}

export function kindKey({ collection, kind }: KindKey): string {
  return `${collection}\u0000${kind}`;
}
