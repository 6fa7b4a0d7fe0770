/**
 * Inline SVG charts: the report must open offline, so no chart library and no script. Shares
 * (0..1) as grouped bars, and a histogram of latencies.
 */
import { esc } from './escape.ts';

const COLORS = ['#2f6db5', '#e08a1e', '#3a9a5b', '#b5412f'];

export interface Series {
  name: string;
  values: number[];
}

/** One group of bars per category, one bar per series; values are shares 0..1. */
export function groupedBars(categories: readonly string[], series: readonly Series[], title: string | null): string {
  const bar = 14;
  const gap = 18;
  const groupWidth = series.length * bar + gap;
  const height = 160;
  const top = 10;
  const left = 36;
  const width = left + Math.max(1, categories.length) * groupWidth + 10;
  const labels = 8 + 6.5 * Math.max(4, ...categories.map((c) => c.length)) * 0.6;
  const y = (v: number) => top + height - v * height;
  const parts: string[] = [];
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<line x1="${left}" x2="${width}" y1="${y(t)}" y2="${y(t)}" stroke="#ddd"/>`);
    parts.push(`<text x="${left - 4}" y="${y(t) + 4}" text-anchor="end" font-size="10">${t * 100}%</text>`);
  }
  categories.forEach((cat, i) => {
    const x0 = left + i * groupWidth + gap / 2;
    series.forEach((s, j) => {
      const v = s.values[i] ?? 0;
      parts.push(
        `<rect x="${x0 + j * bar}" y="${y(v)}" width="${bar - 2}" height="${height - (y(v) - top)}" fill="${COLORS[j % COLORS.length]}"><title>${esc(cat)} · ${esc(s.name)}: ${(100 * v).toFixed(1)} %</title></rect>`,
      );
    });
    // Slanted labels: domain names are longer than a group of bars is wide.
    const lx = x0 + (series.length * bar) / 2;
    parts.push(`<text x="${lx}" y="${top + height + 12}" text-anchor="end" font-size="11" transform="rotate(-35 ${lx} ${top + height + 12})">${esc(cat)}</text>`);
  });
  const legend = series.map((s, j) => `<span class="key"><i style="background:${COLORS[j % COLORS.length]}"></i>${esc(s.name)}</span>`).join(' ');
  const caption = title ? `<figcaption>${esc(title)}</figcaption>` : '';
  return `<figure>${caption}<svg role="img" width="${width}" height="${top + height + labels}" viewBox="0 0 ${width} ${top + height + labels}">${parts.join('')}</svg><div class="legend">${legend}</div></figure>`;
}

/** Counts of values per bin; the last bin holds everything from the 99th percentile up. */
export function histogram(values: readonly number[], title: string, unit = 'ms', bins = 20): string {
  if (values.length === 0) return `<figure><figcaption>${esc(title)}</figcaption><p>no data</p></figure>`;
  const sorted = [...values].sort((a, b) => a - b);
  const cap = Math.max(1, sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))]);
  const step = cap / bins;
  const counts = new Array<number>(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor(v / step))]++;
  const max = Math.max(...counts);
  const bar = 22;
  const height = 140;
  const left = 30;
  const top = 10;
  const width = left + bins * bar + 10;
  const parts: string[] = [`<text x="${left - 4}" y="${top + 4}" text-anchor="end" font-size="10">${max}</text>`];
  counts.forEach((c, i) => {
    const h = max ? (c / max) * height : 0;
    const from = i * step;
    parts.push(
      `<rect x="${left + i * bar}" y="${top + height - h}" width="${bar - 2}" height="${h}" fill="${COLORS[0]}"><title>${from.toFixed(0)}–${(from + step).toFixed(0)}${i === bins - 1 ? '+' : ''} ${unit}: ${c}</title></rect>`,
    );
    if (i % 4 === 0) parts.push(`<text x="${left + i * bar}" y="${top + height + 14}" font-size="10">${from.toFixed(0)}</text>`);
  });
  parts.push(`<text x="${width - 10}" y="${top + height + 14}" text-anchor="end" font-size="10">${cap.toFixed(0)}+ ${unit}</text>`);
  parts.push(`<line x1="${left}" x2="${width}" y1="${top + height}" y2="${top + height}" stroke="#888"/>`);
  return `<figure><figcaption>${esc(title)}</figcaption><svg role="img" width="${width}" height="${top + height + 22}" viewBox="0 0 ${width} ${top + height + 22}">${parts.join('')}</svg></figure>`;
}
