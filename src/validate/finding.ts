import type { RuleName } from './rules.js';

/** One thing validation (or the crawl) noticed about one document; see docs/architecture.md#validation. */
export interface Finding {
  /** Canonical URL of the document. */
  url: string;
  /** JSON pointer (RFC 6901) into the document; '' for the whole document. */
  pointer: string;
  /** Stable rule name, such as `pagination.count`: one of the names registered in rules.ts. */
  rule: RuleName;
  severity: 'error' | 'warning';
  message: string;
}
