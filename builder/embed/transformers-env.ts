/**
 * The one place that configures transformers.js in Node. Remote downloads are off unless asked
 * for: a build must not fetch 100+ MB behind the user's back, and offline machines get a clear
 * error instead of a hang.
 */
import { resolve } from 'node:path';
import { env } from '@huggingface/transformers';

export interface TransformersSettings {
  /** A folder holding `<model id>/config.json, tokenizer.json, onnx/…`. */
  modelDir?: string;
  allowRemote: boolean;
  /** Where downloaded models are cached (transformers.js's default when unset). */
  cacheDir?: string;
}

export function configureTransformers(settings: TransformersSettings): void {
  env.allowRemoteModels = settings.allowRemote;
  env.allowLocalModels = true;
  // transformers.js joins this with the model id as a path: it must end with a separator.
  if (settings.modelDir) env.localModelPath = `${resolve(settings.modelDir)}/`;
  if (settings.cacheDir) env.cacheDir = resolve(settings.cacheDir);
}
