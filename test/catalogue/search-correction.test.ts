/**
 * The search's typo correction (the page script's `cvCorrect`), run as the page runs it, against a plain reference:
 * every word of the labels compared letter by letter with the optimal string alignment distance (a letter added, left
 * out, changed, or two neighbours swapped). What the script skips to stay fast (words of other lengths, words with
 * other letters) must never change its answer.
 */
import vm from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold, SEARCH_SCRIPT } from '../../src/catalogue/search.js';

type Entry = [string, string, string, string, string, string, string, string];
type Correct = (index: Entry[], query: string) => string | null;

/** A fresh copy of the page script's functions, as a page without a search box has them. */
function script(): Correct {
  const context: { window: Record<string, unknown> } = { window: {} };
  vm.runInNewContext(SEARCH_SCRIPT, context);
  return context.window.cvCorrect as Correct;
}

function osa(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
      }
    }
  }
  return d[a.length]![b.length]!;
}

/** docs/catalogue.md: a word of five letters or more, one or two edits off, the closest, then the most frequent. */
function reference(labels: string[], query: string): string | null {
  const counts = new Map<string, number>();
  for (const label of labels) {
    for (const word of fold(label).split(/[^\p{L}\p{N}]+/u)) {
      if (word.length >= 3) counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  let changed = false;
  const terms = fold(query)
    .split(/\s+/)
    .filter((t) => t !== '')
    .map((term) => {
      if (term.length < 5 || counts.has(term)) return term;
      let best: string | null = null;
      let bestDistance = 3;
      let bestCount = 0;
      for (const [word, n] of counts) {
        const d = osa(term, word);
        if (d <= 2 && (d < bestDistance || (d === bestDistance && n > bestCount))) {
          [best, bestDistance, bestCount] = [word, d, n];
        }
      }
      if (best === null) return term;
      changed = true;
      return best;
    });
  return changed ? terms.join(' ') : null;
}

const entries = (labels: string[]): Entry[] =>
  labels.map((label, i) => [`r-${i}.html`, label, '', 'units', fold(label), String(i), '', '']);

describe('the typo correction of the search', () => {
  it('finds what comparing every word would find', () => {
    // Few letters, so that words one and two edits apart are common; an accent and a digit among them.
    const word = fc.string({
      unit: fc.constantFrom('a', 'b', 'c', 'e', 'é', 'r', 's', '1'),
      minLength: 3,
      maxLength: 9,
    });
    const label = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(' '));
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 40 }), word, word, (labels, a, b) => {
        const cvCorrect = script();
        const index = entries(labels);
        for (const query of [a, `${a} ${b}`, b.toUpperCase()]) {
          expect(cvCorrect(index, query), query).toBe(reference(labels, query));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('corrects one and two letters wrong, swapped letters, and a long word', () => {
    const cvCorrect = script();
    const index = entries(['Kelvin', 'Pressure sensor', 'Degree Celsius', 'Photosynthetically active radiation']);
    expect(cvCorrect(index, 'kelvn')).toBe('kelvin');
    expect(cvCorrect(index, 'presure sensro')).toBe('pressure sensor');
    expect(cvCorrect(index, 'celsuis')).toBe('celsius');
    expect(cvCorrect(index, 'photosinthetically')).toBe('photosynthetically');
    // Three letters off, or a word the labels have: no correction.
    expect(cvCorrect(index, 'kxlxxn')).toBeNull();
    expect(cvCorrect(index, 'kelvin')).toBeNull();
  });
});
