/** "1 record", "3 records": a count and its noun, for messages and pages (`many` for a noun not made with -s). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
