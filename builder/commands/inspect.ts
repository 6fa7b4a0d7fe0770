/** `harel-builder inspect <index>`: counts, sizes, per-domain and per-language tables, samples. */
import { parseArgs } from 'node:util';
import { createError } from '../errors.ts';
import { readIndexFolder } from '../read-index-folder.ts';
import { FRAGMENT_KINDS, parseFragmentKey } from '../../widget/core/format/manifest.ts';

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

export async function inspectCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { samples: { type: 'string' }, json: { type: 'boolean' }, quiet: { type: 'boolean' } },
  });
  const [dir] = positionals;
  if (!dir) throw createError('BAD_ARGUMENT', 'inspect needs an index folder.');
  const index = await readIndexFolder(dir);
  const { manifest, chunks, documents } = index;
  if (values.json) {
    process.stdout.write(`${JSON.stringify(manifest, null, 2)}\n`);
    return 0;
  }
  const out: string[] = [];
  out.push(`index ${manifest.buildId}  format ${manifest.format} v${manifest.formatVersion}  built ${manifest.createdAt}`);
  out.push(`builder ${manifest.builderVersion}, tokenizer ${manifest.tokenizerVersion}`);
  const e = manifest.embedder;
  out.push(e ? `embedder ${e.id}${e.fixture ? ' (TEST FIXTURE, not a real embedder)' : ''}, ${e.dimensions} dims, ${e.quantization}` : 'embedder: none (BM25-only)');
  out.push(`${manifest.counts.documents} documents, ${manifest.counts.pages} pages, ${manifest.counts.chunks} chunks`);
  const r = manifest.retrieval;
  const fusion = `${r.fusion === 'rrf' ? `RRF k ${r.rrfK}` : 'min-max'} fusion, bm25Weight ${r.bm25Weight}, pools ${r.bm25Pool} BM25 / ${r.vectorPool} vector`;
  out.push(`retrieval defaults: ${fusion} (hybrid), routeMinConfidence ${r.routeMinConfidence}`);
  out.push('', 'files:');
  let total = 0;
  // A split build has hundreds of fragments: each kind is one line (count, bytes, smallest and largest).
  const split = (key: string) => {
    const kind = parseFragmentKey(key)?.kind;
    return kind !== undefined && manifest.fragments[kind] > 1 ? kind : null;
  };
  for (const [role, f] of Object.entries(manifest.files)) {
    total += f!.bytes;
    if (!split(role)) out.push(`  ${role.padEnd(10)} ${f!.path.padEnd(20)} ${kb(f!.bytes).padStart(10)} (raw ${kb(f!.rawBytes)})  sha256 ${f!.sha256.slice(0, 12)}…`);
  }
  for (const kind of FRAGMENT_KINDS) {
    const entries = Object.entries(manifest.files)
      .filter(([key]) => split(key) === kind)
      .map(([, f]) => f!);
    if (entries.length === 0) continue;
    const sizes = entries.map((f) => f.bytes);
    const bytes = sizes.reduce((a, b) => a + b, 0);
    const raw = entries.reduce((a, f) => a + f.rawBytes, 0);
    out.push(`  ${`${kind}-*`.padEnd(10)} ${`${entries.length} fragments`.padEnd(20)} ${kb(bytes).padStart(10)} (raw ${kb(raw)})  ${kb(Math.min(...sizes))}–${kb(Math.max(...sizes))} each`);
  }
  out.push(`  total ${kb(total)}, ${(total / Math.max(1, chunks.length)).toFixed(0)} bytes per chunk`);
  const { bm25 } = index;
  out.push(`bm25: ${bm25.terms} terms in a front-coded dictionary; average tokens per chunk: body ${bm25.avgFieldLength[0].toFixed(1)}, context ${bm25.avgFieldLength[1].toFixed(1)}`);
  out.push('', 'by domain:        docs  chunks');
  for (const [d, c] of Object.entries(manifest.counts.byDomain).sort()) out.push(`  ${d.padEnd(24)} ${String(c.documents).padStart(4)} ${String(c.chunks).padStart(7)}`);
  out.push('', 'by language:      docs  chunks');
  for (const [l, c] of Object.entries(manifest.counts.byLang)) out.push(`  ${l.padEnd(24)} ${String(c!.documents).padStart(4)} ${String(c!.chunks).padStart(7)}`);
  const samples = Number(values.samples ?? 3);
  if (samples > 0 && chunks.length > 0) {
    out.push('', `sample chunks (${samples}):`);
    const step = Math.max(1, Math.floor(chunks.length / samples));
    for (let n = 0, i = 0; n < samples && i < chunks.length; n++, i += step) {
      const c = chunks[i];
      const d = documents[c.doc];
      out.push(`  [${c.id}] ${d.file} p.${c.page}${c.clause ? ` §${c.clause}` : ''} ${c.sectionPath.join(' › ')} (${c.tokens} tokens)`);
      out.push(`    ${c.text.replace(/\s+/g, ' ').slice(0, 160)}`);
    }
  }
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}
