/**
 * Writes the demo corpus's English policy PDF: a short fictional home insurance policy over three
 * pages with headings, numbered clauses and a limits table. The bytes are written by hand
 * (standard Helvetica, WinAnsi text) so the demo needs no PDF library and no copyrighted file.
 *
 * Usage: npx tsx tools/demo-pdf.ts [out.pdf]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface TextLine {
  text: string;
  x: number;
  y: number;
  size: number;
  bold?: boolean;
}

const PAGE_WIDTH = 612;
const PAGE_HEIGHT = 792;
const MARGIN = 72;
const BODY = 11;
const LEADING = 14;
/** Helvetica averages about half an em per character: wrap body text at this many characters. */
const WRAP_CHARS = 88;

type Item = { kind: 'title' | 'heading' | 'text'; text: string } | { kind: 'row'; cells: [string, string]; header?: boolean };

const PAGES: Item[][] = [
  [
    { kind: 'title', text: 'Demo Home Insurance Policy' },
    { kind: 'text', text: 'Policy wording DH-2025. This is a fictional policy written for the harel-chat demo. It is not an offer of insurance.' },
    { kind: 'heading', text: '1. Definitions' },
    { kind: 'text', text: '1.1 "We", "us" and "our" mean Demo Insurance Ltd. "You" and "your" mean the person named in the schedule.' },
    { kind: 'text', text: '1.2 "Home" means the apartment at the address in the schedule, including its fixtures and fittings.' },
    { kind: 'text', text: '1.3 "Excess" means the amount you pay towards each claim before we pay anything.' },
    { kind: 'heading', text: '2. Cover' },
    { kind: 'text', text: '2.1 Water damage. We cover sudden damage to your home caused by water escaping from pipes, tanks or appliances. The excess for each water damage claim is 500 ILS.' },
    { kind: 'text', text: '2.2 Fire and smoke. We cover damage to your home and contents caused by fire, lightning, explosion or smoke. The excess for each fire claim is 300 ILS.' },
  ],
  [
    { kind: 'text', text: '2.3 Theft. We cover contents stolen from your home after a forced entry. Valuables are covered up to the limits in the table below.' },
    { kind: 'row', cells: ['Item', 'Limit'], header: true },
    { kind: 'row', cells: ['Jewellery', '20,000 ILS'] },
    { kind: 'row', cells: ['Laptops and phones', '8,000 ILS'] },
    { kind: 'row', cells: ['Bicycles', '3,000 ILS'] },
    { kind: 'row', cells: ['Cash', '1,000 ILS'] },
    { kind: 'heading', text: '3. Exclusions' },
    { kind: 'text', text: '3.1 We do not cover damage caused by gradual leaks, damp or mould that developed over time.' },
    { kind: 'text', text: '3.2 We do not cover theft when the home was left unlocked, or when it was unoccupied for more than 60 consecutive days.' },
  ],
  [
    { kind: 'heading', text: '4. Claims' },
    { kind: 'text', text: '4.1 You must report a claim to us within 30 days of the event. Call 1-700-000-000 or use the claims page of our website.' },
    { kind: 'text', text: '4.2 For theft, you must also report the event to the police within 48 hours and send us the police confirmation.' },
    { kind: 'text', text: '4.3 We pay approved claims within 14 days of receiving all the documents we asked for.' },
  ],
];

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

function layoutPage(items: Item[], pageNo: number, pageCount: number): TextLine[] {
  const out: TextLine[] = [];
  let y = PAGE_HEIGHT - MARGIN;
  for (const item of items) {
    if (item.kind === 'row') {
      out.push({ text: item.cells[0], x: MARGIN + 18, y, size: BODY, bold: item.header });
      out.push({ text: item.cells[1], x: MARGIN + 250, y, size: BODY, bold: item.header });
      y -= LEADING + 4;
    } else if (item.kind === 'title') {
      out.push({ text: item.text, x: MARGIN, y, size: 20, bold: true });
      y -= 36;
    } else if (item.kind === 'heading') {
      y -= 8;
      out.push({ text: item.text, x: MARGIN, y, size: 14, bold: true });
      y -= 22;
    } else {
      for (const line of wrap(item.text, WRAP_CHARS)) {
        out.push({ text: line, x: MARGIN, y, size: BODY });
        y -= LEADING;
      }
      y -= 8;
    }
  }
  out.push({ text: `Page ${pageNo} of ${pageCount}`, x: PAGE_WIDTH / 2 - 30, y: 40, size: 9 });
  return out;
}

/** PDF string literal: backslash and parentheses escaped, everything else WinAnsi (Latin-1) text. */
function pdfString(text: string): string {
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

function contentStream(lines: TextLine[]): string {
  return lines.map((l) => `BT /${l.bold ? 'F2' : 'F1'} ${l.size} Tf ${l.x.toFixed(2)} ${l.y.toFixed(2)} Td ${pdfString(l.text)} Tj ET`).join('\n');
}

/** Serialises numbered objects (1-based, in order) into a PDF with a correct xref table. */
export function buildPdf(objects: string[]): Uint8Array {
  let body = '%PDF-1.4\n%\xE2\xE3\xCF\xD3\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefOffset = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefOffset}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(body, 'latin1'));
}

/** The demo policy as PDF bytes. */
export function demoPdfBytes(): Uint8Array {
  const pageCount = PAGES.length;
  // 1 catalog, 2 page tree, 3-4 fonts, then a (page, content) pair per page.
  const pageIds = PAGES.map((_, i) => 5 + 2 * i);
  const objects: string[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageCount} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>',
  ];
  PAGES.forEach((items, i) => {
    const stream = contentStream(layoutPage(items, i + 1, pageCount));
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}] ` + `/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents ${pageIds[i] + 1} 0 R >>`);
    objects.push(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`);
  });
  return buildPdf(objects);
}

/** Writes the demo policy PDF to `outPath` (creating its folder). */
export function writeDemoPdf(outPath: string): void {
  mkdirSync(dirname(outPath), { recursive: true });
  writeFileSync(outPath, demoPdfBytes());
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = resolve(process.argv[2] ?? 'demo/corpus/demo-home-insurance-policy.pdf');
  writeDemoPdf(out);
  console.log(`Wrote ${out}`);
}
