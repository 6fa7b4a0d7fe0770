import { describe, expect, it } from 'vitest';
import { checkSourceUrl, resolveSourceUrl, safeSourceUrl } from '../../../widget/core/url-policy.ts';

const PAGE = 'https://www.insurer.example/help/chat.html';

/** Inputs the policy must drop, each with the words its reason must contain. */
const HOSTILE: [string, unknown, string][] = [
  ['javascript:', 'javascript:alert(document.cookie)', '"javascript:" scheme'],
  ['mixed case', 'JaVaScRiPt:alert(1)', '"javascript:" scheme'],
  ['leading spaces', '   javascript:alert(1)', '"javascript:" scheme'],
  ['leading C0 controls', '\u0000\u0001\u001Fjavascript:alert(1)', '"javascript:" scheme'],
  ['trailing controls only trimmed', 'javascript:alert(1)\u0000 ', '"javascript:" scheme'],
  ['tab inside the scheme', 'java\tscript:alert(1)', 'control'],
  ['line feed inside the scheme', 'java\nscript:alert(1)', 'control'],
  ['carriage return inside the scheme', 'jav\r\nascript:alert(1)', 'control'],
  ['NUL inside', 'java\u0000script:alert(1)', 'control'],
  ['C1 control (NEL)', 'https://insurer.example/\u0085', 'control'],
  ['right-to-left override', 'https://insurer.example/\u202Efdp.exe', 'control'],
  ['zero-width space', 'https://insurer.ex\u200Bample/', 'control'],
  ['no-break space', '\u00A0javascript:alert(1)', 'control'],
  ['vbscript:', 'vbscript:msgbox(1)', '"vbscript:" scheme'],
  ['data: HTML', 'data:text/html,<script>alert(1)</script>', '"data:" scheme'],
  ['data: base64', 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==', '"data:" scheme'],
  ['blob:', 'blob:https://insurer.example/0b7e', '"blob:" scheme'],
  ['file:', 'file:///etc/passwd', '"file:" scheme'],
  ['mailto:', 'mailto:claims@insurer.example', '"mailto:" scheme'],
  ['decimal reference', '&#106;avascript:alert(1)', 'decodes to the "javascript:" scheme'],
  ['hex reference, no semicolon', '&#x6A&#x61vascript:alert(1)', 'decodes to the "javascript:" scheme'],
  ['padded decimal reference', '&#0000106;avascript:alert(1)', 'decodes to the "javascript:" scheme'],
  ['named colon', 'javascript&colon;alert(1)', 'decodes to the "javascript:" scheme'],
  ['named tab inside the scheme', 'java&Tab;script:alert(1)', 'decodes to the "javascript:" scheme'],
  ['double-encoded reference', '&amp;#106;avascript:alert(1)', 'decodes to the "javascript:" scheme'],
  ['percent-encoded colon', 'javascript%3Aalert(1)', 'decodes to the "javascript:" scheme'],
  ['percent-encoded first letter', '%6Aavascript:alert(1)', 'decodes to the "javascript:" scheme'],
  ['percent-encoded tab', 'java%09script:alert(1)', 'decodes to the "javascript:" scheme'],
  ['credentials that look like the host', 'https://www.insurer.example@evil.example/policy.pdf', 'user name or password'],
  ['protocol-relative with credentials', '//user:secret@evil.example/', 'user name or password'],
  ['broken host', 'https://exa mple.com/', 'not a valid URL'],
  ['empty', '', 'empty'],
  ['only controls', '\u0000 \u0001', 'empty'],
  ['a number', 42, 'not a string'],
  ['an object', { href: 'https://insurer.example/' }, 'not a string'],
];

describe('URL policy: dropped', () => {
  it.each(HOSTILE)('%s', (_name, value, reason) => {
    const check = checkSourceUrl(value);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toContain(reason);
    expect(safeSourceUrl(value)).toBeNull();
    expect(resolveSourceUrl(value, PAGE)).toBeNull();
  });
});

/** Inputs the policy keeps: the value kept, and the href it resolves to on PAGE. */
const KEPT: [string, string, string, string][] = [
  ['https', 'https://insurer.example/car/policy.pdf', 'https://insurer.example/car/policy.pdf', 'https://insurer.example/car/policy.pdf'],
  ['http, upper-case scheme', 'HTTP://insurer.example/a', 'HTTP://insurer.example/a', 'http://insurer.example/a'],
  ['spaces around', '  https://insurer.example/a \n', 'https://insurer.example/a', 'https://insurer.example/a'],
  ['Hebrew path', 'https://insurer.example/ביטוח-רכב', 'https://insurer.example/ביטוח-רכב', 'https://insurer.example/%D7%91%D7%99%D7%98%D7%95%D7%97-%D7%A8%D7%9B%D7%91'],
  ['&amp; in a query', 'https://insurer.example/doc?a=1&amp;b=2', 'https://insurer.example/doc?a=1&amp;b=2', 'https://insurer.example/doc?a=1&amp;b=2'],
  [
    'a javascript: URL as a query value',
    'https://insurer.example/go?next=javascript:alert(1)',
    'https://insurer.example/go?next=javascript:alert(1)',
    'https://insurer.example/go?next=javascript:alert(1)',
  ],
  ['root-relative', '/car/policy.pdf', '/car/policy.pdf', 'https://www.insurer.example/car/policy.pdf'],
  ['path-relative', 'files/car.pdf', 'files/car.pdf', 'https://www.insurer.example/help/files/car.pdf'],
  ['dot segments', '../policies/car.pdf', '../policies/car.pdf', 'https://www.insurer.example/policies/car.pdf'],
  ['query only', '?doc=3', '?doc=3', 'https://www.insurer.example/help/chat.html?doc=3'],
  ['protocol-relative', '//cdn.insurer.example/car.pdf', '//cdn.insurer.example/car.pdf', 'https://cdn.insurer.example/car.pdf'],
  ['a colon after the first slash', 'docs/a:b.pdf', 'docs/a:b.pdf', 'https://www.insurer.example/help/docs/a:b.pdf'],
  ['a space in the path', '/car/policy 2024.pdf', '/car/policy 2024.pdf', 'https://www.insurer.example/car/policy%202024.pdf'],
];

describe('URL policy: kept', () => {
  it.each(KEPT)('%s', (_name, value, kept, href) => {
    expect(checkSourceUrl(value)).toEqual({ ok: true, url: kept });
    expect(resolveSourceUrl(value, PAGE)).toBe(href);
  });

  it('resolves a relative URL only against an http(s) base', () => {
    expect(resolveSourceUrl('/car/policy.pdf', undefined)).toBeNull();
    expect(resolveSourceUrl('/car/policy.pdf', 'file:///home/site/index.html')).toBeNull();
    expect(resolveSourceUrl('/car/policy.pdf', 'about:blank')).toBeNull();
    expect(resolveSourceUrl('https://insurer.example/a', undefined)).toBe('https://insurer.example/a');
  });
});
