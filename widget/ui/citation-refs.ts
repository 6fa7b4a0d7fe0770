/**
 * How a citation is named and reached outside its card: its one-line label, the URL it opens and
 * its card's id. The element's keyboard path and "copy" read these (citation-cards.ts) as well as
 * the turn templates (message-view.ts), which load only with the conversation's first row
 * (conversation-view.ts): these stay small and apart so that the element can import them at once.
 */
import type { Citation } from '../answer/types.ts';
import { stripBidiControls } from '../core/bidi-controls.ts';
import type { Lang } from '../core/schema.ts';
import { resolveSourceUrl } from '../core/url-policy.ts';
import { deviceCitationLabel } from './device-documents.ts';
import { UI_STRINGS } from './strings.ts';

/** Text from the index, as shown: bidi embeddings, overrides and isolates removed. */
export const shown = (text: string | null | undefined): string => stripBidiControls(String(text ?? ''));

/** Whether a citation is of a document the customer added on this device (no URL: its page opens from local storage). */
export const isDeviceCitation = (citation: Citation): boolean => citation.origin === 'device' && !!citation.deviceDocument;

/** How a citation is named in one line (a marker's label, a copied answer): its title and page, or "Your document — name, page N". */
export function citationLabel(citation: Citation, ui: Lang): string {
  if (isDeviceCitation(citation)) return deviceCitationLabel(citation.file, citation.page, ui);
  return `${shown(citation.title)}, ${UI_STRINGS[ui].page} ${citation.page}`;
}

/** The page's base URL, against which a relative source URL resolves like any link on the page. */
function pageBase(): string | undefined {
  return globalThis.document?.baseURI;
}

/**
 * Where a citation opens: the source URL as the URL policy lets it through (absolute http(s), a
 * relative one resolved against `base`), at the cited page for PDFs; null when there is no URL or
 * the policy drops it (the card then shows its title and page without a link).
 */
export function sourceHref(citation: Pick<Citation, 'url' | 'file' | 'page'>, base: string | undefined = pageBase()): string | null {
  const url = resolveSourceUrl(citation.url, base);
  if (!url) return null;
  const isPdf = /\.pdf(?:$|[?#])/i.test(url) || /\.pdf$/i.test(citation.file);
  if (!isPdf) return url;
  return `${url.replace(/#.*$/, '')}#page=${citation.page}`;
}

export function cardId(turnIndex: number, n: number): string {
  return `cite-${turnIndex}-${n}`;
}
