// cv-snapshot as a library: snapshot the embedded sample API, verify the snapshot, pack it, diff the archive with
// the directory, and ask `serve` a query. Run it with `node examples/library.mjs` after `npm run build` (a package
// may import itself by its name); `npm run docs:examples` copies it and its output into docs/library.md.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  createSnapshot,
  CvSnapshotError,
  diffSnapshots,
  packSnapshot,
  startSampleApi,
  startServe,
  verifySnapshot,
} from 'cv-snapshot';

const work = await mkdtemp(path.join(os.tmpdir(), 'cv-example-'));
const api = await startSampleApi({ records: 1, logRequests: false });
try {
  const out = path.join(work, 'cv-mirror');
  const crawled = await createSnapshot({ rootUrl: api.rootUrl, out, concurrency: 4 });
  console.log(`crawl: ${crawled.documents} documents, ${crawled.report.errors} validation errors`);

  const check = await verifySnapshot(out);
  console.log(`verify: ${check.problemCount} problems in ${check.files} files, partial: ${check.manifest.partial}`);

  const archive = await packSnapshot(out, { output: path.join(work, 'cv-mirror.tar.gz') });
  console.log(`pack: ${path.basename(archive.output)}, ${archive.leftOut.length} files left out`);

  const diff = await diffSnapshots(archive.output, out);
  console.log(`diff: identical ${diff.identical}, ${diff.collections.length} collections compared`);

  const server = await startServe({ dir: out, port: 0 });
  try {
    const response = await fetch(`${server.url}siteusages/?filter[status]=ACCEPTED&sort=-term`);
    const body = /** @type {{ data: Array<{ attributes: { term: string } }> }} */ (await response.json());
    console.log(`serve: ${response.status}, ${body.data.map((record) => record.attributes.term).join(', ')}`);
  } finally {
    await server.close();
  }

  await verifySnapshot(path.join(work, 'no-such-snapshot'));
} catch (error) {
  // Every failure a user can meet is a CvSnapshotError, with a sentence and the command line's exit code.
  if (!(error instanceof CvSnapshotError)) throw error;
  console.log(`${error.name} (exit code ${error.exitCode}): ${error.message.split(work).join('~')}`);
} finally {
  await api.close();
  await rm(work, { recursive: true, force: true });
}
