/**
 * One thing validation (or the crawl) noticed about one document. The type is declared in rules.ts, beside the rule
 * names it refers to, so that rules.ts imports nothing from here; code that only handles findings imports it here.
 */
export type { Finding } from './rules.js';
