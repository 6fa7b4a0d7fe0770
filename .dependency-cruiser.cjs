/**
 * Import rules (`npm run lint` runs `depcruise`; docs/architecture.md draws the layers):
 * - no cycles;
 * - the widget never imports the builder; the two meet in widget/core;
 * - nothing outside demo/ (and its tests) imports demo/;
 * - tools/ (the static server, the demo-PDF writer, script options) imports nothing of the project;
 * - the widget's layers, top to bottom: ui → session → loop → engines → search → workers → embed →
 *   store → core (with answer/ and assets.ts beside core). A layer imports its own and lower
 *   layers only.
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
  // The extractive engine reads questions and sentences with the loop's text analysis (question
  // types, facts, clause titles, sentences, terms, the answer strings, lexical support). Those modules import
  // nothing above engines, so there is no cycle; moving them into a text-analysis layer below
  // engines would remove the exception.
  engines: ['^widget/loop/(question-type|facts|clause-title|sentences|terms|strings|ground)\\.ts$'],
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
    ...layerRules(),
    {
      name: 'layer-floor',
      comment: 'widget/core, widget/answer and widget/assets.ts are the floor: they import no widget layer.',
      severity: 'error',
      from: { path: FLOOR },
      to: { path: [...LAYERS.map((name) => `^widget/${name}/`), '^widget/index\\.ts$'] },
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
