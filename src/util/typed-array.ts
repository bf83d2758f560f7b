/** Growing the typed arrays that compact indexes keep numbers in (derive's entries and plan, the catalogue's pages). */

type NumberArray = Uint8Array | Uint16Array | Int32Array | Uint32Array | Float64Array;

/** A copy of `array` with room for `length` numbers (twice as many by default), the new ones 0. */
export function grown<T extends NumberArray>(array: T, length = Math.max(1, array.length * 2)): T {
  const bigger = new (array.constructor as new (size: number) => T)(length);
  (bigger as Uint8Array).set(array);
  return bigger;
}
