/**
 * widget/core/device/parse-device-document.ts in Node (issue 36): a customer's PDF parsed and
 * chunked by the builder's own rules, bad input refused with its DOCUMENT_* code, and the device's
 * chunks equal to the builder's for the same file.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadPdfJs, PDF_ASSETS, parsePdf } from '../../../builder/parse/pdf.ts';
import { chunkDocument } from '../../../widget/core/chunk/index.ts';
import { DEVICE_DOCUMENT_LIMITS } from '../../../widget/core/device/device-document.ts';
import { hasPdfHeader, parseDeviceDocument } from '../../../widget/core/device/parse-device-document.ts';
import { type ErrorCode, isHarelError } from '../../../widget/core/errors.ts';
import type { Progress } from '../../../widget/core/schema.ts';
import { demoPdfBytes, encryptedPdf, notAPdf, oversizePdf, simplePdf } from '../../fixtures/device-pdfs/device-pdfs.ts';

const FEB_RAW = fileURLToPath(new URL('../../../../shared/data/harel-feb-raw/', import.meta.url));

async function refusal(promise: Promise<unknown>): Promise<{ code: ErrorCode | null; message: string }> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (error === null) throw new Error('expected a refusal, got a document');
  return isHarelError(error) ? { code: error.code, message: error.message } : { code: null, message: String(error) };
}

/** A Harel policy PDF from the shared data: the first one, in sorted order, with at least `minPages` pages. */
function harelPolicies(): string[] {
  if (!existsSync(FEB_RAW)) return [];
  return readdirSync(FEB_RAW)
    .sort()
    .flatMap((domain) => {
      const files = join(FEB_RAW, domain, 'files');
      return existsSync(files)
        ? readdirSync(files)
            .filter((name) => name.endsWith('.pdf'))
            .sort()
            .map((name) => join(files, name))
        : [];
    });
}

describe('parseDeviceDocument', () => {
  it('parses and chunks the demo policy: pages, page texts, chunks, id, language and progress per page', async () => {
    const bytes = demoPdfBytes();
    const progress: Progress[] = [];
    const doc = await parseDeviceDocument(await loadPdfJs(), bytes, 'my-policy.pdf', { assets: PDF_ASSETS, onProgress: (p) => progress.push(p) });
    expect(doc.id).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(doc.name).toBe('my-policy.pdf');
    expect(doc.lang).toBe('en');
    expect(doc.pageCount).toBe(3);
    expect(doc.pageTexts).toHaveLength(3);
    expect(doc.pageTexts[0]).toContain('Demo Home Insurance Policy');
    expect(doc.pageTexts.join('\n')).toContain('The excess for each water damage claim is 500 ILS.');
    expect(doc.chunks.length).toBeGreaterThan(3);
    expect(new Set(doc.chunks.map((c) => c.page))).toEqual(new Set([1, 2, 3]));
    expect(doc.chunks.every((c) => c.doc === 0)).toBe(true);
    expect(doc.chunks.some((c) => c.clause === '2' && c.sectionPath.includes('Cover') && c.text.includes('2.1 Water damage'))).toBe(true);
    expect(progress.map((p) => [p.step, p.done, p.total])).toEqual([
      ['parse', 1, 3],
      ['parse', 2, 3],
      ['parse', 3, 3],
    ]);
  });

  it('gives the chunks the builder gives for the same PDF (parse, then chunk)', async () => {
    const bytes = demoPdfBytes();
    const device = await parseDeviceDocument(await loadPdfJs(), bytes, 'policy.pdf', { assets: PDF_ASSETS });
    const pages = await parsePdf(bytes, 'policy.pdf');
    const built = chunkDocument({ file: 'policy.pdf', url: null, domain: '', kind: 'pdf', title: 'policy.pdf', lang: device.lang, pages }, 0);
    expect(device.chunks).toEqual(built);
  });

  it('refuses a file that is not a PDF (DOCUMENT_NOT_PDF), before pdf.js sees it', async () => {
    expect(hasPdfHeader(notAPdf())).toBe(false);
    const { code, message } = await refusal(parseDeviceDocument(await loadPdfJs(), notAPdf(), 'notes.txt'));
    expect(code).toBe('DOCUMENT_NOT_PDF');
    expect(message).toContain('notes.txt');
  });

  it('accepts junk before the header within the first 1024 bytes, as readers do', () => {
    const pdf = simplePdf(1);
    const prefixed = new Uint8Array(1000 + pdf.length);
    prefixed.set(pdf, 1000);
    expect(hasPdfHeader(prefixed)).toBe(true);
    const tooLate = new Uint8Array(1100 + pdf.length);
    tooLate.set(pdf, 1100);
    expect(hasPdfHeader(tooLate)).toBe(false);
  });

  it('refuses a password-protected PDF (DOCUMENT_ENCRYPTED)', async () => {
    const { code } = await refusal(parseDeviceDocument(await loadPdfJs(), encryptedPdf(), 'locked.pdf', { assets: PDF_ASSETS }));
    expect(code).toBe('DOCUMENT_ENCRYPTED');
  });

  it('refuses a PDF without a text layer (DOCUMENT_NO_TEXT), saying there is no OCR', async () => {
    const { code, message } = await refusal(parseDeviceDocument(await loadPdfJs(), simplePdf(2, { text: false }), 'scan.pdf', { assets: PDF_ASSETS }));
    expect(code).toBe('DOCUMENT_NO_TEXT');
    expect(message).toMatch(/OCR/);
  });

  it(`refuses more than ${DEVICE_DOCUMENT_LIMITS.maxPages} pages (DOCUMENT_TOO_MANY_PAGES) before reading any page`, async () => {
    const progress: Progress[] = [];
    const { code, message } = await refusal(
      parseDeviceDocument(await loadPdfJs(), simplePdf(DEVICE_DOCUMENT_LIMITS.maxPages + 1), 'long.pdf', { assets: PDF_ASSETS, onProgress: (p) => progress.push(p) }),
    );
    expect(code).toBe('DOCUMENT_TOO_MANY_PAGES');
    expect(message).toContain(`${DEVICE_DOCUMENT_LIMITS.maxPages + 1} pages`);
    expect(message).toContain(`${DEVICE_DOCUMENT_LIMITS.maxPages} pages`);
    expect(progress).toEqual([]);
  });

  it('reads exactly the page limit', async () => {
    const doc = await parseDeviceDocument(await loadPdfJs(), simplePdf(DEVICE_DOCUMENT_LIMITS.maxPages), 'limit.pdf', { assets: PDF_ASSETS });
    expect(doc.pageCount).toBe(DEVICE_DOCUMENT_LIMITS.maxPages);
    expect(doc.pageTexts[DEVICE_DOCUMENT_LIMITS.maxPages - 1]).toBe(`Page ${DEVICE_DOCUMENT_LIMITS.maxPages} of the policy.`);
  });

  it('refuses a file over the size limit (DOCUMENT_TOO_LARGE), naming both sizes', async () => {
    const { code, message } = await refusal(parseDeviceDocument(await loadPdfJs(), oversizePdf(DEVICE_DOCUMENT_LIMITS.maxBytes + 1), 'huge.pdf'));
    expect(code).toBe('DOCUMENT_TOO_LARGE');
    expect(message).toContain('20 MB');
  });

  it('refuses a damaged PDF (DOCUMENT_UNREADABLE)', async () => {
    const pdf = simplePdf(1);
    const { code } = await refusal(parseDeviceDocument(await loadPdfJs(), pdf.subarray(0, 40), 'cut.pdf', { assets: PDF_ASSETS }));
    expect(code).toBe('DOCUMENT_UNREADABLE');
  });

  it('stops with ABORTED when the signal fires', async () => {
    const controller = new AbortController();
    const parsing = parseDeviceDocument(await loadPdfJs(), simplePdf(50), 'long.pdf', {
      assets: PDF_ASSETS,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.done === 2) controller.abort();
      },
    });
    expect((await refusal(parsing)).code).toBe('ABORTED');
  });
});

const policies = harelPolicies();

describe.skipIf(policies.length === 0)('parseDeviceDocument on a real Harel policy (../shared/data/harel-feb-raw; skipped when absent)', () => {
  it('reads its pages and chunks with the Hebrew in logical order, as the builder does', { timeout: 120_000 }, async () => {
    const pdfjs = await loadPdfJs();
    // The first policy of some length: enough pages to have sections, clauses and page breaks.
    let chosen: { path: string; pageCount: number } | null = null;
    for (const path of policies) {
      const doc = await parseDeviceDocument(pdfjs, new Uint8Array(readFileSync(path)), 'policy.pdf', { assets: PDF_ASSETS }).catch(() => null);
      if (doc && doc.pageCount >= 8 && doc.lang === 'he') {
        chosen = { path, pageCount: doc.pageCount };
        break;
      }
    }
    expect(chosen, 'a Hebrew policy of 8 pages or more in harel-feb-raw').not.toBeNull();
    const bytes = new Uint8Array(readFileSync(chosen!.path));
    const device = await parseDeviceDocument(pdfjs, bytes, 'policy.pdf', { assets: PDF_ASSETS });
    expect(device.pageTexts).toHaveLength(device.pageCount);
    expect(device.chunks.length).toBeGreaterThan(device.pageCount / 2);
    expect(Math.max(...device.chunks.map((c) => c.page))).toBeLessThanOrEqual(device.pageCount);
    const text = device.pageTexts.join('\n');
    // Logical order: common words read forwards, never reversed as a visual-order text layer gives them.
    expect(text).toMatch(/ביטוח|פוליסה|המבוטח/);
    expect(text).not.toMatch(/חוטיב|הסילופ|חטובמה/);
    const pages = await parsePdf(bytes, 'policy.pdf');
    const built = chunkDocument({ file: 'policy.pdf', url: null, domain: '', kind: 'pdf', title: 'policy.pdf', lang: device.lang, pages }, 0);
    expect(device.chunks).toEqual(built);
  });
});
