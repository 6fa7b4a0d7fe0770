/**
 * Where the GGUF model writes the answer and where the extractive answerer's quotation stands
 * instead: by the question's language and type (question-type.ts). A small model earns a kind of
 * question only where, measured, its answers pass the ground check and cite a gold page at least
 * as often as quotation does on the same questions (README, "The GGUF engine": the figures and the
 * held-out check behind the gate below). The gate is data, so a larger GGUF can be given its own.
 */
import type { Lang } from '../../core/schema.ts';
import type { QuestionType } from '../../text/question-type.ts';
import type { AnswerEngine, GenerateRequest, GenerateResult } from '../engine.ts';

export interface AnswerGate {
  /** The question kinds the model answers, per language; absent or empty: quotation answers. */
  answers: Partial<Record<Lang, readonly QuestionType[] | 'all'>>;
}

/** Everything to the model: for a model measured to beat quotation everywhere, and for tests. */
export const OPEN_GATE: AnswerGate = { answers: { he: 'all', en: 'all' } };

/**
 * Gates measured per model file (the name without .gguf). A file not listed — a larger Gemma from
 * the hub — answers everything, guarded by the ground check, until it is measured.
 */
export const MEASURED_GATES: Readonly<Record<string, AnswerGate>> = {
  // Gemma 3 270M, base model (PyPI): measured on a dev-v2 and a HeQ subset (README, "The GGUF
  // engine: measured"), it passed the ground check on no question in either language — it mostly
  // repeats its instructions — while quotation cited a gold page: quotation stands everywhere.
  'gemma-3-270m-q4_k_m': { answers: {} },
};

export function gateFor(modelId: string, setting: 'measured' | 'all'): AnswerGate {
  return setting === 'all' ? OPEN_GATE : (MEASURED_GATES[modelId] ?? OPEN_GATE);
}

/** Whether the gate lets the model answer any question at all. */
export function gateAnswersAny(gate: AnswerGate): boolean {
  return Object.values(gate.answers).some((kinds) => kinds === 'all' || (kinds?.length ?? 0) > 0);
}

/** Whether the gate lets the model answer a question of `type` (the typed question's kind) in `lang`. */
export function modelAnswers(gate: AnswerGate, type: QuestionType, lang: Lang): boolean {
  const kinds = gate.answers[lang];
  if (!kinds) return false;
  return kinds === 'all' || kinds.includes(type);
}

/**
 * An engine that writes with the model where the gate lets it and quotes elsewhere. `mode` is the
 * engine of the latest answer, so the answer, the badge and the details say which one wrote it.
 */
export class GatedEngine implements AnswerEngine {
  private last: AnswerEngine;

  constructor(
    readonly model: AnswerEngine,
    readonly quotation: AnswerEngine,
    readonly gate: AnswerGate,
  ) {
    // Before the first answer the badge says who will answer: quotation under a closed gate.
    this.last = gateAnswersAny(gate) ? model : quotation;
    if (model.gradePassages) this.gradePassages = (q, p, s) => model.gradePassages!(q, p, s);
    if (model.checkSupport) this.checkSupport = (c, s) => model.checkSupport!(c, s);
  }

  readonly gradePassages?: AnswerEngine['gradePassages'];
  readonly checkSupport?: AnswerEngine['checkSupport'];

  get mode(): AnswerEngine['mode'] {
    return this.last.mode;
  }

  generate(request: GenerateRequest): Promise<GenerateResult> {
    this.last = modelAnswers(this.gate, request.reading.typed.type, request.lang) ? this.model : this.quotation;
    return this.last.generate(request);
  }
}
