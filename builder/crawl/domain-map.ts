/**
 * `--domain-map`: which product domain a crawled URL belongs to, by URL rules such as
 * `/insurance/car/=car`. The builder routes questions by these domains, so the rules are what
 * turns a site's folder structure into the assistant's topics.
 */
import { createError } from '../errors.ts';
import { displayUrl } from './normalize-url.ts';

export interface DomainRule {
  /** A decoded path prefix (`/ביטוח/רכב/`) or a full URL prefix (`https://site/insurance/`). */
  prefix: string;
  domain: string;
}

export const DEFAULT_DOMAIN = 'general';

/** Parses one `--domain-map` value: `<prefix>=<domain>`, or several separated by commas. */
export function parseDomainRules(values: readonly string[]): DomainRule[] {
  const rules: DomainRule[] = [];
  for (const value of values) {
    for (const part of value.split(',')) {
      const at = part.lastIndexOf('=');
      const prefix = part.slice(0, at).trim();
      const domain = part.slice(at + 1).trim();
      if (at <= 0 || !domain || !(prefix.startsWith('/') || /^https?:\/\//i.test(prefix))) {
        throw createError('BAD_ARGUMENT', `--domain-map takes <path-prefix>=<domain> such as /insurance/car/=car, not "${part}".`);
      }
      if (!/^[\p{L}\p{N}_-]+$/u.test(domain)) {
        throw createError('BAD_ARGUMENT', `--domain-map: the domain "${domain}" must be one word (letters, digits, - or _).`);
      }
      rules.push({ prefix: displayUrl(prefix), domain });
    }
  }
  // Longest prefix first, so /insurance/car/ wins over /insurance/.
  return rules.sort((a, b) => b.prefix.length - a.prefix.length);
}

/** The domain of the first (longest) rule matching `url`, or undefined when none does. */
export function domainFor(url: string, rules: readonly DomainRule[]): string | undefined {
  const readable = displayUrl(url);
  // A query does not move a page out of its folder: `/insurance/car?page=2` is still in `/insurance/car/`.
  const subjects = [readable, readable.replace(/\?.*$/s, '')];
  for (const rule of rules) {
    for (const subject of subjects) {
      const path = subject.replace(/^https?:\/\/[^/]+/i, '') || '/';
      // Crawled URLs lose their trailing slash (normalize-url), so `/insurance/car` must still meet
      // the rule `/insurance/car/`.
      if (`${rule.prefix.startsWith('/') ? path : subject}/`.startsWith(rule.prefix)) return rule.domain;
    }
  }
  return undefined;
}
