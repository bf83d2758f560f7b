/**
 * The markdown of a diff of large snapshots: long, never a RangeError. A section's lines were once spread into one
 * push, which takes at most about 100,000 arguments.
 */
import { describe, expect, it } from 'vitest';
import type { SnapshotDiff } from '../../src/diff/diff-format.js';
import { formatDiffMarkdown } from '../../src/diff/format-markdown.js';

const RECORDS = 250_000;

function side(records: number): SnapshotDiff['old'] {
  return {
    root: 'http://127.0.0.1:1/sms/cv/api/v1/',
    createdAt: '2026-11-26T00:00:00.000Z',
    tool: 'cv-snapshot 0.0.0',
    etag: null,
    lastModified: null,
    partial: false,
    records,
    shifted: [],
  };
}

describe('formatDiffMarkdown', () => {
  it('writes a collection with 250,000 added records, one table row each', () => {
    const added = Array.from({ length: RECORDS }, (_, i) => ({ type: 'Unit', id: String(i), label: `unit ${i}` }));
    const diff = {
      old: side(0),
      new: side(RECORDS),
      identical: false,
      summary: {
        records: { added: RECORDS, removed: 0, changed: 0, notFetched: 0, unmatched: 0 },
        statusChanges: 0,
        renamed: 0,
        collections: { added: 0, removed: 0 },
      },
      collections: [
        {
          name: 'units',
          change: 'changed',
          records: { old: 0, new: RECORDS },
          added,
          removed: [],
          changed: [],
          renamed: [],
          statusChanges: [],
          notFetched: [],
          unmatched: { old: 0, new: 0, same: true },
        },
      ],
    } as unknown as SnapshotDiff;
    const text = formatDiffMarkdown(diff);
    expect(text).toContain(`### Added (${RECORDS})`);
    const rows = text.split('\n').filter((line) => /^\| Unit \| \d+ \|/.test(line));
    expect(rows).toHaveLength(RECORDS);
    expect(text).toContain('| Unit | 249999 |');
  });
});
