/**
 * The snapshot's `_headers` file, read as Cloudflare Pages and Netlify read it, so `cv-snapshot serve` sends the
 * headers those hosts would send for the same tree: a rule is a URL pattern on a line of its own followed by
 * indented `Name: value` lines; `*` (a splat) matches any run of characters, `/` included, and `:name` one path
 * segment; every rule that matches a path applies, a header set by several is joined with ", "; `! Name` takes
 * away a header an earlier rule set. Rules for absolute URLs (`https://host/...`) are for one host name and are
 * skipped here.
 */
import { validateHeaderName, validateHeaderValue } from 'node:http';

export interface HeaderRule {
  readonly pattern: string;
  readonly matcher: RegExp;
  readonly set: ReadonlyArray<readonly [string, string]>;
  readonly detach: readonly string[];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

export function patternMatcher(pattern: string): RegExp {
  let source = '';
  for (const part of pattern.split(/(\*|:[A-Za-z]\w*)/)) {
    if (part === '*') source += '(.*)';
    else if (part.startsWith(':') && part.length > 1) source += '([^/]+)';
    else source += escapeRegExp(part);
  }
  return new RegExp(`^${source}$`);
}

/** Whether Node can send a header of this name and value (no control character, a name of token characters). */
function sendable(name: string, value: string): boolean {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
}

/**
 * The rules of a `_headers` file. A header no HTTP response may carry (a control character in its value, a name
 * that is no token) is left out, and named in `skipped` (`line 3 (X-Bad)`): sent, it would make every answer it
 * applies to fail.
 */
export function parseHeadersFile(text: string, skipped: string[] = []): HeaderRule[] {
  const rules: HeaderRule[] = [];
  let current: { pattern: string; set: Array<[string, string]>; detach: string[] } | null = null;
  const flush = (): void => {
    if (current !== null && current.pattern.startsWith('/')) {
      rules.push({ ...current, matcher: patternMatcher(current.pattern) });
    }
    current = null;
  };
  for (const [number, line] of text.split(/\r?\n/).entries()) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    if (!/^\s/.test(line)) {
      flush();
      current = { pattern: trimmed, set: [], detach: [] };
      continue;
    }
    if (current === null) continue;
    if (trimmed.startsWith('!')) {
      current.detach.push(trimmed.slice(1).trim().toLowerCase());
      continue;
    }
    const colon = trimmed.indexOf(':');
    if (colon <= 0) continue;
    const [name, value] = [trimmed.slice(0, colon).trim(), trimmed.slice(colon + 1).trim()];
    if (sendable(name, value)) current.set.push([name, value]);
    else skipped.push(`line ${number + 1} (${name})`);
  }
  flush();
  return rules;
}

/** The headers every matching rule gives `pathname`, names as the file spells them. */
export function headersFor(
  rules: readonly HeaderRule[],
  pathname: string,
): Map<string, { name: string; value: string }> {
  const headers = new Map<string, { name: string; value: string }>();
  for (const rule of rules) {
    if (!rule.matcher.test(pathname)) continue;
    for (const name of rule.detach) headers.delete(name);
    for (const [name, value] of rule.set) {
      const key = name.toLowerCase();
      const existing = headers.get(key);
      headers.set(
        key,
        existing === undefined ? { name, value } : { name: existing.name, value: `${existing.value}, ${value}` },
      );
    }
  }
  return headers;
}
