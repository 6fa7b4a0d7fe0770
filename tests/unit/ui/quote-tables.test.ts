import { describe, expect, it } from 'vitest';
import { quoteBlocks, tableHeaderFor } from '../../../widget/answer/quote-tables.ts';

/** A passage as the builder indexes demo/corpus/car/files/car-policy.md section 4: heading, header row, rows, prose. */
const CAR = [
  '4. השתתפות עצמית',
  'סוג הנזק | השתתפות עצמית',
  'נזק תאונתי – תיקון במוסך הסדר | 1,500 ש"ח',
  'גניבה או אובדן גמור | 7% משווי הרכב, ולא פחות מ-3,000 ש"ח',
  'תוספת לנזק שנגרם בידי נהג צעיר | 1,000 ש"ח',
  '4.1 ההשתתפות העצמית תנוכה מתגמולי הביטוח.',
].join('\n');

describe('the header of a quoted table row', () => {
  it('is the first line of the run of rows the quoted row is in', () => {
    expect(tableHeaderFor(CAR, 'גניבה או אובדן גמור | 7% משווי הרכב, ולא פחות מ-3,000 ש"ח')).toBe('סוג הנזק | השתתפות עצמית');
    // A quote from two places of the passage: its row piece decides.
    expect(tableHeaderFor(CAR, '4.1 ההשתתפות העצמית תנוכה מתגמולי הביטוח. … תוספת לנזק שנגרם בידי נהג צעיר | 1,000 ש"ח')).toBe('סוג הנזק | השתתפות עצמית');
    // A quoted header is its own.
    expect(tableHeaderFor(CAR, 'סוג הנזק | השתתפות עצמית')).toBe('סוג הנזק | השתתפות עצמית');
  });

  it('is none for prose, for a line with bars that is no table, and for a quote not in the passage', () => {
    expect(tableHeaderFor(CAR, '4.1 ההשתתפות העצמית תנוכה מתגמולי הביטוח.')).toBeNull();
    const running = 'ביטוח לדוגמה בע"מ | מהדורת ינואר 2025 | מסמך בדיוני\nפוליסה לביטוח רכב פרטי.';
    expect(tableHeaderFor(running, 'ביטוח לדוגמה בע"מ | מהדורת ינואר 2025 | מסמך בדיוני')).toBeNull();
    expect(tableHeaderFor(CAR, 'שורה | שאינה בקטע')).toBeNull();
  });
});

describe('a quote read back as text and tables', () => {
  const header = 'סוג הנזק | השתתפות עצמית';

  it('gathers rows under the header, and skips a quoted header as a row', () => {
    expect(quoteBlocks('תוספת לנזק שנגרם בידי נהג צעיר | 1,000 ש"ח … סוג הנזק | השתתפות עצמית', header)).toEqual([
      { kind: 'table', header: ['סוג הנזק', 'השתתפות עצמית'], rows: [['תוספת לנזק שנגרם בידי נהג צעיר', '1,000 ש"ח']] },
    ]);
    expect(quoteBlocks(header, header)).toEqual([{ kind: 'table', header: ['סוג הנזק', 'השתתפות עצמית'], rows: [] }]);
  });

  it('keeps prose between rows as text, joined as the quote joined it', () => {
    expect(quoteBlocks('א | 1 … משפט ראשון. … משפט שני. … ב | 2', 'שם | ערך')).toEqual([
      { kind: 'table', header: ['שם', 'ערך'], rows: [['א', '1']] },
      { kind: 'text', text: 'משפט ראשון. … משפט שני.' },
      { kind: 'table', header: ['שם', 'ערך'], rows: [['ב', '2']] },
    ]);
    // A piece with another number of cells than the header is not one of its rows.
    expect(quoteBlocks('x | y | z', 'שם | ערך')).toEqual([{ kind: 'text', text: 'x | y | z' }]);
  });

  it('is the quote as written without a header', () => {
    expect(quoteBlocks('סוג הנזק | השתתפות עצמית', undefined)).toEqual([{ kind: 'text', text: 'סוג הנזק | השתתפות עצמית' }]);
  });
});

describe('a table the PDF left packed in one line', () => {
  const packed = '| אשה מעשנת | אשה לא מעשנת | גיל | | 68.74 | 41.00 | 65 | | 71.04 | 42.34 | 66 |';
  const passage = `טבלת הפרמיות: פרמיה חודשית לכל 10,000 ₪\n${packed}\nדמי הביטוח קבועים.`;

  it('is a table whose header is its first row', () => {
    expect(tableHeaderFor(passage, packed)).toBe('אשה מעשנת | אשה לא מעשנת | גיל');
    expect(quoteBlocks(packed, tableHeaderFor(passage, packed))).toEqual([
      {
        kind: 'table',
        header: ['אשה מעשנת', 'אשה לא מעשנת', 'גיל'],
        rows: [
          ['68.74', '41.00', '65'],
          ['71.04', '42.34', '66'],
        ],
      },
    ]);
  });
});
