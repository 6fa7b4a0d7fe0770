/**
 * Stop words. Hebrew: function words plus the conversational filler of customer questions
 * ("אני רוצה לדעת האם יש לי…"), which otherwise match every page of the corpus.
 *
 * Kept on purpose (not stop words): negations `לא`, `אין`, `ללא`, `בלי` and English `not`, `no`,
 * `without` — "לא מכוסה" / "not covered" is the whole answer in an exclusions clause; BM25's IDF
 * already discounts them where they are frequent. Time and condition words (`לפני`, `אחרי`, `תוך`,
 * `עד`, `מעל`, `before`, `after`, `until`) stay for the same reason.
 */
import { normalizeText } from './normalize.ts';
import { conjunctionStrippings } from './hebrew-prefixes.ts';

const HEBREW_RAW = `
אני אתה את אנחנו אתם אתן הוא היא הם הן
זה זאת זו אלה אלו זהו זוהי הזה הזאת הזו האלה
של שלי שלך שלו שלה שלנו שלכם שלכן שלהם שלהן
לי לך לו לה לנו לכם לכן להם להן
אותי אותך אותו אותה אותנו אתכם אותם אותן
בי בך בו בה בנו בכם בהם בהן
ממני ממך ממנו ממנה מכם מהם מהן
עלי עליך עליו עליה עלינו עליכם עליהם
אלי אליך אליו אליה אלינו אליהם
איתי איתך איתו איתה איתנו איתם
האם מה מי איך למה מדוע מתי איפה היכן כמה איזה איזו אילו
יש על עם אל את כי אם או גם רק כן כל כבר עוד אבל אז כך כמו
היה היתה הייתה היו יהיה תהיה להיות הינו הינה הינם
כדי בין אצל פה כאן ממש קצת בעצם בבקשה תודה שלום
רוצה רוצים רציתי לדעת מעוניין מעוניינת
בזה לזה מזה כזה כזו כזאת במה
`;

const ENGLISH_RAW = `
a an the and or but if then else of to in on at by for from with as is are was were be been being
am do does did doing have has had having i me my mine we us our ours you your yours he him his she
her hers it its they them their theirs this that these those there here what which who whom whose
when where why how can could would should will shall may might must about into over under
again further once than too very so such just also any each both few more most other some own same
all only s t d ll m re ve y please hi hello thanks thank want know
`;

function wordList(raw: string): Set<string> {
  return new Set(normalizeText(raw).split(/\s+/).filter(Boolean));
}

export const HEBREW_STOPWORDS: ReadonlySet<string> = wordList(HEBREW_RAW);
export const ENGLISH_STOPWORDS: ReadonlySet<string> = wordList(ENGLISH_RAW);

// Content words that read as conjunction + stop word: שכן (neighbour) is not ש+כן, העם not ה+עם.
const NOT_STOPWORDS = wordList('שכן העם');

/** A normalised Hebrew word is a stop word itself or after a conjunction/article (ואני, שיש, הכל). */
export function isHebrewStopword(word: string): boolean {
  if (HEBREW_STOPWORDS.has(word)) return true;
  if (NOT_STOPWORDS.has(word)) return false;
  return conjunctionStrippings(word).some((rest) => HEBREW_STOPWORDS.has(rest));
}

export function isEnglishStopword(word: string): boolean {
  return ENGLISH_STOPWORDS.has(word);
}
