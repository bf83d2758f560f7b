/**
 * The index of a capture (docs/capture.md#wacz): one CDXJ line per response record, `<SURT> <timestamp> {json}`,
 * sorted, with the record's offset and length in its file, as pywb and ReplayWeb.page read it; and the pages a
 * replay lists.
 */
import type { WarcEntry } from './warc-reader.js';

/**
 * The SURT key of a URL as warcio.js and ReplayWeb.page make it: lower case, a leading `www` dropped, the host's
 * labels reversed and joined by commas, the port, `)`, the path, and the query's parameters sorted.
 */
export function surt(url: string): string {
  if (!/^https?:/i.test(url)) return url;
  let parsed: URL;
  try {
    parsed = new URL(url.replace(/^(https?:\/\/)www\d*\./i, '$1').toLowerCase());
  } catch {
    return url;
  }
  let key = parsed.hostname.split('.').reverse().join(',');
  if (parsed.port !== '') key += `:${parsed.port}`;
  key += `)${parsed.pathname}`;
  if (parsed.search !== '') key += `?${parsed.search.slice(1).split('&').sort().join('&')}`;
  return key;
}

/** `2026-11-28T05:50:00.123Z` as the 14 digits of a CDX timestamp. */
function cdxTimestamp(warcDate: string): string {
  return warcDate
    .replace(/[^0-9]/g, '')
    .slice(0, 14)
    .padEnd(14, '0');
}

/** The status code and the media type (without parameters) of a response record's HTTP head. */
function responseHead(block: Buffer): { status: string; mime: string } {
  const end = block.indexOf('\r\n\r\n');
  const lines = block.toString('latin1', 0, end < 0 ? Math.min(block.length, 8192) : end).split('\r\n');
  const status = /^HTTP\/\S+ (\d{3})/.exec(lines[0] ?? '')?.[1] ?? '-';
  const type = lines.find((line) => /^content-type\s*:/i.test(line));
  const mime =
    type === undefined
      ? '-'
      : type
          .slice(type.indexOf(':') + 1)
          .split(';')[0]!
          .trim()
          .toLowerCase();
  return { status, mime: mime === '' ? '-' : mime };
}

export interface IndexedRecord {
  url: string;
  /** WARC-Date as written. */
  date: string;
  status: string;
  /** The CDXJ line, without its line break. */
  line: string;
}

/** The index line of a response record of `filename`; null for any other record. */
export function indexRecord(entry: WarcEntry, filename: string): IndexedRecord | null {
  const url = entry.fields.get('warc-target-uri');
  const date = entry.fields.get('warc-date');
  if (entry.fields.get('warc-type') !== 'response' || url === undefined || date === undefined) return null;
  const { status, mime } = responseHead(entry.block);
  const fields = {
    url,
    mime,
    status,
    digest: entry.fields.get('warc-payload-digest') ?? '-',
    length: String(entry.length),
    offset: String(entry.offset),
    filename,
  };
  return { url, date, status, line: `${surt(url)} ${cdxTimestamp(date)} ${JSON.stringify(fields)}` };
}
