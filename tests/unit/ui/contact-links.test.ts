import { describe, expect, it } from 'vitest';
import { contactLinks, contactLinksCache, splitAtLinks } from '../../../widget/ui/contact-links.ts';

const DEMO = { name: 'דמו ביטוח', phone: '*1234', website: 'https://demo-insurance.example', email: 'service@demo-insurance.example' };

describe('contact details as links', () => {
  it('links the phone, the website and the e-mail, longest first', () => {
    expect(contactLinks(DEMO)).toEqual([
      { kind: 'website', text: 'https://demo-insurance.example', href: 'https://demo-insurance.example/' },
      { kind: 'email', text: 'service@demo-insurance.example', href: 'mailto:service@demo-insurance.example' },
      { kind: 'phone', text: '*1234', href: 'tel:*1234' },
    ]);
    expect(contactLinks({ phone: '03-555 0100' })).toEqual([{ kind: 'phone', text: '03-555 0100', href: 'tel:035550100' }]);
    // A value that holds another is tried first.
    expect(contactLinks({ phone: '5551234', email: '5551234@x.example' }).map((l) => l.text)).toEqual(['5551234@x.example', '5551234']);
  });

  it('links nothing it cannot link safely: another scheme, a relative or bare website, an e-mail with a query', () => {
    expect(contactLinks({ website: 'javascript:alert(1)' })).toEqual([]);
    expect(contactLinks({ website: 'data:text/html,<script>alert(1)</script>' })).toEqual([]);
    expect(contactLinks({ website: 'demo-insurance.example' })).toEqual([]);
    expect(contactLinks({ website: '/contact' })).toEqual([]);
    expect(contactLinks({ email: 'a@b.example?bcc=evil@x.example' })).toEqual([]);
    expect(contactLinks(undefined)).toEqual([]);
  });

  it('finds them in text as whole words only', () => {
    const links = contactLinks(DEMO);
    const text = 'בטלפון *1234 (א׳–ה׳), באתר https://demo-insurance.example או בדוא״ל service@demo-insurance.example.';
    expect(splitAtLinks(text, links).map((p) => (typeof p === 'string' ? p : `<${p.href}>`))).toEqual([
      'בטלפון ',
      '<tel:*1234>',
      ' (א׳–ה׳), באתר ',
      '<https://demo-insurance.example/>',
      ' או בדוא״ל ',
      '<mailto:service@demo-insurance.example>',
      '.',
    ]);
    // Not part of a longer number, address or path.
    for (const other of ['*12345', 'https://demo-insurance.example.evil.example', 'https://demo-insurance.example/other', 'xservice@demo-insurance.example']) {
      expect(splitAtLinks(`ראו ${other} כאן`, links)).toEqual([`ראו ${other} כאן`]);
    }
  });

  it('gives the same array while the links are the same', () => {
    const cached = contactLinksCache();
    const first = cached(DEMO);
    expect(cached({ ...DEMO })).toBe(first);
    expect(cached({ ...DEMO, phone: '*5555' })).not.toBe(first);
  });
});
