/**
 * The demo site: one <harel-chat> tag, as a site owner would paste it. Query parameters let a
 * tester point it elsewhere without editing the page: ?index=<manifest URL>, ?lang=he|en,
 * ?mode=auto|llm|extractive, ?model-base=<folder>, ?llm-engine=webllm|gguf|auto, ?gguf-model=<file>,
 * ?reader-model=<file> (with ?reader-calls=<n>, ?reader-refuses=1).
 */
import { Workbox } from 'workbox-window';
import '../widget/index.ts';

const chat = document.querySelector('harel-chat')!;
const params = new URLSearchParams(location.search);
for (const name of ['index', 'mode', 'model-base', 'model', 'llm-engine', 'gguf-model', 'gguf-answers', 'reader-model', 'reader-calls', 'embedder', 'domain', 'theme']) {
  const value = params.get(name);
  if (value) chat.setAttribute(name, value);
}
if (params.get('reader-refuses') === '1') chat.setAttribute('reader-refuses', '');

// Made up, like the insurer: the header, the off-topic reply and the starters are the page's own.
// (A site can give the same in attributes — site-name, contact-phone, … — or in the index's
// `site` block: `harel-builder build … --site site.json`.)
chat.contacts = {
  name: { he: 'דמו ביטוח', en: 'Demo Insurance' },
  phone: '*1234',
  website: 'https://demo-insurance.example',
  email: 'service@demo-insurance.example',
  hours: { he: 'א׳–ה׳ 8:00–17:00', en: 'Sun–Thu 8:00–17:00' },
};
chat.starters = {
  he: ['מה ההשתתפות העצמית בביטוח הרכב?', 'האם ביטוח הנסיעות מכסה ביטול טיסה?', 'תוך כמה זמן צריך לדווח על נזק בדירה?'],
  en: ['What does the travel policy cover if my flight is cancelled?', 'How many days do I have to report a home insurance claim?'],
};

const INTRO = {
  he: 'שאלו על הפוליסות של דמו ביטוח (רכב, דירה, בריאות, נסיעות). התשובות נכתבות במכשיר שלכם, מתוך מסמכי הפוליסה בלבד.',
  en: "Ask about Demo Insurance's policies (car, home, health, travel). Answers are written on your device, from the policy documents only.",
};

function setLanguage(lang: 'he' | 'en'): void {
  document.documentElement.lang = lang;
  document.documentElement.dir = lang === 'he' ? 'rtl' : 'ltr';
  chat.setAttribute('lang', lang);
  document.getElementById('intro')!.textContent = INTRO[lang];
  for (const button of document.querySelectorAll<HTMLButtonElement>('nav button')) {
    button.setAttribute('aria-pressed', String(button.dataset.lang === lang));
  }
}

for (const button of document.querySelectorAll<HTMLButtonElement>('nav button')) {
  button.addEventListener('click', () => setLanguage(button.dataset.lang as 'he' | 'en'));
}
setLanguage(params.get('lang') === 'en' ? 'en' : 'he');

/**
 * The production build is an installable, offline app (demo/sw.ts). A new version — new code or a
 * new index build — installs in the background and waits; the banner offers the reload that
 * switches to it. The dev server registers nothing: a service worker would serve stale modules.
 */
function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  const wb = new Workbox('/sw.js');
  const banner = document.getElementById('update')!;
  wb.addEventListener('waiting', () => {
    banner.hidden = false;
    document.getElementById('update-reload')!.onclick = () => {
      // Reload only once the new worker controls the page, or the old one would serve it again.
      wb.addEventListener('controlling', () => location.reload());
      wb.messageSkipWaiting();
    };
  });
  void wb.register();
}
registerServiceWorker();
