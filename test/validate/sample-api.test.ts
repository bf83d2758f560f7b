/**
 * Against a real server: every document the embedded sample API serves, reached by following links
 * as a crawl would, validates without findings, under either root path. The sample API is written from the spec
 * independently of the validator, so the two agreeing is evidence about both.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSampleApi, type SampleApi } from '../../src/sample-api/index.js';
import { canonicalUrl, isInScope } from '../../src/url/canonical-url.js';
import type { Finding } from '../../src/validate/finding.js';
import { InvariantChecker } from '../../src/validate/invariants.js';
import { validateDocument } from '../../src/validate/validate-document.js';

/** Absolute links anywhere in a document except inside attributes (provenance URIs are data, not API links). */
function linksIn(value: unknown, out: string[]): void {
  if (typeof value === 'string') {
    if (/^https?:\/\//.test(value)) out.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) linksIn(item, out);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) if (key !== 'attributes') linksIn(item, out);
  }
}

let api: SampleApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('validation of the sample API', () => {
  for (const rootPath of ['/sms/cv/api/v1/', '/cv/api/v1/']) {
    it(`finds nothing in a spec-faithful service at ${rootPath}`, async () => {
      api = await startSampleApi({ port: 0, records: 3, pageSize: 2, rootPath });
      const root = canonicalUrl(api.rootUrl);
      const checker = new InvariantChecker(root);
      const findings: Finding[] = [];
      const seen = new Set([root]);
      const queue = [root];
      while (queue.length > 0) {
        await Promise.all(
          queue.splice(0, 16).map(async (url) => {
            const response = await fetch(url, { headers: { accept: 'application/vnd.api+json' } });
            expect(response.status, url).toBe(200);
            const doc: unknown = await response.json();
            const check = validateDocument(doc, url, root);
            findings.push(...check.findings);
            checker.add(url, check.summary);
            const links: string[] = [];
            linksIn(doc, links);
            for (const link of links) {
              const canonical = canonicalUrl(link);
              if (isInScope(canonical, root) && !seen.has(canonical)) {
                seen.add(canonical);
                queue.push(canonical);
              }
            }
          }),
        );
      }
      findings.push(...checker.finish());
      expect(findings).toEqual([]);
      expect(seen.size).toBeGreaterThan(100);
      // Spec 2.2 has 35 collections of which 8 types are tabulated; the other 27 are counted, not judged.
      expect(Object.keys(checker.undescribedTypes())).toHaveLength(27);
    });
  }
});
