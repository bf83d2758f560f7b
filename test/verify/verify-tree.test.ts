/**
 * verify on trees that are not what crawl wrote: pipes, sockets and links in the tree are problems and never
 * opened (a named pipe used to block it forever); a file changed after the crawl is reported as changed, not as a
 * fault of the source; text from documents never reaches the terminal raw; JSON nested 100,000 deep is a problem,
 * not a crash; a file SHA256SUMS does not list is named wherever it is; SHA256SUMS is read strictly; anything that
 * is not a snapshot gets one sentence.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typedRecordPage } from '../../src/format/catalogue-names.js';
import { NotASnapshotError } from '../../src/format/read-manifest.js';
import { verifySnapshot } from '../../src/verify/verify-snapshot.js';
import { runCli, runMain } from '../helpers/cli.js';
import { suiteDir, tempDir } from '../helpers/temp-dir.js';
import { copySnapshot, records, rewriteFile, snapshotOf } from '../helpers/tiny-vocabulary.js';

const mkfifo = (file: string) => promisify(execFile)('mkfifo', [file]);
const RECORD = 'api/units/1/index.html';
const SUMS = '_cv-snapshot/SHA256SUMS';

interface Counted {
  collections: Record<string, { pages: number; records: number; documents: number }>;
}

let suite: { dir: string; remove: () => Promise<void> };
let snapshot: string;
let copies = 0;

beforeAll(async () => {
  suite = await suiteDir();
  snapshot = await snapshotOf({ collections: { units: records(3) } }, path.join(suite.dir, 'out'));
});
afterAll(() => suite.remove());

const copy = (): Promise<string> => copySnapshot(snapshot, path.join(suite.dir, `copy-${++copies}`));

describe('verify on what is not a regular file', () => {
  it('reports a named pipe, a socket and symbolic links in the tree without opening or following them', async () => {
    const dir = await copy();
    await mkfifo(path.join(dir, 'api', 'units', 'pipe'));
    await rm(path.join(dir, 'api', 'units', '2', 'index.html'));
    await mkfifo(path.join(dir, 'api', 'units', '2', 'index.html'));
    await symlink('/etc/passwd', path.join(dir, 'api', 'passwd'));
    await symlink('/etc', path.join(dir, 'api', 'etc'));
    const socketPath = path.join(dir, 'api', 'socket');
    const server = net.createServer().listen(socketPath);
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      // A process of its own: a verify that opened a pipe would wait for a writer forever, holding a thread of the
      // process it runs in.
      const result = await runCli(['verify', dir]);
      expect(result.code).toBe(3);
      const problems = result.stderr.split('\n');
      for (const [rel, kind] of [
        ['api/units/pipe', 'a named pipe'],
        ['api/units/2/index.html', 'a named pipe'],
        ['api/passwd', 'a symbolic link'],
        ['api/etc', 'a symbolic link'],
        ['api/socket', 'a socket'],
      ]) {
        const sentence = `${rel} is ${kind}; a snapshot holds only regular files and directories, so it was not read.`;
        expect(problems).toContain(sentence);
      }
      expect(result.stderr).not.toContain('root:');
    } finally {
      server.close();
    }
  });
});

describe('verify and files changed after the crawl', () => {
  it('says a changed file was changed after the crawl, and blames nothing it now breaks on the source', async () => {
    const dir = await copy();
    const text = await readFile(path.join(dir, RECORD), 'utf8');
    // A document edited by hand: its type is no longer a string, which validation would call a source error.
    await rewriteFile(dir, RECORD, text.replace('"type":"Unit"', '"type":7'), false);
    const { problems } = await verifySnapshot(dir);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      new RegExp(
        `^${RECORD} was changed after the crawl: its SHA-256 is [0-9a-f]{64}, but ${SUMS} says [0-9a-f]{64}\\. ` +
          'Restore it, or crawl again\\.$',
      ),
    );
  });

  it('leaves out what a list page cut short or removed breaks across documents, and says so once', async () => {
    const page = 'api/units/page/1/index.html';
    const cut = await copy();
    const text = await readFile(path.join(cut, page), 'utf8');
    const said = (JSON.parse(await readFile(path.join(cut, '_cv-snapshot', 'manifest.json'), 'utf8')) as Counted)
      .collections.units!;
    const onPage = (JSON.parse(text) as { data: unknown[] }).data.length;
    const pages = (n: number) => `${n} list page${n === 1 ? '' : 's'}`;
    const records = (n: number) => `${n} record${n === 1 ? '' : 's'}`;
    const counts =
      `_cv-snapshot/manifest.json says collection "units" has ${pages(said.pages)} with ${records(said.records)}, ` +
      `in ${said.documents} documents; the snapshot holds ${pages(said.pages - 1)} with ` +
      `${records(said.records - onPage)}, in ${said.documents - 1} documents.`;
    const leftOut =
      'One error found by the checks across documents (pagination, the targets of relationships) is left out: it ' +
      'comes from the files above that were changed, are missing or cannot be read.';
    await rewriteFile(cut, page, text.slice(0, 40), false);
    const removed = await copy();
    await rm(path.join(removed, page));
    const cutProblems = (await verifySnapshot(cut)).problems;
    expect(cutProblems[0]).toMatch(new RegExp(`^${page} was changed after the crawl: `));
    expect(cutProblems.slice(1)).toEqual([counts, leftOut]);
    // Page 2 links to page 1 as its first and as its previous page: one problem.
    expect((await verifySnapshot(removed)).problems).toEqual([
      `${page} is listed in ${SUMS} but missing.`,
      'api/units/page/2/index.html links to /api/units/page/1/, which is not a file of the snapshot.',
      counts,
      leftOut,
    ]);
    // The same tree with SHA256SUMS agreeing, as if the crawl had stored no such page: then the error is the source's.
    const sums = path.join(removed, ...SUMS.split('/'));
    const lines = (await readFile(sums, 'utf8')).split('\n').filter((line) => !line.endsWith(`  ${page}`));
    await writeFile(sums, lines.join('\n'));
    const agreeing = (await verifySnapshot(removed)).problems;
    expect(agreeing.slice(0, 2)).toEqual([
      'api/units/page/2/index.html links to /api/units/page/1/, which is not a file of the snapshot.',
      counts,
    ]);
    const pagination =
      'breaks pagination.pages: units says it has 2 pages but the snapshot lacks 1 of them (page 1); crawl again, ' +
      'since their records are missing.';
    expect(agreeing[2]).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/api\/units\/\?page\[number\]=2 at \/meta\/pagination\/pages /,
    );
    expect(agreeing[2]!.endsWith(pagination)).toBe(true);
    expect(agreeing).toHaveLength(3);
  });

  it('prints text from documents with escapes, never raw control characters or a password', async () => {
    const dir = await copy();
    const text = await readFile(path.join(dir, RECORD), 'utf8');
    // A link that resolves nowhere: verify quotes it. Checksums updated, so only the link check sees it.
    const links = '"links":{"bad":"/api/\\u001b[2J\\u001b]0;owned\\u0007","cred":"http://user:secret@example.org/x",';
    await rewriteFile(dir, RECORD, text.replace('"links":{', links), true);
    const result = await runMain(['verify', dir]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      `${RECORD} links to /api/\\u001b[2J\\u001b]0;owned\\u0007, which is not a file of the snapshot.`,
    );
    // eslint-disable-next-line no-control-regex -- no control character may reach the terminal
    expect(result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    expect(result.stderr).not.toContain('secret');
  });
  it('redacts a password that holds an @ whole, not only up to its first @', async () => {
    const dir = await copy();
    const text = await readFile(path.join(dir, RECORD), 'utf8');
    // A link of the snapshot that leads nowhere, quoted in full, with a URL in it.
    const links = '"links":{"cred":"/api/gone?from=http://user:pa@ss-w0rd@example.org/x",';
    await rewriteFile(dir, RECORD, text.replace('"links":{', links), true);
    const { problems } = await verifySnapshot(dir);
    expect(problems).toContain(
      `${RECORD} links to /api/gone?from=http://***@example.org/x, which is not a file of the snapshot.`,
    );
    expect(problems.join('\n')).not.toContain('w0rd');
  });
});

describe('verify on hostile JSON', () => {
  it('reports a document nested 100,000 deep and reads 1e400 and 18446744073709551617, without crashing', async () => {
    const dir = await copy();
    await rewriteFile(dir, 'api/units/2/index.html', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, true);
    const text = await readFile(path.join(dir, RECORD), 'utf8');
    const numbers = '"term":"term 1","big":1e400,"huge":18446744073709551617';
    await rewriteFile(dir, RECORD, text.replace('"term":"term 1"', numbers), true);
    const { problems } = await verifySnapshot(dir);
    expect(problems).toContain(
      'api/units/2/index.html cannot be checked: it nests objects and arrays more than 256 levels deep.',
    );
    expect(problems.filter((p) => p.includes(RECORD))).toEqual([]);
  });

  it('says in one sentence that a manifest is not one: absolute links without a base, a root not a URL', async () => {
    const dir = await copy();
    const file = path.join(dir, '_cv-snapshot', 'manifest.json');
    type Fields = { options: { links: string }; source: { root: string } };
    const manifest = JSON.parse(await readFile(file, 'utf8')) as Fields;
    manifest.options.links = 'absolute';
    await writeFile(file, JSON.stringify(manifest));
    const links = await verifySnapshot(dir).catch((e: unknown) => e);
    manifest.options.links = 'relative';
    manifest.source.root = 'not a URL';
    await writeFile(file, JSON.stringify(manifest));
    const root = await verifySnapshot(dir).catch((e: unknown) => e);
    const prefix = `${dir}: _cv-snapshot/manifest.json is not a cv-snapshot manifest`;
    const give = 'Give a directory that crawl wrote (--out) or an archive that pack wrote.';
    expect(links).toBeInstanceOf(NotASnapshotError);
    const noBase = '"options.links" is absolute, but "options.baseUrl" is null';
    expect((links as Error).message).toBe(`${prefix} (${noBase}). ${give}`);
    expect((root as Error).message).toBe(`${prefix} ("source.root" is not an http or https URL). ${give}`);
  });

  it("names each collection whose stored documents do not add up to the manifest's counts", async () => {
    const dir = await copy();
    const rel = '_cv-snapshot/manifest.json';
    type Counts = { pages: number; records: number; documents: number };
    const manifest = JSON.parse(await readFile(path.join(dir, rel), 'utf8')) as { collections: Record<string, Counts> };
    const units = manifest.collections.units!;
    expect((await verifySnapshot(dir)).problems).toEqual([]);
    const pages = (n: number) => `${n} list page${n === 1 ? '' : 's'}`;
    const holds = `${pages(units.pages)} with ${units.records} records, in ${units.documents} documents`;
    // Claims the tree does not back: a page too many, and a collection that has no list page at all.
    manifest.collections.units = { ...units, pages: units.pages + 1 };
    manifest.collections['../..'] = { pages: 1, records: 1, documents: 1 };
    await rewriteFile(dir, rel, JSON.stringify(manifest), true);
    const first = await verifySnapshot(dir);
    expect(first.problems).toEqual([
      `${rel} says collection "../.." has 1 list page with 1 record, in 1 document; the snapshot holds 0 list ` +
        'pages with 0 records, in 0 documents.',
      `${rel} says collection "units" has ${pages(units.pages + 1)} with ${units.records} records, in ` +
        `${units.documents} documents; the snapshot holds ${holds}.`,
    ]);
    // One document more than the tree holds, the list pages and records as they are.
    manifest.collections = { units: { ...units, documents: units.documents + 1 } };
    await rewriteFile(dir, rel, JSON.stringify(manifest), true);
    expect((await verifySnapshot(dir)).problems).toEqual([
      `${rel} says collection "units" has ${pages(units.pages)} with ${units.records} records, in ` +
        `${units.documents + 1} documents; the snapshot holds ${holds}.`,
    ]);
    // A collection the tree holds that the manifest leaves out.
    manifest.collections = {};
    await rewriteFile(dir, rel, JSON.stringify(manifest), true);
    expect((await verifySnapshot(dir)).problems).toEqual([
      `${rel} does not name collection "units", of which the snapshot holds ${holds}.`,
    ]);
  });

  it('says in one sentence that a manifest nested 100,000 deep is not a manifest', async () => {
    const dir = await copy();
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    await writeFile(path.join(dir, '_cv-snapshot', 'manifest.json'), deep);
    const result = await runMain(['verify', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `cv-snapshot verify: ${dir}: _cv-snapshot/manifest.json is unreadable (it nests objects and arrays more ` +
        'than 256 levels deep). Give a directory that crawl wrote (--out) or an archive that pack wrote.\n',
    );
  });
});

describe('verify and files that SHA256SUMS does not list', () => {
  it('names each by path and exits 3: at the top, deep in the API tree, in the metadata and catalogue', async () => {
    const dir = await copy();
    const planted = [
      'stray.txt',
      'api/units/1/relationships/successor/index.html',
      'api/units/2/deep/er/still/payload.json',
      '_cv-snapshot/notes.txt',
      '_catalogue/units/r-4.html',
    ];
    for (const rel of planted) {
      await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
      await writeFile(path.join(dir, rel), '{"data":null}<script>document.title="planted"</script>\n');
    }
    // A name that would move the terminal's cursor, quoted with escapes like every text verify did not write.
    await writeFile(path.join(dir, 'api', 'units', 'evil\u001b[2J'), 'x');
    const result = await runMain(['verify', dir]);
    expect(result.code).toBe(3);
    const problems = result.stderr.split('\n');
    for (const rel of [...planted, 'api/units/evil\\u001b[2J']) {
      expect(problems).toContain(`${rel} is not part of the snapshot (not in ${SUMS}).`);
    }
    // eslint-disable-next-line no-control-regex -- no control character may reach the terminal
    expect(result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    expect(problems.filter((line) => line.includes('not part of the snapshot'))).toHaveLength(planted.length + 1);
  });
});

describe('verify and file names beyond ASCII', () => {
  it('finds each name whatever its script, and names the unlisted in the order JavaScript sorts them', async () => {
    const dir = await copy();
    // UTF-16 puts U+1F600 (a surrogate pair) before U+E000 and U+FFFD; their UTF-8 bytes sort the other way round.
    const names = ['\uFFFD', '\u{1F600}', 'z', '\uE000', 'é', '\u{1F600}a', '\uE000\u{1F600}'].map(
      (name) => `_cv-snapshot/${name}.txt`,
    );
    for (const rel of names) await writeFile(path.join(dir, rel), rel);
    const unlisted = await verifySnapshot(dir);
    const inOrder = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(unlisted.problems).toEqual(inOrder.map((rel) => `${rel} is not part of the snapshot (not in ${SUMS}).`));
    // Listed with their checksums, each is found and checked: only the one listed with another checksum is wrong.
    const sumsFile = path.join(dir, ...SUMS.split('/'));
    const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
    const wrong = 'f'.repeat(64);
    const lines = names.map((rel, i) => `${i === 1 ? wrong : sha256(rel)}  ${rel}`);
    await writeFile(sumsFile, `${await readFile(sumsFile, 'utf8')}${lines.join('\n')}\n`);
    const listed = await verifySnapshot(dir);
    expect(listed.problems).toEqual([
      `${names[1]} was changed after the crawl: its SHA-256 is ${sha256(names[1]!)}, but ${SUMS} says ${wrong}. ` +
        'Restore it, or crawl again.',
    ]);
  });
});

describe("verify and the catalogue's record pages", () => {
  it('names both pages when two are the page of one record', async () => {
    const dir = await copy();
    const page = '_catalogue/units/r-2.html';
    const html = await readFile(path.join(dir, page), 'utf8');
    const type = /<meta name="[^"]*" content="\[&quot;units&quot;,&quot;([^&]*)&quot;,&quot;2&quot;/.exec(html)?.[1];
    expect(type).toBeDefined();
    // The page a record of another type with the same id would have, holding record 2's page, listed with its checksum.
    const twin = typedRecordPage('units', type!, '2');
    await writeFile(path.join(dir, twin), html);
    const sumsFile = path.join(dir, ...SUMS.split('/'));
    const sha256 = createHash('sha256').update(html).digest('hex');
    await writeFile(sumsFile, `${await readFile(sumsFile, 'utf8')}${sha256}  ${twin}\n`);
    const { problems } = await verifySnapshot(dir);
    expect(problems).toEqual([
      expect.stringMatching(new RegExp(`^${twin} and ${page} are both the page of ${type} "2" `)),
    ]);
  });
});

describe('verify reads SHA256SUMS strictly', () => {
  it('names malformed lines, paths outside the snapshot and paths listed twice', async () => {
    const dir = await copy();
    const sumsFile = path.join(dir, ...SUMS.split('/'));
    const listed = await readFile(sumsFile, 'utf8');
    const lines = listed.trimEnd().split('\n');
    const hash = 'a'.repeat(64);
    const extra = [`${hash}  ../outside`, `${hash}  /etc/passwd`, 'not a checksum line', lines[0]!];
    await writeFile(sumsFile, `${listed}${extra.join('\n')}\n`);
    const { problems } = await verifySnapshot(dir);
    const n = lines.length;
    expect(problems).toEqual([
      `${SUMS} line ${n + 1} lists "../outside", which climbs out of the snapshot with ".."; it was not read.`,
      `${SUMS} line ${n + 2} lists "/etc/passwd", which is an absolute path; it was not read.`,
      `${SUMS} line ${n + 3} is not "<sha256>  <path>".`,
      `${SUMS} lists ${lines[0]!.slice(66)} more than once (again on line ${n + 4}).`,
    ]);
  });

  it('checks each file against its checksum whatever the order SHA256SUMS lists them in', async () => {
    const dir = await copy();
    await rewriteFile(dir, RECORD, '{"data":null}', false);
    const inOrder = await verifySnapshot(dir);
    expect(inOrder.problems[0]).toMatch(new RegExp(`^${RECORD} was changed after the crawl: its SHA-256 is `));
    // Listed backwards, the checksums are kept rather than read again in step with the check: the same result.
    const sumsFile = path.join(dir, ...SUMS.split('/'));
    const lines = (await readFile(sumsFile, 'utf8')).trimEnd().split('\n');
    await writeFile(sumsFile, `${lines.reverse().join('\n')}\n`);
    expect(await verifySnapshot(dir)).toEqual(inOrder);
  });

  it('keeps a SHA256SUMS listing 100,000 missing files to a count, and a line of 1 MB to one problem', async () => {
    const dir = await copy();
    const sumsFile = path.join(dir, ...SUMS.split('/'));
    const listed = await readFile(sumsFile, 'utf8');
    const missing = Array.from({ length: 100_000 }, (_, i) => `${'0'.repeat(64)}  api/gone/${i}`).join('\n');
    await writeFile(sumsFile, `${listed}${missing}\n${'x'.repeat(1 << 20)}\n`);
    const { problems } = await verifySnapshot(dir);
    expect(problems).toContain('api/gone/0 is listed in _cv-snapshot/SHA256SUMS but missing.');
    expect(problems).toContain('… and 99000 more files listed in _cv-snapshot/SHA256SUMS are missing.');
    const line = listed.split('\n').length + 100_000;
    expect(problems).toContain(`${SUMS} line ${line} is longer than 16384 bytes; it is not a checksum line.`);
    expect(problems.length).toBeLessThan(1010);
  });
});

describe('verify given something that is not a snapshot', () => {
  it('says in one sentence what it was given: a missing path, a text file, a directory, no manifest', async () => {
    const base = await tempDir();
    const notes = path.join(base, 'notes.txt');
    await writeFile(notes, 'text\n');
    const empty = path.join(base, 'empty');
    await mkdir(empty);
    const [missing, file, directory] = await Promise.all([
      runMain(['verify', path.join(base, 'nowhere.tar.gz')]),
      runMain(['verify', notes]),
      runMain(['verify', empty]),
    ]);
    const give = 'Give a directory that crawl wrote (--out) or an archive that pack wrote.';
    expect(missing.stderr).toBe(`cv-snapshot verify: ${path.join(base, 'nowhere.tar.gz')} does not exist. ${give}\n`);
    expect(file.stderr).toBe(
      `cv-snapshot verify: ${notes} is a file, but not a .tar.gz archive (it does not start with gzip's ` +
        `signature). ${give}\n`,
    );
    expect(directory.stderr).toBe(
      `cv-snapshot verify: ${empty} is not a cv-snapshot snapshot: it has no _cv-snapshot/manifest.json. ${give}\n`,
    );
    expect([missing.code, file.code, directory.code]).toEqual([1, 1, 1]);
  });
});
