/**
 * `harel-builder build … --site site.json`: the site's name, contact channels and starter
 * questions, checked strictly here and written into the manifest's optional `site` block (the
 * widget reads it, and the element's attributes and properties win over it field by field).
 *
 * ```json
 * {
 *   "name": { "he": "דמו ביטוח", "en": "Demo Insurance" },
 *   "contacts": { "phone": "*1234", "website": "https://demo-insurance.example", "email": "service@demo-insurance.example",
 *                 "hours": { "he": "א׳–ה׳ 8:00–17:00", "en": "Sun–Thu 8:00–17:00" } },
 *   "starters": { "he": ["מה ההשתתפות העצמית בביטוח הרכב?"], "en": ["How do I make a claim?"] }
 * }
 * ```
 */
import { readFile } from 'node:fs/promises';
import { createError } from '../errors.ts';
import type { LocalizedText, SiteContacts, SiteInfo } from '../../widget/core/format/manifest.ts';

const MAX_TEXT = 200;
const MAX_STARTERS = 8;
const LANGS = ['he', 'en'] as const;

const bad = (file: string, reason: string) => createError('BAD_ARGUMENT', `--site ${file}: ${reason}`);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function onlyKeys(value: Record<string, unknown>, allowed: readonly string[], where: string, file: string): void {
  const unknown = Object.keys(value).filter((k) => !allowed.includes(k));
  if (unknown.length) throw bad(file, `${where} has unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')} (allowed: ${allowed.join(', ')}).`);
}

function text(value: unknown, where: string, file: string): string {
  if (typeof value !== 'string' || !value.trim()) throw bad(file, `${where} must be a non-empty string.`);
  if (value.length > MAX_TEXT) throw bad(file, `${where} is longer than ${MAX_TEXT} characters.`);
  return value.trim();
}

function localized(value: unknown, where: string, file: string): LocalizedText {
  if (typeof value === 'string') return text(value, where, file);
  if (!isObject(value)) throw bad(file, `${where} must be a string or {"he": "…", "en": "…"}.`);
  onlyKeys(value, LANGS, where, file);
  const out: Partial<Record<'he' | 'en', string>> = {};
  for (const lang of LANGS) if (value[lang] !== undefined) out[lang] = text(value[lang], `${where}.${lang}`, file);
  if (!Object.keys(out).length) throw bad(file, `${where} names no language (he, en).`);
  return out;
}

/** Checks a parsed site config; throws BAD_ARGUMENT naming the field and what is expected. */
export function validateSiteConfig(json: unknown, file = 'site.json'): SiteInfo {
  if (!isObject(json)) throw bad(file, 'must be a JSON object with name, contacts and/or starters.');
  onlyKeys(json, ['name', 'contacts', 'starters'], 'the file', file);
  const site: SiteInfo = {};
  if (json.name !== undefined) site.name = localized(json.name, 'name', file);
  if (json.contacts !== undefined) {
    const c = json.contacts;
    if (!isObject(c)) throw bad(file, 'contacts must be an object: {phone, website, email, hours}.');
    onlyKeys(c, ['phone', 'website', 'email', 'hours'], 'contacts', file);
    const contacts: SiteContacts = {};
    if (c.phone !== undefined) contacts.phone = text(c.phone, 'contacts.phone', file);
    if (c.website !== undefined) {
      const website = text(c.website, 'contacts.website', file);
      let url: URL | null = null;
      try {
        url = new URL(website);
      } catch {
        // reported below
      }
      if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw bad(file, `contacts.website must be an absolute http(s) URL, not "${website}".`);
      contacts.website = website;
    }
    if (c.email !== undefined) {
      const email = text(c.email, 'contacts.email', file);
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw bad(file, `contacts.email is not an email address: "${email}".`);
      contacts.email = email;
    }
    if (c.hours !== undefined) contacts.hours = localized(c.hours, 'contacts.hours', file);
    site.contacts = contacts;
  }
  if (json.starters !== undefined) {
    const s = json.starters;
    if (!isObject(s)) throw bad(file, 'starters must be an object: {"he": ["…"], "en": ["…"]}.');
    onlyKeys(s, LANGS, 'starters', file);
    const starters: Partial<Record<'he' | 'en', string[]>> = {};
    for (const lang of LANGS) {
      const list = s[lang];
      if (list === undefined) continue;
      if (!Array.isArray(list)) throw bad(file, `starters.${lang} must be a list of questions.`);
      if (list.length > MAX_STARTERS) throw bad(file, `starters.${lang} has ${list.length} questions; at most ${MAX_STARTERS} are shown.`);
      starters[lang] = list.map((q, i) => text(q, `starters.${lang}[${i}]`, file));
    }
    site.starters = starters;
  }
  return site;
}

/** Reads and checks `--site <file>`. */
export async function readSiteConfig(file: string): Promise<SiteInfo> {
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch (error) {
    throw bad(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw bad(file, `is not valid JSON (${(error as Error).message}).`);
  }
  return validateSiteConfig(json, file);
}
