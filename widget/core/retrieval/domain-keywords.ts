/**
 * Curated names of each domain and its products, Hebrew and English. A query containing one of
 * these phrases (every word, prefixes allowed: "בביטוח הרכב" matches "ביטוח רכב") gets a fixed
 * bonus for that domain on top of the learned scores. Keep phrases specific: a word that belongs
 * to several domains (תאונה, מחלה, ביטוח) only adds noise here.
 */
export const DOMAIN_KEYWORDS: Record<string, string[]> = {
  apartment: ['דירה', 'ביטוח דירה', 'ביטוח מבנה', 'תכולה', 'תכולת הדירה', 'נזקי מים', 'צנרת', 'רעידת אדמה', 'פריצה', 'שכן', 'home insurance', 'apartment', 'contents'],
  business: ['עסק', 'עסקי', 'בית עסק', 'משרד', 'ביטוח משרד', 'אחריות מקצועית', 'חבות מעבידים', 'אובדן הכנסה', 'מלאי', 'עובדים', 'business', 'office', 'employer liability', 'professional liability'],
  car: ['רכב', 'ביטוח רכב', 'מקיף', 'ביטוח חובה', "צד ג'", 'צד שלישי', 'נהג', 'נהיגה', 'תאונת דרכים', 'שמשות', 'גרירה', 'רכב חלופי', 'שמאי', 'car', 'vehicle', 'motor', 'driver'],
  dental: ['שיניים', 'רופא שיניים', 'ביטוח שיניים', 'שתל', 'שתלים', 'כתר', 'יישור שיניים', 'עקירה', 'dental', 'teeth', 'dentist'],
  'diseases-disabilities': ['מחלות קשות', 'מחלה קשה', 'מחלות', 'נכות', 'סרטן', 'התקף לב', 'שבץ', 'critical illness', 'disability'],
  health: ['בריאות', 'ביטוח בריאות', 'ניתוח', 'ניתוחים', 'תרופות', 'תרופה', 'השתלה', 'השתלות', 'אמבולטורי', 'רופא מומחה', 'בדיקות', 'health', 'surgery', 'medication'],
  life: ['ביטוח חיים', 'ריסק', 'מוות', 'פטירה', 'שארים', 'מוטבים', 'מוטב', 'life insurance', 'death', 'beneficiary'],
  'long-term-care': ['סיעוד', 'סיעודי', 'סיעודית', 'ביטוח סיעודי', 'תשישות נפש', 'פעולות יום יומיות', 'רחצה', 'הלבשה', 'ניידות', 'long term care', 'nursing'],
  'loss-of-working-ability': ['אובדן כושר עבודה', 'כושר עבודה', 'אכ"ע', 'עיסוק', 'הכנסה חודשית', 'loss of working ability', 'income protection'],
  mortgage: ['משכנתא', 'משכנתה', 'ביטוח משכנתא', 'הלוואה', 'בנק', 'המשכנתא', 'mortgage', 'loan'],
  'personal-accident': ['תאונות אישיות', 'תאונה אישית', 'ביטוח תאונות', 'שבר', 'שברים', 'כוויות', 'personal accident', 'accident'],
  travel: ['נסיעות', 'ביטוח נסיעות', 'חו"ל', 'טיסה', 'טיול', 'נסיעה', 'מזוודה', 'כבודה', 'ביטול נסיעה', 'travel', 'trip', 'abroad', 'flight'],
};
