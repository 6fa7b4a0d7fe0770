/** Embedder ids the builder knows by name. */
export const DEFAULT_EMBEDDER = 'Xenova/multilingual-e5-small';
/** The tiny model tests/fixtures writes: a test fixture, never presented as E5. */
export const FIXTURE_EMBEDDER = 'fixture/tiny-embedder';
export const PASSAGE_PREFIX = 'passage: ';
export const QUERY_PREFIX = 'query: ';

/** Which of a model's ONNX files embeds (transformers.js's dtype): model.onnx, model_quantized.onnx, model_q4.onnx. */
export type EmbedderDtype = 'fp32' | 'q8' | 'q4';
