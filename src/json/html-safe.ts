/**
 * Stored JSON that no HTML parser can read as markup (docs/snapshot-format.md#json-that-is-never-markup). A
 * document is stored as `<path>/index.html` so that every static host answers its directory URL; where a host
 * ignores `_headers` (or the file is opened from the disk) the browser reads it as HTML, and a term such as
 * `<script>…</script>` would run in the mirror's origin. Escaping `<`, `>` and `&` (as Go's encoding/json does) leaves
 * no tag, comment or character reference for a parser to find, and U+2028/U+2029 are escaped for older JavaScript
 * parsers that end a line there. These characters occur in a JSON text only inside strings, where `\u003c` is the
 * same character: the document's JSON value is unchanged.
 */

const MARKUP = /[<>&\u2028\u2029]/;
const MARKUP_ALL = /[<>&\u2028\u2029]/g;

const ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** `text` (a JSON text, or a piece of one that splits no escape) with every markup character escaped. */
export function htmlSafeJson(text: string): string {
  return MARKUP.test(text) ? text.replace(MARKUP_ALL, (c) => ESCAPES[c]!) : text;
}
