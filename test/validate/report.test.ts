import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/validate/finding.js';
import { buildReport, formatSummary } from '../../src/validate/report.js';
import { ROOT } from '../helpers/validate-fixtures.js';

function f(url: string, pointer: string, rule: string, severity: Finding['severity'] = 'error'): Finding {
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
      'cv.status': { errors: 0, warnings: 1 },
      'pagination.count': { errors: 1, warnings: 0 },
      'record.self': { errors: 1, warnings: 0 },
      'relationship.count': { errors: 1, warnings: 0 },
      'root.collections': { errors: 1, warnings: 1 },
    });
    expect(Object.keys(report.rules)).toEqual(['cv.status', 'pagination.count', 'record.self', 'relationship.count', 'root.collections']);
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
    expect(buildReport([])).toEqual({ errors: 0, warnings: 0, rules: {}, undescribedTypes: {}, findings: [] });
  });
});

describe('formatSummary', () => {
  it('gives totals, rules, undescribed types and the findings, errors first', () => {
    const text = formatSummary(buildReport(FINDINGS, { ActionType: 12, SiteType: 3 }));
    const lines = text.split('\n');
    expect(lines[0]).toBe('Validation: 4 errors, 2 warnings.');
    expect(lines[1]).toContain('root.collections (1 error, 1 warning)');
    expect(lines[2]).toBe('2 types not described by the spec: ActionType (12), SiteType (3).');
    expect(lines.slice(3).map((l) => l.trim().split(' ')[0])).toEqual(['error', 'error', 'error', 'error', 'warning', 'warning']);
    expect(lines[3]).toContain(`error root.collections ${ROOT} /data:`);
  });

  it('lists at most ten findings and at most ten types', () => {
    const many = Array.from({ length: 25 }, (_, i) => f(`units/${i}/`, '/data/id', 'resource.id', 'warning'));
    const types = Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`Type${String(i).padStart(2, '0')}`, i + 1]));
    const lines = formatSummary(buildReport(many, types)).split('\n');
    expect(lines[0]).toBe('Validation: 0 errors, 25 warnings.');
    expect(lines[2]).toMatch(/^14 types not described by the spec: Type00 \(1\), .*Type09 \(10\), 4 more\.$/);
    expect(lines.filter((l) => l.startsWith('  warning'))).toHaveLength(10);
    expect(lines.at(-1)).toBe('  … and 15 more findings in the report.');
  });

  it('is one line for a clean run', () => {
    expect(formatSummary(buildReport([]))).toBe('Validation: 0 errors, 0 warnings.');
  });
});
