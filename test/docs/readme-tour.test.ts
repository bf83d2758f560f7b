/**
 * The README's tour is one `sh` block right under its heading, and it runs as pasted: `bash -e` runs it in the clone
 * (npx finds the package there, as after `npm ci`; a folder of its own below the clone holds what it writes), on
 * two free ports given as PORT and SERVE_PORT. It must exit 0, leave the snapshot, the archive, the release notes
 * and the export, have crawled two different releases, have printed the URLs serve gives, and leave nothing
 * listening. It runs the built command line, so `npm run build` first (npm test does).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** How long the tour may take here before it is stopped: it takes well under two minutes on an idle machine. */
const STOP_AFTER_MS = 280_000;

/** The tour's heading, and the `sh` block that must follow it with nothing but blank lines between. */
function tourBlock(readme: string): { heading: string; script: string } {
  const lines = readme.split('\n');
  const at = lines.findIndex((line) => /^## A tour\b/.test(line));
  expect(at, 'README.md has no "## A tour…" heading').toBeGreaterThanOrEqual(0);
  let open = at + 1;
  while (lines[open]?.trim() === '') open += 1;
  expect(lines[open], 'the line after the tour heading').toBe('```sh');
  const close = lines.findIndex((line, i) => i > open && line === '```');
  return { heading: lines[at]!, script: `${lines.slice(open + 1, close).join('\n')}\n` };
}

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Whether something accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Runs `bash -e script` in `cwd`; stops its process group if it outlives STOP_AFTER_MS. */
function runBash(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const stop = setTimeout(() => process.kill(-child.pid!, 'SIGTERM'), STOP_AFTER_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(stop);
      resolve({ code, stdout, stderr });
    });
  });
}

let work: string | undefined;
afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe("README's tour", () => {
  it('runs as pasted with bash -e, leaves what it says, and nothing running', async () => {
    const { heading, script } = tourBlock(await readFile(path.join(REPO, 'README.md'), 'utf8'));
    expect(heading).toMatch(/tour/i);
    work = await mkdtemp(path.join(REPO, '.readme-tour-'));
    const file = path.join(work, 'tour.sh');
    await writeFile(file, script);
    const [port, servePort] = [await freePort(), await freePort()];
    const env = { ...process.env, PORT: String(port), SERVE_PORT: String(servePort) };
    const run = await runBash(file, work, env);
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);

    // The snapshot (of the second crawl), the archive of the first, the release notes between them, the export.
    expect(existsSync(path.join(work, 'cv-mirror', '_cv-snapshot', 'manifest.json'))).toBe(true);
    expect(existsSync(path.join(work, 'cv-2025-03.tar.gz'))).toBe(true);
    const notes = await readFile(path.join(work, 'release-notes.md'), 'utf8');
    expect(notes).toMatch(/^# Vocabulary changes\n/);
    expect(notes).not.toContain('No differences');
    expect(notes).toMatch(/^\d+ added, \d+ removed, \d+ changed/m);
    expect(await readFile(path.join(work, 'cv-mirror.ttl'), 'utf8')).toContain('skos:ConceptScheme');

    // Two releases: the second crawl said what changed; serve printed its API root and the catalogue's URL.
    expect(run.stdout).toMatch(/^Changes since the previous snapshot \(.*\): \d+ records? added/m);
    const origin = `http://127.0.0.1:${servePort}`;
    expect(await readFile(path.join(work, 'serve.txt'), 'utf8')).toBe(
      `${origin}/sms/cv/api/v1/\nOpen the catalogue in a browser: ${origin}/\n`,
    );
    // What the one query answered: the JSON document, as curl printed its start.
    expect(run.stdout).toMatch(/^\{"(links|data|meta|jsonapi)":/m);

    // Nothing left listening on either port.
    expect(await listening(port)).toBe(false);
    expect(await listening(servePort)).toBe(false);
  }, 300_000);
});
