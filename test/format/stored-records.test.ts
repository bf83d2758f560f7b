/**
 * The one reader of a snapshot's records (src/format/stored-records.ts, records.ts): a crawled snapshot of a small
 * source read back page by page, and the same snapshot with list pages changed the way a source or a hand could
 * change them (a numeric id, a `data` that is one object, labels in other attributes, a page missing, a page that
 * is a symbolic link).
 */
import { rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labelOf, byRecordOrder, namedLabel } from '../../src/format/records.js';
import { SnapshotReadError, SnapshotReader } from '../../src/format/stored-records.js';
import { suiteDir, tempDir } from '../helpers/temp-dir.js';
import { copySnapshot, rewriteFile, snapshotOf } from '../helpers/tiny-vocabulary.js';

describe('the reader of stored records', () => {
  let snapshot: string;
  let remove: () => Promise<void>;

  beforeAll(async () => {
    const suite = await suiteDir();
    remove = suite.remove;
    snapshot = await snapshotOf(
      {
        collections: {
          units: [
            { id: '7', idJson: '7', term: 'seven' },
            { id: '10', term: 'ten' },
            { id: '2', term: 'two' },
          ],
          things: [{ id: 'a', term: 'alpha' }],
        },
        pageSize: 2,
      },
      path.join(suite.dir, 'out'),
    );
  });
  afterAll(async () => remove());

  it('lists the page files from the manifest and the layout, and reads a numeric id as its text', () => {
    const reader = SnapshotReader.open('snap', snapshot);
    expect(reader.pageFiles('units').pages.map((p) => [p.page, p.file])).toEqual([
      [1, 'api/units/page/1/index.html'],
      [2, 'api/units/page/2/index.html'],
    ]);
    const records = [...reader.records('units')];
    expect(records.map((r) => [r.type, r.id, labelOf(r)])).toEqual([
      ['Unit', '7', 'seven'],
      ['Unit', '10', 'ten'],
      ['Unit', '2', 'two'],
    ]);
    expect(records.sort(byRecordOrder).map((r) => r.id)).toEqual(['2', '7', '10']);
    expect(reader.incomplete('units')).toBe(false);
  });

  it('reads a `data` that is one object as no records, and names entries that are not records', async () => {
    const copy = await copySnapshot(snapshot, path.join(await tempDir(), 'copy'));
    const record = { type: 'Thing', id: 'a', attributes: { term: 'alpha' } };
    await rewriteFile(copy, 'api/things/page/1/index.html', JSON.stringify({ data: record }), false);
    const entries = [null, { type: 'Unit' }, { type: 'Unit', id: 'x', attributes: { term: ' ', title: 'Ex' } }];
    await rewriteFile(copy, 'api/units/page/2/index.html', JSON.stringify({ data: entries }), false);
    const reader = SnapshotReader.open('copy', copy);
    expect([...reader.pages('things')].map((p) => [p.records.length, p.others])).toEqual([[0, []]]);
    const [, second] = [...reader.pages('units')];
    expect(second!.others).toEqual([0, 1]);
    expect(second!.records.map((r) => [r.id, namedLabel(r)])).toEqual([['x', 'Ex']]);
  });

  it('says which file it cannot read and to run verify: a page missing, a page that is a symbolic link', async () => {
    const copy = await copySnapshot(snapshot, path.join(await tempDir(), 'copy'));
    const page = path.join(copy, 'api', 'units', 'page', '2', 'index.html');
    await rm(page);
    const read = () => [...SnapshotReader.open(copy, copy).records('units')];
    expect(read).toThrow(SnapshotReadError);
    expect(read).toThrow(`${copy}: api/units/page/2/index.html is missing. Run cv-snapshot verify ${copy}`);
    const elsewhere = path.join(await tempDir(), 'page.json');
    await writeFile(elsewhere, JSON.stringify({ data: [] }));
    await symlink(elsewhere, page);
    expect(read).toThrow(/api\/units\/page\/2\/index\.html .*symbolic link.*Run cv-snapshot verify/);
  });
});
