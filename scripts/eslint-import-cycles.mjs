// A lint rule that refuses import cycles among the sources (design 2.3). The usual plugins need a native resolver
// whose platform packages the registry here does not serve, so `npm ci` could not install them; our imports are
// simple enough to read without one: relative `.js` specifiers that name `.ts` files.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * `import … from './x.js'` and `export … from './x.js'`, type-only ones included: they vanish at run time, but a
 * circle of types still leaves "who depends on whom" without an answer (issue 25).
 */
const IMPORT = /^(?:import|export)\s+(?:[^;]*?\sfrom\s+)?'(\.{1,2}\/[^']+)'/gm;

function sourceFiles(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

function importGraph(root) {
  const graph = new Map();
  for (const file of sourceFiles(root)) {
    const targets = [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) =>
      resolve(dirname(file), match[1].replace(/\.js$/, '.ts')),
    );
    graph.set(file, targets);
  }
  return graph;
}

/** Tarjan's strongly connected components: every file that sits on a cycle maps to the files of its cycle. */
function filesOnCycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const result = new Map();
  let next = 0;
  const visit = (file) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file), low.get(target)));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file), index.get(target)));
    }
    if (low.get(file) !== index.get(file)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) for (const each of component) result.set(each, new Set(component));
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return result;
}

let cached;

export const noImportCycles = {
  meta: {
    type: 'problem',
    schema: [{ type: 'string' }],
    messages: { cycle: 'Import cycle: {{path}} imports back into this file ({{size}} files in the cycle).' },
  },
  create(context) {
    const root = resolve(context.cwd, context.options[0] ?? 'src');
    cached ??= filesOnCycles(importGraph(root));
    const cycle = cached.get(resolve(context.filename));
    if (!cycle) return {};
    const report = (node) => {
      if (!node.source || !node.source.value.startsWith('.')) return;
      const target = resolve(dirname(context.filename), node.source.value.replace(/\.js$/, '.ts'));
      if (cycle.has(target))
        context.report({ node, messageId: 'cycle', data: { path: node.source.value, size: String(cycle.size) } });
    };
    return { ImportDeclaration: report, ExportNamedDeclaration: report, ExportAllDeclaration: report };
  },
};
