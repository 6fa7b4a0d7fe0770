/**
 * A file over the size limit is refused by the session before a byte of it is read (the worker
 * would refuse it too, but only after the whole file had been copied into memory).
 */
import { describe, expect, it } from 'vitest';
import { DEVICE_DOCUMENT_LIMITS } from '../../../widget/core/device/device-document.ts';
import type { SearchService } from '../../../widget/search/search-service.ts';
import { DeviceDocuments } from '../../../widget/session/device-documents.ts';

describe('DeviceDocuments.add and the size limit', () => {
  it('refuses a file over the limit with DOCUMENT_TOO_LARGE, never calling the reader', async () => {
    const read: string[] = [];
    const search = { addDocument: async () => ({}) } as unknown as SearchService;
    const documents = new DeviceDocuments(
      search,
      async (_file, name) => {
        read.push(name);
        throw new Error('not read');
      },
      async () => undefined,
      () => undefined,
    );
    const huge = new Blob([new Uint8Array(DEVICE_DOCUMENT_LIMITS.maxBytes + 1)]);
    await expect(documents.add(huge, 'huge.pdf')).rejects.toMatchObject({ code: 'DOCUMENT_TOO_LARGE', message: expect.stringContaining('up to 20 MB') });
    expect(read).toEqual([]);
    expect(documents.additions).toEqual([]);
  });
});
