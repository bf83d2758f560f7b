/** Writing to a file descriptor until every byte is taken. */
import { writeSync } from 'node:fs';

/**
 * Writes the first `size` bytes of `bytes`, at `position` of the file or, without one, at its current position,
 * however many calls the file system takes to accept them (a write may be cut short by a signal or a nearly full
 * disk, and then returns less).
 */
export function writeFully(fd: number, bytes: Buffer, size = bytes.length, position?: number): void {
  for (let offset = 0; offset < size;) {
    offset += writeSync(fd, bytes, offset, size - offset, position === undefined ? null : position + offset);
  }
}
