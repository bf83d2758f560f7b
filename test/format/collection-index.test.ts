/**
 * The complete collection file: every record of every page in page order, the head (links, meta, any other member)
 * in the source's member order, and nothing a source's data can contain that cuts it short.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCollectionIndex } from '../../src/format/collection-index.js';
import { tempDir, tempWriter } from '../helpers/temp-dir.js';

const self = '/api/units/';
const unit = (id: number) => ({ type: 'Unit', id: String(id), attributes: { term: `unit ${id}` } });

function page(n: number, pages: number, ids: number[], meta: Record<string, unknown> = {}) {
  return {
    links: { first: '/api/units/page/1/', last: `/api/units/page/${pages}/`, next: null, prev: null },
    data: ids.map(unit),
    meta: { ...meta, pagination: { page: n, pages, count: 5 } },
  };
}

async function build(pages: unknown[]): Promise<string> {
  const dir = await tempDir();
  const writer = await tempWriter(dir);
  const files = pages.map((_, i) => `api/units/page/${i + 1}/index.html`);
  pages.forEach((document, i) => writer.write(files[i]!, JSON.stringify(document)));
  const file = 'api/units/index.html';
  writeCollectionIndex(writer, { pageFiles: files, file, selfLink: self, mode: 'complete' });
  return readFile(path.join(dir, 'api', 'units', 'index.html'), 'utf8');
}

describe('the complete collection file', () => {
  it('is the whole collection as one page, byte for byte as JSON.stringify writes that document', async () => {
    const text = await build([page(1, 2, [1, 2, 3], { note: 'x' }), page(2, 2, [4, 5])]);
    const expected = {
      links: { first: self, last: self, next: null, prev: null },
      data: [1, 2, 3, 4, 5].map(unit),
      meta: { note: 'x', pagination: { page: 1, pages: 1, count: 5 } },
    };
    expect(text).toBe(JSON.stringify(expected));
  });

  it('keeps the source member order, data first or last, and members other than links, data and meta', async () => {
    const jsonapi = { version: '1.0' };
    const pagination = { page: 1, pages: 2, count: 2 };
    const complete = { page: 1, pages: 1, count: 2 };
    const first = { jsonapi, data: [unit(1)], meta: { pagination }, links: { self: 'x' } };
    const second = { data: [unit(2)], meta: { pagination: { page: 2, pages: 2, count: 2 } } };
    const text = await build([first, second]);
    expect(text).toBe(
      JSON.stringify({ jsonapi, data: [unit(1), unit(2)], meta: { pagination: complete }, links: { self } }),
    );
  });

  it('stays valid JSON when the data holds the string the old builder used as a marker', async () => {
    const marker = '\u0000cv-snapshot-data\u0000';
    const first = page(1, 2, [1, 2, 3], { note: marker, [marker]: [marker] });
    const second = page(2, 2, [4, 5]);
    second.data[0]!.attributes.term = marker;
    type Complete = { data: Array<{ id: string; attributes: { term: string } }>; meta: unknown };
    const document = JSON.parse(await build([first, second])) as Complete;
    expect(document.data.map((record) => record.id)).toEqual(['1', '2', '3', '4', '5']);
    expect(document.data[3]!.attributes.term).toBe(marker);
    expect(document.meta).toEqual({ note: marker, [marker]: [marker], pagination: { page: 1, pages: 1, count: 5 } });
  });
});
