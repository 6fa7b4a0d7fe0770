import { describe, expect, it } from 'vitest';
import type { GradedPassage } from '../../../widget/engines/engine.ts';
import { ExtractiveEngine } from '../../../widget/engines/extractive.ts';
import { plainAnswerText } from '../../../widget/answer/document-text.ts';
import { groundAnswer } from '../../../widget/loop/ground.ts';
import { readStandalone } from '../../../widget/text/question-reading.ts';
import { passageTables, readTable } from '../../../widget/text/table-cells.ts';
import { passage } from '../loop/helpers.ts';

/**
 * A premium table as the corpus's PDFs hold it: one line, rows of equal width with an empty cell
 * between them, in visual order (the key column last, each header's words reversed).
 */
const PREMIUMS = '| מעשנת אשה | מעשנת לא אשה | מעשן גבר | מעשן לא גבר | גיל | | 68.74 | 41.00 | 72.72 | 37.62 | 65 | | 71.04 | 42.34 | 75.17 | 38.86 | 66 | | 73.51 | 43.77 | 77.81 | 40.19 | 67 |';
/** The same table in reading order, as an HTML page or a repaired parse holds it. */
const PREMIUMS_IN_ORDER = ['גיל | אשה מעשנת | אשה לא מעשנת | גבר מעשן | גבר לא מעשן', '65 | 68.74 | 41.00 | 72.72 | 37.62', '66 | 71.04 | 42.34 | 75.17 | 38.86'].join('\n');
/** A table as the HTML and Markdown parsers write it: one row a line. */
const FRACTURES = ['שברים: תשלום לפי האיבר שנשבר.', 'האיבר | % מסכום הביטוח', 'גולגולת | 35%', 'כתף | 35%', 'יד | 20%', 'אגן | 100%'].join('\n');

describe('passageTables', () => {
  it('reads rows one a line and rows packed into one line', () => {
    const [premiums] = passageTables(`טבלת הפרמיות\n${PREMIUMS}\nהפרמיות קבועות.`);
    expect(premiums.header).toEqual(['מעשנת אשה', 'מעשנת לא אשה', 'מעשן גבר', 'מעשן לא גבר', 'גיל']);
    expect(premiums.rows).toHaveLength(3);
    expect(premiums.rows[1]).toEqual(['71.04', '42.34', '75.17', '38.86', '66']);
    const [fractures] = passageTables(FRACTURES);
    expect(fractures.header).toEqual(['האיבר', '% מסכום הביטוח']);
    expect(fractures.rows.map((r) => r[0])).toEqual(['גולגולת', 'כתף', 'יד', 'אגן']);
  });

  it('ends a table at a row of another width, keeping every row it read (ragged rows)', () => {
    const tables = passageTables(['א | ב', '1 | 2', '3 | 4 | 5', '6 | 7 | 8'].join('\n'));
    expect(tables.map((t) => [t.header, ...t.rows])).toEqual([
      [
        ['א', 'ב'],
        ['1', '2'],
      ],
      [
        ['3', '4', '5'],
        ['6', '7', '8'],
      ],
    ]);
  });

  it('reads a header repeated over the next piece of a table as the same table, not a row', () => {
    const [table] = passageTables(['גיל | פרמיה', '65 | 41.00', '66 | 42.34', 'גיל | פרמיה', '67 | 43.77'].join('\n'));
    expect(table.rows.map((r) => r[0])).toEqual(['65', '66', '67']);
  });

  it('finds no table in prose, nor in a lone line with bars', () => {
    expect(passageTables('הביטוח מכסה נזקי מים. אין כיסוי לבלאי.')).toEqual([]);
    expect(passageTables('ביטוח דירה | הראל')).toEqual([]);
  });
});

describe('readTable', () => {
  const [premiums] = passageTables(PREMIUMS);
  const [inOrder] = passageTables(PREMIUMS_IN_ORDER);

  it("reads the cell where the question's column and row meet, in either order of the table", () => {
    expect(readTable(premiums, 'אני בת 65 ולא מעשנת. כמה אשלם בחודש?')).toEqual({ cells: [{ column: 'מעשנת לא אשה', key: 'גיל 65', value: '41.00' }] });
    expect(readTable(inOrder, 'אני בת 65 ולא מעשנת. כמה אשלם בחודש?')).toEqual({ cells: [{ column: 'אשה לא מעשנת', key: 'גיל 65', value: '41.00' }] });
    expect(readTable(premiums, 'אני בן 66 ומעשן, כמה תהיה הפרמיה?')).toEqual({ cells: [{ column: 'מעשן גבר', key: 'גיל 66', value: '75.17' }] });
    expect(readTable(inOrder, 'אני בן 66 ומעשן, כמה תהיה הפרמיה?')).toEqual({ cells: [{ column: 'גבר מעשן', key: 'גיל 66', value: '75.17' }] });
  });

  it('lists the columns a question does not choose between: a negation it does not speak of decides nothing', () => {
    expect(readTable(inOrder, 'כמה עולה הביטוח לאשה בגיל 65?')).toEqual({
      cells: [
        { column: 'אשה מעשנת', key: 'גיל 65', value: '68.74' },
        { column: 'אשה לא מעשנת', key: 'גיל 65', value: '41.00' },
      ],
    });
  });

  it('reads nothing where the question names no row, or no column of several', () => {
    expect(readTable(premiums, 'כמה עולה הביטוח לאשה לא מעשנת?')).toBeNull();
    expect(readTable(premiums, 'אני בת 90 ולא מעשנת, כמה אשלם?')).toBeNull();
    expect(readTable(inOrder, 'כמה עולה הביטוח בגיל 65?')).toBeNull();
  });

  it('lists the rows a question names, each with its key', () => {
    const [fractures] = passageTables(FRACTURES);
    expect(readTable(fractures, 'שברתי את הכתף וגם את היד. כמה אקבל?')).toEqual({
      cells: [
        { column: '% מסכום הביטוח', key: 'כתף', value: '35%' },
        { column: '% מסכום הביטוח', key: 'יד', value: '20%' },
      ],
    });
  });

  it('reads an age band as the row of every age it holds', () => {
    const [bands] = passageTables(['גיל | ניתוחים בחו"ל | תרופות מחוץ לסל', '21-30 | 8.23 | 17.43', '31-40 | 9.79 | 24.18', '41-50 | 12.15 | 39.11'].join('\n'));
    expect(readTable(bands, 'אני בן 35, כמה עולה הכיסוי לתרופות מחוץ לסל?')).toEqual({ cells: [{ column: 'תרופות מחוץ לסל', key: 'גיל 31-40', value: '24.18' }] });
    // 3 children are no age of a band, and 60 is past the last.
    expect(readTable(bands, 'יש לי 3 ילדים, כמה עולה הכיסוי לתרופות מחוץ לסל?')).toBeNull();
    expect(readTable(bands, 'אני בן 60, כמה עולה הכיסוי לתרופות מחוץ לסל?')).toBeNull();
  });

  it('takes a number of the question as a row key only in a column of keys, and never a column whose header states another number', () => {
    const [units] = passageTables('| 10 מנות | 1 מנה | כיסוי | | 500,000 | 50,000 | מוות מתאונה | | 1,000 | 100 | אשפוז יומי |');
    // 100 is the index base the customer quotes, not the daily sum; the columns are for 10 units and 1, not 4.
    expect(readTable(units, 'קניתי 4 מנות, מדד יסודי 100. כמה אקבל על מוות מתאונה?')).toBeNull();
  });

  it('reads no layout table: a header of numbers or a cell of 10,000 characters', () => {
    const [layout] = passageTables(`8.4 | ${'תשלום דמי המנוי '.repeat(700)}\n8.5 | 15 יום`);
    expect(() => readTable(layout, 'תוך כמה ימים אשלם את דמי המנוי?')).not.toThrow();
    expect(readTable(layout, 'תוך כמה ימים אשלם את דמי המנוי?')).toBeNull();
    const [long] = passageTables(`תיאור | סכום\n${'פרט '.repeat(2500)} | 100 ₪\nמשקפיים | 200 ₪`);
    expect(readTable(long, 'כמה מקבלים על משקפיים?')).toEqual({ cells: [{ column: 'סכום', key: 'משקפיים', value: '200 ₪' }] });
  });
});

describe('the extractive answer leads with the table cell', () => {
  const table: GradedPassage = passage(`טבלת הפרמיות: פרמיה חודשית לכל 10,000 ₪\n${PREMIUMS}\nדמי הביטוח קבועים לגיל הכניסה 65 ומעלה.`, { n: 1 });

  it('states the cell with its column and row, cited, and grounded', async () => {
    // The header as the PDF left it; the repaired build (--reading-order) shows it in order.
    const question = 'אני בת 65 ולא מעשנת, ואני רוצה לעשות ביטוח מחלות קשות. כמה אשלם בחודש?';
    const result = await new ExtractiveEngine().generate({ question, reading: readStandalone(question), lang: 'he', passages: [table], history: [] });
    expect(plainAnswerText(result.text).split('\n')[0]).toBe('מעשנת לא אשה, גיל 65: 41.00 [1]');
    const ground = await groundAnswer(result.text, [table], {});
    expect(ground.sentences.filter((s) => !s.supported)).toEqual([]);
  });

  it('leads with no cell of another kind than asked: a sum never answers "until when"', async () => {
    const limits = passage('טבלת גבולות הכיסוי\nכיסוי | גבול האחריות\nביטול נסיעה | 5,000 $\nמטען | 1,000 $\nהכיסוי לביטול נסיעה חל רק אם הפוליסה נרכשה 14 ימים לפחות לפני היציאה.', { n: 1 });
    const question = 'עד מתי צריך לרכוש את הביטוח כדי שיהיה כיסוי לביטול הנסיעה? תוך כמה ימים?';
    const result = await new ExtractiveEngine().generate({ question, reading: readStandalone(question), lang: 'he', passages: [limits], history: [] });
    const lines = plainAnswerText(result.text).split('\n');
    expect(lines.slice(0, lines.indexOf('לפי מסמכי הפוליסה:')).join('\n')).not.toContain('5,000');
    const amount = 'מה גבול האחריות לביטול נסיעה?';
    const read = await new ExtractiveEngine().generate({ question: amount, reading: readStandalone(amount), lang: 'he', passages: [limits], history: [] });
    expect(plainAnswerText(read.text).split('\n')[0]).toBe('גבול האחריות, ביטול נסיעה: 5,000 $ [1]');
  });
});
