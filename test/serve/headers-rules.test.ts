/** The `_headers` rules as Cloudflare Pages and Netlify read them (src/serve/headers-rules.ts). */
import { describe, expect, it } from 'vitest';
import { headersFor, parseHeadersFile, patternMatcher } from '../../src/serve/headers-rules.js';
import { headersFile } from '../../src/format/host-files.js';
import { Layout } from '../../src/format/layout.js';

const flat = (headers: ReturnType<typeof headersFor>) =>
  Object.fromEntries([...headers.values()].map(({ name, value }) => [name, value]));

describe('_headers rules', () => {
  it('splats match any run of characters, slashes and nothing included; placeholders one segment', () => {
    expect(patternMatcher('/api/*').test('/api/')).toBe(true);
    expect(patternMatcher('/api/*').test('/api/units/3/relationships/root')).toBe(true);
    expect(patternMatcher('/api/*').test('/api')).toBe(false);
    expect(patternMatcher('/api/:t/').test('/api/units/')).toBe(true);
    expect(patternMatcher('/api/:t/').test('/api/units/3/')).toBe(false);
    expect(patternMatcher('/a.b/*').test('/aXb/c')).toBe(false);
  });

  it('applies every matching rule, joins a header set twice, detaches with !, skips comments and host rules', () => {
    const rules = parseHeadersFile(
      [
        '# comment',
        '/*',
        '  X-Frame-Options: DENY',
        '  Link: </a>',
        '/api/*',
        '  Link: </b>',
        '  ! X-Frame-Options',
        'https://cv.example.org/*',
        '  X-Host: 1',
        '',
      ].join('\n'),
    );
    expect(flat(headersFor(rules, '/api/units/'))).toEqual({ Link: '</a>, </b>' });
    expect(flat(headersFor(rules, '/other'))).toEqual({ 'X-Frame-Options': 'DENY', Link: '</a>' });
  });

  it('leaves out a header no HTTP answer may carry, and says which, keeping the rest of its rule', () => {
    const skipped: string[] = [];
    const rules = parseHeadersFile(
      ['/*', '  X-Bad: a\u0000b', '  X-Ok: 1', '  Bad Name: 2', '  X-Newline: c\u001bd', '  X-Fine: é'].join('\n'),
      skipped,
    );
    expect(flat(headersFor(rules, '/x'))).toEqual({ 'X-Ok': '1', 'X-Fine': 'é' });
    expect(skipped).toEqual(['line 2 (X-Bad)', 'line 4 (Bad Name)', 'line 5 (X-Newline)']);
  });

  it('gives the JSON:API headers to the root, everything below it and 404.html only, and nosniff to every file', () => {
    const rules = parseHeadersFile(headersFile(new Layout('http://127.0.0.1:1/sms/cv/api/v1/')));
    const noSniff = { 'X-Content-Type-Options': 'nosniff' };
    const jsonApi = { 'Content-Type': 'application/vnd.api+json', Vary: 'Accept', ...noSniff };
    for (const path of [
      '/sms/cv/api/v1',
      '/sms/cv/api/v1/',
      '/sms/cv/api/v1/units/3/relationships/root',
      '/404.html',
    ]) {
      expect(flat(headersFor(rules, path)), path).toEqual(jsonApi);
    }
    expect(flat(headersFor(rules, '/_cv-snapshot/manifest.json'))).toEqual(noSniff);
    expect(flat(headersFor(rules, '/index.html'))).toEqual(noSniff);
  });
});
