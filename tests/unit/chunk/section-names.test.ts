import { describe, expect, it } from 'vitest';
import { namedLevel } from '../../../widget/core/chunk/headings.ts';
import { isSectionName, knownSectionLevel } from '../../../widget/core/chunk/section-names.ts';

describe('section names', () => {
  // The text parser and the chunker's heading detection read one list: a name one knows, the other knows.
  it.each([
    ['שער 3', 1],
    ['פרק ב. כיסויים', 1],
    ['Appendix 2024-A1', 1],
    ['השתתפות עצמית', 2],
    ['Extensions', 2],
    ['הגדרות', 2],
  ])('"%s" is a level-%i name to both readers', (line, level) => {
    expect(knownSectionLevel(line)).toBe(level);
    expect(namedLevel(line)).toBe(level);
  });

  it('a sentence is no section name', () => {
    expect(isSectionName('המבוטח ישלם השתתפות עצמית בכל תביעה.')).toBe(false);
    expect(namedLevel('המבוטח ישלם השתתפות עצמית בכל תביעה.')).toBeNull();
  });
});
