const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** `html` with the entities the catalogue writes read back, and nothing else changed (tags and spaces stay). */
export function unescapeHtml(html: string): string {
  return html.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!);
}

/** Text of a piece of HTML as a reader sees it: tags dropped, the entities the catalogue writes read, spaces folded. */
export function htmlText(html: string): string {
  return unescapeHtml(html.replace(/<[^>]+>/g, ''))
    .replace(/\s+/g, ' ')
    .trim();
}
