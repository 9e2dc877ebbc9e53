"""JavaScript and TypeScript imports as fan-in, each tree indexed for real: the cases
hand-made mutants of indexer/lang/javascript/resolve.py got past, asserted as Node (checked
with node 20's `require`) and TypeScript's module resolver find the files and
docs/languages.md says."""

from __future__ import annotations

import json

from tests.indexed import import_graph


def test_a_file_comes_before_a_folder_of_the_same_name(tmp_path):
    # Node loads ./utils as a file (utils.js) before the folder's index.js; TypeScript alike
    graph = import_graph(tmp_path, {
        "utils.js": "module.exports = 'file';\n",
        "utils/index.js": "module.exports = 'dir';\n",
        "app.js": "const u = require('./utils');\n",
        "lib/ts/utils.ts": "export const u = 1;\n",
        "lib/ts/utils/index.ts": "export const u = 2;\n",
        "lib/ts/app.ts": "import { u } from './utils';\n",
    })
    assert graph.edges == {("app.js", "utils.js"), ("lib/ts/app.ts", "lib/ts/utils.ts")}
    assert graph.fan_in == {"utils.js": 1, "lib/ts/utils.ts": 1}


def test_a_typescript_source_comes_before_its_declaration(tmp_path):
    # TypeScript reads "./add.js" and "./types.d.ts" as add and types, then tries .ts, .tsx,
    # .d.ts: the source before the declaration
    graph = import_graph(tmp_path, {
        "src/add.ts": "export const add = (a: number, b: number) => a + b;\n",
        "src/add.d.ts": "export declare const add: (a: number, b: number) => number;\n",
        "src/types.ts": "export type Id = string;\n",
        "src/types.d.ts": "export type Id = string;\n",
        "src/index.ts": "import { add } from './add.js';\nimport type { Id } from './types.d.ts';\n",
    })
    assert graph.edges == {("src/index.ts", "src/add.ts"), ("src/index.ts", "src/types.ts")}
    assert graph.fan_in == {"src/add.ts": 1, "src/types.ts": 1}


def test_a_tsconfig_extends_a_config_named_without_json(tmp_path):
    # `"extends": "./tsconfig.base"` is tsconfig.base.json, whose paths the app then maps by
    graph = import_graph(tmp_path, {
        "tsconfig.base.json": json.dumps({"compilerOptions": {"baseUrl": ".", "paths": {"@app/*": ["src/*"]}}}),
        "tsconfig.json": json.dumps({"extends": "./tsconfig.base"}),
        "src/db.ts": "export const db = 1;\n",
        "src/main.ts": "import { db } from '@app/db';\n",
    })
    assert graph.edges == {("src/main.ts", "src/db.ts")}
    assert graph.fan_in == {"src/db.ts": 1}


def test_a_workspace_package_is_its_source_entry_before_its_build(tmp_path):
    # package.json's `source` names the code the tree edits; `main` its committed build
    graph = import_graph(tmp_path, {
        "packages/ui/package.json": json.dumps({"name": "@acme/ui", "main": "dist/index.js",
                                                "source": "src/index.ts"}),
        "packages/ui/src/index.ts": "export const Button = 1;\n",
        "packages/ui/dist/index.js": "exports.Button = 1;\n",
        "apps/web/main.ts": "import { Button } from '@acme/ui';\n",
    })
    assert graph.edges == {("apps/web/main.ts", "packages/ui/src/index.ts")}
    assert graph.fan_in == {"packages/ui/src/index.ts": 1}


def test_a_workspace_packages_subpath_may_live_under_its_src(tmp_path):
    graph = import_graph(tmp_path, {
        "packages/ui/package.json": json.dumps({"name": "@acme/ui"}),
        "packages/ui/src/button.ts": "export const Button = 1;\n",
        "apps/web/main.ts": "import { Button } from '@acme/ui/button';\n",
    })
    assert graph.edges == {("apps/web/main.ts", "packages/ui/src/button.ts")}
    assert graph.fan_in == {"packages/ui/src/button.ts": 1}


def test_a_copy_under_node_modules_never_takes_a_workspace_packages_name(tmp_path):
    # a committed node_modules/@acme/ui (an installed copy) sorts before packages/ui: the
    # workspace package is still what `@acme/ui` names
    graph = import_graph(tmp_path, {
        "node_modules/@acme/ui/package.json": json.dumps({"name": "@acme/ui", "main": "index.js"}),
        "node_modules/@acme/ui/index.js": "exports.Button = 0;\n",
        "packages/ui/package.json": json.dumps({"name": "@acme/ui", "main": "index.js"}),
        "packages/ui/index.js": "exports.Button = 1;\n",
        "apps/web/main.js": "const { Button } = require('@acme/ui');\n",
    })
    assert graph.edges == {("apps/web/main.js", "packages/ui/index.js")}
    assert graph.fan_in == {"packages/ui/index.js": 1}


def test_a_query_after_a_specifier_is_no_part_of_its_path(tmp_path):
    # a bundler's `?worker` / `?raw` suffix (Vite) asks for a form of the same file
    graph = import_graph(tmp_path, {
        "src/worker.ts": "self.onmessage = () => {};\n",
        "src/main.ts": "import Worker from './worker.ts?worker';\n",
    })
    assert graph.edges == {("src/main.ts", "src/worker.ts")}
    assert graph.fan_in == {"src/worker.ts": 1}


def test_a_workspace_package_without_its_entry_is_missing_not_external(tmp_path):
    graph = import_graph(tmp_path, {
        "packages/ui/package.json": json.dumps({"name": "@acme/ui", "main": "dist/index.js"}),
        "apps/web/main.ts": "import { Button } from '@acme/ui';\n",
    })
    assert graph.edges == set()
    assert graph.unresolved == {("apps/web/main.ts", "@acme/ui", "unresolved")}


def test_a_fixture_repeating_its_packages_name_takes_none_of_its_imports(tmp_path):
    # the first package.json of a name in path order is the package (packages/ui before its
    # own test fixture, which copies the name)
    graph = import_graph(tmp_path, {
        "packages/ui/package.json": json.dumps({"name": "@acme/ui", "main": "index.js"}),
        "packages/ui/index.js": "exports.Button = 1;\n",
        "packages/ui/test/fixtures/package.json": json.dumps({"name": "@acme/ui", "main": "index.js"}),
        "packages/ui/test/fixtures/index.js": "exports.Button = 0;\n",
        "apps/web/main.js": "const { Button } = require('@acme/ui');\n",
    })
    assert graph.edges == {("apps/web/main.js", "packages/ui/index.js")}
    assert graph.fan_in == {"packages/ui/index.js": 1}


def test_a_workspace_package_with_no_entry_field_is_its_src_index(tmp_path):
    graph = import_graph(tmp_path, {
        "packages/ui/package.json": json.dumps({"name": "@acme/ui", "private": True}),
        "packages/ui/src/index.ts": "export const Button = 1;\n",
        "apps/web/main.ts": "import { Button } from '@acme/ui';\n",
    })
    assert graph.edges == {("apps/web/main.ts", "packages/ui/src/index.ts")}
    assert graph.fan_in == {"packages/ui/src/index.ts": 1}


def test_a_tsx_file_imports_in_typescripts_order(tmp_path):
    # App.tsx's "./api.js" is api.ts, not the compiled api.js beside it
    graph = import_graph(tmp_path, {
        "src/api.ts": "export const get = () => 1;\n",
        "src/api.js": "export const get = () => 1;\n",
        "src/App.tsx": "import { get } from './api.js';\nexport const App = () => <div>{get()}</div>;\n",
    })
    assert graph.edges == {("src/App.tsx", "src/api.ts")}
    assert graph.fan_in == {"src/api.ts": 1}


def test_a_javascript_importer_gets_a_packages_main_as_node_loads_it(tmp_path):
    # `main` lib/index.js beside its declaration lib/index.d.ts: node's require.resolve
    # gives lib/index.js
    graph = import_graph(tmp_path, {
        "packages/ui/package.json": json.dumps({"name": "@acme/ui", "main": "lib/index.js"}),
        "packages/ui/lib/index.js": "exports.x = 'js';\n",
        "packages/ui/lib/index.d.ts": "export declare const x: string;\n",
        "apps/web/main.js": "const { x } = require('@acme/ui');\n",
    })
    assert graph.edges == {("apps/web/main.js", "packages/ui/lib/index.js")}
    assert graph.fan_in == {"packages/ui/lib/index.js": 1}


def test_a_packages_types_are_its_entry_for_typescript_and_main_for_javascript(tmp_path):
    # Node runs `main` (node's require.resolve: lib/index.js) whatever `types` says; TypeScript
    # takes `types`, and for `main` lib/index.js the declaration beside it
    graph = import_graph(tmp_path, {
        "packages/ui/package.json": json.dumps({"name": "@acme/ui", "main": "lib/index.js",
                                                "types": "lib/index.d.ts"}),
        "packages/ui/lib/index.js": "exports.x = 'js';\n",
        "packages/ui/lib/index.d.ts": "export declare const x: string;\n",
        "packages/kit/package.json": json.dumps({"name": "@acme/kit", "main": "lib/index.js"}),
        "packages/kit/lib/index.js": "exports.y = 'js';\n",
        "packages/kit/lib/index.d.ts": "export declare const y: string;\n",
        "apps/web/main.js": "const { x } = require('@acme/ui');\nconst { y } = require('@acme/kit');\n",
        "apps/web/main.ts": "import { x } from '@acme/ui';\nimport { y } from '@acme/kit';\n",
    })
    assert graph.edges == {
        ("apps/web/main.js", "packages/ui/lib/index.js"), ("apps/web/main.js", "packages/kit/lib/index.js"),
        ("apps/web/main.ts", "packages/ui/lib/index.d.ts"), ("apps/web/main.ts", "packages/kit/lib/index.d.ts")}
    assert graph.fan_in == {"packages/ui/lib/index.js": 1, "packages/kit/lib/index.js": 1,
                            "packages/ui/lib/index.d.ts": 1, "packages/kit/lib/index.d.ts": 1}


def test_a_typescript_importer_takes_the_declaration_a_package_names(tmp_path):
    # tsc with no outDir writes index.js and index.d.ts beside index.ts: `types` names the
    # declaration, which TypeScript takes as written; Node runs `main`
    graph = import_graph(tmp_path, {
        "packages/ui/package.json": json.dumps({"name": "@acme/ui", "main": "index.js", "types": "index.d.ts"}),
        "packages/ui/index.ts": "export const x = 'ts';\n",
        "packages/ui/index.js": "exports.x = 'ts';\n",
        "packages/ui/index.d.ts": "export declare const x: string;\n",
        "apps/web/main.ts": "import { x } from '@acme/ui';\n",
        "apps/web/main.js": "const { x } = require('@acme/ui');\n",
    })
    assert graph.edges == {("apps/web/main.ts", "packages/ui/index.d.ts"), ("apps/web/main.js", "packages/ui/index.js")}


def test_a_typescript_importer_finds_a_packages_subpath_in_typescripts_order(tmp_path):
    # '@acme/ui/button.js' from TypeScript is button.ts, from JavaScript the button.js beside it
    graph = import_graph(tmp_path, {
        "packages/ui/package.json": json.dumps({"name": "@acme/ui"}),
        "packages/ui/button.ts": "export const Button = 1;\n",
        "packages/ui/button.js": "export const Button = 1;\n",
        "apps/web/main.ts": "import { Button } from '@acme/ui/button.js';\n",
        "apps/web/main.js": "import { Button } from '@acme/ui/button.js';\n",
    })
    assert graph.edges == {("apps/web/main.ts", "packages/ui/button.ts"), ("apps/web/main.js", "packages/ui/button.js")}
