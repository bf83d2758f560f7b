/** `--header Name: value`: the extra request headers (credentials) that never reach the snapshot or a message. */
import { UsageError } from '../util/errors.js';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Tabs, visible ASCII and Latin-1: a line break would end the header and start another one.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Parses one `Name: value` header. Its UsageError names the header when its name is valid, and never shows the
 * value (nor an invalid name, which may be a credential given without its name).
 */
export function parseHeader(line: string): { name: string; value: string } {
  const colon = line.indexOf(':');
  // Only spaces and tabs are trimmed: a line break at either end is refused like one inside.
  const trim = (text: string): string => text.replace(/^[ \t]+|[ \t]+$/g, '');
  const name = colon >= 0 ? trim(line.slice(0, colon)) : '';
  if (!HEADER_NAME.test(name)) {
    const what =
      colon < 0
        ? 'has no colon'
        : name === ''
          ? 'has no name before its colon'
          : 'has a name that is not a header name';
    throw new UsageError(
      `--header takes "Name: value" (such as "Authorization: Bearer …"), and one ${what}; ` +
        'it is not shown, as it may hold a credential.',
    );
  }
  const value = trim(line.slice(colon + 1));
  if (!HEADER_VALUE.test(value)) {
    throw new UsageError(
      `--header ${name}: the value holds a line break, another control character or a character beyond Latin-1, ` +
        'which a header cannot carry; check how it was quoted (the value is not shown).',
    );
  }
  return { name, value };
}

/** Parses `Name: value` headers; throws UsageError naming the bad one (never showing its value). */
export function parseHeaders(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const { name, value } = parseHeader(line);
    headers[name.toLowerCase()] = value;
  }
  return headers;
}
