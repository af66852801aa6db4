import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** One import of a file: the file it reaches and whether it is there at run time or for types only. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  /** `import type`, `export type`, an import of types alone, or an `import('…')` type: erased when compiled. */
  readonly typeOnly: boolean;
}

/** Every `.ts` file under `folder`, relative to `root`, sorted. */
export function sourceFiles(root: string, folder: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.push(relative(root, path));
    }
  };
  walk(join(root, folder));
  return files;
}

/** The file a relative specifier names (`./x` is `x.ts` or `x/index.ts`); `undefined` for a package. */
function resolveSpecifier(root: string, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(root, dirname(from), specifier);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate)) return relative(root, candidate);
  throw new Error(`${from}: cannot resolve ${specifier}`);
}

/** Whether an import or export declaration brings in types alone. */
function declarationIsTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (clause === undefined) return false; // `import './x'`: for its effects
    if (clause.isTypeOnly) return true;
    if (clause.name !== undefined) return false;
    const bindings = clause.namedBindings;
    if (bindings === undefined || ts.isNamespaceImport(bindings)) return false;
    return bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
  }
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((element) => element.isTypeOnly);
}

/** The imports of one file, whatever their form: declarations, re-exports, `import()` calls and `import('…')` types. */
export function importsOf(root: string, file: string): ImportEdge[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.ES2022, true);
  const edges: ImportEdge[] = [];
  const add = (specifier: ts.Expression | undefined, typeOnly: boolean) => {
    if (specifier === undefined || !ts.isStringLiteralLike(specifier)) return;
    const to = resolveSpecifier(root, file, specifier.text);
    if (to !== undefined) edges.push({ from: file, to, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier, declarationIsTypeOnly(node));
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal, true);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0], false);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** The import graph of every file under `folder`. */
export function importGraph(root: string, folder: string): ImportEdge[] {
  return sourceFiles(root, folder).flatMap((file) => importsOf(root, file));
}

/**
 * The cycles of a graph: its strongly connected components of more than one file (or a file importing
 * itself), each sorted, found with Tarjan's algorithm.
 */
export function cyclesOf(edges: ReadonlyArray<ImportEdge>): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, new Set());
    if (!next.has(to)) next.set(to, new Set());
    next.get(from)?.add(to);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1 || next.get(node)?.has(node) === true) cycles.push(component.sort());
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) connect(node);
  return cycles.sort((a, b) => b.length - a.length || (a[0] as string).localeCompare(b[0] as string));
}
