import { describe, expect, it } from 'vitest';
import { firstDifference } from '../../src/derive/compare.js';
import { EntryIndex } from '../../src/derive/entries.js';
import { learnKind } from '../../src/derive/learn.js';
import { parseSampleSize, sampleRank, selectSample } from '../../src/derive/sample.js';
import { derivationOf } from '../../src/derive/sources.js';
import { fillTemplate, hasLiteral, learnTemplate } from '../../src/derive/template.js';
import { parseJson, stringifyJson } from '../../src/json/parse-json.js';
import { locate } from '../../src/url/api-location.js';
import { UrlSpace } from '../../src/url/url-space.js';

const ROOT = 'http://cv.test/api/';

/** A list entry as the sample API writes one (spec 2.1, 2.4). */
function entry(id: string, provenance: string | null, extra = ''): string {
  const rel = (name: string): string =>
    `{"self":"${ROOT}units/${id}/relationships/${name}?format=api","related":"${ROOT}units/${id}/${name}/?format=api"}`;
  const linkage = provenance === null ? 'null' : `{"type":"GlobalProvenance","id":"${provenance}"}`;
  return (
    `{"type":"Unit","id":"${id}","attributes":{"term":"metre ${id}","weight":1.50},` +
    `"relationships":{"global_provenance":{"links":${rel('global_provenance')},"data":${linkage}},` +
    `"successor":{"links":${rel('successor')}}},"links":{"self":"${ROOT}units/${id}/"}${extra}}`
  );
}

function indexOf(...entries: string[]): EntryIndex {
  const index = new EntryIndex(new UrlSpace(ROOT));
  index.addPage(`${ROOT}units/`, parseJson(`{"data":[${entries.join(',')}]}`));
  const provenance =
    `{"type":"GlobalProvenance","id":"7","attributes":{"name":"x"},` +
    `"links":{"self":"${ROOT}globalprovenances/7/"}}`;
  index.addPage(`${ROOT}globalprovenances/`, parseJson(`{"data":[${provenance}]}`));
  return index;
}

function derive(index: EntryIndex, url: string) {
  return derivationOf(url, locate(url, ROOT), index, () => undefined);
}

describe('what a document is derived from', () => {
  const index = indexOf(entry('3', '7'), entry('5', null));

  it('a record document is its list entry, numbers as the source wrote them', () => {
    const derivation = derive(index, `${ROOT}units/3/`);
    expect(derivation.derivable && derivation.sources.get('entry')).toBe(entry('3', '7'));
    expect(derivation.derivable && derivation.sources.get('entry')).toContain('"weight":1.50');
  });

  it('a relationship document comes from its linkage and links; related ones from the target entry', () => {
    const relationship = derive(index, `${ROOT}units/3/relationships/global_provenance`);
    expect(relationship).toMatchObject({ derivable: true, kind: 'relationship-to-one', stratum: 'linked' });
    const related = derive(index, `${ROOT}units/5/global_provenance/`);
    expect(related).toMatchObject({ derivable: true, kind: 'related-to-one', stratum: 'null' });
    expect(related.derivable && related.sources.get('targets')).toBe('null');
    const linked = derive(index, `${ROOT}units/3/global_provenance/`);
    expect(linked.derivable && linked.sources.get('targets')).toContain('"id":"7"');
  });

  it('a links-only relationship document is fetched; its related document waits for the linkage', () => {
    expect(derive(index, `${ROOT}units/3/relationships/successor`)).toMatchObject({ reason: 'links-only' });
    expect(derive(index, `${ROOT}units/3/successor/`)).toMatchObject({ reason: 'linkage-unknown' });
    const known = derivationOf(`${ROOT}units/3/successor/`, locate(`${ROOT}units/3/successor/`, ROOT), index, (url) =>
      url === `${ROOT}units/3/relationships/successor` ? '{"type":"Unit","id":"5"}' : undefined,
    );
    expect(known.derivable && known.sources.get('targets')).toBe(entry('5', null));
  });

  it('a record in no list, and a related record in no list, are fetched', () => {
    expect(derive(index, `${ROOT}units/99/`)).toMatchObject({ derivable: false, reason: 'not-in-lists' });
    const orphan = indexOf(entry('3', '8'));
    expect(derive(orphan, `${ROOT}units/3/global_provenance/`)).toMatchObject({ reason: 'target-not-in-lists' });
  });

  it('two lists giving different entries for one record make it fetched', () => {
    const changed = indexOf(entry('3', '7'));
    changed.addPage(`${ROOT}units/?page[number]=2`, parseJson(`{"data":[${entry('3', null)}]}`));
    expect(derive(changed, `${ROOT}units/3/`)).toMatchObject({ reason: 'conflicting-entries' });
  });
});

describe('learning a shape', () => {
  const sources = new Map([
    ['linkage', '{"type":"T","id":"1"}'],
    ['relationship.links.self', '"http://x/r"'],
  ]);

  it('takes member order and extra members from the sample', () => {
    const fetched = parseJson(
      '{"links":{"self":"http://x/r"},"jsonapi":{"version":"1.0"},"data":{"type":"T","id":"1"}}',
    );
    const template = learnTemplate(fetched, sources)!;
    expect(fillTemplate(template, sources)).toBe(stringifyJson(fetched));
    expect(hasLiteral(template)).toBe(true);
    const other = new Map([
      ['linkage', 'null'],
      ['relationship.links.self', '"http://x/s"'],
    ]);
    expect(fillTemplate(template, other)).toBe(
      '{"links":{"self":"http://x/s"},"jsonapi":{"version":"1.0"},"data":null}',
    );
  });

  it('refuses a sample whose data comes from nowhere', () => {
    expect(learnTemplate(parseJson('{"data":{"type":"T","id":"2"}}'), sources)).toBeNull();
  });

  it('a constant seen once asks for a second sample; a differing second sample fails the kind', () => {
    const sample = (url: string, id: string, meta: string) => ({
      url,
      text: `{"data":{"type":"T","id":"${id}"},"meta":${meta}}`,
      sources: new Map([['linkage', `{"type":"T","id":"${id}"}`]]),
    });
    const one = learnKind('relationship-to-one', [sample('http://x/a', '1', '{"page":1}')], 5);
    expect(one).toMatchObject({ ok: true, needsAnotherSample: true });
    const two = learnKind(
      'relationship-to-one',
      [sample('http://x/a', '1', '{"page":1}'), sample('http://x/b', '2', '{"page":2}')],
      5,
    );
    expect(two).toMatchObject({
      ok: false,
      mismatches: [{ url: 'http://x/b', pointer: '/meta/page', fetched: '2', derived: '1' }],
    });
  });
});

describe('comparing a fetched and a derived document', () => {
  it('points at the first value that differs', () => {
    expect(
      firstDifference(parseJson('{"data":{"id":"1","a":[1,2]}}'), parseJson('{"data":{"id":"1","a":[1,3]}}')),
    ).toEqual({
      pointer: '/data/a/1',
      fetched: '2',
      derived: '3',
    });
  });

  it('points at a member the derivation lacks, and at members in another order', () => {
    expect(firstDifference(parseJson('{"data":1,"meta":{"x":1}}'), parseJson('{"data":1}'))).toEqual({
      pointer: '/meta',
      fetched: '{"x":1}',
      derived: null,
    });
    expect(firstDifference(parseJson('{"links":{},"data":1}'), parseJson('{"data":1,"links":{}}'))).toMatchObject({
      pointer: '/links',
    });
  });

  it('counts number spelling: 1.50 is not 1.5 in the stored bytes', () => {
    expect(firstDifference(parseJson('{"w":[1.50]}'), parseJson('{"w":[1.5]}'))).toMatchObject({ pointer: '/w/0' });
    expect(firstDifference(parseJson('{"w":[1.50]}'), parseJson('{"w":[1.50]}'))).toBeNull();
  });
});

describe('the sample', () => {
  it('reads fractions, percentages and counts; 1 and 100% mean everything', () => {
    expect(parseSampleSize('5%')).toEqual({ fraction: 0.05 });
    expect(parseSampleSize('0.25')).toEqual({ fraction: 0.25 });
    expect(parseSampleSize('1')).toEqual({ fraction: 1 });
    expect(parseSampleSize('100%')).toEqual({ fraction: 1 });
    expect(parseSampleSize('20')).toEqual({ count: 20 });
    for (const bad of ['', 'x', '-1', '101%', '2.5']) expect(parseSampleSize(bad)).toBeNull();
  });

  const candidates = Array.from({ length: 200 }, (_, i) => ({
    url: `${ROOT}units/${i}/`,
    group: 'units',
    stratum: i === 150 ? 'null' : 'linked',
  }));

  it('takes every stratum and the share, the same for the same seed whatever the order', () => {
    const sample = selectSample(candidates, { fraction: 0.05 }, 42);
    expect(sample.has(`${ROOT}units/150/`)).toBe(true);
    expect(sample.size).toBeGreaterThanOrEqual(10);
    expect(sample.size).toBeLessThanOrEqual(11);
    expect([...selectSample([...candidates].reverse(), { fraction: 0.05 }, 42)].sort()).toEqual([...sample].sort());
    const other = selectSample(candidates, { fraction: 0.05 }, 43);
    expect([...other].sort()).not.toEqual([...sample].sort());
  });

  it('100% takes everything; a count takes that many of each group', () => {
    expect(selectSample(candidates, { fraction: 1 }, 1).size).toBe(200);
    const counted = selectSample(candidates, { count: 3 }, 1);
    expect(counted.size).toBeGreaterThanOrEqual(3);
    expect(counted.size).toBeLessThanOrEqual(4);
    expect(sampleRank(1, 'a')).toBe(sampleRank(1, 'a'));
  });
});
