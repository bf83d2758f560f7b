/**
 * `cv-snapshot serve` on a tree whose list pages were damaged after the crawl (a snapshot from elsewhere): a query
 * that needs a damaged page answers 500 naming it, and a query that does not need it answers as it did before the
 * damage, though serve reads every collection's first page to learn which collection holds a relationship's target.
 */
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, type Answer } from '../sample-api/http.js';
import { serveWarnings } from '../helpers/serve-warnings.js';
import { startMirror, type Mirror } from './fixture.js';

let mirror: Mirror;

beforeAll(async () => {
  mirror = await startMirror({ records: 12, pageSize: 5, seed: 3 }, { catalogue: 'none' });
});

afterAll(async () => {
  await mirror.close();
});

/** The first list page of `collection` in the snapshot. */
function firstPage(collection: string): string {
  return path.join(mirror.dir, 'sms', 'cv', 'api', 'v1', collection, 'page', '1', 'index.html');
}

/** What serve warned of in the last answersOf. */
let warnings: string[] = [];

/** Answers of a serve started on the snapshot as it is now (a fresh one: serve reads a collection once). */
async function answersOf(paths: string[]): Promise<Answer[]> {
  const answers: Answer[] = [];
  warnings = await serveWarnings(mirror.dir, async (serve) => {
    for (const at of paths) answers.push(await get(`${serve.url}${at}`));
  });
  for (const warning of warnings) expect(warning).not.toMatch(/\n\s+at /);
  return answers;
}

describe('serve on a damaged _headers', () => {
  it('leaves out a header no answer may carry, says so once, and answers with the others', async () => {
    const [before] = await answersOf(['actiontypes/']);
    expect(before!.status).toBe(200);
    expect(before!.headers['x-content-type-options']).toBe('nosniff');
    // A control character in a value: sent, it made every answer the rule covers fail before it was written.
    await appendFile(path.join(mirror.dir, '_headers'), '/*\n  X-Bad: a\u0000b\n  X-Also: 1\n');
    const [after] = await answersOf(['actiontypes/']);
    expect(after!.status).toBe(200);
    expect(after!.text).toBe(before!.text);
    expect(after!.headers['x-content-type-options']).toBe('nosniff');
    expect(after!.headers['x-also']).toBe('1');
    expect(after!.headers['x-bad']).toBeUndefined();
    expect(warnings.filter((warning) => warning.includes('_headers'))).toEqual([
      expect.stringMatching(/_headers: 1 header left out, .*: line \d+ \(X-Bad\); the others are sent\.$/),
    ]);
  });
});

describe('serve on a root index that names a collection the snapshot lacks', () => {
  it('answers 404 for it, and the other collections as before', async () => {
    const query = 'actiontypes/?page[size]=100&filter[action_category__term]=Visit&sort=term';
    const [before] = await answersOf([query]);
    const rootIndex = path.join(mirror.dir, 'sms', 'cv', 'api', 'v1', 'index.html');
    const original = await readFile(rootIndex, 'utf8');
    const document = JSON.parse(original) as { data: Record<string, string> };
    document.data.nowhere = `${mirror.api.rootUrl}nowhere/`;
    await writeFile(rootIndex, JSON.stringify(document));
    try {
      const [other, lacking] = await answersOf([query, 'nowhere/']);
      expect(other!.status).toBe(200);
      expect(other!.text).toBe(before!.text);
      expect(lacking!.status).toBe(404);
      expect(JSON.parse(lacking!.text).errors[0].status).toBe('404');
    } finally {
      await writeFile(rootIndex, original);
    }
  });
});

describe('serve on damaged list pages', () => {
  const unrelated = [
    'actiontypes/?page[size]=100&filter[action_category__term]=Visit&sort=term',
    'measuredquantityunits/?page[size]=100&include=unit',
    'actiontypes/?filter[nope.icontains]=a',
  ];

  it('answers what does not need a damaged page as before, and names the page where an answer needs it', async () => {
    const before = await answersOf(unrelated);
    expect(before.map((answer) => answer.status)).toEqual([200, 200, 400]);
    expect(JSON.parse(before[1]!.text).included.length).toBeGreaterThan(0);

    // A collection no query above touches: its first page is read all the same, for the types it holds.
    await writeFile(firstPage('units-communities'), '\uFEFF{"data":[]}');
    const [...after] = await answersOf([...unrelated, 'units-communities/?sort=term']);
    expect(after.slice(0, 3).map((answer) => [answer.status, answer.text])).toEqual(
      before.map((answer) => [answer.status, answer.text]),
    );
    const damaged = after[3]!;
    expect(damaged.status).toBe(500);
    expect(JSON.parse(damaged.text).errors[0].detail).toContain(
      'sms/cv/api/v1/units-communities/page/1/index.html is not valid JSON',
    );

    // Now the units themselves: the units an answer includes may be in that page, so it is not answered without it.
    await writeFile(firstPage('units'), 'not json');
    const [types, included] = await answersOf(unrelated.slice(0, 2));
    expect(types!.status).toBe(200);
    expect(types!.text).toBe(before[0]!.text);
    expect(included!.status).toBe(500);
    expect(JSON.parse(included!.text).errors[0].detail).toMatch(/sms\/cv\/api\/v1\/units(-communities)?\/page\/1\//);
  });
});
