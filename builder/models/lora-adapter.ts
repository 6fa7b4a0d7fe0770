/**
 * The reader's LoRA adapter as training/reader writes it (peft's layout): adapter_config.json
 * (rank, alpha, target modules, layers) and adapter_model.safetensors (lora_A and lora_B of each
 * adapted projection). Read here into the pairs a merge adds to a GGUF's tensors, each named by
 * the GGUF tensor it changes. Rank, alpha, targets and layers all come from the files, so another
 * run's adapter drops in unchanged.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createError } from '../errors.ts';
import { readSafetensors } from './safetensors-file.ts';

/** A Gemma projection (peft's module name) → its tensor in a llama.cpp GGUF (blk.{layer}.<name>.weight). */
export const GGUF_PROJECTION: Record<string, string> = {
  q_proj: 'attn_q',
  k_proj: 'attn_k',
  v_proj: 'attn_v',
  o_proj: 'attn_output',
  gate_proj: 'ffn_gate',
  up_proj: 'ffn_up',
  down_proj: 'ffn_down',
};

export interface LoraPair {
  /** The GGUF tensor it changes, e.g. blk.9.attn_q.weight. */
  tensor: string;
  rank: number;
  /** Input features (a row of the weight) and output features (its rows). */
  inputs: number;
  outputs: number;
  /** rank × inputs, row-major. */
  a: Float32Array;
  /** outputs × rank, row-major. */
  b: Float32Array;
}

export interface LoraAdapter {
  rank: number;
  alpha: number;
  /** What B·A is multiplied by before it is added: alpha / rank (alpha / √rank with rsLoRA). */
  scale: number;
  /** Sorted by GGUF tensor name, so a merge visits them in one order everywhere. */
  pairs: LoraPair[];
  /** sha256 of adapter_model.safetensors and of adapter_config.json: the merged file records both. */
  weightsSha256: string;
  configSha256: string;
}

export const ADAPTER_FILES = { config: 'adapter_config.json', weights: 'adapter_model.safetensors' } as const;

interface PeftConfig {
  peft_type?: unknown;
  r?: unknown;
  lora_alpha?: unknown;
  target_modules?: unknown;
  layers_to_transform?: unknown;
  use_rslora?: unknown;
  use_dora?: unknown;
  fan_in_fan_out?: unknown;
  rank_pattern?: unknown;
  alpha_pattern?: unknown;
}

const KEY = /^base_model\.model\.model\.layers\.(\d+)\.(?:self_attn|mlp)\.(\w+)\.lora_([AB])\.weight$/;

/** Reads and checks an adapter folder; READER_ADAPTER_MISSING or READER_ADAPTER_INVALID otherwise. */
export async function readLoraAdapter(folder: string): Promise<LoraAdapter> {
  const configPath = join(folder, ADAPTER_FILES.config);
  const weightsPath = join(folder, ADAPTER_FILES.weights);
  let configBytes: Buffer;
  let weightBytes: Buffer;
  try {
    [configBytes, weightBytes] = await Promise.all([readFile(configPath), readFile(weightsPath)]);
  } catch (error) {
    throw createError('READER_ADAPTER_MISSING', folder, error instanceof Error ? error.message : String(error));
  }
  let config: PeftConfig;
  try {
    config = JSON.parse(configBytes.toString('utf8')) as PeftConfig;
  } catch (error) {
    throw createError('READER_ADAPTER_INVALID', configPath, `not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseLoraAdapter(config, readSafetensors(weightBytes, weightsPath), {
    configPath,
    weightsPath,
    weightsSha256: createHash('sha256').update(weightBytes).digest('hex'),
    configSha256: createHash('sha256').update(configBytes).digest('hex'),
  });
}

export function parseLoraAdapter(
  config: PeftConfig,
  tensors: Map<string, { shape: number[]; values: Float32Array }>,
  files: { configPath: string; weightsPath: string; weightsSha256: string; configSha256: string },
): LoraAdapter {
  const badConfig = (reason: string) => createError('READER_ADAPTER_INVALID', files.configPath, reason);
  const bad = (reason: string) => createError('READER_ADAPTER_INVALID', files.weightsPath, reason);
  if (config.peft_type !== 'LORA') throw badConfig(`peft_type ${JSON.stringify(config.peft_type)}, not "LORA"`);
  const rank = config.r;
  const alpha = config.lora_alpha;
  if (!Number.isSafeInteger(rank) || (rank as number) <= 0) throw badConfig(`r ${JSON.stringify(rank)} is not a positive whole number`);
  if (typeof alpha !== 'number' || !Number.isFinite(alpha)) throw badConfig(`lora_alpha ${JSON.stringify(alpha)} is not a number`);
  // These change what the weights mean; the reader's training never sets them.
  if (config.use_dora) throw badConfig('use_dora: DoRA adapters are not merged here');
  if (config.fan_in_fan_out) throw badConfig('fan_in_fan_out: the weights are stored transposed');
  for (const key of ['rank_pattern', 'alpha_pattern'] as const) {
    const pattern = config[key];
    if (pattern && typeof pattern === 'object' && Object.keys(pattern).length) throw badConfig(`${key} is set: per-module ranks or alphas are not merged here`);
  }
  const targets = config.target_modules;
  if (!Array.isArray(targets) || !targets.length || !targets.every((t) => typeof t === 'string')) throw badConfig('target_modules is not a list of module names');
  const unknown = (targets as string[]).filter((t) => !(t in GGUF_PROJECTION));
  if (unknown.length) throw badConfig(`target_modules ${unknown.join(', ')}: only ${Object.keys(GGUF_PROJECTION).join(', ')} map to GGUF tensors`);
  const layers = config.layers_to_transform;
  if (layers !== null && layers !== undefined && !(Array.isArray(layers) && layers.every((n) => Number.isSafeInteger(n) && n >= 0))) {
    throw badConfig('layers_to_transform is neither null nor a list of layer numbers');
  }

  const halves = new Map<string, { a?: { shape: number[]; values: Float32Array }; b?: { shape: number[]; values: Float32Array }; layer: number; module: string }>();
  for (const [key, tensor] of tensors) {
    const match = KEY.exec(key);
    if (!match) throw bad(`tensor ${key} is not a LoRA weight of a Gemma projection`);
    const [, layerText, module, half] = match;
    const layer = Number(layerText);
    if (!(targets as string[]).includes(module)) throw bad(`${key}: ${module} is not among target_modules`);
    if (Array.isArray(layers) && !layers.includes(layer)) throw bad(`${key}: layer ${layer} is not among layers_to_transform`);
    const id = `${layer}.${module}`;
    const entry = halves.get(id) ?? { layer, module };
    entry[half === 'A' ? 'a' : 'b'] = tensor;
    halves.set(id, entry);
  }
  if (Array.isArray(layers)) {
    for (const layer of layers as number[]) {
      for (const module of targets as string[]) if (!halves.has(`${layer}.${module}`)) throw bad(`no LoRA weights for layer ${layer}'s ${module}, which adapter_config.json names`);
    }
  }
  if (!halves.size) throw bad('it holds no LoRA weights');
  const pairs: LoraPair[] = [];
  for (const { a, b, layer, module } of halves.values()) {
    const where = `layer ${layer}'s ${module}`;
    if (!a || !b) throw bad(`${where} has lora_${a ? 'A' : 'B'} without its lora_${a ? 'B' : 'A'}`);
    if (a.shape.length !== 2 || b.shape.length !== 2) throw bad(`${where}: lora_A ${JSON.stringify(a.shape)} and lora_B ${JSON.stringify(b.shape)} are not matrices`);
    const [rankA, inputs] = a.shape;
    const [outputs, rankB] = b.shape;
    if (rankA !== rank || rankB !== rank) throw bad(`${where}: lora_A ${JSON.stringify(a.shape)} and lora_B ${JSON.stringify(b.shape)} do not have rank ${rank}`);
    if (!inputs || !outputs) throw bad(`${where}: an empty matrix`);
    const values = [a.values, b.values];
    if (values.some((v) => v.some((x) => !Number.isFinite(x)))) throw bad(`${where}: a weight is not a finite number`);
    pairs.push({ tensor: `blk.${layer}.${GGUF_PROJECTION[module]}.weight`, rank: rank as number, inputs, outputs, a: a.values, b: b.values });
  }
  pairs.sort((x, y) => (x.tensor < y.tensor ? -1 : x.tensor > y.tensor ? 1 : 0));
  const scale = config.use_rslora ? alpha / Math.sqrt(rank as number) : alpha / (rank as number);
  return { rank: rank as number, alpha, scale, pairs, weightsSha256: files.weightsSha256, configSha256: files.configSha256 };
}
