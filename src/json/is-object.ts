/** Whether a parsed JSON value is an object (not null, not an array): what a JSON:API member must be to be read. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `value` when it is a JSON object, else undefined: for members a stored document may hold in any shape (a record is
 * stored as the source sent it, so its `attributes` or a relationship may be null, a string or a list).
 */
export function objectOrUndefined(value: unknown): Record<string, unknown> | undefined {
  return isObject(value) ? value : undefined;
}
