/** Text of a piece of HTML as a reader sees it: tags dropped, the entities the catalogue writes read, spaces folded. */
export function htmlText(html: string): string {
  const entities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
  return html
    .replace(/<[^>]+>/g, '')
    .replace(/&(amp|lt|gt|quot|#39);/g, (e) => entities[e]!)
    .replace(/\s+/g, ' ')
    .trim();
}
