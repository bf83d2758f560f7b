/** A sample API, its snapshot and `cv-snapshot serve` on that snapshot, all on 127.0.0.1, for the serve tests. */
import path from 'node:path';
import net from 'node:net';
import { startSampleApi, type SampleApi, type SampleApiOptions } from '../../src/sample-api/index.js';
import { startServe, type ServeHandle, type ServeOptions } from '../../src/serve/index.js';
import type { SnapshotOptions } from '../../src/pipeline/snapshot-options.js';
import { Layout } from '../../src/format/layout.js';
import { normaliseLinks } from '../helpers/snapshot.js';
import { get, type Answer } from '../sample-api/http.js';
import { suiteDir } from '../helpers/temp-dir.js';
import { crawlForTest } from '../helpers/crawl.js';

export interface Mirror {
  api: SampleApi;
  /** The snapshot directory. */
  dir: string;
  /** The directory the snapshot sits in (test files may be put beside it). */
  base: string;
  layout: Layout;
  serve: ServeHandle;
  /** The same path and query on the mirror. */
  onMirror(url: string): string;
  close(): Promise<void>;
}

export async function startMirror(
  source: SampleApiOptions,
  snapshot: Partial<SnapshotOptions> = {},
  serve: Partial<ServeOptions> = {},
): Promise<Mirror> {
  const api = await startSampleApi(source);
  const { dir: base, remove } = await suiteDir('cv-snapshot-serve-');
  const dir = path.join(base, 'out');
  const result = await crawlForTest(api.rootUrl, dir, snapshot);
  const handle = await startServe({ dir, port: 0, ...serve });
  return {
    api,
    dir,
    base,
    layout: new Layout(result.root),
    serve: handle,
    onMirror: (url) => {
      const parsed = new URL(url);
      return `${handle.origin}${parsed.pathname}${parsed.search}`;
    },
    close: async () => {
      await handle.close();
      await api.close();
      await remove();
    },
  };
}

/** A URL without `format` (the sample API answers HTML or 406 to it, as the real service does). */
export function withoutFormat(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.delete('format');
  return parsed.href.replace(/\?$/, '');
}

export interface Compared {
  source: Answer;
  mirror: Answer;
  /** Both documents with their links as canonical source URLs (or the raw text when not JSON). */
  sourceDocument: unknown;
  mirrorDocument: unknown;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** GETs `sourceUrl` from the sample API and the same path and query from the mirror. */
export async function compare(
  mirror: Mirror,
  sourceUrl: string,
  mirrorUrl = mirror.onMirror(sourceUrl),
): Promise<Compared> {
  const [source, onMirror] = await Promise.all([get(sourceUrl), get(mirrorUrl)]);
  const documentUrl = withoutFormat(sourceUrl);
  return {
    source,
    mirror: onMirror,
    sourceDocument: normaliseLinks(parse(source.text), documentUrl, mirror.layout, false),
    mirrorDocument: normaliseLinks(parse(onMirror.text), documentUrl, mirror.layout, true),
  };
}

/** Sends one request exactly as written (no URL normalisation on the way) and returns status line and body. */
export function rawRequest(origin: string, target: string, method = 'GET'): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(`${method} ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`);
    });
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
      resolve({ status, text: data.slice(data.indexOf('\r\n\r\n') + 4) });
    });
  });
}
