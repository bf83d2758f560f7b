/**
 * The order the export writes a collection's records in: by id (numeric ids as numbers, before any other, which
 * sort by code units), then by type. The same snapshot gives the same bytes.
 */
import { byCodeUnits } from '../util/code-unit-order.js';
import type { Resource } from './read-collection.js';

const NUMERIC = /^[0-9]+$/;

/** Numeric ids (the API's) in numeric order, before any other, which sort by code units. */
function byId(a: string, b: string): number {
  const numericA = NUMERIC.test(a);
  const numericB = NUMERIC.test(b);
  if (numericA && numericB) return a.length - b.length || byCodeUnits(a, b);
  if (numericA !== numericB) return numericA ? -1 : 1;
  return byCodeUnits(a, b);
}

/** `a` against `b` in the export's order of records; 0 for the same type and id. */
export function byRecordOrder(a: Resource, b: Resource): number {
  return byId(a.id, b.id) || byCodeUnits(a.type, b.type);
}
