/**
 * A WARC record as one gzip member (docs/capture.md#the-file), compressed or stored: `gunzip` gives back the record,
 * warcio.js reads it, and a stored member longer than a deflate block (64 KiB) spans several blocks.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { WARCParser } from 'warcio';
import { describe, expect, it } from 'vitest';
import { recordId, sha256Digest, warcMember } from '../../src/capture/warc-record.js';

/** A block in parts of uneven sizes, an empty one among them: 150,001 bytes in all. */
function block(): Buffer[] {
  const bytes = (length: number, seed: number) => Buffer.from(Array.from({ length }, (_, i) => (i * seed) % 251));
  return [bytes(70_000, 7), Buffer.alloc(0), bytes(1, 3), bytes(80_000, 13)];
}

async function readBack(
  member: Buffer,
): Promise<{ type: string | undefined; uri: string | null | undefined; block: Buffer }> {
  const records = [];
  for await (const record of WARCParser.iterRecords(Readable.from([member]), { parseHttp: false })) {
    records.push({
      type: record.warcType,
      uri: record.warcTargetURI,
      block: Buffer.from(await record.readFully(false)),
    });
  }
  expect(records).toHaveLength(1);
  return records[0]!;
}

describe('warcMember', () => {
  it.each([
    ['compressed', true],
    ['stored', false],
  ])('writes a record as one %s gzip member that warcio reads', async (_how, compress) => {
    const parts = block();
    const whole = Buffer.concat(parts);
    const digest = sha256Digest(parts);
    expect(digest).toBe(`sha256:${createHash('sha256').update(whole).digest('hex')}`);
    const member = warcMember(
      recordId(),
      'metadata',
      new Date('2025-03-01T12:00:00.250Z'),
      [
        ['WARC-Target-URI', 'https://example.org/api/units/'],
        ['WARC-Block-Digest', digest],
      ],
      'application/octet-stream',
      parts,
      compress,
    );
    // A stored member holds the record as it is, in three deflate blocks of at most 65,535 bytes, and their headers.
    if (!compress) expect(member.length).toBeGreaterThan(whole.length);
    const record = gunzipSync(member);
    expect(record.subarray(0, 9).toString()).toBe('WARC/1.1\r');
    expect(record.subarray(-4).toString()).toBe('\r\n\r\n');
    expect(record.toString('latin1')).toContain('\r\nContent-Length: 150001\r\n');
    const read = await readBack(member);
    expect([read.type, read.uri]).toEqual(['metadata', 'https://example.org/api/units/']);
    expect(read.block.equals(whole)).toBe(true);
  });

  it('stores an empty block as one final deflate block', async () => {
    const member = warcMember(recordId(), 'metadata', new Date(0), [], 'application/warc-fields', [], false);
    expect(gunzipSync(member).toString()).toMatch(/Content-Length: 0\r\n\r\n\r\n\r\n$/);
    expect((await readBack(member)).block.length).toBe(0);
  });
});
