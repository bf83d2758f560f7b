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

/** The same characters in UTF-8 bytes, read one byte to a character (latin1): `<`, `>`, `&`, E2 80 A8, E2 80 A9. */
const MARKUP_BYTES = /[<>&]|\u00e2\u0080[\u00a8\u00a9]/;
const MARKUP_BYTES_ALL = /[<>&]|\u00e2\u0080[\u00a8\u00a9]/g;

const BYTE_ESCAPES: Readonly<Record<string, string>> = {
  ...ESCAPES,
  '\u00e2\u0080\u00a8': '\\u2028',
  '\u00e2\u0080\u00a9': '\\u2029',
};

/**
 * `bytes` (a JSON text in UTF-8, such as a document an older version of the tool stored) with every markup character
 * escaped; the same buffer when it holds none. Works on the bytes, so nothing else of the text is decoded or changed.
 */
export function htmlSafeJsonBytes(bytes: Buffer): Buffer {
  const text = bytes.toString('latin1');
  if (!MARKUP_BYTES.test(text)) return bytes;
  return Buffer.from(
    text.replace(MARKUP_BYTES_ALL, (c) => BYTE_ESCAPES[c]!),
    'latin1',
  );
}
