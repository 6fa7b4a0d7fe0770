/** The project's own off-topic question set and its insurance context questions (builder/eval/sets/). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface Entry {
  id: string;
  lang: 'he' | 'en';
  category?: string;
  domain?: string;
  question: string;
}
const read = (name: string): Entry[] => JSON.parse(readFileSync(new URL(`../../../builder/eval/sets/${name}`, import.meta.url), 'utf8'));

const CATEGORIES = [
  'chit-chat',
  'weather',
  'sport',
  'recipes',
  'programming',
  'general-knowledge',
  'translation',
  'time-date',
  'travel-tips',
  'tech-support',
  'health-fitness',
  'personal-finance',
  'entertainment',
  'shopping',
  'math-homework',
];
const SCRIPT = { he: /[\u05D0-\u05EA]/, en: /^[^\u05D0-\u05EA]*$/ };

describe('builder/eval/sets', () => {
  it('off-topic.json: at least 120 distinct questions, half Hebrew and half English, over every category in both', () => {
    const set = read('off-topic.json');
    expect(set.length).toBeGreaterThanOrEqual(120);
    expect(set.filter((q) => q.lang === 'he').length).toBe(set.length / 2);
    expect(new Set(set.map((q) => q.id)).size).toBe(set.length);
    expect(new Set(set.map((q) => q.question.toLowerCase())).size).toBe(set.length);
    for (const q of set) {
      expect(q.id, q.question).toMatch(new RegExp(`^ot-${q.lang}-\\d{3}$`));
      expect(CATEGORIES, q.id).toContain(q.category);
      expect(q.question, q.id).toMatch(SCRIPT[q.lang]);
    }
    for (const lang of ['he', 'en']) {
      expect(new Set(set.filter((q) => q.lang === lang).map((q) => q.category))).toEqual(new Set(CATEGORIES));
    }
  });

  it('insurance-context.json: 12 insurance questions, 6 per language', () => {
    const set = read('insurance-context.json');
    expect(set).toHaveLength(12);
    expect(set.filter((q) => q.lang === 'he')).toHaveLength(6);
    for (const q of set) expect(q.question, q.id).toMatch(SCRIPT[q.lang]);
  });
});
