/**
 * The document reader, imported when a customer first adds a document: a page where nobody does
 * never loads the PDF reader's code.
 */
import type { DocumentReader } from './device-documents.ts';

export const readDeviceDocumentLazily: DocumentReader = async (file, name, options) => {
  const { readDeviceDocument } = await import('../search/document-reader.ts');
  return readDeviceDocument(file, name, options);
};
