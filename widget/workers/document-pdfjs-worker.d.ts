/** pdf.js's worker module ships without types; the document worker only hands it to pdf.js (globalThis.pdfjsWorker). */
declare module 'pdfjs-dist/build/pdf.worker.mjs' {
  export const WorkerMessageHandler: unknown;
}
