import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EntryIndex } from '../../src/derive/entries.js';
import { EntryTexts } from '../../src/derive/entry-texts.js';
import { UrlList } from '../../src/derive/url-list.js';
import { parseJson, stringifyJson } from '../../src/json/parse-json.js';
import { UrlSpace } from '../../src/url/url-space.js';
import { tempDir } from '../helpers/temp-dir.js';

const ROOT = 'http://cv.test/api/';

/** Texts a list entry may hold: ASCII, other scripts, a pair of surrogates, a lone one, and one past a write. */
const TEXTS = [
  '{"id":"1","attributes":{"term":"metre"}}',
  '{"id":"2","attributes":{"term":"Kelvin ° µ ✓ Ωmega ä"}}',
  '{"id":"3","attributes":{"term":"clock 🕐"}}',
  `{"id":"4","attributes":{"term":"lone ${String.fromCharCode(0xd800)} half"}}`,
  `{"id":"5","attributes":{"term":"${'long '.repeat(30_000)}"}}`,
  '',
];

describe('where a derived crawl keeps its list entries', () => {
  it('gives every text back as it went in, from the file or from memory, and removes the file', async () => {
    const file = path.join(await tempDir(), 'entries.bin');
    const texts = new EntryTexts(file);
    // Many small texts, so that some are read back from the file and some from what is not written yet.
    const many = Array.from({ length: 3000 }, (_, i) => `{"id":"${i}","attributes":{"term":"term ${i} ✓"}}`);
    const handles = [...TEXTS, ...many, ...TEXTS].map((text) => ({ text, handle: texts.add(text) }));
    expect(existsSync(file)).toBe(true);
    for (const { text, handle } of handles) expect(texts.get(handle)).toBe(text);
    // Read again in another order, after everything was added.
    for (const { text, handle } of handles.slice().reverse()) expect(texts.get(handle)).toBe(text);
    texts.close();
    expect(existsSync(file)).toBe(false);
  });

  it('finds records and linkage targets, and marks a record two lists give differently', async () => {
    const file = path.join(await tempDir(), 'entries.bin');
    const entry = (id: string, term: string) =>
      `{"type":"Unit","id":"${id}","attributes":{"term":"${term}"},"links":{"self":"${ROOT}units/${id}/"}}`;
    const index = new EntryIndex(new UrlSpace(ROOT), new EntryTexts(file));
    index.addPage(`${ROOT}units/`, parseJson(`{"data":[${entry('1', 'metre')},${entry('2', 'Kelvin °')}]}`));
    index.addPage(`${ROOT}units/?page=2`, parseJson(`{"data":[${entry('2', 'Kelvin °')},${entry('3', 'a')}]}`));
    index.addPage(`${ROOT}units/?page=3`, parseJson(`{"data":[${entry('3', 'b')}]}`));
    expect(index.size).toBe(3);
    const written = (id: string, term: string) => stringifyJson(parseJson(entry(id, term)));
    expect(index.record('units', '2')?.text).toBe(written('2', 'Kelvin °'));
    expect(index.target('Unit', '2')?.text).toBe(written('2', 'Kelvin °'));
    expect(index.record('units', '3')).toEqual({ text: null });
    expect(index.target('Unit', '3')).toEqual({ text: null });
    expect(index.record('units', '9')).toBeUndefined();
    index.close();
    expect(existsSync(file)).toBe(false);
  });
});

describe('the plan of URLs a derived crawl keeps as bytes', () => {
  it('gives every URL back, whatever its prefix and characters, and sorts them in code-unit order', () => {
    const list = new UrlList();
    const urls = [
      `${ROOT}units/12/relationships/successor/`,
      `${ROOT}units/2/`,
      `${ROOT}units/%C3%A4/`,
      `${ROOT}other/1/`,
      'http://elsewhere.test/units/1/',
      `${ROOT}units/${String.fromCharCode(0xdc00)}/`,
      `${ROOT}units/ä✓/`,
    ];
    const indices = urls.map((url) => list.push(url, `${ROOT}units/`));
    expect(list.length).toBe(urls.length);
    expect(indices.map((index) => list.get(index))).toEqual(urls);
    expect(list.sort(indices).map((index) => list.get(index))).toEqual([...urls].sort());
  });
});
