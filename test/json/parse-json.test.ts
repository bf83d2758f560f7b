/**
 * JSON documents are parsed as JSON.parse parses them and written back with the source's own number text and member
 * order; a text nested too deep is refused before anything walks it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonTooDeepError, parseJson, stringifyJson } from '../../src/json/parse-json.js';
import { scanJson } from '../../src/json/scan.js';

/** A JSON number as a source may spell it: signs, leading fractions, exponents, any number of digits. */
const numberText = fc
  .tuple(
    fc.constantFrom('', '-'),
    fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,25}$/)),
    fc.option(fc.stringMatching(/^[0-9]{1,20}$/), { nil: undefined }),
    fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.stringMatching(/^[0-9]{1,3}$/)), {
      nil: undefined,
    }),
  )
  .map(
    ([sign, int, frac, exp]) =>
      `${sign}${int}${frac === undefined ? '' : `.${frac}`}${exp === undefined ? '' : exp.join('')}`,
  );

const keyText = fc.oneof(fc.string(), fc.stringMatching(/^(0|[1-9][0-9]{0,9})$/), fc.constant('__proto__'));

/** Compact JSON text (as cv-snapshot writes it), with unique member names. */
const compactJson: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    numberText,
    fc.string().map((s) => JSON.stringify(s)),
    fc.constantFrom('true', 'false', 'null'),
    fc.array(tie('value'), { maxLength: 5 }).map((items) => `[${items.join(',')}]`),
    fc
      .uniqueArray(fc.tuple(keyText, tie('value')), { maxLength: 5, selector: ([key]) => key })
      .map((members) => `{${members.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`),
  ),
})).value;

describe('parseJson and stringifyJson', () => {
  it('give the values JSON.parse gives, and write compact text back byte for byte', () => {
    // A document is an object or an array (a lone number has no container to remember its text in).
    fc.assert(
      fc.property(
        compactJson.map((value) => `[${value}]`),
        (text) => {
          const value = parseJson(text);
          expect(value).toEqual(JSON.parse(text));
          expect(stringifyJson(value)).toBe(text);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('write any part of a parsed value back as the source had it', () => {
    const text = '{"a":[1.50,{"b":1e400,"2":true,"c":-0}],"d":"1.0"}';
    const value = parseJson(text) as { a: [number, object] };
    expect(stringifyJson(value.a)).toBe('[1.50,{"b":1e400,"2":true,"c":-0}]');
    expect(stringifyJson(value.a[1])).toBe('{"b":1e400,"2":true,"c":-0}');
  });

  it('write what was changed since as it is now', () => {
    const value = parseJson('{"n":1.0,"m":1e400,"links":{"self":"http://a/1"}}') as {
      n: number;
      m: number | string;
      links: { self: string };
    };
    value.n = 2;
    value.links.self = '/1';
    value.m = 'x';
    expect(stringifyJson(value)).toBe('{"n":2,"m":"x","links":{"self":"/1"}}');
  });

  it('keep JSON.parse for text a round trip does not change', () => {
    for (const text of ['{"a":1,"b":[2,-3,0.5,1e-7],"c":"1e400 \\" 1.0"}', '[123456789012345]', '{"x":"\\\\"}']) {
      expect(scanJson(text, 256).kind, text).toBe('plain');
    }
    for (const text of ['[1.0]', '[1e400]', '[-0]', '[1234567890123456789]', '{"b":1,"7":2}', '{"a":"\\"","1":0}']) {
      expect(scanJson(text, 256).kind, text).toBe('exact');
    }
  });

  it('refuse text nested deeper than the limit, and nothing less deep', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(() => parseJson(nested(257))).toThrow(JsonTooDeepError);
    expect(() => parseJson(`{"a":${nested(100_000)}}`)).toThrow('more than 256 levels deep');
    expect(parseJson(nested(256))).toBeInstanceOf(Array);
    // Brackets inside strings do not count.
    expect(parseJson(`["${'['.repeat(1000)}"]`)).toEqual(['['.repeat(1000)]);
  });

  it('reject what JSON.parse rejects', () => {
    for (const text of ['', '{', '[1.]', '{"a":1e400', '01']) expect(() => parseJson(text), text).toThrow(SyntaxError);
  });
});
