/** One thing validation noticed about one document (DESIGN.md §5). */
export interface Finding {
  /** Canonical URL of the document. */
  url: string;
  /** JSON pointer (RFC 6901) into the document; '' for the whole document. */
  pointer: string;
  /** Stable rule name, such as `pagination.count`. */
  rule: string;
  severity: 'error' | 'warning';
  message: string;
}
