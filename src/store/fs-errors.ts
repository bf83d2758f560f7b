/**
 * File-system failures as sentences, in one place: which path, what happened, what to try. Node's own text
 * ("ENOSPC: no space left on device, write") names neither the path the user chose nor a way out.
 */
import { CvSnapshotError, FileSystemError } from '../util/errors.js';

/** What happened, and what to try, for each error code a user can meet writing a snapshot. */
const EXPLAINED: Record<string, [happened: string, tryThis: string]> = {
  ENOSPC: ['the file system is full', 'Free some space'],
  EDQUOT: ['the disk quota is used up', 'Free some space or raise the quota'],
  EACCES: ['permission was denied', 'Check the owner and mode of that directory, or choose another --out'],
  EPERM: [
    'the operation is not permitted (the file may be immutable, chattr +i, or the file system may not allow it)',
    'Check that directory, or choose another --out',
  ],
  EROFS: ['the file system is read-only', 'Choose an --out on a writable file system'],
  ENOTDIR: ['a part of that path is a file, not a directory', 'Choose another --out, or move that file away'],
  ENOENT: ['a directory on that path does not exist (or was removed meanwhile)', 'Check the path'],
  EEXIST: ['something is already there', 'Move it away, or choose another --out'],
  ENOTEMPTY: ['a directory is in the way and not empty', 'Move it away, or choose another --out'],
  EISDIR: ['a directory is in the way', 'Move it away, or choose another --out'],
  EXDEV: [
    'it would cross from one file system to another',
    'Choose an --out whose parent directory is one file system',
  ],
  EBUSY: ['it is busy (a mount point, or in use)', 'Choose another --out'],
  ELOOP: ['a symbolic link is in the way', 'Move it away, or choose another --out'],
  ENAMETOOLONG: ['the path is too long for the file system', 'Choose a shorter --out'],
  EMFILE: ['too many files are open', 'Raise the limit (ulimit -n) or lower --concurrency'],
  ENFILE: ['the system has too many files open', 'Close other programs, or lower --concurrency'],
  EIO: ['the disk reported an input/output error', 'Check the disk'],
};

/** Error codes after which running the same command again, once the cause is fixed, can continue the work. */
export const OUT_OF_SPACE = new Set(['ENOSPC', 'EDQUOT']);

function isErrno(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  return (
    error instanceof Error &&
    typeof (error as NodeJS.ErrnoException).code === 'string' &&
    typeof (error as NodeJS.ErrnoException).syscall === 'string'
  );
}

/** What the failed call was doing, in words: `mkdir` → "create". */
const VERBS: Record<string, string> = {
  mkdir: 'create',
  open: 'open',
  write: 'write to',
  read: 'read',
  rename: 'move',
  symlink: 'create a link at',
  link: 'create',
  unlink: 'remove',
  rmdir: 'remove',
  rm: 'remove',
  scandir: 'read',
  lstat: 'look at',
  stat: 'look at',
  fsync: 'save',
  fdatasync: 'save',
  close: 'close',
};

/**
 * The sentence for a failed file-system call, or `error` itself when it is not one. `doing` says what the tool was
 * doing ("Writing the snapshot into /x/out.staging").
 */
export function fileSystemError(error: unknown, doing: string): unknown {
  if (error instanceof CvSnapshotError || !isErrno(error)) return error;
  const where = error.path ?? '';
  const [happened, tryThis] = EXPLAINED[error.code] ?? [`${error.code} (${error.message})`, 'Check that path'];
  const verb = VERBS[error.syscall ?? ''] ?? error.syscall ?? 'use';
  const destination = (error as { dest?: string }).dest;
  const dest = destination === undefined ? '' : ` to ${destination}`;
  const what = where === '' ? '' : `cannot ${verb} ${where}${dest}: `;
  return new FileSystemError(`${doing}: ${what}${happened}. ${tryThis}.`, error.code, where, { cause: error });
}
