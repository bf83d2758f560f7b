/**
 * A crawl's capture (docs/capture.md): opened before the first request, in a new file of the folder, closed after
 * the last; then every capture file of the folder (an interrupted run's too) is listed with its SHA-256.
 */
import { createHash } from 'node:crypto';
import { createReadStream, readdirSync } from 'node:fs';
import path from 'node:path';
import { CaptureFile, captureFiles } from './capture-file.js';
import { CaptureRecorder, type RecorderSettings } from './capture-recorder.js';

export interface CaptureRun {
  recorder: CaptureRecorder;
  /** Closes the file (once; later calls do nothing), after syncing it to disk. */
  close(): Promise<void>;
}

export function openCapture(dir: string, settings: RecorderSettings): CaptureRun {
  const file = CaptureFile.create(dir);
  const recorder = new CaptureRecorder(file, settings);
  return { recorder, close: () => file.close() };
}

/** Each capture file in `dir` and its SHA-256 (hex), in the order they were written. */
export async function captureSums(dir: string): Promise<Array<[string, string]>> {
  const sums: Array<[string, string]> = [];
  for (const name of captureFiles(readdirSync(dir))) {
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(path.join(dir, name))) hash.update(chunk as Buffer);
    sums.push([name, hash.digest('hex')]);
  }
  return sums;
}
