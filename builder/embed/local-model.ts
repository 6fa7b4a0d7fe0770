/**
 * Which embedder a build uses when the command line names none: with `--model-dir`, the model
 * `harel-builder models fetch` put there (one folder holding a config.json), with the ONNX file
 * its config.json names (`transformers.js_config.dtype`); without, the hub's E5.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_EMBEDDER, type EmbedderDtype } from './defaults.ts';

/**
 * The model folders under `modelDir` (`<owner>/<name>/config.json`) that can embed passages:
 * fixtures and question-only models (config.json `harel.role` "query", builder/models/
 * e5-query-model.ts) excluded, so the tuned question model beside the stock E5 never becomes a
 * build's default embedder.
 */
const roleOf = (configText: string): unknown => {
  try {
    return (JSON.parse(configText) as { harel?: { role?: unknown } } | null)?.harel?.role;
  } catch {
    return undefined;
  }
};

export async function modelsIn(modelDir: string): Promise<string[]> {
  const found: string[] = [];
  let owners: string[];
  try {
    owners = await readdir(modelDir);
  } catch {
    return found;
  }
  for (const owner of owners.filter((o) => !o.startsWith('.') && o !== 'fixture')) {
    let names: string[];
    try {
      names = await readdir(join(modelDir, owner));
    } catch {
      continue;
    }
    for (const name of names) {
      try {
        const text = await readFile(join(modelDir, owner, name, 'config.json'), 'utf8');
        if (roleOf(text) !== 'query') found.push(`${owner}/${name}`);
      } catch {
        // not a model folder
      }
    }
  }
  return found.sort();
}

/** The dtype a model folder's config.json asks transformers.js for, if any. */
export async function configuredDtype(modelDir: string | undefined, id: string): Promise<EmbedderDtype | undefined> {
  if (!modelDir) return undefined;
  try {
    const config = JSON.parse(await readFile(join(modelDir, id, 'config.json'), 'utf8')) as { 'transformers.js_config'?: { dtype?: unknown } };
    const dtype = config['transformers.js_config']?.dtype;
    return dtype === 'q8' || dtype === 'q4' || dtype === 'fp32' ? dtype : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The file a model folder asks widgets to embed questions with (`harel.queryDtype` in its
 * config.json), if any: builder/models/e5-pypi.ts writes it for the converted E5.
 */
export async function configuredQueryDtype(modelDir: string | undefined, id: string): Promise<EmbedderDtype | 'q4f32' | 'q4i8' | undefined> {
  if (!modelDir) return undefined;
  try {
    const config = JSON.parse(await readFile(join(modelDir, id, 'config.json'), 'utf8')) as { harel?: { queryDtype?: unknown } };
    const dtype = config.harel?.queryDtype;
    return dtype === 'q8' || dtype === 'q4' || dtype === 'fp32' || dtype === 'q4f32' || dtype === 'q4i8' ? dtype : undefined;
  } catch {
    return undefined;
  }
}

/** The embedder id a build uses: the one given, else the E5 in `modelDir`, else the hub's. */
export async function defaultEmbedder(given: string | undefined, modelDir: string | undefined): Promise<string> {
  if (given) return given;
  if (modelDir) {
    const e5 = (await modelsIn(modelDir)).filter((id) => /e5/i.test(id));
    if (e5.length === 1) return e5[0];
  }
  return DEFAULT_EMBEDDER;
}
