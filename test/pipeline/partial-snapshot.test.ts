/**
 * A partial snapshot (--allow-partial) tells whoever uses it what it lacks: `serve` serves it as it is, 404 for the
 * documents it lacks, and says why it is partial as it starts, so that whoever hosts it knows before a client finds
 * out; `pack` packs it as it is and says so; the catalogue's front page says it first, in a real headless Chromium,
 * opened from the disk.
 */
import { once } from 'node:events';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { releaseBrowser, testBrowser } from '../helpers/browser.js';
import { seriousViolations } from '../helpers/axe.js';
import { startServe } from '../../src/serve/server.js';
import { runMain, startCli } from '../helpers/cli.js';
import { closedAfterEach } from '../helpers/http-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';
import { records, startTinySource } from '../helpers/tiny-source.js';

const tinySource = closedAfterEach(startTinySource);

/** A snapshot of a source of two units, whose second record fails every time it is asked for when `failing`. */
async function snapshotOf(failing: boolean): Promise<{ out: string; root: string }> {
  const source = await tinySource({ collections: { units: records(2) }, failing: failing ? ['units/2/'] : [] });
  const out = path.join(await tempDir(), 'out');
  await crawlForTest(source.root, out, { allowPartial: true });
  return { out, root: source.root };
}

describe('serving a partial snapshot', () => {
  it('answers 404 for what it lacks and tells why it is partial; a complete one says nothing of it', async () => {
    const { out, root } = await snapshotOf(true);
    const server = await startServe({ dir: out, port: 0 });
    try {
      expect(server.partial).toBe(
        `${out} is a partial snapshot: 1 document could not be fetched when it was made (listed under "missing" in ` +
          `its manifest, for example ${root}units/2/). Crawl again to complete it.`,
      );
      expect((await fetch(`${server.url}units/2/`)).status).toBe(404);
      expect((await fetch(`${server.url}units/1/`)).status).toBe(200);
    } finally {
      await server.close();
    }
    const complete = await startServe({ dir: (await snapshotOf(false)).out, port: 0 });
    expect(complete.partial).toBeNull();
    await complete.close();
  });

  it('serve prints it on stderr as it starts, with --quiet too', async () => {
    const { out } = await snapshotOf(true);
    const { child, firstLine } = await startCli(['serve', out, '--port', '0', '--quiet']);
    try {
      expect(firstLine).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/$/);
      let stderr = '';
      while (!stderr.includes('Crawl again')) {
        const [chunk] = (await once(child.stderr!, 'data')) as [Buffer];
        stderr += chunk.toString();
      }
      expect(stderr).toContain(`${out} is a partial snapshot: 1 document could not be fetched`);
    } finally {
      child.kill('SIGINT');
      await once(child, 'exit');
    }
  });
});

describe('packing a partial snapshot', () => {
  it('packs it as it is and says why it is partial; a complete one says nothing of it', async () => {
    const { out, root } = await snapshotOf(true);
    const packed = await runMain(['pack', out, '--output', path.join(path.dirname(out), 'partial.tar.gz')]);
    expect(packed.code).toBe(0);
    expect(packed.stderr).toBe(
      `${out} is a partial snapshot: 1 document could not be fetched when it was made (listed under "missing" in ` +
        `its manifest, for example ${root}units/2/). Crawl again to complete it. The archive holds it as it is.\n`,
    );
    const json = await runMain(['pack', out, '--output', path.join(path.dirname(out), 'again.tar.gz'), '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ partial: true });

    const complete = (await snapshotOf(false)).out;
    const whole = await runMain([
      'pack',
      complete,
      '--output',
      path.join(path.dirname(complete), 'x.tar.gz'),
      '--json',
    ]);
    expect(whole.stderr).toBe('');
    expect(JSON.parse(whole.stdout)).toMatchObject({ partial: false });
  });
});

describe('the catalogue of a partial snapshot', () => {
  it('says first on its front page what the snapshot lacks, linking to the findings that name it', async () => {
    const { out, root } = await snapshotOf(true);
    const complete = await snapshotOf(false);
    const browser = await testBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      await page.goto(pathToFileURL(path.join(out, 'index.html')).href);
      const note = page.locator('main p.partial');
      expect(await note.isVisible()).toBe(true);
      expect(await note.innerText()).toBe(
        'A partial snapshot: 1 document could not be fetched when it was made and is not in it (the validation ' +
          'findings name it).',
      );
      expect(await seriousViolations(page)).toEqual([]);
      await note.getByRole('link', { name: 'validation findings' }).click();
      expect(await page.locator('main').innerText()).toContain(`${root}units/2/`);

      await page.goto(pathToFileURL(path.join(complete.out, 'index.html')).href);
      expect(await page.locator('main h2:visible').first().innerText()).toBe('Vocabularies');
      expect(await page.locator('p.partial').count()).toBe(0);
    } finally {
      await releaseBrowser(browser);
    }
  }, 60_000);
});
