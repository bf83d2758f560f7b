/**
 * A crawl's capture (docs/capture.md): opened before the first request, in a new file of the folder, closed after
 * the last; then every capture file of the folder (an interrupted run's too) is listed with its SHA-256. The crawl's
 * worker threads record into the same file (`joinCapture`), each the exchanges it makes.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { CaptureFile, captureFiles, sharedSink, type SharedFile } from './capture-file.js';
import { CaptureRecorder, writeWarcinfo } from './capture-recorder.js';
import type { WarcFields } from './warc-record.js';
import { fileSha256 } from '../util/file-sha256.js';

export interface CaptureRun {
  recorder: CaptureRecorder;
  /**
   * What a worker thread needs to record into the same file (`joinCapture`); the file stays open for it until
   * `close`, which is for after the workers have stopped.
   */
  share(): SharedCapture;
  /** Closes the file (once; later calls do nothing), after syncing it to disk. */
  close(): Promise<void>;
}

export interface CaptureSettings {
  /** Names (lower case) of the headers whose values are secret: those given with --header. */
  secret: ReadonlySet<string>;
  /** The real time now (the capture records when each exchange happened, whatever SOURCE_DATE_EPOCH says). */
  now: () => Date;
  /** warcinfo's fields: the tool, its version, the crawl's options. */
  info: WarcFields;
}

/** The capture as it crosses to a worker thread (structured-cloneable). */
export interface SharedCapture {
  file: SharedFile;
  warcinfo: string;
  secret: string[];
}

export function openCapture(dir: string, { secret, now, info }: CaptureSettings): CaptureRun {
  const file = CaptureFile.create(dir);
  const warcinfo = writeWarcinfo(file, now(), info);
  return {
    recorder: new CaptureRecorder(file, { secret, now, warcinfo }),
    share: () => ({ file: file.share(), warcinfo, secret: [...secret] }),
    close: () => file.close(),
  };
}

/** The recorder of a worker thread, which appends to the file another thread opened and will close. */
export function joinCapture({ file, warcinfo, secret }: SharedCapture, now: () => Date): CaptureRecorder {
  return new CaptureRecorder(sharedSink(file), { secret: new Set(secret), now, warcinfo });
}

/** Each capture file in `dir` and its SHA-256 (hex), in the order they were written. */
export function captureSums(dir: string): Array<[string, string]> {
  const buffer = Buffer.allocUnsafe(1 << 20);
  return captureFiles(readdirSync(dir)).map((name) => [name, fileSha256(path.join(dir, name), buffer)]);
}
