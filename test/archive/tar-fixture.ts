/** Tar archives written here from the format's definition, independently of src/archive, for hostile cases. */
import { gzipSync } from 'node:zlib';

/** A ustar header. */
export function header(name: string, type: string, size = 0, linkname = ''): Buffer {
  const block = Buffer.alloc(512);
  const octal = (value: number, offset: number, width: number) =>
    block.write(`${value.toString(8).padStart(width - 1, '0')}\0`, offset, width, 'ascii');
  block.write(name, 0, 100, 'utf8');
  octal(type === '5' ? 0o755 : 0o644, 100, 8);
  octal(0, 108, 8);
  octal(0, 116, 8);
  octal(size, 124, 12);
  octal(1_700_000_000, 136, 12);
  block.write(type, 156, 1, 'ascii');
  block.write(linkname, 157, 100, 'utf8');
  block.write('ustar\x0000', 257, 8, 'ascii');
  block.fill(0x20, 148, 156);
  const sum = block.reduce((a, b) => a + b, 0);
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return block;
}

export function fileEntry(name: string, text: string): Buffer[] {
  const data = Buffer.from(text);
  return [header(name, '0', data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512)];
}

export function tarGz(...parts: Buffer[][]): Buffer {
  return gzipSync(Buffer.concat([...parts.flat(), Buffer.alloc(1024)]));
}

/** A pax extended header ('x') holding `records` as written (`"<length> <key>=<value>\n"` each), padded. */
export function paxHeader(records: string): Buffer[] {
  const data = Buffer.from(records);
  return [header('././@PaxHeader', 'x', data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512)];
}

/** A pax record whose length field counts itself, as pax requires. */
export function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const bytes = Buffer.byteLength(body);
  let length = bytes + 1;
  while (String(length).length + bytes !== length) length = String(length).length + bytes;
  return `${length}${body}`;
}
