/**
 * Text that a server or a document supplied (a header, a body snippet, a link) is untrusted: printed raw, escape
 * sequences in it could rewrite the user's terminal, and a URL in it could carry a password. Every message that
 * quotes such text passes it through here first.
 */

/** C0 and C1 controls, DEL, and the bidirectional overrides that reorder what a terminal shows. */
// eslint-disable-next-line no-control-regex -- control characters are what this escapes
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `scheme://userinfo@`: everything up to the last `@` before the path is the user name and password. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi;

/** `text` with every control character written as a `\u` escape, cut at `max` characters (default: no cut). */
export function printable(text: string, max = Infinity): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return cut.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * `text` (lines for a person to read) with every control character but the line breaks escaped, line by line: a
 * closing summary or a message may quote what a source said (a type name, a collection name, a URL).
 */
export function printableLines(text: string): string {
  return text
    .split('\n')
    .map((line) => printable(line))
    .join('\n');
}

/** The controls and overrides that JSON.stringify leaves as they are (DEL, C1, bidirectional), as `\u` escapes. */
const UNESCAPED_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * A JSON text for a terminal: JSON.stringify escapes C0 controls but not DEL, C1 controls or bidirectional
 * overrides, which a terminal may act on. Escaped, they are the same JSON value.
 */
export function printableJson(text: string): string {
  return text.replace(UNESCAPED_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * `text`, known to be one URL (an option's value), with its user name and password replaced by `***`: unlike
 * `redactUrls`, a password with a space in it is redacted whole.
 */
export function redactUrl(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@');
}

/** `text` with the user name and password of every URL in it replaced by `***`. */
export function redactUrls(text: string): string {
  return text.includes('@') ? text.replace(USERINFO, '$1***@') : text;
}

/** Server-supplied text for a message: credentials redacted, controls escaped, at most `max` characters. */
export function quoteUntrusted(text: string, max = 300): string {
  return printable(redactUrls(text), max);
}

/** `text` as one word in a POSIX shell, for a command a message tells the user to run. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
