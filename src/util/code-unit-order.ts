/**
 * The one order of strings the snapshot uses (SHA256SUMS, the report's and the manifest's keys, query parameters,
 * sorted lists): by UTF-16 code units, as `<` compares strings, whatever the locale.
 */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
