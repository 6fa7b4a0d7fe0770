import { describe, expect, it } from 'vitest';
import { parseClauseLine, topClause } from '../../../widget/core/chunk/clause.ts';
import { detectHeading } from '../../../widget/core/chunk/headings.ts';

const clauseOf = (line: string): string | null => parseClauseLine(line)?.mark.value ?? null;

describe('parseClauseLine', () => {
  it('reads leading clause numbers in Hebrew and English', () => {
    expect(clauseOf('1. הגדרות הפוליסה')).toBe('1');
    expect(clauseOf('1.1 בן זוג של המבוטח')).toBe('1.1');
    expect(clauseOf('3.2.4 המבטח לא ישלם')).toBe('3.2.4');
    expect(clauseOf('3.2.4. המבטח לא ישלם')).toBe('3.2.4');
    expect(clauseOf('- 10.3 . שנים מתחילת הביטוח')).toBe('10.3');
    expect(clauseOf('סעיף 5 תקופת הביטוח')).toBe('5');
    expect(clauseOf('Section 2.1 The cover')).toBe('2.1');
    expect(clauseOf('(2) The insured must notify')).toBe('2');
    expect(clauseOf('(א) הארכה בהסכמה')).toBe('א');
    expect(clauseOf('ב. סכום הביטוח')).toBe('ב');
    expect(clauseOf('(b) the vehicle')).toBe('b');
  });

  it('reads the mirrored forms of visual-order Hebrew lines', () => {
    expect(clauseOf('.3.1.3 נזקי טבע:')).toBe('3.1.3');
    expect(clauseOf('- שקיעת קרקע של מבנה הדירה. .8.5.3')).toBe('8.5.3');
    expect(clauseOf('. דרכי הפיצוי 22')).toBe('22');
    expect(clauseOf('- בן משפחה: .2 הוריהם, אחיהם')).toBe('2');
    expect(clauseOf('נזק שאפשר לתקנו א.')).toBe('א');
  });

  it('does not take amounts, dates, durations or references for clauses', () => {
    expect(clauseOf('1.200 ש"ח לכל מקרה')).toBeNull();
    expect(clauseOf('12.5 מיליון ש"ח')).toBeNull();
    expect(clauseOf('15.3.2020 תחילת הביטוח')).toBeNull();
    expect(clauseOf('3 ימים מיום האירוע')).toBeNull();
    expect(clauseOf('2023 was a good year')).toBeNull();
    expect(clauseOf('המבטח ישלם כאמור בסעיף .4')).toBeNull();
    // A trailing bare number without the mirrored leading period is a count, not a clause.
    expect(clauseOf('הערות רופא 5')).toBeNull();
  });

  it('gives the top-level clause', () => {
    expect(topClause('3.2.4')).toBe('3');
    expect(topClause('3.2(א)')).toBe('3');
    expect(topClause(null)).toBeNull();
  });
});

describe('detectHeading', () => {
  const ctx = (next: string | null) => ({ previous: null, next, nextClause: next ? parseClauseLine(next) : null });
  it('finds chapters, known names, ALL-CAPS lines and numbered titles', () => {
    expect(detectHeading("פרק ב' - כיסויים", null, ctx('גוף הטקסט של הפרק הזה ארוך יותר מהכותרת.'))?.level).toBe(1);
    expect(detectHeading('הגדרות', null, ctx('1. מבוטח'))?.level).toBe(2);
    expect(detectHeading('GENERAL CONDITIONS', null, ctx('The insured shall notify the insurer.'))?.title).toBe('GENERAL CONDITIONS');
    const numbered = parseClauseLine('3. Exclusions');
    expect(detectHeading('3. Exclusions', numbered, ctx('3.1 War, invasion and acts of foreign enemies.'))).toEqual({ level: 2, title: 'Exclusions' });
  });

  it('leaves list items and sentences as body text', () => {
    const item = parseClauseLine('3.1 Car');
    expect(detectHeading('3.1 Car', item, ctx('3.2 Bike'))).toBeNull();
    expect(detectHeading('כהגדרתו בפוליסה. מקרה הביטוח', null, ctx('טקסט ארוך מאוד שממשיך את הפסקה הקודמת בלי סוף.'))).toBeNull();
    expect(detectHeading('The insurer will pay.', null, ctx('Something else follows here in a longer line.'))).toBeNull();
  });
});
