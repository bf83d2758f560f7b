/**
 * Every URL of the sample API that answers a 200 JSON:API document, spelled as the API's own links spell them
 * (collection, page and relationship links carry `format=api`; drop it before fetching, as a crawler's canonical
 * URL does, or the real service's HTML page / 406 rules apply). One URL per document: page 1 of a collection is
 * the collection URL as the root index gives it.
 */
import { ApiLinks } from './documents.js';
import type { SampleData } from './sample-data.js';

export function listDocumentUrls(data: SampleData, rootUrl: string, pageSize: number, relatedPageSize = 0): string[] {
  const links = new ApiLinks(rootUrl);
  const urls: string[] = [rootUrl];
  for (const collection of data.collections) {
    urls.push(links.collection(collection.name));
    const pages = Math.max(1, Math.ceil(collection.records.length / pageSize));
    for (let page = 2; page <= pages; page += 1) urls.push(links.page(collection.name, page));
  }
  for (const collection of data.collections) {
    for (const record of collection.records) {
      urls.push(links.record(collection.name, record.id));
      for (const definition of collection.relationships) {
        urls.push(links.relationship(collection.name, record.id, definition.name));
        urls.push(links.related(collection.name, record.id, definition.name));
        const targets = record.relationships[definition.name];
        if (definition.kind !== 'to-many' || relatedPageSize === 0 || !Array.isArray(targets)) continue;
        // A paginated related list (variants.ts): its further pages, as its `next` links give them.
        const pages = Math.ceil(targets.length / relatedPageSize);
        for (let page = 2; page <= pages; page += 1) {
          urls.push(links.relatedPage(collection.name, record.id, definition.name, page));
        }
      }
    }
  }
  return urls;
}
