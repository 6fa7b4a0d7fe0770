/**
 * The one place that configures transformers.js in Node. Remote downloads are off unless asked
 * for: a build must not fetch 100+ MB behind the user's back, and offline machines get a clear
 * error instead of a hang.
 *
 * transformers.js keeps these settings in one global `env`, so every call sets all of them: an
 * earlier load's folder must not leak into a later one that did not name a folder.
 */
import { resolve, sep } from 'node:path';
import { env } from '@huggingface/transformers';

export interface TransformersSettings {
  /** A folder holding `<model id>/config.json, tokenizer.json, onnx/…`. */
  modelDir?: string;
  allowRemote: boolean;
  /** Where downloaded models are cached (transformers.js's default when unset). */
  cacheDir?: string;
}

const defaults = { localModelPath: env.localModelPath, cacheDir: env.cacheDir };

export function configureTransformers(settings: TransformersSettings): void {
  env.allowRemoteModels = settings.allowRemote;
  env.allowLocalModels = true;
  // transformers.js joins this with the model id as a path: it must end with a separator.
  env.localModelPath = settings.modelDir ? `${resolve(settings.modelDir)}${sep}` : defaults.localModelPath;
  env.cacheDir = settings.cacheDir ? resolve(settings.cacheDir) : defaults.cacheDir;
}
