/**
 * A source that breaks the spec in ways the report lists: a record `1` whose own document gives the id `one` (a
 * record.id finding on the record's URL), and, after it in the one list, `oddIds` entries with an id that is not
 * numeric and no links.self (the first with HOSTILE_ID, markup for a page that fails to escape it).
 */
import { sendJson } from './http-server.js';
import { recordDocument, startTinySource, type TinyRecord, type TinySource } from './tiny-source.js';

export const HOSTILE_ID = `x<img src=x onerror="window.pwned=1">`;

/** Serves the source under `/api/` (its `root`). */
export function startFindingsSource(oddIds = 0): Promise<TinySource> {
  const one: TinyRecord = { id: '1', term: 'term one' };
  const odd = Array.from({ length: oddIds }, (_, i): TinyRecord => {
    const id = i === 0 ? HOSTILE_ID : `x${i}`;
    return { id, term: `odd ${i}`, self: null };
  });
  return startTinySource({
    collections: { units: [one, ...odd] },
    answers: {
      'units/1/': (res, base) => sendJson(res, 200, recordDocument(base, 'units', { ...one, idJson: '"one"' })),
    },
  });
}
