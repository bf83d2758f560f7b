import type { DocumentKind } from '../format/derive-manifest.js';

/** One kind in one collection: the unit that is learned, sampled, and fetched in full when a sample differs. */
export interface KindKey {
  collection: string;
  kind: DocumentKind;
}

export function kindKey({ collection, kind }: KindKey): string {
  return `${collection}\u0000${kind}`;
}
