import { describe, expect, it } from 'vitest';
import { ATTRIBUTE_DEFAULTS, type ChatAttributes, DEFAULT_MODEL, mergeContacts, needsRestart, parseConfig, RESTART_FIELDS, startersAttribute } from '../../../widget/ui/config.ts';

const BASE = 'https://site.example/help/page.html';
const parse = (over: Partial<ChatAttributes> = {}) => parseConfig({ ...ATTRIBUTE_DEFAULTS, ...over }, BASE);

describe('parseConfig', () => {
  it('applies the defaults: no index, auto language and mode, the default model, no reader', () => {
    const config = parse();
    expect(config.manifestUrl).toBeNull();
    expect(config).toMatchObject({ lang: 'auto', mode: 'auto', model: DEFAULT_MODEL, llmEngine: 'webllm', ggufAnswers: 'measured', reader: null, domain: null, modelBase: null });
    expect(config.ggufUrl).toBe('https://site.example/help/models/gguf/gemma-3-270m-q4_k_m.gguf');
  });

  it('resolves URLs against the page and reads the reader settings', () => {
    const config = parse({ index: 'index/manifest.json', modelBase: '/m', readerModel: 'gguf/reader.gguf', readerCalls: '3', readerRefuses: true });
    expect(config.manifestUrl).toBe('https://site.example/help/index/manifest.json');
    expect(config.modelBase).toBe('https://site.example/m');
    expect(config.reader).toEqual({ url: 'https://site.example/m/gguf/reader.gguf', maxCalls: 3, refuses: true });
  });

  it('takes unknown or empty values as unset', () => {
    const config = parse({ lang: 'fr', mode: 'turbo', llmEngine: 'x', ggufAnswers: 'some', model: '', readerModel: 'r.gguf', readerCalls: '-1' });
    expect(config).toMatchObject({ lang: 'auto', mode: 'auto', llmEngine: 'webllm', ggufAnswers: 'measured', model: DEFAULT_MODEL });
    expect(config.reader?.maxCalls).toBe(2);
  });
});

describe('needsRestart', () => {
  it('restarts for what a session is built from, and only that', () => {
    const running = parse({ index: 'a/manifest.json' });
    expect(needsRestart(running, parse({ index: 'a/manifest.json', lang: 'en', domain: 'car', siteName: 'X', debug: true, starters: ['q?'] }))).toBe(false);
    expect(needsRestart(running, parse({ index: 'b/manifest.json' }))).toBe(true);
    expect(needsRestart(running, parse({ index: 'a/manifest.json', mode: 'extractive' }))).toBe(true);
    expect(needsRestart(running, parse({ index: 'a/manifest.json', readerModel: 'r.gguf' }))).toBe(true);
    expect(needsRestart(running, parse({ index: 'a/manifest.json', queryModel: 'q' }))).toBe(true);
    expect(RESTART_FIELDS).toContain('ggufUrl');
  });
});

describe('contacts and starters', () => {
  it('merges the site block, the contacts property and the attributes field by field', () => {
    const config = parse({ contacts: { phone: '*1', email: 'a@b.example' }, siteName: 'Tag', contactPhone: '*2' });
    expect(mergeContacts({ name: 'Site', website: 'https://s.example' }, config.contactLayers)).toEqual({ name: 'Tag', website: 'https://s.example', phone: '*2', email: 'a@b.example' });
    expect(mergeContacts(undefined, parse().contactLayers)).toBeUndefined();
  });

  it('reads the starters attribute as JSON, per language or one list', () => {
    expect(startersAttribute.fromAttribute('["a?", " ", 3]')).toEqual(['a?']);
    expect(startersAttribute.fromAttribute('{"he": ["ש?"]}')).toEqual({ he: ['ש?'], en: [] });
    expect(startersAttribute.fromAttribute('not json')).toBeUndefined();
  });
});
