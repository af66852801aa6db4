/**
 * What each option of a `*Defaults` object does, read from the TSDoc the API reference is built from: the
 * option's own documentation (the property of an options type whose `@defaultValue` links the default,
 * `{@link EventStreamDefaults.appendRetry}`, or the property of that name on the options of the class or
 * function the defaults object links, `Defaults of {@link EventStream}`), and what the defaults object
 * says of its value. Nested options (`retry.backoff.initialMs`) are followed through the option's type.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { root } from './entry-points';

/** A TSDoc comment's text as one Markdown table cell: `{@link X}` as `X` in code, one line, pipes escaped. */
export function cellText(text: string): string {
  return text
    .replace(/\{@link\s+([^}|\s]+)(?:[\s|][^}]*)?\}/g, '`$1`')
    .replace(/\s+/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();
}

export interface OptionDoc {
  /** What the option does, from the options type. */
  readonly option: string;
  /** What the defaults object says of the value. */
  readonly value: string;
}

/** Where an option is documented: the property (its comment, its type) or an options type (for its members). */
interface Documented {
  readonly symbol?: ts.Symbol;
  readonly type: ts.Type;
}

export class OptionDocs {
  private readonly checker: ts.TypeChecker;
  private readonly program: ts.Program;
  /** `EventStreamDefaults.appendRetry` → the option whose comment names that default (`{@link …}` or in code). */
  private readonly linked = new Map<string, Documented>();

  constructor(entryFiles: ReadonlyArray<string>) {
    const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
    if (config === undefined) throw new Error('docs: tsconfig.json could not be read');
    this.program = ts.createProgram(entryFiles, { ...config.options, noEmit: true });
    this.checker = this.program.getTypeChecker();
    for (const source of this.program.getSourceFiles()) if (source.fileName.startsWith(join(root, 'lib'))) this.collectLinks(source);
  }

  /** Every property, interface and type alias of lib/ whose comment names a default (`{@link ProjectionDefaults.backfill}`). */
  private collectLinks(node: ts.Node): void {
    const isProperty = ts.isPropertySignature(node) || ts.isPropertyDeclaration(node);
    if (isProperty || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) {
      const symbol = (node as { symbol?: ts.Symbol }).symbol;
      const comment = ts
        .getJSDocCommentsAndTags(node)
        .map((doc) => doc.getText())
        .join('\n');
      for (const [, target = ''] of comment.matchAll(/(?:\{@link\s+|`)(\w+Defaults(?:\.\w+)+)\s*[}`]/g)) {
        if (symbol === undefined || this.linked.has(target)) continue;
        this.linked.set(
          target,
          isProperty ? { symbol, type: this.checker.getTypeOfSymbol(symbol) } : { type: this.checker.getDeclaredTypeOfSymbol(symbol) },
        );
      }
    }
    ts.forEachChild(node, (child) => this.collectLinks(child));
  }

  private text(symbol: ts.Symbol | undefined): string {
    return symbol === undefined ? '' : cellText(ts.displayPartsToString(symbol.getDocumentationComment(this.checker)));
  }

  /** A property's symbol on a type, through `undefined` and unions (the first member that has it). */
  private propertyOf(type: ts.Type | undefined, name: string): ts.Symbol | undefined {
    if (type === undefined) return undefined;
    const direct = this.checker.getNonNullableType(type);
    for (const candidate of direct.isUnion() ? direct.types : [direct]) {
      const found = this.checker.getPropertyOfType(candidate, name);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** A property's type; for a default written `{ … } satisfies Backoff`, the type it satisfies (which is documented). */
  private typeOf(symbol: ts.Symbol | undefined): ts.Type | undefined {
    if (symbol === undefined) return undefined;
    const declaration = symbol.valueDeclaration;
    if (declaration !== undefined && ts.isPropertyAssignment(declaration) && ts.isSatisfiesExpression(declaration.initializer))
      return this.checker.getTypeFromTypeNode(declaration.initializer.type);
    return this.checker.getTypeOfSymbol(symbol);
  }

  /** The options types of what the defaults object's comment links (a class's constructor parameters, a function's parameters, or the type itself), else `<Base>Options` or `<Base>Props`. */
  private linkedOptions(defaults: ts.Symbol, exports: ReadonlyArray<ts.Symbol>): ts.Type[] {
    const declaration = defaults.valueDeclaration;
    const comment =
      declaration === undefined
        ? ''
        : ts
            .getJSDocCommentsAndTags(declaration)
            .map((doc) => doc.getText())
            .join('\n');
    const linked = /\{@link\s+(\w+)\s*\}/.exec(comment)?.[1];
    const base = defaults.getName().replace(/Defaults$/, '');
    const names = [linked, `${base}Options`, `${base}Props`].filter((name): name is string => name !== undefined);
    return names.flatMap((name) => {
      const symbol = exports.find((candidate) => candidate.getName() === name);
      if (symbol === undefined) return [];
      const target = symbol.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(symbol) : symbol;
      if (target.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) return [this.checker.getDeclaredTypeOfSymbol(target)];
      const type = this.checker.getTypeOfSymbol(target);
      const signature = [...type.getConstructSignatures(), ...type.getCallSignatures()][0];
      return (signature?.getParameters() ?? []).map((parameter) => this.checker.getTypeOfSymbol(parameter));
    });
  }

  /** The option behind a path of a defaults object: the longest prefix a comment links, else the linked options, walked down. */
  private optionAt(defaultsName: string, keys: ReadonlyArray<string>, optionTypes: ReadonlyArray<ts.Type>): ts.Symbol | undefined {
    for (let length = keys.length; length > 0; length--) {
      const found = this.linked.get([defaultsName, ...keys.slice(0, length)].join('.'));
      if (found === undefined) continue;
      let symbol = found.symbol;
      let type: ts.Type | undefined = found.type;
      for (const key of keys.slice(length)) {
        symbol = this.propertyOf(type, key);
        type = this.typeOf(symbol);
      }
      if (length < keys.length || symbol !== undefined) return symbol;
    }
    for (const optionType of optionTypes) {
      let symbol: ts.Symbol | undefined;
      let type: ts.Type | undefined = optionType;
      for (const key of keys) {
        symbol = this.propertyOf(type, key);
        type = this.typeOf(symbol);
      }
      if (symbol !== undefined) return symbol;
    }
    return undefined;
  }

  /**
   * The documentation of every leaf path of a defaults object exported by an entry point's file. A leaf
   * documented nowhere takes its nearest documented parent's (`unprocessedKeys.attempts` is explained by
   * `unprocessedKeys`).
   */
  of(entryFile: string, defaultsName: string, paths: ReadonlyArray<string>): Map<string, OptionDoc> {
    const source = this.program.getSourceFile(entryFile);
    const module = source === undefined ? undefined : this.checker.getSymbolAtLocation(source);
    const exports = module === undefined ? [] : this.checker.getExportsOfModule(module);
    const exported = exports.find((symbol) => symbol.getName() === defaultsName);
    if (exported === undefined) throw new Error(`docs: ${entryFile} does not export ${defaultsName}`);
    const defaults = exported.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(exported) : exported;
    const optionTypes = this.linkedOptions(defaults, exports);
    const docOf = (keys: ReadonlyArray<string>): OptionDoc => {
      let value: ts.Symbol | undefined;
      let type = this.typeOf(defaults);
      for (const key of keys) {
        value = this.propertyOf(type, key);
        type = this.typeOf(value);
      }
      const doc = { option: this.text(this.optionAt(defaultsName, keys, optionTypes)), value: this.text(value) };
      return doc.option === '' && doc.value === '' && keys.length > 1 ? docOf(keys.slice(0, -1)) : doc;
    };
    return new Map(paths.map((path) => [path, docOf(path.split('.'))]));
  }
}
