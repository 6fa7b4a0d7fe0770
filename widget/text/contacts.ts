/**
 * How to reach the insurer, as its documents write it: phone, fax and SMS numbers, e-mail and web
 * addresses and a postal address, each with the channel its words name ("בפקס, למספר: 03-7348102",
 * "בדואר, לכתובת: רח' אבא הלל 3 ת.ד 10952 רמת גן 5252202"), and whether a question asks for one
 * ("לאן שולחים את הטפסים?", "מה מספר הפקס?", "how do I submit a claim?").
 *
 * A number is a contact only in a contact's form (a leading 0 or 1-700/1-800, a star number, +972,
 * an Australian 13/1300/1800 number): sums, clause numbers and dates never are. Its channel is the
 * word right before it ("בפקס, למספר:"); without one only a star or 1-700 number is listed, as a
 * phone. The fact patterns (fact-patterns.ts) leave phone numbers out; this file is where they
 * count.
 */
import { cueText, phrases } from './cue-patterns.ts';

export type ContactChannel = 'phone' | 'fax' | 'sms' | 'email' | 'post' | 'web';

export const CONTACT_CHANNELS: readonly ContactChannel[] = ['phone', 'fax', 'sms', 'email', 'post', 'web'];

export interface Contact {
  channel: ContactChannel;
  /** Verbatim from the text. */
  value: string;
  /** Where `value` starts in the text. */
  at: number;
}

const HE = '\\u05D0-\\u05EA';
/** Israeli numbers (03-7348102, 052-3235121, 1-700-70-28-70, 1700-70-28-70, *2735, +972-3-7348102) and Australian service numbers (13 23 60, 1300 123 456). */
const PHONE = new RegExp(
  [
    '(?<![\\d.,/])\\+972[-\\s]?\\d{1,2}[-\\s]?\\d{3}[-\\s]?\\d{4}(?![\\d])',
    '(?<![\\d.,/*-])0\\d{1,2}-?\\d{3}-?\\d{4}(?![\\d/]|[.,]\\d)',
    '(?<![\\d.,/*-])1-?[5789]00-?\\d{2,3}-?\\d{2,3}-?\\d{0,3}(?![\\d/]|[.,]\\d)',
    `(?<![\\d${HE}A-Za-z/.\\-])\\*\\d{4}(?!\\d)`,
    `(?<![\\d${HE}A-Za-z/.\\-])\\d{4}\\*(?!\\d)`,
    '(?<![\\d.,/-])1[38]00(?: ?\\d){6}(?!\\d)',
    '(?<![\\d.,/-])13(?: ?\\d){4}(?!\\d|[.,]\\d)',
  ].join('|'),
  'g',
);
const EMAIL = /[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
const WEB = /\b(?:https?:\/\/|www\.)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?:\/[^\s"”'<>)]*)?/g;
/** A street or a town: Hebrew words, with the marks and hyphens of their spelling ("פל-ים", "פלי\"ם"). */
const NAME = `[${HE}][${HE}"'׳״\\-]*(?:\\s+[${HE}][${HE}"'׳״\\-]*){0,3}`;
const BOX = `(?:ת\\.?\\s?ד\\.?|ת["״]ד)`;
/**
 * A postal address in its reading order: street, number, P.O. box, town and postcode ("רח' אבא
 * הלל 3 ת.ד 10952 רמת גן 5252202", "רחוב אבא הלל 3, ת״ד 10951, רמת גן, מיקוד 5252202"), or a box,
 * town and postcode. Each part in its place: the PDF parse moves an address's numbers and turns its
 * words ("ת"ד ,3 הלל אבא 5200901", "רח' אבא הלל 5211802"), and an address read from such a line
 * would send the customer's letter nowhere. A box has three digits or more (a street's number
 * beside a box word is a turned line).
 */
const POST = new RegExp(
  [
    `(?<![${HE}])רח(?:וב|['׳])\\s*${NAME}\\s+\\d{1,4}(?!\\d)(?:,?\\s+${BOX}\\s*\\d{3,6}(?!\\d))?,?\\s+${NAME},?\\s+(?:מיקוד\\s+)?\\d{7}(?!\\d)`,
    `(?<![${HE}])${BOX}\\s*\\d{3,6}(?!\\d),?\\s+${NAME},?\\s+(?:מיקוד\\s+)?\\d{7}(?!\\d)`,
  ].join('|'),
  'g',
);

/** A channel's word, as it stands right before its number ("בפקס", "SMS", "בטלפון", "טל'"). */
const CHANNEL_WORDS: readonly [ContactChannel, RegExp][] = [
  ['fax', /(?:פקס|פקסימיליה|\bfax)$/iu],
  ['sms', /(?:\bSMS|מסרון|ווטסאפ|וואטסאפ|whatsapp|\btext)$/iu],
  ['phone', /(?:טלפון|טל['׳.]?|חייגו|חייג|\bphone|\bcall(?:\s+us)?(?:\s+on)?|\btel\.?)$/iu],
];
/**
 * What may stand between a channel's word and its number: punctuation and "number" ("בפקס,
 * למספר: 03-7348102", "call us on 13 23 60"). Nothing else: in a line the PDF parse put out of
 * order the word before a number is often another number's ("לפקס ביטוח חיים 1-700-…" for a
 * phone), and a fax read as a phone sends the customer to a machine.
 */
const BETWEEN = /[\s,:;()\-–]*(?:(?:ל|ב)?מספר|number|on|at)?[\s,:;()\-–]*$/iu;
/** Numbers whose form says they are answered by people: star numbers and 1-700/1-800 lines (a 13 number needs its word: "13 2024" may be a date). */
const SERVICE_NUMBER = /^(?:\*\d{4}|\d{4}\*|1-?[5789]00|1[38]00)/u;

/** How far after a number a channel's word is read as its own (see channelOf). */
const CHANNEL_AFTER = 16;
/** Each channel's word as it stands right after a number. */
const CHANNEL_WORDS_AFTER: readonly [ContactChannel, RegExp][] = CHANNEL_WORDS.map(([channel, re]) => [channel, new RegExp(`^[\\s,:;()\\-–]*(?:${re.source.replace(/\$$/u, '')})`, 'iu')]);

/** Only "or" between two numbers. */
const OR_BETWEEN = /^[\s,]*(?:או|or)?[\s,]*$/iu;

/** The channel the words right before a number name, by its form where they name none, or null. */
function channelOf(text: string, at: number, value: string): ContactChannel | null {
  const before = text.slice(0, at);
  const gap = BETWEEN.exec(before);
  const head = gap ? before.slice(0, before.length - gap[0].length) : before;
  const named = CHANNEL_WORDS.find(([, re]) => re.test(head))?.[0] ?? null;
  // Another channel's word right after the number ("2735* טלפון 037348178 פקס"): a line in visual
  // order, where each word follows its number, so the word before is the previous number's.
  const after = text.slice(at + value.length, at + value.length + CHANNEL_AFTER);
  const next = CHANNEL_WORDS_AFTER.find(([, re]) => re.test(after))?.[0] ?? null;
  if (named && next && next !== named) return null;
  if (named) return named;
  return SERVICE_NUMBER.test(value) ? 'phone' : null;
}

/** Every contact `text` states, in the order it states them. */
export function findContacts(text: string): Contact[] {
  const found: Contact[] = [];
  const taken: [number, number][] = [];
  const free = (start: number, end: number) => taken.every(([s, e]) => end <= s || start >= e);
  const add = (channel: ContactChannel, value: string, at: number) => {
    if (!free(at, at + value.length)) return;
    taken.push([at, at + value.length]);
    found.push({ channel, value, at });
  };
  for (const m of text.matchAll(EMAIL)) add('email', m[0], m.index);
  for (const m of text.matchAll(WEB)) add('web', m[0].replace(/[.,;:]+$/u, ''), m.index);
  for (const m of text.matchAll(POST)) add('post', m[0].trim(), m.index);
  let previous: { channel: ContactChannel; end: number } | null = null;
  for (const m of text.matchAll(PHONE)) {
    // "בטלפון 03-… או 03-…", "call 133 723 or 13 23 60": the second number is on the first's channel.
    const after: ContactChannel | null = previous && OR_BETWEEN.test(text.slice(previous.end, m.index)) ? previous.channel : null;
    const channel: ContactChannel | null = channelOf(text, m.index, m[0]) ?? after;
    if (channel) {
      add(channel, m[0], m.index);
      previous = { channel, end: m.index + m[0].length };
    }
  }
  return found.sort((a, b) => a.at - b.at);
}

const CUES: readonly [readonly ContactChannel[], RegExp][] = [
  [['fax'], phrases(['(?:מה|מהו)\\s+(?:מספר\\s+)?ה?פקס', 'מספר\\s+ה?פקס', 'לאיזה\\s+פקס', 'fax\\s+number', "what(?:'s| is) the fax"], 'any')],
  [
    ['email'],
    phrases(['(?:מה|מהי|מהו)\\s+(?:כתובת\\s+)?ה?(?:מייל|דוא["״]?ל|אימייל)', 'כתובת\\s+ה?(?:מייל|דוא["״]?ל|אימייל)', 'לאיזה\\s+(?:מייל|דוא["״]?ל)', 'e-?mail\\s+address', 'which\\s+e-?mail'], 'any'),
  ],
  [['post'], phrases(['כתובת\\s+(?:ה)?דואר', 'לאיזו\\s+כתובת', 'postal\\s+address', 'mailing\\s+address'], 'any')],
  [['phone', 'sms'], phrases(['(?:מה|מהו)\\s+(?:מספר\\s+)?ה?טלפון', 'מספר\\s+ה?טלפון', 'לאיזה\\s+(?:מספר|טלפון)', 'phone\\s+number', 'number\\s+to\\s+call', 'what\\s+number'], 'any')],
  [['web'], phrases(['(?:מה|מהי)\\s+כתובת\\s+ה?אתר', 'באיזה\\s+אתר', 'website', 'web\\s+address'], 'any')],
  [
    CONTACT_CHANNELS.filter((c) => c !== 'web'),
    phrases(
      [
        'לאן\\s+(?:בדיוק\\s+)?(?:אני\\s+)?(?:שולח|שולחת|שולחים|לשלוח|פונים|לפנות|פונה|מגיש|מגישה|מגישים|להגיש)',
        'למי\\s+(?:אני\\s+)?(?:פונה|פונים|לפנות)',
        '(?:איך|כיצד|באיזה\\s+אופן)\\s+(?:אני\\s+|אפשר\\s+|ניתן\\s+)?(?:יוצר|יוצרת|יוצרים|ליצור)\\s+קשר',
        '(?:איך|כיצד)\\s+(?:אני\\s+|אפשר\\s+|ניתן\\s+)?(?:מגיש|מגישה|מגישים|להגיש|שולח|שולחת|שולחים|לשלוח)\\s+(?:את\\s+)?(?:ה)?(?:תביעה|בקשה|טופס|טפסים|מסמכים)',
        'how\\s+(?:do|can)\\s+i\\s+(?:contact|reach|submit|lodge|make|send)',
        'where\\s+(?:do|can|should)\\s+i\\s+(?:send|submit|lodge)',
        'how\\s+to\\s+(?:contact|reach|submit|lodge)',
        'contact\\s+details',
      ],
      'any',
    ),
  ],
];

/**
 * The channels a question asks for: one ("מה מספר הפקס?"), several ("מה הטלפון?": a phone or an
 * SMS number), every one but the website ("לאן שולחים את הטפסים?", "how do I submit a claim?":
 * a site's address is on every page and says nowhere to send anything), or null when it asks for
 * none.
 */
export function askedChannels(question: string): readonly ContactChannel[] | null {
  const text = cueText(question);
  const asked = new Set<ContactChannel>();
  for (const [channels, re] of CUES) if (text.search(re) >= 0) for (const c of channels) asked.add(c);
  return asked.size > 0 ? CONTACT_CHANNELS.filter((c) => asked.has(c)) : null;
}
