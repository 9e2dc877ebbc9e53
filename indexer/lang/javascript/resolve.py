"""JavaScript / TypeScript import specifiers -> files of the tree.

Order follows TypeScript's bundler-style resolution: relative specifiers against the
importing file; then the nearest tsconfig.json / jsconfig.json (`paths` with `*`
wildcards, then `baseUrl`); then packages of the tree itself by their package.json
`name` (workspaces). Each candidate is probed with extensions and index files.
"""

from __future__ import annotations

import posixpath
from typing import Callable, Mapping, NamedTuple

from indexer.contract.decode import decode_json, string_end
from indexer.model import BlobFacts, ImportSpec
from indexer.resolve.tree import EXTERNAL, UNRESOLVED, Outcome, TreePaths, join, normalize, parent

EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
# TypeScript sources are imported by the name of what they compile to ("./util.js" -> util.ts).
COMPILED_TO_SOURCE = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
# From a TypeScript file, a specifier naming one of these extensions is looked for without
# it, with each extension in turn, in TypeScript's own order (its module resolver): a
# declaration comes before the JavaScript it describes, so `./add.js` from index.d.ts is
# add.d.ts when the tree holds both (from a JavaScript file it is add.js).
TYPESCRIPT_ORDER = {
    **dict.fromkeys((".ts", ".d.ts", ".js"), (".ts", ".tsx", ".d.ts", ".js", ".jsx")),
    **dict.fromkeys((".tsx", ".jsx"), (".tsx", ".ts", ".d.ts", ".jsx", ".js")),
    **dict.fromkeys((".mts", ".d.mts", ".mjs"), (".mts", ".d.mts", ".mjs")),
    **dict.fromkeys((".cts", ".d.cts", ".cjs"), (".cts", ".d.cts", ".cjs")),
}
_DECLARATIONS = (".d.ts", ".d.mts", ".d.cts")
_TYPESCRIPT_FILES = (".ts", ".tsx", ".mts", ".cts")  # declaration files included
CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
# A package's entry is the first of these package.json fields naming a file: a TypeScript
# importer's, and a JavaScript importer's, which Node runs and so never takes a declaration.
ENTRY_FIELDS = ("source", "types", "typings", "module", "main")
SCRIPT_ENTRY_FIELDS = ("source", "module", "main")
# A directory imported by its path is a package to TypeScript's resolver, which reads these.
DIRECTORY_ENTRY_FIELDS = ("typings", "types", "main")


def loads_lenient(text: str) -> object:
    """JSON with // and /* */ comments and trailing commas, as tsconfig.json allows."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = string_end(text, i)
            out.append(text[i:j])
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c in "}]":
            # drop a trailing comma before a closing bracket
            k = len(out) - 1
            while k >= 0 and out[k].isspace():
                k -= 1
            if k >= 0 and out[k] == ",":
                del out[k]
            out.append(c)
            i += 1
        else:
            out.append(c)
            i += 1
    return decode_json("".join(out))


class TsConfig:
    """The `baseUrl` and `paths` in force for one config file, with `extends` followed inside the tree."""

    def __init__(self, base_dir: str | None, paths: dict[str, list[str]], paths_dir: str) -> None:
        self.base_dir = base_dir  # directory baseUrl points at, None when unset
        self.paths = paths
        self.paths_dir = paths_dir  # where `paths` targets are relative to
        # the wildcard patterns by what comes before their `*`: that part's lengths, longest
        # first, and for each such part the patterns' rest -> its place in `paths`; made on
        # first need, so a specifier costs its own length, not every pattern
        self._wild: dict[str, dict[str, int]] | None = None
        self._patterns: list[str] = []
        self._wild_lengths: list[int] = []
        self._rest_lengths: dict[str, list[int]] = {}

    def path_candidates(self, spec: str) -> list[str] | None:
        """Paths that `paths` maps a specifier to, or None when no pattern matches.
        The longest matching prefix wins, as in TypeScript (of patterns with the same, the
        first); a pattern without `*` equal to the specifier wins over all."""
        found = (spec, "") if "*" not in spec and spec in self.paths else self._wildcard(spec)
        if found is None:
            return None
        pattern, star = found
        out = []
        for target in self.paths[pattern]:
            joined = normalize(join(self.paths_dir, target.replace("*", star, 1)))
            # a target in node_modules is an installed package, which no checkout holds: it
            # claims the specifier no more than a target outside the tree does
            if joined is not None and "node_modules" not in joined.split("/"):
                out.append(joined)
        return out

    def _wildcard(self, spec: str) -> tuple[str, str] | None:
        """The wildcard pattern matching `spec` with the longest part before its `*`, and
        what its `*` stands for."""
        if self._wild is None:
            self._patterns = list(self.paths)
            self._wild = {}
            for place, pattern in enumerate(self.paths):
                if "*" in pattern:
                    pre, _, post = pattern.partition("*")
                    self._wild.setdefault(pre, {}).setdefault(post, place)
            self._wild_lengths = sorted({len(pre) for pre in self._wild}, reverse=True)
            self._rest_lengths = {pre: sorted({len(post) for post in rests}) for pre, rests in self._wild.items()}
        for length in self._wild_lengths:
            if length > len(spec) or spec[:length] not in self._wild:
                continue
            pre = spec[:length]
            rests = self._wild[pre]
            places = [rests[spec[len(spec) - n:] if n else ""] for n in self._rest_lengths[pre]
                      if n <= len(spec) - length and (spec[len(spec) - n:] if n else "") in rests]
            if places:
                pattern = self._patterns[min(places)]
                post = pattern.partition("*")[2]
                return pattern, spec[length : len(spec) - len(post)]
        return None


class _Settings(NamedTuple):
    """What configs applied in turn set (`JsResolver._load`), each later one winning where it
    sets `baseUrl` or `paths`: composed with `then`, so a config's own, with all it extends, is
    made once however many configs extend it."""

    first_here: str  # the first config's folder: `paths` are relative to it when none sets either
    base_set: bool
    base_dir: str | None  # the last `baseUrl` set, resolved (None when unset, or leaving the tree)
    paths: dict[str, list[str]] | None  # the last `paths` set; None when none is
    last_here: str | None  # the folder of the last config setting either; None when none does

    def then(self, later: _Settings) -> _Settings:
        """These settings, then `later`'s applied over them."""
        return _Settings(self.first_here, self.base_set or later.base_set,
                         later.base_dir if later.base_set else self.base_dir,
                         later.paths if later.paths is not None else self.paths,
                         later.last_here if later.last_here is not None else self.last_here)

    def config(self) -> TsConfig:
        # `paths` are relative to `baseUrl` where one is set, else to the folder of the config
        # that set either last, as TypeScript reads a config's `paths` from its own folder
        if self.last_here is None:
            paths_dir = self.first_here
        else:
            paths_dir = self.base_dir if self.base_dir is not None else self.last_here
        return TsConfig(self.base_dir, self.paths or {}, paths_dir)


class JsResolver:
    def __init__(self, tree: TreePaths, read: Callable[[str], bytes]) -> None:
        self.tree = tree
        self.read = read
        self._configs: dict[str, TsConfig | None] = {}
        self._settings: dict[str, _Settings | None] = {}  # each config's, with all it extends
        self._nearest: dict[str, TsConfig | None] = {}
        self._packages: dict[str, object] = {}
        self.workspaces = self._workspaces()

    # -- probing -------------------------------------------------------------------------
    def probe(self, stem: str, typescript: bool = False, entries: bool = True) -> str | None:
        """The file `stem` names, as an importer in TypeScript (`typescript`) or JavaScript
        would find it: a directory by its package.json's entry (`entries`), then its index."""
        tree = self.tree
        if typescript:
            named = _typescript_named(stem)
            if named is not None:
                root, order = named
                for ext in order:
                    if root + ext in tree:
                        return root + ext
        if stem in tree:
            return stem
        root, ext = posixpath.splitext(stem)
        for alt in COMPILED_TO_SOURCE.get(ext, ()):
            if root + alt in tree:
                return root + alt
        for ext in EXTENSIONS:
            if stem + ext in tree:
                return stem + ext
        if entries and join(stem, "package.json") in tree:
            hit = self._directory_entry(stem, typescript)
            if hit:
                return hit
        for ext in EXTENSIONS:
            if join(stem, "index" + ext) in tree:
                return join(stem, "index" + ext)
        return None

    def _directory_entry(self, directory: str, typescript: bool) -> str | None:
        """The file a directory holding a package.json is imported as by a path (`../hooks`):
        from TypeScript its `typings`, `types`, then `main`, as TypeScript's resolver reads them;
        from JavaScript the fields of a workspace package's entry (never a declaration). A field naming a directory finds that directory's index, never another package.json,
        so no chain of them is followed."""
        data = self._package(directory)
        if not isinstance(data, dict):
            return None
        for field in DIRECTORY_ENTRY_FIELDS if typescript else SCRIPT_ENTRY_FIELDS:
            value = data.get(field)
            stem = normalize(join(directory, value)) if isinstance(value, str) else None
            hit = stem is not None and self.probe(stem, typescript, entries=False)
            if hit:
                return hit
        return None

    # -- tsconfig ------------------------------------------------------------------------
    def _load(self, path: str) -> TsConfig | None:
        """The config at `path`, its `extends` followed inside the tree: each config it extends
        applied before it, with all they extend, an `extends` array's in the order written
        (TypeScript 5's reading), the later setting `baseUrl` or `paths` winning. The tree may
        make the chains as long and as shared as it likes: they are walked with a stack, each
        config read and composed once (`_settings`), and one on the way to itself (a cycle)
        adds nothing there."""
        if path not in self._configs:
            settings = self._settings_of(path)
            self._configs[path] = settings.config() if settings is not None else None
        return self._configs[path]

    def _settings_of(self, path: str) -> _Settings | None:
        pending: dict[str, tuple[_Settings, list[str]]] = {}  # read, waiting for what they extend
        stack = [path]
        while stack:
            at = stack[-1]
            if at in self._settings:
                stack.pop()
                continue
            if at not in pending:
                try:
                    data = loads_lenient(self.read(at).decode("utf-8", "replace"))
                except (ValueError, KeyError, OSError):
                    data = None
                if not isinstance(data, dict):
                    self._settings[at] = None
                    stack.pop()
                    continue
                extended = self._extends(at, data)
                pending[at] = (self._own(at, data), extended)
                stack.extend(e for e in reversed(extended) if e not in self._settings and e not in pending)
                continue
            own, extended = pending.pop(at)
            stack.pop()
            made: _Settings | None = None
            for e in extended:  # one still pending extends `at`: a cycle, skipped
                done = self._settings.get(e)
                if done is not None:
                    made = done if made is None else made.then(done)
            self._settings[at] = own if made is None else made.then(own)
        return self._settings[path]

    def _extends(self, path: str, data: dict) -> list[str]:
        """The configs of the tree that `path` (read as `data`) extends: a path relative to it,
        or a workspace package's file (`@repo/tsconfig/base.json`, as TypeScript finds it
        through node_modules); any other name is a package the tree does not hold."""
        ext = data.get("extends")
        out = []
        for name in [ext] if isinstance(ext, str) else ext if isinstance(ext, list) else []:
            if not isinstance(name, str):
                continue
            if name.startswith("."):
                target = normalize(join(parent(path), name))
            else:
                parts = name.split("/")
                n = 2 if name.startswith("@") else 1
                directory = self.workspaces.get("/".join(parts[:n]))
                rest = "/".join(parts[n:]) or "tsconfig.json"
                target = normalize(join(directory, rest)) if directory is not None else None
            if target and not target.endswith(".json"):
                target += ".json"
            if target is not None and target in self.tree:
                out.append(target)
        return out

    @staticmethod
    def _own(path: str, data: dict) -> _Settings:
        """What the config at `path` (read as `data`) sets itself."""
        here = parent(path)
        opts = data.get("compilerOptions")
        opts = opts if isinstance(opts, dict) else {}
        base_set = isinstance(opts.get("baseUrl"), str)
        base_dir = normalize(join(here, opts["baseUrl"])) if base_set else None
        paths = {
            k: [t for t in v if isinstance(t, str)]
            for k, v in opts["paths"].items()
            if isinstance(k, str) and isinstance(v, list)
        } if isinstance(opts.get("paths"), dict) else None
        return _Settings(here, base_set, base_dir, paths, here if base_set or paths is not None else None)

    def config_for(self, importer: str) -> TsConfig | None:
        d = parent(importer)
        chain = []
        found: TsConfig | None = None
        while True:
            if d in self._nearest:
                found = self._nearest[d]
                break
            chain.append(d)
            name = next((join(d, n) for n in CONFIG_NAMES if join(d, n) in self.tree), None)
            if name:
                found = self._load(name)
                break
            if not d:
                break
            d = parent(d)
        for c in chain:
            self._nearest[c] = found
        return found

    # -- workspaces ----------------------------------------------------------------------
    def _workspaces(self) -> dict[str, str]:
        """Package name -> directory, for package.json files of the tree outside node_modules."""
        out: dict[str, str] = {}
        for path in self.tree.by_name.get("package.json", []):
            if "node_modules/" in path:
                continue
            try:
                data = decode_json(self.read(path))
            except (ValueError, OSError):
                continue
            name = data.get("name") if isinstance(data, dict) else None
            if isinstance(name, str) and name and name not in out:
                out[name] = parent(path)
        return out

    def _workspace_entry(self, directory: str, typescript: bool) -> str | None:
        """The file a package of the tree is imported as, as the importer's language finds it:
        the first entry field naming a file (a TypeScript file's field naming a TypeScript file
        as written, any other in TypeScript's order, so `main` lib/index.js is the
        lib/index.d.ts beside it), else its index or src/index."""
        data = self._package(directory)
        # From TypeScript a package is looked for twice, as TypeScript's resolver does: its
        # fields and index as TypeScript files first, then as JavaScript, so an index.d.ts at
        # the package's root comes before a `main` lib/index.js with no declaration beside it.
        script: str | None = None
        for field in ENTRY_FIELDS if typescript else SCRIPT_ENTRY_FIELDS:
            value = data.get(field) if isinstance(data, dict) else None
            if isinstance(value, str):
                stem = normalize(join(directory, value))
                if stem is None:
                    continue
                if typescript and stem.endswith(_TYPESCRIPT_FILES) and stem in self.tree:
                    return stem
                hit = self.probe(stem, typescript)
                if hit and (not typescript or hit.endswith(_TYPESCRIPT_FILES)):
                    return hit
                script = script or hit
        for index in ("index", "src/index"):
            hit = self.probe(join(directory, index), typescript)
            if hit and (not typescript or script is None or hit.endswith(_TYPESCRIPT_FILES)):
                return hit
        return script

    def _exported(self, directory: str, subpath: str, typescript: bool) -> str | None:
        """The file a package's `exports` maps `subpath` ("." or "./x") to, as TypeScript reads
        it, before any entry field: the subpath's own key, else the `*` pattern with the longest
        part before its `*`; conditions in the order written and arrays in turn, the first target
        that is a file of the tree (a declaration, under `types` or not, from TypeScript only).
        A map naming no file of the tree (its targets built output a checkout lacks) leaves the
        package to its entry fields and folders."""
        exports = self._package_field(directory, "exports")
        if isinstance(exports, dict) and any(k.startswith(".") for k in exports):
            table: dict = exports
        elif isinstance(exports, (str, list, dict)):
            table = {".": exports}  # the package's own entry, bare or by conditions
        else:
            return None
        return self._mapped(directory, table, subpath, typescript)

    def _package_field(self, directory: str, field: str) -> object:
        data = self._package(directory)
        return data.get(field) if isinstance(data, dict) else None

    def _package(self, directory: str) -> object:
        """The package.json in `directory` as read once (None when it is no JSON): each import of
        a package asks it for its `exports`, `imports` and entry fields."""
        if directory not in self._packages:
            try:
                self._packages[directory] = decode_json(self.read(join(directory, "package.json")))
            except (ValueError, OSError):
                self._packages[directory] = None
        return self._packages[directory]

    def _imported(self, importer: str, spec: str, typescript: bool) -> str | None:
        """The file a `#` specifier names by the `imports` map of the importer's own package
        (the nearest package.json above it), read as `exports` is; `#` begins no package's name,
        so a specifier it does not map is missing, never external."""
        d = parent(importer)
        while join(d, "package.json") not in self.tree:
            if not d:
                return None
            d = parent(d)
        table = self._package_field(d, "imports")
        return self._mapped(d, table, spec, typescript) if isinstance(table, dict) else None

    def _mapped(self, directory: str, table: dict, subpath: str, typescript: bool) -> str | None:
        """The file an `exports` or `imports` map of the package at `directory` gives `subpath`."""
        star: str | None = None
        if subpath in table:
            target = table[subpath]
        else:
            best = ""
            for key in table:
                pre, wild, post = key.partition("*")
                if (wild and "*" not in post and len(pre) > len(best) and subpath.startswith(pre)
                        and subpath.endswith(post) and len(subpath) >= len(pre) + len(post)):
                    best, star = key, subpath[len(pre):len(subpath) - len(post)]
            if not best:
                return None
            target = table[best]
        # a walk in the order written, so nesting as deep as the file likes costs no recursion
        stack = [target]
        while stack:
            at = stack.pop()
            if isinstance(at, list):
                stack.extend(reversed(at))
            elif isinstance(at, dict):
                stack.extend(reversed([v for k, v in at.items() if typescript or k != "types"]))
            elif isinstance(at, str) and at.startswith("./"):
                path = normalize(join(directory, at if star is None else at.replace("*", star)))
                hit = path is not None and self.probe(path, typescript, entries=False)
                if hit and (typescript or not hit.endswith(_DECLARATIONS)):
                    return hit
        return None

    def _workspace(self, spec: str, typescript: bool) -> str | None | bool:
        parts = spec.split("/")
        n = 2 if spec.startswith("@") else 1
        name, rest = "/".join(parts[:n]), "/".join(parts[n:])
        directory = self.workspaces.get(name)
        if directory is None:
            return False
        exported = self._exported(directory, "./" + rest if rest else ".", typescript)
        if exported:
            return exported
        if not rest:
            return self._workspace_entry(directory, typescript)
        return self.probe(join(directory, rest), typescript) or self.probe(join(directory, "src", rest), typescript)

    # -- resolution ----------------------------------------------------------------------
    def resolve(self, importer: str, imp: ImportSpec) -> Outcome:
        spec = imp.spec.split("?", 1)[0]
        if not spec:
            return UNRESOLVED
        typescript = importer.endswith(_TYPESCRIPT_FILES)
        if spec.startswith((".", "/")):
            stem = normalize(join(parent(importer), spec)) if spec.startswith(".") else normalize(spec)
            hit = stem is not None and self.probe(stem, typescript)
            return (hit,) if hit else UNRESOLVED
        cfg = self.config_for(importer)
        if cfg is not None:
            mapped = cfg.path_candidates(spec)
            if mapped is not None:
                for stem in mapped:
                    hit = self.probe(stem, typescript)
                    if hit:
                        return (hit,)
            if cfg.base_dir is not None:
                hit = self.probe(join(cfg.base_dir, spec), typescript)
                if hit:
                    return (hit,)
            if mapped:
                # a `paths` pattern claimed it (an alias of this project): missing, not external
                ws = self._workspace(spec, typescript)
                return (ws,) if isinstance(ws, str) else UNRESOLVED
        if spec.startswith("#"):
            hit = self._imported(importer, spec, typescript)
            return (hit,) if hit else UNRESOLVED
        ws = self._workspace(spec, typescript)
        if isinstance(ws, str):
            return (ws,)
        return UNRESOLVED if ws is None else EXTERNAL


def _typescript_named(stem: str) -> tuple[str, tuple[str, ...]] | None:
    """(the name without its extension, what TypeScript tries in its place), when `stem`
    names an extension of TYPESCRIPT_ORDER."""
    for ext in _DECLARATIONS:
        if stem.endswith(ext):
            return stem[:-len(ext)], TYPESCRIPT_ORDER[ext]
    root, ext = posixpath.splitext(stem)
    order = TYPESCRIPT_ORDER.get(ext)
    return (root, order) if order is not None else None


def make_resolver(tree: TreePaths, facts: Mapping[str, BlobFacts], read: Callable[[str], bytes]) -> JsResolver:
    return JsResolver(tree, read)


def changes_others(name: str, before: Callable[[], BlobFacts | None], after: BlobFacts | None) -> bool:
    """Any .json may be a tsconfig's `extends` target, a tsconfig or a package.json: what
    every JS file's imports resolve by (resolve.imports.to_resolve)."""
    return name.endswith(".json")
