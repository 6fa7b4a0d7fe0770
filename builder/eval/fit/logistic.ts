/**
 * Weighted, L2-regularised logistic regression fitted by Newton's method (IRLS). Written here
 * rather than taken from a library: it is forty lines for a handful of features and a few
 * thousand rows, exact (no learning rate to tune), and deterministic, so a refit gives the same
 * coefficients; the npm machine-learning packages that fit one bring far more than this needs.
 */

export interface FittedLogistic {
  mean: number[];
  scale: number[];
  weights: number[];
  bias: number;
}

export interface FitOptions {
  /** L2 penalty on the standardised weights (not the bias). */
  l2?: number;
  iterations?: number;
}

/** Solves A x = b by Gaussian elimination with partial pivoting (A is small and symmetric positive definite). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[pivot][c])) pivot = r;
    [m[c], m[pivot]] = [m[pivot], m[c]];
    const d = m[c][c] || 1e-12;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r][c] / d;
      if (f !== 0) for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  return m.map((row, i) => row[n] / (row[i] || 1e-12));
}

export function fitLogistic(x: readonly number[][], y: readonly number[], w: readonly number[], options: FitOptions = {}): FittedLogistic {
  const l2 = options.l2 ?? 1;
  const d = x[0]?.length ?? 0;
  const total = w.reduce((s, v) => s + v, 0) || 1;
  const mean = Array.from({ length: d }, (_, j) => x.reduce((s, row, i) => s + w[i] * row[j], 0) / total);
  const scale = Array.from({ length: d }, (_, j) => Math.sqrt(x.reduce((s, row, i) => s + w[i] * (row[j] - mean[j]) ** 2, 0) / total) || 1);
  // Standardised rows with a leading 1 for the bias.
  const z = x.map((row) => [1, ...row.map((v, j) => (v - mean[j]) / scale[j])]);
  let beta = new Array(d + 1).fill(0);
  for (let it = 0; it < (options.iterations ?? 50); it++) {
    const grad = new Array(d + 1).fill(0);
    const hess = Array.from({ length: d + 1 }, () => new Array(d + 1).fill(0));
    z.forEach((row, i) => {
      const p = 1 / (1 + Math.exp(-row.reduce((s, v, j) => s + v * beta[j], 0)));
      const r = w[i] * (y[i] - p);
      const h = w[i] * p * (1 - p);
      for (let j = 0; j <= d; j++) {
        grad[j] += r * row[j];
        for (let k = j; k <= d; k++) hess[j][k] += h * row[j] * row[k];
      }
    });
    for (let j = 0; j <= d; j++) {
      for (let k = 0; k < j; k++) hess[j][k] = hess[k][j];
      if (j > 0) {
        grad[j] -= l2 * beta[j];
        hess[j][j] += l2;
      }
    }
    const step = solve(hess, grad);
    beta = beta.map((b, j) => b + step[j]);
    if (Math.max(...step.map(Math.abs)) < 1e-8) break;
  }
  return { mean, scale, weights: beta.slice(1), bias: beta[0] };
}

export function predictLogistic(model: FittedLogistic, row: readonly number[]): number {
  let s = model.bias;
  row.forEach((v, j) => (s += model.weights[j] * ((v - model.mean[j]) / (model.scale[j] || 1))));
  return 1 / (1 + Math.exp(-s));
}
