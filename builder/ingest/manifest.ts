/**
 * The optional `manifest.json` at an input root: where each file came from. Hand-written ones map
 * a path to a URL string or `{url, domain?, title?}`; the crawler writes richer records
 * (`finalUrl`, `contentType`, `sha256`…, see builder/crawl/crawl-manifest.ts) of which only the URL
 * (`finalUrl` first: where the content was served after redirects), domain and title are read.
 */
import { createError, type HarelError } from '../errors.ts';

export const MANIFEST_NAME = 'manifest.json';

export interface ManifestEntry {
  url: string | null;
  domain?: string;
  title?: string;
}

export type Manifest = Map<string, ManifestEntry>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(entry: Record<string, unknown>, key: string, path: string): string | undefined {
  const value = entry[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new Error(`"${path}".${key} must be a string`);
  return value.trim() || undefined;
}

function readEntry(path: string, value: unknown): ManifestEntry {
  if (typeof value === 'string') return { url: value.trim() || null };
  if (!isRecord(value)) throw new Error(`"${path}" must map to a URL or an object`);
  // A crawler that followed redirects knows the final address; the requested one is the fallback.
  const url = optionalString(value, 'finalUrl', path) ?? optionalString(value, 'url', path) ?? null;
  return { url, domain: optionalString(value, 'domain', path), title: optionalString(value, 'title', path) };
}

/** Keys are normalised to '/'-separated paths without a leading './'. */
function normaliseKey(key: string): string {
  return key
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/^\/+/, '');
}

/** Parses manifest text; throws INVALID_MANIFEST (`file` names the manifest in the message). */
export function parseManifest(text: string, file: string): Manifest {
  const invalid = (reason: string): HarelError => createError('INVALID_MANIFEST', file, reason);
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw invalid(`not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (isRecord(json) && isRecord(json.files)) json = json.files;
  if (!isRecord(json)) throw invalid('the top level must be an object');
  const manifest: Manifest = new Map();
  for (const [key, value] of Object.entries(json)) {
    try {
      manifest.set(normaliseKey(key), readEntry(key, value));
    } catch (error) {
      throw invalid(error instanceof Error ? error.message : String(error));
    }
  }
  return manifest;
}
