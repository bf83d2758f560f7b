/**
 * verify on snapshots with very many problems and findings (hostile ones: their checksums agree with what they
 * hold, so only the checks of their content see them): problems and findings are listed up to their caps, and the
 * counts stay true, in the library's result, the text on stderr and `--json`; an ordinary snapshot's output names
 * no cap.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { runMain } from '../helpers/cli.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { copySnapshot, records, rewriteFile, snapshotOf } from '../helpers/tiny-vocabulary.js';

const RECORD = 'api/things/1/index.html';
/** Links to files the snapshot lacks: one problem each. */
const BROKEN_LINKS = 2500;
/** Relationship targets the snapshot lacks: one reference.target error each. */
const MISSING_TARGETS = 3000;
/** What verify lists (docs/cli.md, docs/library.md): problems, findings of one rule, unexplained errors. */
const LISTED_PROBLEMS = 2000;
const LISTED_PER_RULE = 1000;
const LISTED_ERRORS = 20;
/** Problems verify prints on stderr before it counts the rest. */
const SHOWN_PROBLEMS = 50;

let suite: { dir: string; remove: () => Promise<void> };
let clean: string;
/** Many relationship targets missing: validation errors only. */
let dangling: string;
/** The same and many broken links: more problems than are listed. */
let flooded: string;

/** A copy of the clean snapshot whose record has `relationships`, checksums updated as a crawl would. */
async function withRelationships(name: string, links: number): Promise<string> {
  const dir = await copySnapshot(clean, path.join(suite.dir, name));
  const document = JSON.parse(await readFile(path.join(dir, RECORD), 'utf8'));
  const relationships: Record<string, unknown> = {
    parts: { data: Array.from({ length: MISSING_TARGETS }, (_, i) => ({ type: 'Thing', id: String(1000 + i) })) },
  };
  for (let i = 0; i < links; i++) relationships[`r${i}`] = { links: { related: `/api/things/1/r${i}/` } };
  document.data.relationships = relationships;
  await rewriteFile(dir, RECORD, JSON.stringify(document), true);
  return dir;
}

const brokenLink = (i: number) => `${RECORD} links to /api/things/1/r${i}/, which is not a file of the snapshot.`;

beforeAll(async () => {
  suite = await suiteDir();
  clean = await snapshotOf({ collections: { things: records(3) } }, path.join(suite.dir, 'out'));
  dangling = await withRelationships('dangling', 0);
  flooded = await withRelationships('flooded', BROKEN_LINKS);
});
afterAll(() => suite.remove());

describe('verify with very many findings', () => {
  it('lists the first validation errors, counts the rest, and lists findings per rule as the report does', async () => {
    const result = await verifySnapshot(dangling);
    const breaks = result.problems.filter((p) => p.includes(' breaks reference.target: '));
    expect(breaks).toHaveLength(LISTED_ERRORS);
    expect(result.problems.at(-1)).toBe(`… and ${MISSING_TARGETS - LISTED_ERRORS} more validation errors.`);
    expect(result.problemCount).toBe(result.problems.length);
    const targets = result.findings.filter((f) => f.rule === 'reference.target');
    expect(targets).toHaveLength(LISTED_PER_RULE);
    expect(result.findingsOmitted).toBe(MISSING_TARGETS - LISTED_PER_RULE);
  });
});

describe('verify with more problems than it lists', () => {
  it('keeps the first problems in order and counts every one', async () => {
    const result = await verifySnapshot(flooded);
    expect(result.problems).toHaveLength(LISTED_PROBLEMS);
    expect(result.problems).toEqual(Array.from({ length: LISTED_PROBLEMS }, (_, i) => brokenLink(i)));
    // Every broken link, then the first unexplained errors and a line that counts the rest.
    expect(result.problemCount).toBe(BROKEN_LINKS + LISTED_ERRORS + 1);
  });

  it('prints the true count on stderr, and states the cap in --json', async () => {
    const problems = BROKEN_LINKS + LISTED_ERRORS + 1;
    const text = await runMain(['verify', flooded]);
    expect(text.code, text.stderr).toBe(3);
    const lines = text.stderr.trimEnd().split('\n');
    expect(lines.slice(0, SHOWN_PROBLEMS)).toEqual(Array.from({ length: SHOWN_PROBLEMS }, (_, i) => brokenLink(i)));
    expect(lines.slice(SHOWN_PROBLEMS)).toEqual([
      `… and ${problems - SHOWN_PROBLEMS} more problems.`,
      `${flooded} failed verification with ${problems} problems.`,
    ]);

    const json = await runMain(['verify', '--json', flooded]);
    expect(json.code, json.stderr).toBe(3);
    const outcome = JSON.parse(json.stdout);
    expect(outcome.status).toBe('problems');
    expect(outcome.problems).toHaveLength(LISTED_PROBLEMS);
    expect(outcome.problemsOmitted).toBe(problems - LISTED_PROBLEMS);
  });

  it('names no cap for an ordinary snapshot', async () => {
    const json = await runMain(['verify', '--json', clean]);
    expect(json.code, json.stderr).toBe(0);
    const outcome = JSON.parse(json.stdout);
    expect(outcome.problems).toEqual([]);
    expect(outcome).not.toHaveProperty('problemsOmitted');
    const result = await verifySnapshot(clean);
    expect(result.problemCount).toBe(0);
    expect(result.findingsOmitted).toBe(0);
  });
});
