/** The 32-bit hash verify's compact tables (file-index.ts, record-pages.ts) find their entries by. */

/** FNV-1a over the UTF-16 code units of `text`. */
export function textHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
