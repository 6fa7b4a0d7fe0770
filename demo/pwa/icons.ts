/**
 * The demo app's icons, drawn by code at build time so no binary is committed: a white speech
 * bubble on the site's blue. `maskable` fills the whole square and keeps the glyph inside the
 * central safe zone (a circle of 80 % of the size), as launchers crop maskable icons to a shape.
 */
import { deflateSync } from 'node:zlib';

const BLUE = [0x0b, 0x3d, 0x73] as const;
const WHITE = [0xff, 0xff, 0xff] as const;

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A minimal PNG encoder: 8-bit RGBA, no filtering, one IDAT. */
export function encodePng(width: number, height: number, rgba: Uint8Array): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) raw.set(rgba.subarray(y * width * 4, (y + 1) * width * 4), y * (width * 4 + 1) + 1);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', new Uint8Array())]);
}

/** Signed distance to a rounded rectangle centred at (cx, cy), in the same units. */
function roundedRect(x: number, y: number, cx: number, cy: number, hw: number, hh: number, r: number): number {
  const qx = Math.abs(x - cx) - hw + r;
  const qy = Math.abs(y - cy) - hh + r;
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
}

/** Signed distance to the triangle of the bubble's tail (approximate, fine at icon sizes). */
function tail(x: number, y: number): number {
  // Points (0.34, 0.62), (0.30, 0.80), (0.50, 0.64) of a unit glyph box.
  const edges: [number, number, number, number][] = [
    [0.34, 0.6, 0.3, 0.8],
    [0.3, 0.8, 0.5, 0.62],
    [0.5, 0.62, 0.34, 0.6],
  ];
  let d = Infinity;
  let sides = 0;
  for (const [ax, ay, bx, by] of edges) {
    const ex = bx - ax,
      ey = by - ay;
    const t = Math.max(0, Math.min(1, ((x - ax) * ex + (y - ay) * ey) / (ex * ex + ey * ey)));
    d = Math.min(d, Math.hypot(x - ax - t * ex, y - ay - t * ey));
    sides += Math.sign((x - ax) * ey - (y - ay) * ex);
  }
  return Math.abs(sides) === 3 ? -d : d;
}

/** Distance field of the glyph in a unit box: a bubble with a tail, three dots cut out. */
function glyph(x: number, y: number): number {
  const bubble = Math.min(roundedRect(x, y, 0.5, 0.43, 0.34, 0.24, 0.12), tail(x, y));
  const dots = Math.min(...[0.33, 0.5, 0.67].map((cx) => Math.hypot(x - cx, y - 0.43) - 0.05));
  return Math.max(bubble, -dots);
}

export function drawIcon(size: number, maskable: boolean): Buffer {
  const rgba = new Uint8Array(size * size * 4);
  const px = 1 / size;
  // The glyph's box: most of a rounded-square icon, the central safe zone of a maskable one.
  const box = maskable ? 0.62 : 0.8;
  const offset = (1 - box) / 2;
  for (let j = 0; j < size; j++) {
    for (let i = 0; i < size; i++) {
      const x = (i + 0.5) * px;
      const y = (j + 0.5) * px;
      const bg = maskable ? -1 : roundedRect(x, y, 0.5, 0.5, 0.5, 0.5, 0.22);
      const bgAlpha = Math.max(0, Math.min(1, 0.5 - bg / px));
      const g = glyph((x - offset) / box, (y - offset) / box) * box;
      const fg = Math.max(0, Math.min(1, 0.5 - g / px));
      const o = (j * size + i) * 4;
      for (let c = 0; c < 3; c++) rgba[o + c] = Math.round(BLUE[c] * (1 - fg) + WHITE[c] * fg);
      rgba[o + 3] = Math.round(255 * bgAlpha);
    }
  }
  return encodePng(size, size, rgba);
}

export const ICONS = [
  { file: 'icons/icon-192.png', size: 192, purpose: 'any' },
  { file: 'icons/icon-512.png', size: 512, purpose: 'any' },
  { file: 'icons/icon-maskable-512.png', size: 512, purpose: 'maskable' },
] as const;

export function webManifest(): Record<string, unknown> {
  return {
    name: 'דמו ביטוח · העוזר הדיגיטלי',
    short_name: 'דמו ביטוח',
    description: 'שאלות ותשובות על הפוליסות, מתוך מסמכי הפוליסה בלבד — גם בלי חיבור לרשת.',
    id: '/',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    lang: 'he',
    dir: 'rtl',
    background_color: '#eef2f6',
    theme_color: '#0b3d73',
    icons: ICONS.map((i) => ({ src: `/${i.file}`, sizes: `${i.size}x${i.size}`, type: 'image/png', purpose: i.purpose })),
  };
}
