/** `harel-builder search <index> "<query>"`: the shared retrieval pipeline, from the terminal. */
import { parseArgs } from 'node:util';
import { createError } from '../errors.ts';
import { Retriever, type SearchMode } from '../../widget/core/retrieval/retriever.ts';
import { positiveInt, searchMode } from '../cli/args.ts';
import { readIndexFolder } from '../read-index-folder.ts';
import { embedQuery, loadQueryEmbedder } from './query-embedder.ts';

export async function searchCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      mode: { type: 'string' },
      domain: { type: 'string' },
      k: { type: 'string' },
      'model-dir': { type: 'string' },
      'allow-remote': { type: 'boolean' },
      'no-route': { type: 'boolean' },
      collapse: { type: 'boolean' },
      explain: { type: 'boolean' },
      'no-mined': { type: 'boolean' },
      json: { type: 'boolean' },
      quiet: { type: 'boolean' },
      'query-model': { type: 'string' },
    },
  });
  const [indexDir, ...words] = positionals;
  const query = words.join(' ').trim();
  if (!indexDir || !query) throw createError('BAD_ARGUMENT', 'search needs an index folder and a query.');
  const index = await readIndexFolder(indexDir);
  const retriever = new Retriever(index);
  const defaultMode: SearchMode = index.vectors ? 'hybrid' : 'bm25';
  const mode = searchMode(values.mode, defaultMode);
  const embedder = await loadQueryEmbedder(index, { mode, modelDir: values['model-dir'], allowRemote: values['allow-remote'], queryModel: values['query-model'] });
  const queryVector = await embedQuery(embedder, query);
  const result = retriever.search(query, {
    mode,
    k: positiveInt(values.k, '--k', 10),
    domain: values.domain ?? null,
    route: !values['no-route'],
    queryVector,
    ...(values.collapse ? { collapseTwins: true } : {}),
    ...(values['no-mined'] ? { minedExpansionWeight: 0 } : {}),
  });
  await embedder?.dispose();
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ...result, queryModel: embedder?.id ?? null }, null, 2)}\n`);
    return 0;
  }
  const route = result.route ? `routed to ${result.route.domain ?? '—'} (confidence ${result.route.confidence.toFixed(2)})${result.domainFilter ? ', filtered' : ', not filtered'}` : 'no router';
  // Which model embedded the question: the index's embedder, or a question model tuned against it.
  const questions = embedder ? `; question embedded by ${embedder.id}` : '';
  process.stdout.write(`mode ${result.mode}; ${values.domain ? `domain ${values.domain}` : route}${questions}\n`);
  if (values.explain) {
    for (const e of result.expansions) process.stdout.write(`expanded "${e.matched}" → ${e.added.map((a) => `"${a}"`).join(', ')} (${e.source})\n`);
    if (result.expansions.length === 0) process.stdout.write('no lexicon expansion\n');
  }
  process.stdout.write('\n');
  for (const hit of result.hits) {
    const section = hit.sectionPath.length ? ` › ${hit.sectionPath.join(' › ')}` : '';
    const parts = [hit.bm25 !== null ? `bm25 ${hit.bm25.toFixed(2)}` : '', hit.vector !== null ? `cos ${hit.vector.toFixed(3)}` : ''].filter(Boolean).join(', ');
    process.stdout.write(`${hit.rank}. ${hit.score.toFixed(3)} (${parts}) ${hit.file} p.${hit.page}${hit.clause ? ` §${hit.clause}` : ''}\n`);
    process.stdout.write(`   ${hit.title}${section}\n`);
    process.stdout.write(`   ${hit.text.replace(/\s+/g, ' ').slice(0, 200)}\n`);
    for (const also of hit.alsoIn) process.stdout.write(`   also in: ${also.file} p.${also.page}\n`);
    for (const e of hit.editions) process.stdout.write(`   also in (${e.lang}): ${e.file} p.${e.page}\n`);
    for (const ref of hit.references ?? []) {
      process.stdout.write(`   refers to §${ref.clause} (p.${ref.page}, supporting context): ${ref.text.replace(/\s+/g, ' ').slice(0, 120)}\n`);
    }
    process.stdout.write('\n');
  }
  if (result.hits.length === 0) process.stdout.write('No passage matched.\n');
  return 0;
}
