/**
 * The findings a RunState reports: each counted once, however often an interrupted crawl fetched its document;
 * none for a document that a resumed crawl fetches again (it reports again); no stale failure for a URL fetched
 * later.
 */
import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/store/journal.js';
import { RunState } from '../../src/pipeline/run-state.js';
import type { Finding } from '../../src/validate/finding.js';
import { InvariantChecker } from '../../src/validate/invariants.js';
import { tempWriter } from '../helpers/temp-dir.js';

const root = 'http://127.0.0.1:8080/api/';
const unit = (id: number) => `${root}units/${id}/`;

const doc = (url: string): JournalEntry => ({
  t: 'doc',
  url,
  file: null,
  summary: { kind: 'other', resources: [], targets: [], roots: [] },
  records: null,
  discovered: [],
});
const finding = (url: string, rule: Finding['rule'], message = `${rule} at ${url}`): JournalEntry => ({
  t: 'finding',
  finding: { url, pointer: '', rule, severity: 'error', message },
});

async function replay(entries: JournalEntry[]): Promise<RunState> {
  const state = new RunState(root, new InvariantChecker(root), await tempWriter(), { resuming: true });
  for (const entry of entries) state.apply(entry);
  return state;
}

describe('RunState findings', () => {
  it('after a replay: a settled document counts each finding once; a refetched one drops its old ones', async () => {
    const state = await replay([
      doc(root),
      // Run 1: unit 1 reported, then killed before its document was journaled; unit 2 failed.
      finding(unit(1), 'record.self'),
      finding(unit(2), 'fetch.failed'),
      // Run 2 (appended to the same journal): unit 1 again, completely; unit 2 fetched after all.
      finding(unit(1), 'record.self'),
      finding(unit(1), 'cv.format'),
      doc(unit(1)),
      doc(unit(2)),
      // Killed again while unit 3 was in hand.
      finding(unit(3), 'record.id'),
    ]);
    state.takeResume();
    // The resumed run fetches unit 3 again, and it reports again.
    state.apply(finding(unit(3), 'record.id'));
    state.apply(doc(unit(3)));
    const report = state.report({});
    expect(report.findings.map((f: Finding) => [f.url, f.rule])).toEqual([
      [unit(1), 'cv.format'],
      [unit(1), 'record.self'],
      [unit(3), 'record.id'],
    ]);
    expect(report.errors).toBe(3);
    expect(state.missing()).toEqual([]);
  });

  it('in a live crawl, count a failure at once and findings added after the crawl (cross-document) too', async () => {
    const state = new RunState(root, new InvariantChecker(root), await tempWriter(), { resuming: false });
    state.apply(doc(root));
    state.apply(finding(unit(2), 'fetch.failed'));
    expect(state.errors).toBe(1);
    state.addFinding({ url: unit(1), pointer: '/data', rule: 'reference.target', severity: 'error', message: 'gone' });
    const report = state.report({});
    expect(report.findings.map((f: Finding) => [f.url, f.rule])).toEqual([
      [unit(1), 'reference.target'],
      [unit(2), 'fetch.failed'],
    ]);
    expect(state.missing()).toEqual([unit(2)]);
  });

  it("a URL held back past its list's first page is missing, once, until it is fetched after all", async () => {
    const page = (n: number) => `${root}units/?page[number]=${n}`;
    const state = await replay([
      doc(root),
      finding(page(3), 'pagination.unbounded'),
      finding(page(4), 'pagination.unbounded'),
      // Held back again when a page that links to it is fetched again.
      finding(page(3), 'pagination.unbounded'),
    ]);
    state.takeResume();
    expect(state.missing()).toEqual([page(3), page(4)]);
    // The collection grew: its first page announces page 4 now, and the resumed crawl fetches it.
    state.apply(doc(page(4)));
    expect(state.missing()).toEqual([page(3)]);
    const report = state.report({});
    expect(report.findings.map((f: Finding) => [f.url, f.rule])).toEqual([[page(3), 'pagination.unbounded']]);
    expect(state.heldBack().map((f) => f.url)).toEqual([page(3)]);
  });
});
