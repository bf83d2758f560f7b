/** The SHA-256 of a file on disk, for files the tool wrote and lists in SHA256SUMS. */
import { createHash } from 'node:crypto';
import { closeSync, constants, openSync, readSync } from 'node:fs';

/**
 * Hex SHA-256 of the regular file `file` (a symbolic link is refused with ELOOP), read through `buffer`, which a
 * caller hashing many files reuses: a read stream allocates a buffer per chunk, and on a file of tens of megabytes
 * those fresh pages cost several times what hashing them does.
 */
export function fileSha256(file: string, buffer: Buffer): string {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const hash = createHash('sha256');
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) hash.update(buffer.subarray(0, read));
    return hash.digest('hex');
  } finally {
    closeSync(fd);
  }
}
