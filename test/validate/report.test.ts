import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/validate/finding.js';
import { buildReport, countsByRule, FindingTally, formatSummary, reportJson } from '../../src/validate/report.js';
import { ROOT } from '../helpers/validate-fixtures.js';

function f(url: string, pointer: string, rule: Finding['rule'], severity: Finding['severity'] = 'error'): Finding {
  return { url: `${ROOT}${url}`, pointer, rule, severity, message: `${rule} at ${url}${pointer}.` };
}

const FINDINGS: Finding[] = [
  f('siteusages/2/', '/data/attributes/status', 'cv.status', 'warning'),
  f('actioncategories/', '/meta/pagination/count', 'pagination.count'),
  f('actioncategories/1/', '/data/relationships/action_types/meta/count', 'relationship.count'),
  f('', '/data/things', 'root.collections', 'warning'),
  f('', '/data', 'root.collections'),
  f('actioncategories/', '/data/0/links/self', 'record.self'),
];

describe('buildReport', () => {
  it('counts by severity and rule, sorts findings by url, pointer, rule', () => {
    const report = buildReport(FINDINGS, { SiteType: 3, ActionType: 12 });
    expect(report.errors).toBe(4);
    expect(report.warnings).toBe(2);
    expect(report.rules).toEqual({
      'cv.status': { errors: 0, warnings: 1, omitted: 0 },
      'pagination.count': { errors: 1, warnings: 0, omitted: 0 },
      'record.self': { errors: 1, warnings: 0, omitted: 0 },
      'relationship.count': { errors: 1, warnings: 0, omitted: 0 },
      'root.collections': { errors: 1, warnings: 1, omitted: 0 },
    });
    expect(Object.keys(report.rules)).toEqual([
      'cv.status',
      'pagination.count',
      'record.self',
      'relationship.count',
      'root.collections',
    ]);
    expect(Object.keys(report.undescribedTypes)).toEqual(['ActionType', 'SiteType']);
    expect(report.findings.map((x) => [x.url.slice(ROOT.length), x.pointer])).toEqual([
      ['', '/data'],
      ['', '/data/things'],
      ['actioncategories/', '/data/0/links/self'],
      ['actioncategories/', '/meta/pagination/count'],
      ['actioncategories/1/', '/data/relationships/action_types/meta/count'],
      ['siteusages/2/', '/data/attributes/status'],
    ]);
  });

  it('is the same JSON for the same findings in any order', () => {
    const forward = JSON.stringify(buildReport(FINDINGS, { B: 1, A: 2 }));
    const backward = JSON.stringify(buildReport([...FINDINGS].reverse(), { A: 2, B: 1 }));
    expect(backward).toBe(forward);
  });

  it('does not reorder the caller’s array', () => {
    const input = [...FINDINGS];
    buildReport(input);
    expect(input).toEqual(FINDINGS);
  });

  it('reports a clean run', () => {
    expect(buildReport([])).toEqual({
      errors: 0,
      warnings: 0,
      rules: {},
      undescribedTypes: {},
      findingsListedPerRule: 1000,
      findingsOmitted: 0,
      findings: [],
    });
  });
});

describe('a report of very many findings', () => {
  const many = (n: number, rule: Finding['rule'], severity: Finding['severity'] = 'warning') =>
    Array.from({ length: n }, (_, i) => f(`units/${String(i).padStart(5, '0')}/`, '', rule, severity));

  it('counts every finding but lists only the first of each rule, in report order, whatever order they came in', () => {
    const outside = many(250, 'scope.outside');
    const dead = many(30, 'link.dead', 'error');
    const shuffled = [...outside, ...dead].sort(
      (a, b) => (a.message.length % 7) - (b.message.length % 7) || (a.url < b.url ? 1 : -1),
    );
    const tally = new FindingTally(40);
    for (const finding of shuffled) tally.add(finding);
    const report = tally.report();
    expect(report.errors).toBe(30);
    expect(report.warnings).toBe(250);
    expect(report.rules).toEqual({
      'link.dead': { errors: 30, warnings: 0, omitted: 0 },
      'scope.outside': { errors: 0, warnings: 250, omitted: 210 },
    });
    expect(report.findingsListedPerRule).toBe(40);
    expect(report.findingsOmitted).toBe(210);
    // The first 40 scope.outside findings by URL, and every link.dead one.
    expect(report.findings.filter((x) => x.rule === 'scope.outside').map((x) => x.url)).toEqual(
      outside.slice(0, 40).map((x) => x.url),
    );
    expect(report.findings.filter((x) => x.rule === 'link.dead')).toHaveLength(30);
    expect(JSON.stringify(buildReport([...outside, ...dead].reverse(), {}, 40))).toBe(JSON.stringify(report));
  });

  it('takes back what a document reported: the report is the one of the findings it keeps', () => {
    const page = `${ROOT}actioncategories/`;
    const ofPage = FINDINGS.filter((finding) => finding.url === page);
    const tally = new FindingTally();
    for (const finding of FINDINGS) tally.add(finding);
    tally.remove(page, countsByRule(ofPage));
    const others = FINDINGS.filter((finding) => finding.url !== page);
    // No rule left with nothing in it: the same bytes as a report that never had the page's findings.
    expect(JSON.stringify(tally.report())).toBe(JSON.stringify(buildReport(others)));
    for (const finding of ofPage) tally.add(finding);
    expect(JSON.stringify(tally.report())).toBe(JSON.stringify(buildReport(FINDINGS)));
  });

  it('is written in pieces that make exactly the pretty-printed JSON', () => {
    for (const findings of [[], FINDINGS, many(1234, 'resource.id')]) {
      const report = buildReport(findings, { SiteType: 3 }, 2000);
      const pieces = [...reportJson(report)];
      expect(pieces.join('')).toBe(`${JSON.stringify(report, null, 2)}\n`);
      if (findings.length > 1000) expect(pieces.length).toBeGreaterThan(2);
    }
  });
});

describe('formatSummary', () => {
  it('gives totals, rules, undescribed types and the findings, errors first', () => {
    const text = formatSummary(buildReport(FINDINGS, { ActionType: 12, SiteType: 3 }));
    const lines = text.split('\n');
    expect(lines[0]).toBe('Validation: 4 errors, 2 warnings.');
    expect(lines[1]).toContain('root.collections (1 error, 1 warning)');
    expect(lines[2]).toBe(
      'Checked as generic resources, since the API contract tabulates no fields for them: 2 types, ActionType (12), ' +
        'SiteType (3).',
    );
    expect(lines.slice(3).map((l) => l.trim().split(' ')[0])).toEqual([
      'error',
      'error',
      'error',
      'error',
      'warning',
      'warning',
    ]);
    expect(lines[3]).toContain(`error root.collections ${ROOT} /data:`);
  });

  it('lists at most ten findings and at most ten types', () => {
    const many = Array.from({ length: 25 }, (_, i) => f(`units/${i}/`, '/data/id', 'resource.id', 'warning'));
    const types = Object.fromEntries(
      Array.from({ length: 14 }, (_, i) => [`Type${String(i).padStart(2, '0')}`, i + 1]),
    );
    const lines = formatSummary(buildReport(many, types)).split('\n');
    expect(lines[0]).toBe('Validation: 0 errors, 25 warnings.');
    expect(lines[2]).toMatch(
      /^Checked as generic resources, since .*: 14 types, Type00 \(1\), .*Type09 \(10\), 4 more\.$/,
    );
    expect(lines.filter((l) => l.startsWith('  warning'))).toHaveLength(10);
    expect(lines.at(-1)).toBe('  … and 15 more findings in the report.');
  });

  it('says when the report leaves findings out, and prints no control character a source sent', () => {
    const hostile = {
      ...f('units/1/', '/data/attributes/term', 'cv.format'),
      message: 'Term is \u001b[2J\u001b]0;pwned\u0007 here.',
    };
    const lines = formatSummary(
      buildReport([hostile, ...Array.from({ length: 12 }, (_, i) => f(`units/${i}/`, '', 'cv.format'))], {}, 5),
    ).split('\n');
    expect(lines[1]).toBe('By rule: cv.format (13 errors, 8 not listed).');
    expect(lines.at(-1)).toBe('  … and 8 more findings in the report (which lists at most 5 per rule).');
    const text = lines.join('\n');
    // eslint-disable-next-line no-control-regex -- the summary must hold no control character but newlines
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(text).toContain('Term is \\u001b[2J\\u001b]0;pwned\\u0007 here.');
  });

  it('is one line for a clean run', () => {
    expect(formatSummary(buildReport([]))).toBe('Validation: 0 errors, 0 warnings.');
  });
});
