/**
 * Import rules (`npm run lint` runs `depcruise`; docs/architecture.md draws the layers):
 * - no cycles;
 * - the widget never imports the builder; the two meet in widget/core;
 * - nothing outside demo/ (and its tests) imports demo/;
 * - tools/ (the static server, the demo-PDF writer, script options) imports nothing of the project;
 * - nothing imports experiments/ (the measurements that feed nothing shipped);
 * - the widget's layers, top to bottom: ui → session → loop → engines → search → workers → embed →
 *   store → core (with answer/ and assets.ts beside core). A layer imports its own and lower
 *   layers only;
 * - text/ (the pure reading of questions and sentences) lies under every layer and the floor's
 *   answer types: it imports only core, so every layer reads a question the same way.
 * Every exception below names the modules it allows and says why.
 */

/** The widget's layers, top first. `index.ts` (the public entry) is above them all. */
const LAYERS = ['ui', 'session', 'loop', 'engines', 'search', 'workers', 'embed', 'store'];
/** The floor every layer may import: the shared core, the answer's types, where assets are found. */
const FLOOR = '^widget/(core/|answer/|assets\\.ts$)';

/**
 * Upward imports the layering allows, each with its reason. A rule's `to.pathNot` lists them, so a
 * new upward import is still refused.
 */
const EXCEPTIONS = {
  // The search worker hosts the search layer: it runs the in-thread search service
  // (search/local-search-service.ts) and its protocol speaks the service's types.
  workers: ['^widget/search/(local-search-service|search-service)\\.ts$'],
};

function layerRules() {
  return LAYERS.map((layer, i) => {
    const above = LAYERS.slice(0, i);
    const forbidden = [...above.map((name) => `^widget/${name}/`), '^widget/index\\.ts$'];
    return {
      name: `layer-${layer}`,
      comment: `widget/${layer}/ imports only its own and lower layers (${LAYERS.slice(i + 1).join(', ')}, core), never ${above.join(', ') || 'index.ts'}`,
      severity: 'error',
      from: { path: `^widget/${layer}/` },
      to: { path: forbidden, pathNot: EXCEPTIONS[layer] ?? [] },
    };
  });
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle means two modules hold one idea between them: split the shared part out (e.g. loop/answerability-model.ts).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'widget-not-builder',
      comment: 'The widget runs in browsers and never imports the Node builder; what both need lives in widget/core.',
      severity: 'error',
      from: { path: '^widget/' },
      // No exception: the GGUF reader that the engine and `models fetch` share is widget/core/format/gguf-file.ts.
      to: { path: '^builder/' },
    },
    {
      name: 'nothing-imports-demo',
      comment: 'demo/ is the top of the house: builder/, widget/ and tools/ never import it (tests of the demo may).',
      severity: 'error',
      from: { path: '^(widget|builder|tools)/' },
      to: { path: '^demo/' },
    },
    {
      name: 'tools-are-leaves',
      comment: 'tools/ is shared by demo, builder/bench and tests: it imports nothing of the project.',
      severity: 'error',
      from: { path: '^tools/' },
      to: { path: '^(widget|builder|demo|tests)/' },
    },
    {
      name: 'nothing-imports-experiments',
      comment: 'experiments/ holds measurements nothing ships: it may import the project, never the reverse (experiments/README.md).',
      severity: 'error',
      from: { path: '^(widget|builder|demo|tools|tests)/' },
      to: { path: '^experiments/' },
    },
    ...layerRules(),
    {
      name: 'layer-floor',
      comment: 'widget/core, widget/answer and widget/assets.ts are the floor: they import no widget layer.',
      severity: 'error',
      from: { path: FLOOR },
      to: { path: [...LAYERS.map((name) => `^widget/${name}/`), '^widget/index\\.ts$'] },
    },
    {
      name: 'text-reads-only-core',
      comment: 'widget/text reads questions and sentences: pure, it imports only widget/core (no layer, no answer types, no Node).',
      severity: 'error',
      from: { path: '^widget/text/' },
      to: { path: '^widget/', pathNot: '^widget/(core|text)/' },
    },
    {
      name: 'text-no-node',
      comment: 'widget/text runs in browsers: no Node built-ins.',
      severity: 'error',
      from: { path: '^widget/text/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'core-no-node',
      comment: 'widget/core is shared with browsers: no Node built-ins.',
      severity: 'error',
      from: { path: '^widget/core/' },
      to: { dependencyTypes: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(\\.generated|\\.tmp|dist|node_modules|test-results)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
