/** Whether a parsed JSON value is an object (not null, not an array): what a JSON:API member must be to be read. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
