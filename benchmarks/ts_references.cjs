// The TypeScript language service as the precision benchmark's independent analyzer
// (benchmarks/precision_ts.py): one JSON request on stdin, one JSON answer on stdout.
//
// Request: {"typescript": path of typescript.js, "root": the checked-out tree,
//           "files": [paths relative to root], "references": [[path, line, col], ...],
//           "goto": [[path, line, col], ...]}
// Lines count from 1, columns from 0 in UTF-16 code units (the language service's own).
// Answer:  {"references": [[[path, line, col], ...] per entry of "references"],
//           "goto": [[[path, line], ...] per entry of "goto"], "version": ts.version}
// A goto's definition in a default library is named "(default library) lib.x.d.ts", line 0.
// A position the service cannot answer for gets an empty list (and its error in "errors").
"use strict";

const fs = require("fs");
const path = require("path");

function main() {
  const request = JSON.parse(fs.readFileSync(0, "utf8"));
  const ts = require(request.typescript);
  const root = path.resolve(request.root);
  const files = request.files.map((f) => path.join(root, f));
  // The program is the files asked and the default libraries: module resolution sees no other
  // file of the tree (a declaration beside the JavaScript it declares, left out by the caller,
  // would otherwise stand for it, as `require("./a.js")` finds a.d.ts first).
  const allowed = new Set(files);
  const texts = new Map();
  const read = (file) => {
    if (!texts.has(file)) {
      const rel = path.relative(root, file);
      const outside = rel.startsWith("..") || path.isAbsolute(rel); // the default libraries
      const known = allowed.has(file) || outside || path.basename(file) === "package.json";
      texts.set(file, known && fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined);
    }
    return texts.get(file);
  };
  const options = {
    allowJs: true,
    checkJs: true,
    noImplicitThis: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    esModuleInterop: true,
    experimentalDecorators: true,
    jsx: ts.JsxEmit.Preserve,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
    skipLibCheck: true,
    maxNodeModuleJsDepth: 0,
  };
  const host = {
    getScriptFileNames: () => files,
    getScriptVersion: () => "1",
    getScriptSnapshot: (file) => {
      const text = read(file);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => root,
    getCompilationSettings: () => options,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: (file) => read(file) !== undefined,
    readFile: (file) => read(file),
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  const service = ts.createLanguageService(host, ts.createDocumentRegistry());
  const program = service.getProgram();
  const errors = [];

  const offset = (rel, line, col) => {
    const source = program.getSourceFile(path.join(root, rel));
    if (!source) throw new Error(`${rel} is not in the program`);
    return [source.fileName, ts.getPositionOfLineAndCharacter(source, line - 1, col)];
  };
  const spot = (fileName, start) => {
    const rel = path.relative(root, fileName);
    if (rel.startsWith("..") || path.isAbsolute(rel)) return null; // a default library's
    const source = program.getSourceFile(fileName);
    const lc = ts.getLineAndCharacterOfPosition(source, start);
    return [rel.split(path.sep).join("/"), lc.line + 1, lc.character];
  };

  const inComment = (fileName, start) => {
    const source = program.getSourceFile(fileName);
    if (!source) return false;
    if (ts.isInComment(source, start) !== undefined) return true;
    return ts.findAncestor(ts.getTokenAtPosition(source, start), (n) => ts.isJSDoc(n)) !== undefined;
  };

  const references = request.references.map(([rel, line, col]) => {
    try {
      const [file, pos] = offset(rel, line, col);
      const found = new Map();
      for (const group of service.findReferences(file, pos) || []) {
        // The definition's own symbol, less its declarations (overload signatures, a setter
        // beside a getter); an alias of it (an import or export specifier, a `require`
        // binding) with its uses. A group of another symbol the service relates to it (the
        // interface member a class implements, a base's member, a property of a contextual
        // type such as `PropertyDescriptor.get`) is that symbol's, not the definition's.
        // A symbol of a default library's (`PropertyDescriptor.get`, which every `get:` key of a
        // descriptor is typed by) is never the tree's.
        const own = group.references.some((r) => r.fileName === file && r.textSpan.start === pos);
        if (!own && group.definition.kind !== ts.ScriptElementKind.alias) continue;
        if (spot(group.definition.fileName, group.definition.textSpan.start) === null) continue;
        if (process.env.TS_REFERENCES_DEBUG) {
          process.stderr.write(`${rel}:${line} group ${group.definition.kind} ${group.definition.name} ` +
            `${path.relative(root, group.definition.fileName)} own=${own} n=${group.references.length}\n`);
        }
        for (const ref of group.references) {
          if (own && ref.isDefinition) continue;
          if (inComment(ref.fileName, ref.textSpan.start)) continue; // a JSDoc `{@link name}`: no code
          const s = spot(ref.fileName, ref.textSpan.start);
          if (s) found.set(s.join("\0"), s);
        }
      }
      return [...found.values()];
    } catch (exc) {
      errors.push(`references ${rel}:${line}:${col}: ${exc.message}`);
      return [];
    }
  });
  const gotos = request.goto.map(([rel, line, col]) => {
    try {
      const [file, pos] = offset(rel, line, col);
      const out = [];
      for (const d of service.getDefinitionAtPosition(file, pos) || []) {
        // A default library's definition (`Map.prototype.get`) is named too, outside the tree:
        // the site then goes to another definition, where no definition at all leaves it undecided.
        const s = spot(d.fileName, d.textSpan.start);
        out.push(s ? [s[0], s[1]] : [`(default library) ${path.basename(d.fileName)}`, 0]);
      }
      return out;
    } catch (exc) {
      errors.push(`goto ${rel}:${line}:${col}: ${exc.message}`);
      return [];
    }
  });
  process.stdout.write(JSON.stringify({ version: ts.version, references, goto: gotos, errors }));
}

main();
