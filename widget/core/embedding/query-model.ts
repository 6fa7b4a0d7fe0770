/**
 * Which model embeds an index's questions, and whether it may: the widget's search worker and the
 * builder's eval, search and bench decide alike. A tuned question model (builder/models/
 * e5-query-model.ts) is trained against one passage model's vectors and names it in its
 * config.json (`harel.passageModel`); against any other index its questions land in a space the
 * passages are not in, ranking quietly worse, so the pair is refused rather than used.
 */
import { createError } from '../errors.ts';
import type { EmbedderInfo } from '../format/manifest.ts';

/** The parts of a model folder's config.json read here (the stock E5 has no `role` nor `passageModel`). */
export interface QueryModelConfig {
  harel?: { queryDtype?: unknown; role?: unknown; passageModel?: unknown; adapterSha256?: unknown };
}

const QUERY_DTYPES = new Set(['q8', 'q4', 'fp32', 'q4f32', 'q4i8']);

/**
 * The question model's id: the one asked for (`--query-model`, the `query-model` attribute), else
 * the index's manifest `embedder.queryModel`, else `embedderId` (the index's embedder, or the
 * widget's `embedder` attribute that overrides it).
 */
export function queryModelOf(info: EmbedderInfo, asked?: string | null, embedderId: string = info.id): string {
  return asked || info.queryModel || embedderId;
}

/**
 * Throws QUERY_MODEL_MISMATCH unless `queryModel` embeds questions for the passages of
 * `passageModel` (the index's embedder id): its config names that model, or, naming none, it is
 * that model.
 */
export function checkQueryModelPairing(passageModel: string, queryModel: string, config: QueryModelConfig | null): void {
  const trainedAgainst = typeof config?.harel?.passageModel === 'string' ? config.harel.passageModel : queryModel;
  if (trainedAgainst !== passageModel) throw createError('QUERY_MODEL_MISMATCH', queryModel, trainedAgainst, passageModel);
}

/**
 * The file precision questions are embedded with: a question model of its own names its own (its
 * folder holds that file only), else the index's (manifest queryDtype, else dtype, else q8).
 */
export function queryDtypeOf<D extends string>(info: EmbedderInfo, queryModel: string, config: QueryModelConfig | null): D {
  const own = config?.harel?.queryDtype;
  if (queryModel !== info.id && typeof own === 'string' && QUERY_DTYPES.has(own)) return own as D;
  return (info.queryDtype ?? info.dtype ?? 'q8') as D;
}
