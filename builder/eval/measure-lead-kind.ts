/**
 * Whether the extractive answer opens with a fact of the kind the question asks for: a deductible
 * for "מה ההשתתפות העצמית", a period for "תוך כמה זמן", an amount for "כמה". Every dev-v2 and
 * dev-v3 question whose type asks for a quantity (question-type.ts) runs through the real loop
 * on a BM25 index of the Harel corpus, as the widget answers it, and its lead is read:
 *
 *   npx tsx builder/eval/measure-lead-kind.ts [--index .tmp/harel] [--json .tmp/lead-kind.json]
 *
 * The lead is the answer's fact line (or list) when it has one, else its first quote; it is "of the
 * asked kind" when it states a fact of that kind about the term the question names (facts.ts
 * `askedFacts`). Printed per set: questions with a quantity type, leads of the asked kind, answers
 * opening with a fact line, "high" answers and those whose lead is of another kind, and how many
 * cite a page that answers (twins counted). Build the index first:
 *   npx harel-builder build ../shared/data/harel/corpus --out .tmp/harel --no-embed
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseScriptArgs } from '../../tools/script-args.ts';
import { ExtractiveEngine } from '../../widget/engines/extractive.ts';
import { askedFacts, isFactKind } from '../../widget/text/facts.ts';
import { runAnswerLoop } from '../../widget/loop/machine.ts';
import { detectQuestionType } from '../../widget/text/question-type.ts';
import { LocalSearchService } from '../../widget/search/local-search-service.ts';
import { readIndexFolder } from '../read-index-folder.ts';
import { citesGoldLenient } from './browser/answer-metrics.ts';
import { loadQuestions } from './questions.ts';
import { aliasMap, twinLookup } from './run-eval.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATA = join(ROOT, '../shared/data');
const USAGE = `usage: npx tsx builder/eval/measure-lead-kind.ts [--index <dir>] [--json <out>]
  How often the extractive answer's lead fact is of the kind the question asks for (dev-v2, dev-v3).`;

const { values } = parseScriptArgs(USAGE, { options: { index: { type: 'string', default: '.tmp/harel' }, json: { type: 'string' } } });
if (!existsSync(DATA)) throw new Error(`${DATA} is absent: the questions sit beside the repository.`);

/** The answer's opening: its fact line or list (up to the quotes' frame), else its first quote. */
export function answerLead(text: string): string {
  const lines = text.split('\n');
  const quoteAt = lines.findIndex((l) => l.startsWith('“'));
  const factLines = lines.slice(0, Math.max(0, quoteAt - 1));
  return factLines.length > 0 ? factLines.join('\n') : (lines[quoteAt] ?? '');
}

const index = await readIndexFolder(values.index);
const search = LocalSearchService.fromIndex(index);
const aliases = aliasMap(index.documents);
const twins = twinLookup(index.documents, index.chunks);
const engine = new ExtractiveEngine();
const rows: { set: string; id: string; question: string; type: string; lead: string; askedKind: boolean; factLine: boolean; confidence: string; refused: boolean; citesGold: boolean }[] = [];
for (const set of ['dev-v2', 'dev-v3']) {
  for (const q of await loadQuestions(join(DATA, `harel/questions/${set}.json`))) {
    const type = detectQuestionType(q.question);
    if (!q.answerable || !isFactKind(type)) continue;
    const answer = await runAnswerLoop({ question: q.question, history: [] }, { search, engine });
    const lead = answer.refused ? '' : answerLead(answer.text);
    const quoteAt = answer.text.split('\n').findIndex((l) => l.startsWith('“'));
    rows.push({
      set,
      id: q.id,
      question: q.question,
      type,
      lead,
      askedKind: lead !== '' && askedFacts(lead, q.question, type).length > 0,
      factLine: quoteAt > 1,
      confidence: answer.confidence,
      refused: answer.refused,
      citesGold: citesGoldLenient(answer, q.facts, aliases, twins),
    });
  }
}
for (const set of ['dev-v2', 'dev-v3']) {
  const r = rows.filter((x) => x.set === set);
  const high = r.filter((x) => x.confidence === 'high' && !x.refused);
  const wrongHigh = high.filter((x) => !x.askedKind);
  console.log(
    `${set}: ${r.length} answerable questions asking for a quantity | answered ${r.filter((x) => !x.refused).length} | lead of the asked kind ${r.filter((x) => x.askedKind).length} | opening with a fact line ${r.filter((x) => x.factLine).length} | "high" ${high.length} (citing a page that answers ${high.filter((x) => x.citesGold).length}), of them led by something else than the asked kind ${wrongHigh.length}`,
  );
}
if (values.json) await writeFile(values.json, JSON.stringify(rows, null, 1));
