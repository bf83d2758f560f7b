import { describe, expect, it } from 'vitest';
import { startSampleApi } from '../../src/sample-api/index.js';
import { get, getJson, withoutFormat } from './http.js';
import { ALL_COLLECTIONS, JSON_API } from './spec-expectations.js';

describe('rootPath', () => {
  it('serves the whole API under /cv/api/v1/ as older deployments do', async () => {
    const api = await startSampleApi({ rootPath: '/cv/api/v1/', records: 2 });
    try {
      expect(new URL(api.rootUrl).pathname).toBe('/cv/api/v1/');
      const { answer, document } = await getJson(api.rootUrl);
      expect(answer.status).toBe(200);
      expect(Object.keys(document.data).sort()).toEqual([...ALL_COLLECTIONS].sort());
      for (const url of Object.values(document.data as Record<string, string>))
        expect(url.startsWith(api.rootUrl)).toBe(true);
      for (const url of api.documentUrls()) {
        expect(url.startsWith(api.rootUrl)).toBe(true);
        const documentAnswer = await get(withoutFormat(url));
        expect(documentAnswer.status, url).toBe(200);
        expect(documentAnswer.headers['content-type']).toBe(JSON_API);
        expect(documentAnswer.text).not.toContain('/sms/');
      }
      expect((await get(`${new URL(api.rootUrl).origin}/sms/cv/api/v1/`)).status).toBe(404);
    } finally {
      await api.close();
    }
  });

  it('accepts a root path without its slashes', async () => {
    const api = await startSampleApi({ rootPath: 'cv/api/v1', records: 0 });
    try {
      expect(new URL(api.rootUrl).pathname).toBe('/cv/api/v1/');
      expect((await get(api.rootUrl)).status).toBe(200);
    } finally {
      await api.close();
    }
  });
});
