"""Small fixture repositories with their expected facts, the spec the indexer is tested against.

`build_polyglot(path)` makes one repository holding a small, realistic project in each
language the Repo Map reads, plus the awkward entries a real tree has (binary, symlink,
submodule gitlink, vendored and generated files, a lockfile, a 2 MB file, minified JS).
`build_history(path)` makes a short linear history for incremental indexing (a 1% style
change, an addition, a rename and a deletion).

The expectations below were written by hand from the sources in this module; only the line
numbers are located mechanically, by finding a unique marker in the source text (`_at`).

Conventions the expectations follow (the indexer's contract, stated once):
- A symbol's `line` is the 1-based line of its name: for a decorated Python def or an
  annotated Java method, the `def` / signature line, not the decorator's (as ctags and
  GitHub code navigation report it; the byte span may still cover the decorators). `container` is the dotted chain of
  enclosing named definitions inside the file ("" at top level): namespaces, modules,
  classes, structs, interfaces, traits, impl targets (`impl Shape for Circle` -> "Circle").
- Expected symbols are complete for the kinds in `SYMBOL_KINDS`: compare the indexer's
  symbols filtered to those kinds. Fields, enum variants, parameters and locals are not
  part of the expectation (the indexer may record them under other kinds).
- Python: classes `class`, top-level defs `function`, defs in a class `method` (decorated
  ones too), module-level assignments `constant`. JS/TS: `function`, `class`, `method`
  (also interface method signatures), `interface`, `type` (type alias). Go: `function`,
  `method` (receiver type as container), `struct`, `interface`, `type`, `constant`.
  Rust: `function`, `method` (in impl or trait), `struct`, `enum`, `trait`, `module`
  (`mod x;`), `constant`, `macro`. Java/C#: `class`, `interface`, `enum`, `method`
  (interface methods too), C# `namespace`. C/C++: `function` (prototypes too, as the
  grammar's tags.scm captures them), `struct`, `type` (typedef), `macro` (`#define`),
  C++ `class`, `namespace`, `method` (defined inside a class body). Ruby: `module`,
  `class`, `method` (`def self.x` too). PHP: `function`, `class`, `method`. Bash: `function`.
- Edges are distinct (source, target) file pairs; an import that resolves to several
  files gives one edge each. Fan-in of a file = number of distinct other files with an
  edge to it; `fan_in` lists every code file of the fixture, zeros included.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from corpora.gitbuild import Content, Exec, Link, RepoBuilder, Submodule
from indexer.model import Dependency, EntryPoint, Package

SYMBOL_KINDS = frozenset({
    "class", "function", "method", "interface", "struct", "enum", "trait", "type",
    "module", "constant", "macro", "namespace",
})

SUBMODULE_COMMIT = "5b3f2c1a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b"
TWO_MB = 2 * 1024 * 1024


@dataclass(frozen=True, order=True)
class ExpectedSymbol:
    path: str
    name: str
    kind: str
    container: str
    line: int


@dataclass
class FixtureRepo:
    """A built fixture repository and what indexing its head must find."""

    path: Path
    commits: list[str]
    symbols: list[ExpectedSymbol] = field(default_factory=list)
    edges: set[tuple[str, str]] = field(default_factory=set)
    fan_in: dict[str, int] = field(default_factory=dict)
    entry_points: list[EntryPoint] = field(default_factory=list)
    packages: list[Package] = field(default_factory=list)
    dependencies: list[Dependency] = field(default_factory=list)
    languages: dict[str, str] = field(default_factory=dict)  # path -> language of every code file
    marks: dict[str, str] = field(default_factory=dict)  # path -> "generated" | "vendored"
    skipped: dict[str, str] = field(default_factory=dict)  # path -> reason
    files: list[str] = field(default_factory=list)  # every path of the head tree, sorted
    # history fixtures: per commit (index into `commits`), what changed against its parent
    changes: list[dict[str, str]] = field(default_factory=list)  # path -> "A" | "M" | "D"

    @property
    def head(self) -> str:
        return self.commits[-1]


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _at(files: dict[str, Content], path: str, marker: str) -> int:
    """1-based line of the only line of `path` containing `marker`."""
    content = files[path]
    text = content.data if isinstance(content, Exec) else content
    if isinstance(text, bytes):
        text = text.decode()
    if not isinstance(text, str):
        raise AssertionError(f"{path} holds no text to find {marker!r} in")
    hits = [i for i, line in enumerate(text.splitlines(), 1) if marker in line]
    if len(hits) != 1:
        raise AssertionError(f"marker {marker!r} found {len(hits)} times in {path}")
    return hits[0]


# --- the polyglot repository ------------------------------------------------------------

def _polyglot_files() -> dict[str, Content]:
    f: dict[str, Content] = {}
    f["README.md"] = _src("""
        # polyglot

        A small project in every language the Repo Map reads.
        """)
    f[".gitattributes"] = "js/src/schema.ts linguist-generated=true\n*.png binary\n"
    f[".gitmodules"] = _src("""
        [submodule "external/libfoo"]
        \tpath = external/libfoo
        \turl = https://example.invalid/libfoo.git
        """)
    f["external/libfoo"] = Submodule(SUBMODULE_COMMIT)
    f["docs/README.md"] = Link("../README.md")
    f["docs/logo.png"] = bytes.fromhex("89504e470d0a1a0a0000000d49484452") + bytes(range(256)) * 4
    f["data/words.txt"] = "".join(f"word-{i:07d}\n" for i in range(TWO_MB // 13 + 1))
    f["vendor/leftpad/index.js"] = _src("""
        'use strict';

        function leftPad(str, len, ch) {
          str = String(str);
          while (str.length < len) {
            str = (ch || ' ') + str;
          }
          return str;
        }

        module.exports = leftPad;
        """)

    # python: src layout, relative imports, console script, __main__.py, a script with a main block
    f["python/pyproject.toml"] = _src("""
        [build-system]
        requires = ["setuptools>=68"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "polyapp"
        version = "0.3.0"
        dependencies = ["requests>=2.31", "click"]

        [project.optional-dependencies]
        test = ["pytest>=8"]

        [project.scripts]
        polyapp = "app.cli:main"
        """)
    f["python/src/app/__init__.py"] = _src('''
        """polyapp: users and their storage."""

        from .models import User

        VERSION = "0.3.0"
        ''')
    f["python/src/app/__main__.py"] = _src("""
        from app.cli import main

        main()
        """)
    f["python/src/app/models.py"] = _src('''
        """Domain objects."""

        MAX_NAME = 64


        class User:
            def __init__(self, name, email):
                self.name = name
                self.email = email

            def display(self):
                return f"{self.name} <{self.email}>"

            class Meta:
                def table(self):
                    return "users"
        ''')
    f["python/src/app/service.py"] = _src("""
        from .models import MAX_NAME, User
        from .storage.db import Database


        class UserService:
            def __init__(self, db=None):
                self.db = db or Database()

            def create(self, name, email):
                user = User(self.normalize(name), email)
                self.db.save(user)
                return user

            @staticmethod
            def normalize(name):
                return name.strip()[:MAX_NAME]
        """)
    f["python/src/app/storage/__init__.py"] = ""
    f["python/src/app/storage/db.py"] = _src("""
        import sqlite3

        from ..models import User


        class Database:
            def __init__(self, path=":memory:"):
                self.path = path

            def _connect(self):
                return sqlite3.connect(self.path)

            def save(self, user: User):
                with self._connect() as conn:
                    conn.execute("insert into users values (?, ?)", (user.name, user.email))
        """)
    f["python/src/app/cli.py"] = _src("""
        import argparse
        import functools

        from app import VERSION
        from .service import UserService


        @functools.lru_cache(maxsize=None)
        def build_parser():
            parser = argparse.ArgumentParser(prog="polyapp")
            parser.add_argument("--version", action="version", version=VERSION)
            parser.add_argument("name")
            parser.add_argument("email")
            return parser


        def main(argv=None):
            args = build_parser().parse_args(argv)
            UserService().create(args.name, args.email)
            return 0
        """)
    f["python/scripts/migrate.py"] = Exec(_src("""
        #!/usr/bin/env python3
        import sys

        from app.storage.db import Database


        def migrate(path):
            Database(path)._connect().execute("create table users (name, email)")


        if __name__ == "__main__":
            migrate(sys.argv[1])
        """))
    f["python/tests/test_service.py"] = _src("""
        from app.service import UserService


        def test_create_normalizes_name():
            user = UserService().create("  ada  ", "ada@example.invalid")
            assert user.name == "ada"
        """)

    # TypeScript / JavaScript: package.json bin + main, tsconfig paths, index files, a lockfile
    f["js/package.json"] = _src("""
        {
          "name": "polyjs",
          "version": "1.2.0",
          "main": "dist/index.js",
          "bin": {
            "polyjs": "./bin/cli.js"
          },
          "dependencies": {
            "chalk": "^5.3.0",
            "react": "^18.2.0"
          },
          "devDependencies": {
            "typescript": "^5.4.0"
          }
        }
        """)
    f["js/package-lock.json"] = _src("""
        {
          "name": "polyjs",
          "version": "1.2.0",
          "lockfileVersion": 3,
          "requires": true,
          "packages": {
            "": {
              "name": "polyjs",
              "version": "1.2.0",
              "dependencies": {"chalk": "^5.3.0", "react": "^18.2.0"}
            },
            "node_modules/chalk": {
              "version": "5.3.0",
              "resolved": "https://registry.example.invalid/chalk/-/chalk-5.3.0.tgz",
              "integrity": "sha512-dLitG79d+GV1Nb/VYcCDFivJeK1hiukt9QjRNVOsUtTy1rR1YJsmpGGTZ3qJos+uw7WmWF4wUwBd9jxjocFC2w=="
            }
          }
        }
        """)
    f["js/tsconfig.json"] = _src("""
        {
          "compilerOptions": {
            "target": "ES2020",
            "module": "commonjs",
            "jsx": "react",
            "outDir": "dist",
            "baseUrl": ".",
            "paths": {
              "@core/*": ["src/core/*"]
            }
          },
          "include": ["src"]
        }
        """)
    f["js/bin/cli.js"] = Exec(_src("""
        #!/usr/bin/env node
        'use strict';

        const { run } = require('../dist/index.js');

        process.exitCode = run(process.argv.slice(2));
        """))
    f["js/src/index.ts"] = _src("""
        import chalk from "chalk";
        import { formatName, Named } from "./util";
        import { Store } from "@core/store";
        import { Button } from "./widgets";
        import type { Schema } from "./schema";

        export function run(args: string[]): number {
          const store = new Store<Named>();
          console.log(chalk.green(formatName(args[0] ?? "ada", args[1] ?? "lovelace")));
          return store.size() + Button.length;
        }

        export class App {
          schema?: Schema;

          start(): void {
            run([]);
          }
        }
        """)
    f["js/src/util.ts"] = _src("""
        export interface Named {
          display(): string;
        }

        export function formatName(first: string, last: string): string {
          return `${first} ${last}`.trim();
        }
        """)
    f["js/src/core/store.ts"] = _src("""
        import { formatName } from "../util";

        export type Key = string;

        export class Store<T> {
          private items = new Map<Key, T>();

          get(key: Key): T | undefined {
            return this.items.get(key);
          }

          put(key: Key, value: T): void {
            this.items.set(formatName(key, ""), value);
          }

          size(): number {
            return this.items.size;
          }
        }
        """)
    f["js/src/widgets/index.ts"] = _src("""
        import { Button } from "./Button";

        export { Button };
        """)
    f["js/src/widgets/Button.tsx"] = _src("""
        import React from "react";

        export function Button(props: { label: string }) {
          return <button className="poly">{props.label}</button>;
        }
        """)
    f["js/src/schema.ts"] = _src("""
        // Produced by schema-gen from schema.json.
        export interface Schema {
          version(): number;
        }
        """)
    f["js/scripts/clean.js"] = _src("""
        const fs = require('fs');
        const path = require('path');

        function clean(dir) {
          fs.rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
        }

        module.exports = { clean };
        """)
    f["js/public/app.min.js"] = (
        "!function(){" + "".join(
            f"var a{i}=function(n){{return n*{i}+a{max(i - 1, 0)}.length}};" for i in range(400)
        ) + "}();"
    )

    # Go: a module with a main package and two subpackages, one generated
    f["go/go.mod"] = _src("""
        module example.com/polygo

        go 1.22

        require github.com/google/uuid v1.6.0
        """)
    f["go/cmd/polygo/main.go"] = _src("""
        package main

        import (
        \t"fmt"

        \t"example.com/polygo/internal/store"
        \t"example.com/polygo/internal/version"
        )

        func main() {
        \ts := store.New()
        \titem := s.Put("first")
        \tfmt.Println(version.String(), item.ID)
        }
        """)
    f["go/internal/store/store.go"] = _src("""
        package store

        import "github.com/google/uuid"

        const MaxItems = 1000

        type Item struct {
        \tID   string
        \tName string
        }

        type Reader interface {
        \tGet(id string) (Item, bool)
        }

        type Store struct {
        \titems map[string]Item
        }

        func New() *Store {
        \treturn &Store{items: map[string]Item{}}
        }

        func (s *Store) Put(name string) Item {
        \tit := Item{ID: uuid.NewString(), Name: name}
        \ts.items[it.ID] = it
        \treturn it
        }

        func (s *Store) Get(id string) (Item, bool) {
        \tit, ok := s.items[id]
        \treturn it, ok
        }
        """)
    f["go/internal/version/version_gen.go"] = _src("""
        // Code generated by gen-version. DO NOT EDIT.

        package version

        const Version = "1.4.2"

        func String() string {
        \treturn "polygo " + Version
        }
        """)

    # Rust: a library crate with mod/use crate, a directory module and a bin target
    f["rust/Cargo.toml"] = _src("""
        [package]
        name = "polycrate"
        version = "0.5.1"
        edition = "2021"

        [dependencies]
        serde = "1.0"

        [dev-dependencies]
        proptest = "1.4"

        [[bin]]
        name = "polytool"
        path = "src/bin/tool.rs"
        """)
    f["rust/Cargo.lock"] = _src("""
        # This file is automatically @generated by Cargo.
        # It is not intended for manual editing.
        version = 3

        [[package]]
        name = "polycrate"
        version = "0.5.1"
        """)
    f["rust/src/lib.rs"] = _src("""
        pub mod shapes;
        pub mod util;

        pub use crate::shapes::Shape;

        pub const MAX_SIDES: usize = 12;

        pub fn describe(shape: &dyn Shape) -> String {
            format!("{} with area {:.2}", shape.name(), shape.area())
        }
        """)
    f["rust/src/util.rs"] = _src("""
        #[macro_export]
        macro_rules! square {
            ($x:expr) => {
                $x * $x
            };
        }

        pub fn clamp(value: f64, lo: f64, hi: f64) -> f64 {
            value.max(lo).min(hi)
        }
        """)
    f["rust/src/shapes/mod.rs"] = _src("""
        use crate::util::clamp;

        pub trait Shape {
            fn area(&self) -> f64;

            fn name(&self) -> String {
                String::from("shape")
            }
        }

        pub enum Kind {
            Round,
            Polygon,
        }

        pub struct Circle {
            pub radius: f64,
        }

        impl Circle {
            pub fn new(radius: f64) -> Self {
                Circle { radius: clamp(radius, 0.0, 1e6) }
            }
        }

        impl Shape for Circle {
            fn area(&self) -> f64 {
                std::f64::consts::PI * self.radius * self.radius
            }
        }
        """)
    f["rust/src/bin/tool.rs"] = _src("""
        use std::env;

        fn main() {
            let args: Vec<String> = env::args().collect();
            println!("polytool {}", args.len());
        }
        """)

    # Java: package directories, an interface, an enum, a test
    f["java/pom.xml"] = _src("""
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>com.example</groupId>
          <artifactId>polyjava</artifactId>
          <version>2.0.0</version>
          <dependencies>
            <dependency>
              <groupId>com.google.guava</groupId>
              <artifactId>guava</artifactId>
              <version>33.0.0-jre</version>
            </dependency>
            <dependency>
              <groupId>junit</groupId>
              <artifactId>junit</artifactId>
              <version>4.13.2</version>
              <scope>test</scope>
            </dependency>
          </dependencies>
        </project>
        """)
    jbase = "java/src/main/java/com/example/poly"
    f[f"{jbase}/App.java"] = _src("""
        package com.example.poly;

        import com.example.poly.model.Repository;
        import com.example.poly.model.User;
        import java.util.List;

        public class App {
            public static void main(String[] args) {
                Repository repo = new MemoryRepository();
                repo.save(User.of("ada"));
                List<User> all = repo.findAll();
                System.out.println(all.size() + " " + Status.ACTIVE);
            }
        }
        """)
    f[f"{jbase}/MemoryRepository.java"] = _src("""
        package com.example.poly;

        import com.example.poly.model.Repository;
        import com.example.poly.model.User;
        import java.util.ArrayList;
        import java.util.List;

        class MemoryRepository implements Repository {
            private final List<User> users = new ArrayList<>();

            public List<User> findAll() {
                return users;
            }

            public void save(User user) {
                users.add(user);
            }
        }
        """)
    f[f"{jbase}/Status.java"] = _src("""
        package com.example.poly;

        public enum Status {
            ACTIVE,
            DISABLED
        }
        """)
    f[f"{jbase}/model/User.java"] = _src("""
        package com.example.poly.model;

        public class User {
            private String name;

            public static User of(String name) {
                User user = new User();
                user.name = name;
                return user;
            }

            public String getName() {
                return name;
            }
        }
        """)
    f[f"{jbase}/model/Repository.java"] = _src("""
        package com.example.poly.model;

        import java.util.List;

        public interface Repository {
            List<User> findAll();

            void save(User user);
        }
        """)
    f["java/src/test/java/com/example/poly/AppTest.java"] = _src("""
        package com.example.poly;

        import com.example.poly.model.User;
        import org.junit.Test;

        public class AppTest {
            @Test
            public void userKeepsName() {
                assert User.of("ada").getName().equals("ada");
            }
        }
        """)

    # C and C++: an include dir found in the tree, a relative include, system includes
    f["c/Makefile"] = _src("""
        CFLAGS = -Iinclude -Wall

        poly: src/main.c src/vec.c
        \t$(CC) $(CFLAGS) -o $@ $^ -lm
        """)
    f["c/include/poly/vec.h"] = _src("""
        #pragma once

        #define VEC_EPSILON 1e-9

        struct Vec {
            double x;
            double y;
        };

        typedef struct Vec vec_t;

        double vec_len(vec_t v);
        """)
    f["c/src/config.h"] = _src("""
        #pragma once

        #define POLY_VERSION "0.9"
        """)
    f["c/src/vec.c"] = _src("""
        #include <math.h>

        #include "poly/vec.h"

        static double square(double a) {
            return a * a;
        }

        double vec_len(vec_t v) {
            return sqrt(square(v.x) + square(v.y));
        }
        """)
    f["c/src/main.c"] = _src("""
        #include <stdio.h>

        #include "config.h"
        #include "poly/vec.h"

        int main(void) {
            vec_t v = {3.0, 4.0};
            printf("poly %s %f\\n", POLY_VERSION, vec_len(v));
            return 0;
        }
        """)
    f["c/src/polygon.cpp"] = _src("""
        #include <vector>

        #include "poly/vec.h"

        namespace poly {

        class Polygon {
          public:
            void add(vec_t v) {
                points_.push_back(v);
            }

            double perimeter() const {
                double total = 0;
                for (const auto& p : points_) total += vec_len(p);
                return total;
            }

          private:
            std::vector<vec_t> points_;
        };

        }  // namespace poly
        """)

    # C#, Ruby, PHP, Bash: one small file each (no cross-file imports to resolve)
    f["csharp/Poly/Poly.csproj"] = _src("""
        <Project Sdk="Microsoft.NET.Sdk">
          <PropertyGroup>
            <TargetFramework>net8.0</TargetFramework>
          </PropertyGroup>
        </Project>
        """)
    f["csharp/Poly/Greeter.cs"] = _src("""
        using System;

        namespace Poly
        {
            public interface IGreeter
            {
                string Greet(string name);
            }

            public class Greeter : IGreeter
            {
                public string Greet(string name)
                {
                    return $"Hello, {name}";
                }

                public static void Main(string[] args)
                {
                    Console.WriteLine(new Greeter().Greet("ada"));
                }
            }
        }
        """)
    f["ruby/lib/poly/formatter.rb"] = _src("""
        require "json"

        module Poly
          class Formatter
            def initialize(prefix)
              @prefix = prefix
            end

            def format(text)
              JSON.generate({ @prefix => text })
            end

            def self.default
              new("poly")
            end
          end
        end
        """)
    f["php/src/Greeter.php"] = _src("""
        <?php

        function greet(string $name): string
        {
            return (new Greeter())->hello($name);
        }

        class Greeter
        {
            public function hello(string $name): string
            {
                return "Hello, " . $name;
            }
        }
        """)
    f["scripts/release.sh"] = Exec(_src("""
        #!/usr/bin/env bash
        set -euo pipefail

        log() {
          echo "[release] $*" >&2
        }

        build_all() {
          log "building"
          make -C c poly
        }

        build_all "$@"
        """))
    f["scripts/deploy"] = Exec(_src("""
        #!/bin/bash
        # Deploy the built artefacts.

        function deploy_main {
          echo "deploying $1"
        }

        deploy_main "${1:-staging}"
        """))
    return f


def _polyglot_expected(f: dict[str, Content]) -> dict:
    S = ExpectedSymbol

    def sym(path: str, name: str, kind: str, container: str, marker: str) -> ExpectedSymbol:
        return S(path, name, kind, container, _at(f, path, marker))

    py = "python/src/app"
    jb = "java/src/main/java/com/example/poly"
    symbols = [
        # python
        sym(f"{py}/__init__.py", "VERSION", "constant", "", "VERSION ="),
        sym(f"{py}/models.py", "MAX_NAME", "constant", "", "MAX_NAME ="),
        sym(f"{py}/models.py", "User", "class", "", "class User"),
        sym(f"{py}/models.py", "__init__", "method", "User", "def __init__"),
        sym(f"{py}/models.py", "display", "method", "User", "def display"),
        sym(f"{py}/models.py", "Meta", "class", "User", "class Meta"),
        sym(f"{py}/models.py", "table", "method", "User.Meta", "def table"),
        sym(f"{py}/service.py", "UserService", "class", "", "class UserService"),
        sym(f"{py}/service.py", "__init__", "method", "UserService", "def __init__"),
        sym(f"{py}/service.py", "create", "method", "UserService", "def create"),
        sym(f"{py}/service.py", "normalize", "method", "UserService", "def normalize"),
        sym(f"{py}/storage/db.py", "Database", "class", "", "class Database"),
        sym(f"{py}/storage/db.py", "__init__", "method", "Database", "def __init__"),
        sym(f"{py}/storage/db.py", "_connect", "method", "Database", "def _connect"),
        sym(f"{py}/storage/db.py", "save", "method", "Database", "def save"),
        sym(f"{py}/cli.py", "build_parser", "function", "", "def build_parser"),
        sym(f"{py}/cli.py", "main", "function", "", "def main"),
        sym("python/scripts/migrate.py", "migrate", "function", "", "def migrate"),
        sym("python/tests/test_service.py", "test_create_normalizes_name", "function", "", "def test_"),
        # js / ts
        sym("vendor/leftpad/index.js", "leftPad", "function", "", "function leftPad"),
        sym("js/src/index.ts", "run", "function", "", "export function run"),
        sym("js/src/index.ts", "App", "class", "", "class App"),
        sym("js/src/index.ts", "start", "method", "App", "start(): void"),
        sym("js/src/util.ts", "Named", "interface", "", "interface Named"),
        sym("js/src/util.ts", "display", "method", "Named", "display(): string"),
        sym("js/src/util.ts", "formatName", "function", "", "function formatName"),
        sym("js/src/core/store.ts", "Key", "type", "", "type Key"),
        sym("js/src/core/store.ts", "Store", "class", "", "class Store"),
        sym("js/src/core/store.ts", "get", "method", "Store", "get(key: Key)"),
        sym("js/src/core/store.ts", "put", "method", "Store", "put(key: Key"),
        sym("js/src/core/store.ts", "size", "method", "Store", "size(): number"),
        sym("js/src/widgets/Button.tsx", "Button", "function", "", "function Button"),
        sym("js/src/schema.ts", "Schema", "interface", "", "interface Schema"),
        sym("js/src/schema.ts", "version", "method", "Schema", "version(): number"),
        sym("js/scripts/clean.js", "clean", "function", "", "function clean"),
        # go
        sym("go/cmd/polygo/main.go", "main", "function", "", "func main"),
        sym("go/internal/store/store.go", "MaxItems", "constant", "", "const MaxItems"),
        sym("go/internal/store/store.go", "Item", "struct", "", "type Item struct"),
        sym("go/internal/store/store.go", "Reader", "interface", "", "type Reader interface"),
        sym("go/internal/store/store.go", "Get", "method", "Reader", "\tGet(id string)"),
        sym("go/internal/store/store.go", "Store", "struct", "", "type Store struct"),
        sym("go/internal/store/store.go", "New", "function", "", "func New"),
        sym("go/internal/store/store.go", "Put", "method", "Store", "func (s *Store) Put"),
        sym("go/internal/store/store.go", "Get", "method", "Store", "func (s *Store) Get"),
        sym("go/internal/version/version_gen.go", "Version", "constant", "", "const Version"),
        sym("go/internal/version/version_gen.go", "String", "function", "", "func String"),
        # rust
        sym("rust/src/lib.rs", "shapes", "module", "", "pub mod shapes"),
        sym("rust/src/lib.rs", "util", "module", "", "pub mod util"),
        sym("rust/src/lib.rs", "MAX_SIDES", "constant", "", "MAX_SIDES"),
        sym("rust/src/lib.rs", "describe", "function", "", "fn describe"),
        sym("rust/src/util.rs", "square", "macro", "", "macro_rules! square"),
        sym("rust/src/util.rs", "clamp", "function", "", "fn clamp"),
        sym("rust/src/shapes/mod.rs", "Shape", "trait", "", "pub trait Shape"),
        sym("rust/src/shapes/mod.rs", "area", "method", "Shape", "fn area(&self) -> f64;"),
        sym("rust/src/shapes/mod.rs", "name", "method", "Shape", "fn name(&self)"),
        sym("rust/src/shapes/mod.rs", "Kind", "enum", "", "pub enum Kind"),
        sym("rust/src/shapes/mod.rs", "Circle", "struct", "", "pub struct Circle"),
        sym("rust/src/shapes/mod.rs", "new", "method", "Circle", "pub fn new"),
        sym("rust/src/shapes/mod.rs", "area", "method", "Circle", "fn area(&self) -> f64 {"),
        sym("rust/src/bin/tool.rs", "main", "function", "", "fn main"),
        # java
        sym(f"{jb}/App.java", "App", "class", "", "public class App"),
        sym(f"{jb}/App.java", "main", "method", "App", "void main("),
        sym(f"{jb}/MemoryRepository.java", "MemoryRepository", "class", "", "class MemoryRepository"),
        sym(f"{jb}/MemoryRepository.java", "findAll", "method", "MemoryRepository", "findAll()"),
        sym(f"{jb}/MemoryRepository.java", "save", "method", "MemoryRepository", "void save("),
        sym(f"{jb}/Status.java", "Status", "enum", "", "enum Status"),
        sym(f"{jb}/model/User.java", "User", "class", "", "public class User"),
        sym(f"{jb}/model/User.java", "of", "method", "User", "User of("),
        sym(f"{jb}/model/User.java", "getName", "method", "User", "getName()"),
        sym(f"{jb}/model/Repository.java", "Repository", "interface", "", "interface Repository"),
        sym(f"{jb}/model/Repository.java", "findAll", "method", "Repository", "findAll()"),
        sym(f"{jb}/model/Repository.java", "save", "method", "Repository", "void save("),
        sym("java/src/test/java/com/example/poly/AppTest.java", "AppTest", "class", "", "class AppTest"),
        sym("java/src/test/java/com/example/poly/AppTest.java", "userKeepsName", "method", "AppTest", "userKeepsName"),
        # c / c++
        sym("c/include/poly/vec.h", "VEC_EPSILON", "macro", "", "#define VEC_EPSILON"),
        sym("c/include/poly/vec.h", "Vec", "struct", "", "struct Vec {"),
        sym("c/include/poly/vec.h", "vec_t", "type", "", "typedef"),
        sym("c/include/poly/vec.h", "vec_len", "function", "", "vec_len"),
        sym("c/src/config.h", "POLY_VERSION", "macro", "", "#define POLY_VERSION"),
        sym("c/src/vec.c", "square", "function", "", "static double square"),
        sym("c/src/vec.c", "vec_len", "function", "", "double vec_len"),
        sym("c/src/main.c", "main", "function", "", "int main"),
        sym("c/src/polygon.cpp", "poly", "namespace", "", "namespace poly {"),
        sym("c/src/polygon.cpp", "Polygon", "class", "poly", "class Polygon"),
        sym("c/src/polygon.cpp", "add", "method", "poly.Polygon", "void add("),
        sym("c/src/polygon.cpp", "perimeter", "method", "poly.Polygon", "double perimeter()"),
        # c#
        sym("csharp/Poly/Greeter.cs", "Poly", "namespace", "", "namespace Poly"),
        sym("csharp/Poly/Greeter.cs", "IGreeter", "interface", "Poly", "interface IGreeter"),
        sym("csharp/Poly/Greeter.cs", "Greet", "method", "Poly.IGreeter", "string Greet(string name);"),
        sym("csharp/Poly/Greeter.cs", "Greeter", "class", "Poly", "public class Greeter"),
        sym("csharp/Poly/Greeter.cs", "Greet", "method", "Poly.Greeter", "public string Greet("),
        sym("csharp/Poly/Greeter.cs", "Main", "method", "Poly.Greeter", "static void Main"),
        # ruby
        sym("ruby/lib/poly/formatter.rb", "Poly", "module", "", "module Poly"),
        sym("ruby/lib/poly/formatter.rb", "Formatter", "class", "Poly", "class Formatter"),
        sym("ruby/lib/poly/formatter.rb", "initialize", "method", "Poly.Formatter", "def initialize"),
        sym("ruby/lib/poly/formatter.rb", "format", "method", "Poly.Formatter", "def format"),
        sym("ruby/lib/poly/formatter.rb", "default", "method", "Poly.Formatter", "def self.default"),
        # php
        sym("php/src/Greeter.php", "greet", "function", "", "function greet"),
        sym("php/src/Greeter.php", "Greeter", "class", "", "class Greeter"),
        sym("php/src/Greeter.php", "hello", "method", "Greeter", "function hello"),
        # bash
        sym("scripts/release.sh", "log", "function", "", "log() {"),
        sym("scripts/release.sh", "build_all", "function", "", "build_all() {"),
        sym("scripts/deploy", "deploy_main", "function", "", "function deploy_main"),
    ]

    edges = {
        # python
        (f"{py}/__init__.py", f"{py}/models.py"),            # from .models import User
        (f"{py}/__main__.py", f"{py}/cli.py"),               # from app.cli import main (src layout)
        (f"{py}/service.py", f"{py}/models.py"),             # from .models import ...
        (f"{py}/service.py", f"{py}/storage/db.py"),         # from .storage.db import Database
        (f"{py}/storage/db.py", f"{py}/models.py"),          # from ..models import User
        (f"{py}/cli.py", f"{py}/__init__.py"),               # from app import VERSION (a name, not a module)
        (f"{py}/cli.py", f"{py}/service.py"),                # from .service import UserService
        ("python/scripts/migrate.py", f"{py}/storage/db.py"),
        ("python/tests/test_service.py", f"{py}/service.py"),
        # ts
        ("js/src/index.ts", "js/src/util.ts"),               # ./util -> .ts
        ("js/src/index.ts", "js/src/core/store.ts"),         # @core/* via tsconfig paths
        ("js/src/index.ts", "js/src/widgets/index.ts"),      # ./widgets -> index file
        ("js/src/index.ts", "js/src/schema.ts"),             # import type
        ("js/src/core/store.ts", "js/src/util.ts"),          # ../util
        ("js/src/widgets/index.ts", "js/src/widgets/Button.tsx"),
        # go: module path from go.mod, package dirs
        ("go/cmd/polygo/main.go", "go/internal/store/store.go"),
        ("go/cmd/polygo/main.go", "go/internal/version/version_gen.go"),
        # rust
        ("rust/src/lib.rs", "rust/src/shapes/mod.rs"),       # mod shapes; + use crate::shapes::Shape
        ("rust/src/lib.rs", "rust/src/util.rs"),             # mod util;
        ("rust/src/shapes/mod.rs", "rust/src/util.rs"),      # use crate::util::clamp
        # java
        (f"{jb}/App.java", f"{jb}/model/Repository.java"),
        (f"{jb}/App.java", f"{jb}/model/User.java"),
        (f"{jb}/MemoryRepository.java", f"{jb}/model/Repository.java"),
        (f"{jb}/MemoryRepository.java", f"{jb}/model/User.java"),
        ("java/src/test/java/com/example/poly/AppTest.java", f"{jb}/model/User.java"),
        # c / c++
        ("c/src/vec.c", "c/include/poly/vec.h"),             # include dir found in the tree
        ("c/src/main.c", "c/include/poly/vec.h"),
        ("c/src/main.c", "c/src/config.h"),                  # relative to the including file
        ("c/src/polygon.cpp", "c/include/poly/vec.h"),
    }

    languages = {
        f"{py}/__init__.py": "python", f"{py}/__main__.py": "python", f"{py}/models.py": "python",
        f"{py}/service.py": "python", f"{py}/storage/__init__.py": "python",
        f"{py}/storage/db.py": "python", f"{py}/cli.py": "python",
        "python/scripts/migrate.py": "python", "python/tests/test_service.py": "python",
        "vendor/leftpad/index.js": "javascript", "js/bin/cli.js": "javascript",
        "js/scripts/clean.js": "javascript", "js/public/app.min.js": "javascript",
        "js/src/index.ts": "typescript", "js/src/util.ts": "typescript",
        "js/src/core/store.ts": "typescript", "js/src/widgets/index.ts": "typescript",
        "js/src/schema.ts": "typescript", "js/src/widgets/Button.tsx": "tsx",
        "go/cmd/polygo/main.go": "go", "go/internal/store/store.go": "go",
        "go/internal/version/version_gen.go": "go",
        "rust/src/lib.rs": "rust", "rust/src/util.rs": "rust", "rust/src/shapes/mod.rs": "rust",
        "rust/src/bin/tool.rs": "rust",
        f"{jb}/App.java": "java", f"{jb}/MemoryRepository.java": "java", f"{jb}/Status.java": "java",
        f"{jb}/model/User.java": "java", f"{jb}/model/Repository.java": "java",
        "java/src/test/java/com/example/poly/AppTest.java": "java",
        "c/include/poly/vec.h": "c", "c/src/config.h": "c", "c/src/vec.c": "c", "c/src/main.c": "c",
        "c/src/polygon.cpp": "cpp",
        "csharp/Poly/Greeter.cs": "csharp",
        "ruby/lib/poly/formatter.rb": "ruby",
        "php/src/Greeter.php": "php",
        "scripts/release.sh": "bash", "scripts/deploy": "bash",  # the latter by its shebang
    }
    fan_in = {p: 0 for p in languages}
    for target in {t for _, t in edges}:
        fan_in[target] = len({s for s, t in edges if t == target and s != target})

    entry_points = [
        EntryPoint("polyapp", "console_script", f"{py}/cli.py", "app.cli:main", "python/pyproject.toml"),
        EntryPoint("app", "python_main_file", f"{py}/__main__.py", "", ""),
        EntryPoint("migrate", "python_main_block", "python/scripts/migrate.py", "", ""),
        EntryPoint("polyjs", "npm_bin", "js/bin/cli.js", "./bin/cli.js", "js/package.json"),
        # main names build output that is not in the tree: declared, resolves to no file
        EntryPoint("polyjs", "npm_main", "", "dist/index.js", "js/package.json"),
        EntryPoint("polygo", "go_main", "go/cmd/polygo/main.go", "", ""),
        EntryPoint("polytool", "rust_bin", "rust/src/bin/tool.rs", "src/bin/tool.rs", "rust/Cargo.toml"),
    ]
    packages = [
        Package("polyapp", "0.3.0", "pypi", "python/pyproject.toml"),
        Package("polyjs", "1.2.0", "npm", "js/package.json"),
        Package("example.com/polygo", "", "go", "go/go.mod"),
        Package("polycrate", "0.5.1", "cargo", "rust/Cargo.toml"),
        Package("com.example:polyjava", "2.0.0", "maven", "java/pom.xml"),
    ]
    dependencies = [
        Dependency("requests", ">=2.31", "runtime", "pypi", "python/pyproject.toml", "polyapp"),
        Dependency("click", "", "runtime", "pypi", "python/pyproject.toml", "polyapp"),
        Dependency("pytest", ">=8", "optional", "pypi", "python/pyproject.toml", "polyapp"),
        Dependency("chalk", "^5.3.0", "runtime", "npm", "js/package.json", "polyjs"),
        Dependency("react", "^18.2.0", "runtime", "npm", "js/package.json", "polyjs"),
        Dependency("typescript", "^5.4.0", "dev", "npm", "js/package.json", "polyjs"),
        Dependency("github.com/google/uuid", "v1.6.0", "runtime", "go", "go/go.mod", "example.com/polygo"),
        Dependency("go", "1.22", "toolchain", "go", "go/go.mod", "example.com/polygo"),  # the `go` line
        Dependency("serde", "1.0", "runtime", "cargo", "rust/Cargo.toml", "polycrate"),
        Dependency("proptest", "1.4", "dev", "cargo", "rust/Cargo.toml", "polycrate"),
        Dependency("com.google.guava:guava", "33.0.0-jre", "runtime", "maven", "java/pom.xml",
                   "com.example:polyjava"),
        Dependency("junit:junit", "4.13.2", "test", "maven", "java/pom.xml", "com.example:polyjava"),
    ]
    marks = {
        "vendor/leftpad/index.js": "vendored",
        "js/public/app.min.js": "vendored",  # linguist's vendor rule for *.min.js (it is also skipped: minified)
        "go/internal/version/version_gen.go": "generated",  # header: Code generated ... DO NOT EDIT
        "js/src/schema.ts": "generated",  # .gitattributes linguist-generated
        "js/package-lock.json": "generated",  # lockfile
        "rust/Cargo.lock": "generated",  # lockfile (and its @generated header)
    }
    skipped = {
        "docs/logo.png": "binary",
        "data/words.txt": "too_large",
        "js/public/app.min.js": "minified",
        "docs/README.md": "symlink",
        "external/libfoo": "submodule",
    }
    return dict(symbols=sorted(symbols), edges=edges, fan_in=fan_in, entry_points=entry_points,
                packages=packages, dependencies=dependencies, languages=languages, marks=marks,
                skipped=skipped)


def polyglot_files() -> dict[str, Content]:
    """The polyglot tree as path -> content (for tests that want to vary it)."""
    return _polyglot_files()


def build_polyglot(path: str | Path) -> FixtureRepo:
    """One commit holding the polyglot tree, on `main`, tagged `v1`."""
    files = _polyglot_files()
    builder = RepoBuilder(path)
    oid = builder.commit(files, message="polyglot fixture")
    builder.tag("v1", oid)
    return FixtureRepo(path=Path(path), commits=[oid], files=sorted(files), **_polyglot_expected(files))


# --- the history repository ----------------------------------------------------------------

HISTORY_MODULES = 100


def _history_module(i: int, styled: bool = False) -> str:
    """A module using the shared core; `styled` is the same code after a formatter pass."""
    if styled:
        return _src(f'''
            """Handler number {i}."""
            from pkg import core


            def handle_{i:03d}(request):
                """Handle one request."""
                return core.dispatch(request, {i})


            class Handler{i:03d}:
                def run(self, request):
                    return handle_{i:03d}(request)
            ''')
    return _src(f"""
        from pkg import core

        def handle_{i:03d}(request):
            return core.dispatch(request,{i})

        class Handler{i:03d}:
            def run(self,request):
                return handle_{i:03d}(request)
        """)


def _history_core(extra: bool = False) -> str:
    text = _src("""
        ROUTES = {}


        def dispatch(request, number):
            return ROUTES.get(number, request)
        """)
    if extra:
        text += _src("""


            def register(number, handler):
                ROUTES[number] = handler
            """)
    return text


def build_history(path: str | Path) -> FixtureRepo:
    """A 100-module Python package and four follow-up commits:

    c1: a 1% style change (`pkg/mod_007.py` reformatted: docstrings, blank lines; same symbols)
    c2: `pkg/core.py` gains `register`, `pkg/extra.py` is added (imports core)
    c3: `pkg/mod_050.py` renamed to `pkg/handlers/mod_050.py` (+ `pkg/handlers/__init__.py`),
        `pkg/mod_099.py` deleted
    c4: nothing but README.md changes (an unchanged code tree: every blob reused)

    `changes[k]` is the change of commit k against its parent; `fan_in` is at the head.
    """
    builder = RepoBuilder(path)
    base: dict[str, Content] = {"README.md": "# history fixture\n", "pkg/__init__.py": "",
                                "pkg/core.py": _history_core()}
    for i in range(HISTORY_MODULES):
        base[f"pkg/mod_{i:03d}.py"] = _history_module(i)
    steps: list[tuple[dict[str, Content], dict[str, str], str]] = [
        (base, {p: "A" for p in base}, "initial: 100 handler modules"),
        ({"pkg/mod_007.py": _history_module(7, styled=True)}, {"pkg/mod_007.py": "M"},
         "style: reformat mod_007"),
        ({"pkg/core.py": _history_core(extra=True),
          "pkg/extra.py": "from pkg.core import register\n\n\ndef setup():\n    register(0, print)\n"},
         {"pkg/core.py": "M", "pkg/extra.py": "A"}, "core: add register; extra module"),
        ({"pkg/mod_050.py": None, "pkg/handlers/__init__.py": "",
          "pkg/handlers/mod_050.py": _history_module(50), "pkg/mod_099.py": None},
         {"pkg/mod_050.py": "D", "pkg/handlers/__init__.py": "A", "pkg/handlers/mod_050.py": "A",
          "pkg/mod_099.py": "D"}, "move mod_050 into handlers; drop mod_099"),
        ({"README.md": "# history fixture\n\nFour commits after the first.\n"}, {"README.md": "M"},
         "docs: readme"),
    ]
    commits: list[str] = []
    changes: list[dict[str, str]] = []
    files: dict[str, Content] = {}
    for change, status, message in steps:
        commits.append(builder.commit(change, message=message))
        changes.append(status)
        for p, c in change.items():
            if c is None:
                files.pop(p, None)
            else:
                files[p] = c
    builder.tag("v0", commits[0])
    edges = {(p, "pkg/core.py") for p in files if "mod_" in p}
    edges.add(("pkg/extra.py", "pkg/core.py"))
    fan_in = {p: 0 for p in files if p.endswith(".py")}
    fan_in["pkg/core.py"] = len(edges)
    symbols = [
        ExpectedSymbol("pkg/core.py", "ROUTES", "constant", "", _at(files, "pkg/core.py", "ROUTES = ")),
        ExpectedSymbol("pkg/core.py", "dispatch", "function", "", _at(files, "pkg/core.py", "def dispatch")),
        ExpectedSymbol("pkg/core.py", "register", "function", "", _at(files, "pkg/core.py", "def register")),
        ExpectedSymbol("pkg/extra.py", "setup", "function", "", _at(files, "pkg/extra.py", "def setup")),
    ]
    for p in sorted(files):
        if "mod_" not in p:
            continue
        i = int(p[-6:-3])
        symbols += [
            ExpectedSymbol(p, f"handle_{i:03d}", "function", "", _at(files, p, f"def handle_{i:03d}")),
            ExpectedSymbol(p, f"Handler{i:03d}", "class", "", _at(files, p, f"class Handler{i:03d}")),
            ExpectedSymbol(p, "run", "method", f"Handler{i:03d}", _at(files, p, "def run")),
        ]
    return FixtureRepo(path=Path(path), commits=commits, symbols=sorted(symbols), edges=edges,
                       fan_in=fan_in, changes=changes, files=sorted(files),
                       languages={p: "python" for p in files if p.endswith(".py")})

