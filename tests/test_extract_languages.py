"""Per-language extraction on realistic snippets with real grammars: exact symbols
(name, kind, container, line, end_line) and imports (kind, spec, line, level, names)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpora.gitbuild import RepoBuilder
from indexer.extract.blob import extract_blob
from tests.examples import examples

JAVASCRIPT_SOURCE = r"""import React, { useState, useEffect as ue } from "react";
import * as path from './path.js';
export { a, b } from "./ab";
export * from "./all";
const fs = require("fs");
const MAX = 10;
let counter = 0;

export class Widget extends Base {
  constructor(x) {
    super(x);
  }
  render() {
    return helper(this.x);
  }
  static create() { return new Widget(1); }
}

function helper(x) {
  return x * 2;
}

export const arrow = (a) => a + 1;
const lazy = () => import("./lazy.mjs");
module.exports = { helper };
"""

JAVASCRIPT_SYMBOLS = [
    ('fs', 'variable', '', 5, 5),
    ('MAX', 'constant', '', 6, 6),
    ('counter', 'variable', '', 7, 7),
    ('Widget', 'class', '', 9, 17),
    ('constructor', 'method', 'Widget', 10, 12),
    ('render', 'method', 'Widget', 13, 15),
    ('create', 'method', 'Widget', 16, 16),
    ('helper', 'function', '', 19, 21),
    ('arrow', 'function', '', 23, 23),
    ('lazy', 'function', '', 24, 24),
]
JAVASCRIPT_IMPORTS = [
    ('js', 'react', 1, 0, ('default', 'useState', 'useEffect')),
    ('js', './path.js', 2, 0, ('*',)),
    ('js', './ab', 3, 0, ('a', 'b')),
    ('js', './all', 4, 0, ('*',)),
    ('js', 'fs', 5, 0, ()),
    ('js', './lazy.mjs', 24, 0, ()),
]


TYPESCRIPT_SOURCE = r"""import { Foo } from "./foo";
import type { Bar } from "../bar";
import fs = require("fs");

export interface Shape {
  area(): number;
  name: string;
}

export type Id = string | number;

export enum Color { Red, Green }

namespace Geo {
  export function dist(a: number): number { return a; }
}

export abstract class Base implements Shape {
  abstract area(): number;
  name = "base";
  describe(): string { return this.name; }
}

export function make(): Shape { return new Circle(); }
const VERSION = "1.0";
"""

TYPESCRIPT_SYMBOLS = [
    ('Shape', 'interface', '', 5, 8),
    ('area', 'method', 'Shape', 6, 6),
    ('name', 'field', 'Shape', 7, 7),
    ('Id', 'type', '', 10, 10),
    ('Color', 'enum', '', 12, 12),
    ('Red', 'enumerator', 'Color', 12, 12),
    ('Green', 'enumerator', 'Color', 12, 12),
    ('Geo', 'namespace', '', 14, 16),
    ('dist', 'function', 'Geo', 15, 15),
    ('Base', 'class', '', 18, 22),
    ('area', 'method', 'Base', 19, 19),
    ('name', 'field', 'Base', 20, 20),
    ('describe', 'method', 'Base', 21, 21),
    ('make', 'function', '', 24, 24),
    ('VERSION', 'constant', '', 25, 25),
]
TYPESCRIPT_IMPORTS = [
    ('js', './foo', 1, 0, ('Foo',)),
    ('js', '../bar', 2, 0, ('Bar',)),
    ('js', 'fs', 3, 0, ()),
]


TSX_SOURCE = r"""import React from "react";
import { Button } from "./Button";

interface Props { title: string }

export function App({ title }: Props) {
  return <div><Button label={title} /></div>;
}

export const Header = (p: Props) => <h1>{p.title}</h1>;

class Panel extends React.Component<Props> {
  render() { return <span />; }
}
"""

TSX_SYMBOLS = [
    ('Props', 'interface', '', 4, 4),
    ('title', 'field', 'Props', 4, 4),
    ('App', 'function', '', 6, 8),
    ('Header', 'function', '', 10, 10),
    ('Panel', 'class', '', 12, 14),
    ('render', 'method', 'Panel', 13, 13),
]
TSX_IMPORTS = [
    ('js', 'react', 1, 0, ('default',)),
    ('js', './Button', 2, 0, ('Button',)),
]


GO_SOURCE = r"""// Package server implements things.
package server

import (
	"fmt"
	h "net/http"
	"github.com/acme/proj/internal/util"
)

const MaxConns = 10

var (
	defaultName = "x"
	other       = 2
)

type Server struct {
	Addr string
}

type Handler interface {
	Serve(w h.ResponseWriter) error
}

type ID string

func New(addr string) *Server {
	return &Server{Addr: addr}
}

func (s *Server) Start() error {
	fmt.Println(s.Addr)
	return util.Run()
}

func (s Server) name() string { return s.Addr }
"""

GO_SYMBOLS = [
    ('MaxConns', 'constant', '', 10, 10),
    ('defaultName', 'variable', '', 13, 13),
    ('other', 'variable', '', 14, 14),
    ('Server', 'struct', '', 17, 19),
    ('Addr', 'field', 'Server', 18, 18),
    ('Handler', 'interface', '', 21, 23),
    ('Serve', 'method', 'Handler', 22, 22),
    ('ID', 'type', '', 25, 25),
    ('New', 'function', '', 27, 29),
    ('Start', 'method', 'Server', 31, 34),
    ('name', 'method', 'Server', 36, 36),
]
GO_IMPORTS = [
    ('go', 'fmt', 5, 0, ()),
    ('go', 'net/http', 6, 0, ()),
    ('go', 'github.com/acme/proj/internal/util', 7, 0, ()),
]


RUST_SOURCE = r"""use std::collections::HashMap;
use crate::config::{Config, load as load_config};
use super::util::*;
mod parser;
pub mod lexer;

pub const LIMIT: usize = 10;
static GREETING: &str = "hi";

#[derive(Debug)]
pub struct Point {
    x: i32,
    y: i32,
}

pub enum Shape {
    Circle(f64),
    Square(f64),
}

pub trait Area {
    fn area(&self) -> f64;
    fn describe(&self) -> String {
        String::from("shape")
    }
}

impl Area for Shape {
    fn area(&self) -> f64 {
        0.0
    }
}

impl Point {
    pub fn new(x: i32, y: i32) -> Self {
        Point { x, y }
    }
}

type Map = HashMap<String, i32>;

macro_rules! square {
    ($x:expr) => { $x * $x };
}

pub fn main() {
    let p = Point::new(1, 2);
    println!("{:?}", p);
}

mod inner {
    pub fn helper() {}
}
"""

RUST_SYMBOLS = [
    ('parser', 'module', '', 4, 4),
    ('lexer', 'module', '', 5, 5),
    ('LIMIT', 'constant', '', 7, 7),
    ('GREETING', 'variable', '', 8, 8),  # a static, not a const
    ('Point', 'struct', '', 11, 14),
    ('x', 'field', 'Point', 12, 12),
    ('y', 'field', 'Point', 13, 13),
    ('Shape', 'enum', '', 16, 19),
    ('Circle', 'enumerator', 'Shape', 17, 17),
    ('Square', 'enumerator', 'Shape', 18, 18),
    ('Area', 'trait', '', 21, 26),
    ('area', 'method', 'Area', 22, 22),
    ('describe', 'method', 'Area', 23, 25),
    ('area', 'method', 'Shape', 29, 31),
    ('new', 'method', 'Point', 35, 37),
    ('Map', 'type', '', 40, 40),
    ('square', 'macro', '', 42, 44),
    ('main', 'function', '', 46, 49),
    ('inner', 'module', '', 51, 53),
    ('helper', 'function', 'inner', 52, 52),
]
RUST_IMPORTS = [
    ('rust_use', 'std::collections::HashMap', 1, 0, ()),
    ('rust_use', 'crate::config', 2, 0, ('Config', 'load')),
    ('rust_use', 'super::util', 3, 0, ('*',)),
    ('rust_mod', 'parser', 4, 0, ()),
    ('rust_mod', 'lexer', 5, 0, ()),
]


JAVA_SOURCE = r"""package com.acme.app;

import java.util.List;
import java.util.*;
import static org.junit.Assert.assertEquals;

public class App extends Base implements Runnable {
    public static final int MAX_SIZE = 10;
    private String name;

    public App(String name) {
        this.name = name;
    }

    @Override
    public void run() {
        helper(List.of(1));
    }

    private static int helper(List<Integer> xs) {
        return xs.size();
    }

    static class Inner {
        void go() {}
    }

    enum Mode { ON, OFF }
}

interface Service {
    void serve();
}
"""

JAVA_SYMBOLS = [
    ('App', 'class', '', 7, 29),
    ('MAX_SIZE', 'constant', 'App', 8, 8),
    ('name', 'field', 'App', 9, 9),
    ('App', 'method', 'App', 11, 13),
    ('run', 'method', 'App', 16, 18),
    ('helper', 'method', 'App', 20, 22),
    ('Inner', 'class', 'App', 24, 26),
    ('go', 'method', 'App.Inner', 25, 25),
    ('Mode', 'enum', 'App', 28, 28),
    ('ON', 'enumerator', 'App.Mode', 28, 28),
    ('OFF', 'enumerator', 'App.Mode', 28, 28),
    ('Service', 'interface', '', 31, 33),
    ('serve', 'method', 'Service', 32, 32),
]
JAVA_IMPORTS = [
    ('java', 'java.util.List', 3, 0, ()),
    ('java', 'java.util.*', 4, 0, ()),
    ('java', 'org.junit.Assert.assertEquals', 5, 0, ()),
]


C_SOURCE = r"""#include "util.h"
#include <stdio.h>

#define MAX 10
#define SQUARE(x) ((x) * (x))

struct point {
    int x;
    int y;
};

typedef struct {
    int w;
} size_t2;

enum color { RED, GREEN };

union value { int i; float f; };

static int helper(int a);

int add(int a, int b) {
    return a + b;
}

static char *name(void) {
    return "x";
}
"""

C_SYMBOLS = [
    ('MAX', 'macro', '', 4, 4),
    ('SQUARE', 'macro', '', 5, 5),
    ('point', 'struct', '', 7, 10),
    ('x', 'field', 'point', 8, 8),
    ('y', 'field', 'point', 9, 9),
    ('size_t2', 'type', '', 14, 14),
    ('w', 'field', 'size_t2', 13, 13),
    ('color', 'enum', '', 16, 16),
    ('RED', 'enumerator', 'color', 16, 16),
    ('GREEN', 'enumerator', 'color', 16, 16),
    ('value', 'struct', '', 18, 18),
    ('i', 'field', 'value', 18, 18),
    ('f', 'field', 'value', 18, 18),
    ('helper', 'function', '', 20, 20),
    ('add', 'function', '', 22, 24),
    ('name', 'function', '', 26, 28),
]
C_IMPORTS = [
    ('c_include', 'util.h', 1, 0, ()),
    ('c_system_include', 'stdio.h', 2, 0, ()),
]


CPP_SOURCE = r"""#include "widget.hpp"
#include <vector>

namespace gfx {

class Widget : public Base {
public:
    Widget();
    void draw() const;
    int size() const { return n_; }
private:
    int n_;
};

struct Rect {
    int w, h;
    int area() const { return w * h; }
};

void Widget::draw() const {
    helper();
}

static void helper() {}

template <typename T>
T max_of(T a, T b) { return a > b ? a : b; }

using Id = int;

}  // namespace gfx
"""

CPP_SYMBOLS = [
    ('gfx', 'namespace', '', 4, 31),
    ('Widget', 'class', 'gfx', 6, 13),
    ('Widget', 'method', 'gfx.Widget', 8, 8),
    ('draw', 'method', 'gfx.Widget', 9, 9),
    ('size', 'method', 'gfx.Widget', 10, 10),
    ('n_', 'field', 'gfx.Widget', 12, 12),
    ('Rect', 'struct', 'gfx', 15, 18),
    ('h', 'field', 'gfx.Rect', 16, 16),
    ('w', 'field', 'gfx.Rect', 16, 16),
    ('area', 'method', 'gfx.Rect', 17, 17),
    ('draw', 'method', 'gfx.Widget', 20, 22),
    ('helper', 'function', 'gfx', 24, 24),
    ('max_of', 'function', 'gfx', 27, 27),
    ('Id', 'type', 'gfx', 29, 29),
]
CPP_IMPORTS = [
    ('c_include', 'widget.hpp', 1, 0, ()),
    ('c_system_include', 'vector', 2, 0, ()),
]


CSHARP_SOURCE = r"""using System;
using System.Collections.Generic;
using static System.Math;
using Alias = Acme.Tools.Helper;

namespace Acme.App
{
    public interface IService
    {
        void Serve();
    }

    public class Program : IService
    {
        private const int MaxCount = 10;
        public string Name { get; set; }

        public Program(string name) { Name = name; }

        public void Serve()
        {
            Console.WriteLine(Name);
        }

        public static void Main(string[] args)
        {
            new Program("x").Serve();
        }

        private struct Pair { public int A; }
    }

    public enum Mode { On, Off }
}
"""

CSHARP_SYMBOLS = [
    ('Acme.App', 'namespace', '', 6, 34),
    ('IService', 'interface', 'Acme.App', 8, 11),
    ('Serve', 'method', 'Acme.App.IService', 10, 10),
    ('Program', 'class', 'Acme.App', 13, 31),
    ('MaxCount', 'constant', 'Acme.App.Program', 15, 15),
    ('Name', 'field', 'Acme.App.Program', 16, 16),
    ('Program', 'method', 'Acme.App.Program', 18, 18),
    ('Serve', 'method', 'Acme.App.Program', 20, 23),
    ('Main', 'method', 'Acme.App.Program', 25, 28),
    ('Pair', 'struct', 'Acme.App.Program', 30, 30),
    ('A', 'field', 'Acme.App.Program.Pair', 30, 30),
    ('Mode', 'enum', 'Acme.App', 33, 33),
    ('On', 'enumerator', 'Acme.App.Mode', 33, 33),
    ('Off', 'enumerator', 'Acme.App.Mode', 33, 33),
]
CSHARP_IMPORTS = [
    ('csharp_using', 'System', 1, 0, ()),
    ('csharp_using', 'System.Collections.Generic', 2, 0, ()),
    ('csharp_using', 'System.Math', 3, 0, ('*',)),  # `using static`: every static member of the type
    ('csharp_using', 'Acme.Tools.Helper', 4, 0, ()),
]


RUBY_SOURCE = r"""require "json"
require_relative "lib/helper"

module Acme
  VERSION = "1.0"

  class Widget < Base
    def initialize(name)
      @name = name
    end

    def render
      helper(@name)
    end

    def self.build
      new("x")
    end
  end

  def self.configure
    yield
  end
end

def top_level(x)
  x.to_s
end
"""

RUBY_SYMBOLS = [
    ('Acme', 'module', '', 4, 24),
    ('VERSION', 'constant', 'Acme', 5, 5),
    ('Widget', 'class', 'Acme', 7, 19),
    ('initialize', 'method', 'Acme.Widget', 8, 10),
    ('render', 'method', 'Acme.Widget', 12, 14),
    ('build', 'method', 'Acme.Widget', 16, 18),
    ('configure', 'method', 'Acme', 21, 23),
    ('top_level', 'function', '', 26, 28),
]
RUBY_IMPORTS = [
    ('ruby_require', 'json', 1, 0, ()),
    ('ruby_require', './lib/helper', 2, 0, ()),
]


PHP_SOURCE = r"""<?php
namespace App\Http;

use App\Models\User;
use Illuminate\Support\{Arr, Str};

require_once __DIR__ . '/bootstrap.php';
include "config.php";

const LIMIT = 10;

interface Renderable {
    public function render(): string;
}

trait Greets {
    public function greet() { return "hi"; }
}

class Controller implements Renderable {
    use Greets;
    private $name;

    public function __construct($name) {
        $this->name = $name;
    }

    public function render(): string {
        return helper($this->name);
    }
}

function helper($x) {
    return strtoupper($x);
}
"""

PHP_SYMBOLS = [
    # `namespace App\Http;` holds what follows it, as a braced namespace holds its body
    ('App\\Http', 'namespace', '', 2, 2),
    ('LIMIT', 'constant', 'App\\Http', 10, 10),
    ('Renderable', 'interface', 'App\\Http', 12, 14),
    ('render', 'method', 'App\\Http.Renderable', 13, 13),
    ('Greets', 'trait', 'App\\Http', 16, 18),
    ('greet', 'method', 'App\\Http.Greets', 17, 17),
    ('Controller', 'class', 'App\\Http', 20, 31),
    ('name', 'field', 'App\\Http.Controller', 22, 22),
    ('__construct', 'method', 'App\\Http.Controller', 24, 26),
    ('render', 'method', 'App\\Http.Controller', 28, 30),
    ('helper', 'function', 'App\\Http', 33, 35),
]
PHP_IMPORTS = [
    ('php_use', 'App\\Models\\User', 4, 0, ()),
    ('php_use', 'Illuminate\\Support\\Arr', 5, 0, ()),
    ('php_use', 'Illuminate\\Support\\Str', 5, 0, ()),
    ('php_require', './bootstrap.php', 7, 0, ()),
    ('php_require', 'config.php', 8, 0, ()),
]


BASH_SOURCE = r"""#!/bin/bash
set -e
source ./lib/common.sh
. "$HOME/.env"

VERSION=1.2
name="x"

build() {
  echo "building $name"
  helper
}

function helper {
  ls -la
}

build
"""

BASH_SYMBOLS = [
    ('VERSION', 'constant', '', 6, 6),
    ('name', 'variable', '', 7, 7),
    ('build', 'function', '', 9, 12),
    ('helper', 'function', '', 14, 16),
]
BASH_IMPORTS = [
    ('bash_source', './lib/common.sh', 3, 0, ()),
    ('bash_source', '$HOME/.env', 4, 0, ()),
]



CASES = [
    ("javascript", "app.js", JAVASCRIPT_SOURCE, JAVASCRIPT_SYMBOLS, JAVASCRIPT_IMPORTS),
    ("typescript", "shapes.ts", TYPESCRIPT_SOURCE, TYPESCRIPT_SYMBOLS, TYPESCRIPT_IMPORTS),
    ("tsx", "App.tsx", TSX_SOURCE, TSX_SYMBOLS, TSX_IMPORTS),
    ("go", "server/server.go", GO_SOURCE, GO_SYMBOLS, GO_IMPORTS),
    ("rust", "src/lib.rs", RUST_SOURCE, RUST_SYMBOLS, RUST_IMPORTS),
    ("java", "src/main/java/com/acme/app/App.java", JAVA_SOURCE, JAVA_SYMBOLS, JAVA_IMPORTS),
    ("c", "src/util.c", C_SOURCE, C_SYMBOLS, C_IMPORTS),
    ("cpp", "src/widget.cpp", CPP_SOURCE, CPP_SYMBOLS, CPP_IMPORTS),
    ("csharp", "App/Program.cs", CSHARP_SOURCE, CSHARP_SYMBOLS, CSHARP_IMPORTS),
    ("ruby", "lib/acme.rb", RUBY_SOURCE, RUBY_SYMBOLS, RUBY_IMPORTS),
    ("php", "app/Http/Controller.php", PHP_SOURCE, PHP_SYMBOLS, PHP_IMPORTS),
    ("bash", "scripts/build.sh", BASH_SOURCE, BASH_SYMBOLS, BASH_IMPORTS),
]



@pytest.mark.parametrize("language,path,source,symbols,imports", CASES, ids=[c[0] for c in CASES])
def test_symbols_and_imports(language, path, source, symbols, imports):
    facts = extract_blob(source.encode(), path, language)
    assert facts.skipped == ""
    assert facts.language == language
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == symbols
    assert [(i.kind, i.spec, i.line, i.level, i.names) for i in facts.imports] == imports


@pytest.mark.parametrize("language,path,source,symbols,imports", CASES, ids=[c[0] for c in CASES])
def test_spans_signatures_and_definition_occurrences(language, path, source, symbols, imports):
    data = source.encode()
    facts = extract_blob(data, path, language)
    lines = data.split(b"\n")

    for s in facts.symbols:
        assert 0 <= s.start_byte < s.end_byte <= len(data)
        # `line` is the name's line; the span may start earlier, at decorators or annotations
        assert data.count(b"\n", 0, s.start_byte) + 1 <= s.line <= s.end_line
        assert s.name.encode() in lines[s.line - 1] or s.kind == "namespace"
        assert s.name.encode() in data[s.start_byte:s.end_byte] or s.kind == "namespace"
        assert s.signature and len(s.signature) <= 200
        # the signature is a whole source line of the definition, stripped
        assert s.signature.encode() in [line.strip() for line in lines[s.line - 1:s.end_line]]
    # every definition name of a grammar language is an occurrence with role "definition"
    roles = {o.role for o in facts.occurrences}
    assert "definition" in roles
    assert facts.occurrences == sorted(facts.occurrences, key=lambda o: (o.line, o.col))
    for o in facts.occurrences:
        assert lines[o.line - 1][o.col:o.col + len(o.name.encode())] == o.name.encode()


# Segments of import module paths: packages, modules, namespaces (of a Java static import, the
# package before its class); never the imported name, and JS/TS/Go/C/C++/Ruby/Bash import
# strings or nothing.
MODULE_SITES = {
    "rust": [("std", 1), ("collections", 1), ("config", 2), ("util", 3)],
    "java": [("com", 1), ("acme", 1), ("app", 1), ("java", 3), ("util", 3), ("java", 4), ("util", 4), ("org", 5),
             ("junit", 5)],
    # `using Alias = Acme.Tools.Helper;` may name a type: Helper is the imported name; `using
    # static System.Math;` names the type Math (whose static members the file uses)
    "csharp": [("System", 1), ("System", 2), ("Collections", 2), ("Generic", 2), ("System", 3),
               ("Acme", 4), ("Tools", 4)],
    "php": [("App", 4), ("Models", 4), ("Illuminate", 5), ("Support", 5)],
}


@pytest.mark.parametrize("language,path,source,symbols,imports", CASES, ids=[c[0] for c in CASES])
def test_module_path_sites(language, path, source, symbols, imports):
    facts = extract_blob(source.encode(), path, language)
    assert [(o.name, o.line) for o in facts.occurrences if o.role == "module"] == MODULE_SITES.get(language, [])


def test_package_names():
    assert extract_blob(GO_SOURCE.encode(), "server/server.go", "go").package_name == "server"
    assert extract_blob(JAVA_SOURCE.encode(), "App.java", "java").package_name == "com.acme.app"
    assert extract_blob(CSHARP_SOURCE.encode(), "Program.cs", "csharp").package_name == "Acme.App"
    assert extract_blob(PHP_SOURCE.encode(), "Controller.php", "php").package_name == "App\\Http"
    assert extract_blob(PYTHON_LIKE_NONE.encode(), "x.py", "python").package_name == ""
    # of several namespaces in one file, the first
    assert extract_blob(b"<?php\nnamespace A;\nclass K {}\nnamespace B;\nclass L {}\n", "k.php", "php").package_name == "A"
    assert extract_blob(b"namespace A { class K {} }\nnamespace B { class L {} }\n", "k.cs", "csharp").package_name == "A"


PYTHON_LIKE_NONE = "x = 1\n"


def test_csharp_file_scoped_namespace_and_java_roles():
    src = b"namespace Acme.Core;\n\npublic class Tool\n{\n    public void Run() { Helper.Go(); }\n}\n"
    facts = extract_blob(src, "Tool.cs", "csharp")
    assert facts.package_name == "Acme.Core"
    assert [(s.name, s.kind, s.container) for s in facts.symbols] == [
        ("Acme.Core", "namespace", ""), ("Tool", "class", "Acme.Core"), ("Run", "method", "Acme.Core.Tool")]
    calls = [(o.name, o.line) for o in facts.occurrences if o.role == "call"]
    assert ("Go", 5) in calls


def test_roles_from_reference_captures():
    facts = extract_blob(JAVASCRIPT_SOURCE.encode(), "app.js", "javascript")
    by_site = {(o.name, o.line): o.role for o in facts.occurrences}
    assert by_site[("helper", 14)] == "call"        # helper(this.x) inside render
    assert by_site[("helper", 19)] == "definition"  # function helper(x)
    assert by_site[("Widget", 16)] == "reference"   # new Widget(1): @reference.class
    go = extract_blob(GO_SOURCE.encode(), "server.go", "go")
    go_sites = {(o.name, o.line): o.role for o in go.occurrences}
    assert go_sites[("Println", 32)] == "call"
    assert go_sites[("Start", 31)] == "definition"


def test_function_valued_class_fields_are_methods():
    js = b"class Form {\n  handle = (e) => {\n    this.save(e);\n  };\n  count = 0;\n}\n"
    facts = extract_blob(js, "form.js", "javascript")
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("Form", "class", "", 1, 6), ("handle", "method", "Form", 2, 4), ("count", "field", "Form", 5, 5)]
    ts = b"export class Form {\n  private handle = (e: Event): void => {\n    this.save(e);\n  };\n}\n"
    for language in ("typescript", "tsx"):
        facts = extract_blob(ts, "form.ts", language)
        assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
            ("Form", "class", "", 1, 5), ("handle", "method", "Form", 2, 4)]


def test_cpp_out_of_line_definitions_under_nested_scopes():
    """`ns::Cls::m` parses as a qualified name inside a qualified name: the method is found
    under every scope depth, its container the scope chain (templates and spaces dropped)."""
    source = (b"std::string ns::Cls::m() { return s; }\n"
              b"void Foo::bar() {}\n"
              b"int a::b::c::d(int x) { return x; }\n"
              b"ns::Cls::~Cls() {}\n"
              b"bool ns::Cls::operator<(const Cls& o) const { return false; }\n"
              b"template <typename T> void ns::Box<T>::put(T v) {}\n"
              b"namespace outer {\nvoid inner::Cls::run() {}\n}\n")
    facts = extract_blob(source, "impl.cpp", "cpp")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("m", "method", "ns.Cls", 1), ("bar", "method", "Foo", 2), ("d", "method", "a.b.c", 3),
        ("~Cls", "method", "ns.Cls", 4), ("operator<", "method", "ns.Cls", 5), ("put", "method", "ns.Box", 6),
        ("outer", "namespace", "", 7), ("run", "method", "outer.inner.Cls", 8)]


def test_cpp_destructors_and_operators_in_class_bodies_are_methods():
    """Declared or defined in the body, a destructor, an operator and a conversion operator are
    methods of the class, named as their out-of-line definitions are (`K::~K`, `K::operator=`);
    a conversion operator is named up to its parameter list, out of line too."""
    src = b'''namespace ns {
class K : public Base {
public:
    explicit K(int);
    virtual ~K();
    operator bool() const;
    explicit operator int() const noexcept;
    K& operator=(const K&);
    bool operator==(const K& o) const;
    void* operator new(size_t n);
    template <class T> operator T*() const;
    ~K() {}
    bool operator!=(const K& o) const { return false; }
private:
    int x_;
};
struct S { ~S() = default; S& operator=(S&&) = delete; };
bool operator<(const K&, const K&);
}
ns::K::operator int() const {
    return 1;
}
template <class T> K<T>::operator T*() const { return 0; }
'''
    facts = extract_blob(src, "k.hpp", "cpp")
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("ns", "namespace", "", 1, 19),
        ("K", "class", "ns", 2, 16),
        ("K", "method", "ns.K", 4, 4),
        ("~K", "method", "ns.K", 5, 5),
        ("operator bool", "method", "ns.K", 6, 6),
        ("operator int", "method", "ns.K", 7, 7),
        ("operator=", "method", "ns.K", 8, 8),
        ("operator==", "method", "ns.K", 9, 9),
        ("operator new", "method", "ns.K", 10, 10),
        ("operator T*", "method", "ns.K", 11, 11),
        ("~K", "method", "ns.K", 12, 12),
        ("operator!=", "method", "ns.K", 13, 13),
        ("x_", "field", "ns.K", 15, 15),
        ("S", "struct", "ns", 17, 17),
        ("~S", "method", "ns.S", 17, 17),
        ("operator=", "method", "ns.S", 17, 17),
        ("operator<", "function", "ns", 18, 18),
        ("operator int", "method", "ns.K", 20, 22),  # out of line: the whole definition, body too
        ("operator T*", "method", "K", 23, 23),
    ]
    assert facts.symbols[4].signature == "operator bool() const;"


JS_BINDINGS = """import d, { a as b, c, default as e } from "./x";
import * as ns from "./y";
export { f as g, h } from "./z";
export * as nn from "./w";
export * from "./v";
import { k, m as n } from "./u";
export { n as out, d };
"""


@pytest.mark.parametrize("language,path", [("javascript", "m.js"), ("typescript", "m.ts")])
def test_js_import_aliases_and_what_a_file_exports(language, path):
    # names as the imported module has them, aliases as this file names them, exports as it exports them
    facts = extract_blob(JS_BINDINGS.encode(), path, language)
    assert [(i.spec, i.names, i.aliases, i.exports) for i in facts.imports] == [
        ("./x", ("default", "a", "c", "default"), ("d", "b", "", "e"), ("d", "", "", "")),  # export { d }
        ("./y", ("*",), ("ns",), ()),
        ("./z", ("f", "h"), ("g", ""), ("g", "h")),
        ("./w", ("*",), ("nn",), ("nn",)),
        ("./v", ("*",), (), ("*",)),
        ("./u", ("k", "m"), ("", "n"), ("", "out")),  # export { n as out }; k is only imported
    ]
    plain = extract_blob(b'import { Button } from "./b";\nexport const made = new Button();\n', path, language)
    assert [(i.names, i.aliases, i.exports) for i in plain.imports] == [(("Button",), (), ())]
    ts = extract_blob(b'import fs = require("fs");\n', "r.ts", "typescript")
    assert [(i.spec, i.names, i.aliases) for i in ts.imports] == [("fs", (), ("fs",))]


def test_rust_use_aliases():
    src = b"use a::b as c;\nuse a::{b as c, d, e::f as g};\nuse x::{y, z};\n"
    facts = extract_blob(src, "src/lib.rs", "rust")
    assert [(i.spec, i.names, i.aliases) for i in facts.imports] == [
        ("a::b", (), ("c",)), ("a", ("b", "d", "e::f"), ("c", "", "g")), ("x", ("y", "z"), ())]


def test_php_use_aliases():
    # one spec per name, its alias beside it; the kind says what it imports; `X as X` is no alias
    src = (b"<?php\nuse App\\Models\\User as U;\nuse App\\{Models\\Post, Models\\Tag as T};\n"
           b"use function App\\f as g, App\\h;\nuse App\\Models as M;\nuse App\\Same as Same;\n")
    facts = extract_blob(src, "a.php", "php")
    assert [(i.kind, i.spec, i.names, i.aliases) for i in facts.imports] == [
        ("php_use", "App\\Models\\User", (), ("U",)),
        ("php_use", "App\\Models\\Post", (), ()), ("php_use", "App\\Models\\Tag", (), ("T",)),
        # `names` hold no kind marker as if it were a name imported
        ("php_use_function", "App\\f", (), ("g",)), ("php_use_function", "App\\h", (), ()),
        ("php_use", "App\\Models", (), ("M",)),
        ("php_use", "App\\Same", (), ())]


def test_csharp_using_alias_directives():
    src = (b"using U = App.Models.User;\nusing App.Other;\nglobal using G = A.B<C.D>;\nusing V = Zed;\n"
           b"class C { U u; }\n")
    facts = extract_blob(src, "a.cs", "csharp")
    assert [(i.spec, i.aliases) for i in facts.imports] == [
        ("App.Models.User", ("U",)), ("App.Other", ()), ("A.B", ("G",)), ("Zed", ("V",))]
    # an alias's target may be a type: only the namespace before its last name is a module path
    assert [(o.name, o.role) for o in facts.occurrences if o.line == 1] == [
        ("U", "identifier"), ("App", "module"), ("Models", "module"), ("User", "identifier")]
    assert [(o.name, o.role) for o in facts.occurrences if o.line == 2] == [("App", "module"), ("Other", "module")]


def test_rust_path_attributes_and_inline_module_depth():
    src = b'''#[doc(hidden)]
#[path = "private/mod.rs"]
pub mod __private;
#[cfg(test)]
mod seed;
mod tests {
    use super::*;
    // a comment between the attribute and the declaration
    #[path = "fixtures.rs"]
    // here
    mod data;
    fn check() { use self::data::Row; }
    mod deeper {
        use super::super::Thing;
        mod leaf;
    }
}
use crate::de;
extern crate serde_json as json;
#[macro_use] extern crate log;
pub extern crate facade_inner as inner;
pub(crate) extern crate facade_inner;
'''
    facts = extract_blob(src, "src/lib.rs", "rust")
    assert [(i.kind, i.spec, i.line, i.level, i.names) for i in facts.imports] == [
        ("rust_mod", "__private", 3, 0, ("private/mod.rs",)),
        ("rust_mod", "seed", 5, 0, ()),  # another attribute: no path
        ("rust_use", "super", 7, 1, ("*",)),
        ("rust_mod", "tests::data", 11, 1, ("fixtures.rs",)),
        ("rust_use", "self::data::Row", 12, 1, ()),  # a fn body is not a module
        ("rust_use", "super::super::Thing", 14, 2, ()),
        ("rust_mod", "tests::deeper::leaf", 15, 2, ()),
        ("rust_use", "crate::de", 18, 0, ()),
        ("rust_extern", "serde_json", 19, 0, ()),
        ("rust_extern", "log", 20, 0, ()),
        ("rust_extern", "facade_inner", 21, 0, ()),
        ("rust_extern", "facade_inner", 22, 0, ()),
    ]
    assert [i.aliases for i in facts.imports if i.kind == "rust_extern"] == [("json",), (), ("inner",), ()]  # `as json`
    # its visibility says who walks through it: `pub` re-exports the alias, a private one binds it here
    assert [i.visibility for i in facts.imports if i.kind == "rust_extern"] == ["", "", "pub", "pub(crate)"]


def test_rust_inline_modules_deep_and_file_after_file():
    """Each `use` and `mod` was walked up to the root a parent at a time, and tree-sitter finds
    a parent by walking down from the root: 800 nested modules, a 35 kB file, took 9.8 s to
    extract (400: 1.5 s). The blocks above each node are carried down the way for the file:
    the same levels and paths. What is kept is the file's own: a file of the same shape read
    next, its blocks at the same bytes, gets its own names."""
    from indexer.lang.rust.imports import MOD_NESTING

    depth = 300
    src = "".join(f"mod m{i} {{ use super::*; mod s{i};\n" for i in range(depth)) + "}" * depth + "\n"
    facts = extract_blob(src.encode(), "src/lib.rs", "rust")
    uses = [i for i in facts.imports if i.kind == "rust_use"]
    assert [i.level for i in uses] == list(range(1, depth + 1))
    mods = [i.spec for i in facts.imports if i.kind == "rust_mod"]
    assert mods == ["::".join(f"m{j}" for j in range(i + 1)) + f"::s{i}" for i in range(MOD_NESTING)]
    first = extract_blob(b"mod a { mod x; }\n", "src/a.rs", "rust")
    second = extract_blob(b"mod b { mod x; }\n", "src/b.rs", "rust")
    assert [i.spec for i in first.imports] == ["a::x"] and [i.spec for i in second.imports] == ["b::x"]


def test_a_rust_mod_spelling_more_modules_than_its_bounds_is_not_read_and_the_rest_is(tmp_path):
    """A `mod m;` spells every inline module around it: 8,000 nested modules, each with a
    `mod`, a 310 kB file, made specs of some 215 MB (6 s to extract), and a name of kilobytes
    repeats in every `mod` below it. One inside more than MOD_NESTING modules, or whose
    modules' names spell more than MOD_CHARS characters, is not read; one at the bounds is,
    and the rest of the file (the `use`s at any depth, the `mod`s beside), and an index
    resolves it."""
    from indexer import api
    from indexer.lang.rust.imports import MOD_CHARS, MOD_NESTING
    from indexer.store.database import Store

    depth = MOD_NESTING + 2
    src = ("".join(f"mod m{i} {{ use super::*; mod s{i};\n" for i in range(depth)) + "}" * depth + "\nmod top;\n"
           + f"mod {'n' * (MOD_CHARS - 1)} {{ mod oo {{ mod x; }} mod y; }}\n")
    facts = extract_blob(src.encode(), "src/lib.rs", "rust")
    assert facts.skipped == ""
    mods = [(i.spec, i.level) for i in facts.imports if i.kind == "rust_mod"]
    assert [level for _, level in mods] == [*range(1, MOD_NESTING + 1), 0, 1]  # not the two past the bound, nor x
    assert mods[-2:] == [("top", 0), ("n" * (MOD_CHARS - 1) + "::y", 1)]
    assert [i.level for i in facts.imports if i.kind == "rust_use"] == list(range(1, depth + 1))
    b = RepoBuilder(tmp_path / "repo")
    oid = b.commit({"src/lib.rs": src, "src/top.rs": "pub fn f() {}\n",
                    "Cargo.toml": '[package]\nname = "k"\nversion = "0.1.0"\n'})
    with Store.open(tmp_path / "store") as store:
        assert api.index(str(b.path), oid, store=store, workers=1).files == 3


def test_rust_use_groups_without_aliases_or_comments():
    # compacting glued a nested alias into its name (`connasc`) and a comment in a group was an item
    src = b'''use crate::{
    net::{conn as c, Conn}, // the wire
    /* helpers */ util,
};
use crate::net::{conn::{self as k, A as B}, *};
use a::b as d;
use {x as y, z::{w as v}};
'''
    facts = extract_blob(src, "src/x.rs", "rust")
    assert [(i.kind, i.spec, i.line, i.level, i.names) for i in facts.imports] == [
        ("rust_use", "crate", 1, 0, ("net::{conn,Conn}", "util")),
        ("rust_use", "crate::net", 5, 0, ("conn::{self,A}", "*")),
        ("rust_use", "a::b", 6, 0, ()),
        # braces first: each item a `use` of its own (`use x as y; use z::{w as v};`)
        ("rust_use", "x", 7, 0, ()),
        ("rust_use", "z", 7, 0, ("w",)),
    ]
    # the aliases are kept beside the items: each item's paths' aliases, joined by ","
    assert [i.aliases for i in facts.imports] == [("c,", ""), ("k,B", ""), ("d",), ("y",), ("v",)]


def test_rust_use_aliases_in_nested_groups_line_up_with_the_paths():
    src = b"use a::{b::{c as d, x, {}}, e as f, g, h::{self as i, j::{k as l}}};\nuse m::{n as n, o::{p as p}};\n"
    facts = extract_blob(src, "src/x.rs", "rust")
    assert [(i.spec, i.names, i.aliases) for i in facts.imports] == [
        ("a", ("b::{c,x,{}}", "e", "g", "h::{self,j::{k}}"), ("d,,", "f", "", "i,l")),
        ("m", ("n", "o::{p}"), ()),  # `n as n` is no alias
    ]
    from indexer.lang.rust.resolve import use_bindings, use_paths

    first = facts.imports[0]
    assert use_paths(first.spec, first.names) == [
        ["a", "b", "c"], ["a", "b", "x"], ["a", "b"], ["a", "e"], ["a", "g"], ["a", "h", "self"], ["a", "h", "j", "k"]]
    assert use_bindings(first.spec, first.names, first.aliases) == (
        ("c", "d"), ("x", "x"), ("b", "b"), ("e", "f"), ("g", "g"), ("h", "i"), ("k", "l"))


def test_a_rust_use_nested_past_use_nesting_is_not_read_and_the_rest_of_the_file_is(tmp_path):
    """Reading a `use` recursed a few frames a group: 400 nested groups, a file of 2 kB, ran
    past Python's stack and the whole file was `extract_error`. A `use` nesting deeper than
    USE_NESTING is not read, the rest of the file is; one at the bound is read, and resolved
    by an index without running out of stack."""
    from indexer import api
    from indexer.lang.rust.imports import USE_NESTING
    from indexer.store.database import Store

    def nested(depth: int) -> bytes:
        return (b"use a::" + b"{b::" * depth + b"c" + b"}" * depth + b";\nuse " + b"{" * depth + b"x" + b"}" * depth
                + b";\nuse std::fmt;\nfn main() {}\n")

    for depth in (USE_NESTING + 1, 5000):
        facts = extract_blob(nested(depth), "src/lib.rs", "rust")
        assert facts.skipped == ""  # was: extract_error
        assert [(i.spec, i.line) for i in facts.imports] == [("std::fmt", 3)]
        assert [s.name for s in facts.symbols] == ["main"]
    at = extract_blob(nested(USE_NESTING), "src/lib.rs", "rust")
    assert [i.spec for i in at.imports] == ["a", "x", "std::fmt"]
    b = RepoBuilder(tmp_path / "repo")
    oid = b.commit({"src/lib.rs": nested(USE_NESTING).decode(), "src/a.rs": "pub mod b {}\n",
                    "Cargo.toml": '[package]\nname = "k"\nversion = "0.1.0"\n'})
    with Store.open(tmp_path / "store") as store:
        assert api.index(str(b.path), oid, store=store, workers=1).files == 3


def test_ruby_accessors_and_methods_made_by_calls():
    src = b'''class Cart
  attr_reader :items, :total
  attr_accessor :owner
  attr_writer "legacy"
  def add(item)
  end
  alias_method :push, :add
  define_method(:clear) { @items = [] }
  private attr_reader :secret
end
'''
    facts = extract_blob(src, "lib/cart.rb", "ruby")
    assert [(s.name, s.kind, s.container, s.line, s.signature) for s in facts.symbols] == [
        ("Cart", "class", "", 1, "class Cart"),
        ("items", "field", "Cart", 2, "attr_reader :items, :total"),
        ("total", "field", "Cart", 2, "attr_reader :items, :total"),
        ("owner", "field", "Cart", 3, "attr_accessor :owner"),
        ("add", "method", "Cart", 5, "def add(item)"),
        ("push", "method", "Cart", 7, "alias_method :push, :add"),
        ("clear", "method", "Cart", 8, "define_method(:clear) { @items = [] }"),
        ("secret", "field", "Cart", 9, "private attr_reader :secret"),
    ]


def test_ruby_methods_of_classes_made_by_calls_and_reopened_by_class_eval():
    # rspec-core's `SpecifiedDeprecationMessage = Struct.new(:type) do def to_s ...`, activesupport's
    # `URI::Parser.class_eval do def unescape ...` (core_ext/uri.rb) and `class << self` (cache.rb):
    # before, the first two gave constants holding "function"s, the third a top-level function
    src = b'''module Formatters
  Message = Struct.new(:type) do
    def to_s
    end
  end
  NoSuchFileError = Class.new(StandardError)
  Point = Data.define(:x, :y)
  Helpers = Module.new do
    def help; end
  end
  Formatters.module_eval do
    def reopened; end
  end
  included do
    def concern_method; end
  end
  class << self
    def lookup_store; end
  end
  def self.build; end
end
URI::Parser.class_eval do
  def unescape(str)
  end
end
base.class_eval do
  def unknown_receiver; end
end
'''
    facts = extract_blob(src, "lib/formatters.rb", "ruby")
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("Formatters", "module", "", 1, 21),
        ("Message", "class", "Formatters", 2, 5),
        ("to_s", "method", "Formatters.Message", 3, 4),
        ("NoSuchFileError", "class", "Formatters", 6, 6),
        ("Point", "class", "Formatters", 7, 7),
        ("Helpers", "module", "Formatters", 8, 10),
        ("help", "method", "Formatters.Helpers", 9, 9),
        ("reopened", "method", "Formatters", 12, 12),  # the scope it is written in, not Formatters.Formatters
        ("concern_method", "method", "Formatters", 15, 15),
        # a singleton method is recorded as `def self.build` is: a method of its class
        ("lookup_store", "method", "Formatters", 18, 18),
        ("build", "method", "Formatters", 20, 20),
        ("unescape", "method", "URI.Parser", 23, 24),  # opened, not defined: no URI or Parser symbol
        ("unknown_receiver", "function", "", 27, 27),  # `base` names no class the tree shows
    ]


def test_cpp_classes_behind_export_macros():
    # Qt's `class Q_CORE_EXPORT QObject`, spdlog's `class SPDLOG_API logger`: tree-sitter reads a
    # function named after the class; the class and its members must still come out
    src = b'''namespace ns {
class API_EXPORT Foo : public Base {
public:
  void bar();
  int baz() const { return 1; }
};
struct API Point final { double len() const; };
template <typename T> class API Box { T get(); };
}
class Q_CORE_EXPORT QObject
{
public:
    void f();
};
int main() { return 0; }
'''
    facts = extract_blob(src, "api.hpp", "cpp")
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("ns", "namespace", "", 1, 9),
        ("Foo", "class", "ns", 2, 6),
        ("bar", "method", "ns.Foo", 4, 4),
        ("baz", "method", "ns.Foo", 5, 5),
        ("Point", "struct", "ns", 7, 7),
        ("len", "method", "ns.Point", 7, 7),
        ("Box", "class", "ns", 8, 8),
        ("get", "method", "ns.Box", 8, 8),
        ("QObject", "class", "", 10, 14),
        ("f", "method", "QObject", 13, 13),
        ("main", "function", "", 15, 15),
    ]


def test_cpp_out_of_line_scopes_past_macros_and_templates():
    src = b'''namespace spdlog {
SPDLOG_INLINE level::level_enum logger::level() const { return 1; }
SPDLOG_INLINE std::vector<sink_ptr> &logger::sinks() { return s; }
template <typename T> Outer<T>::Inner<int>::Inner() {}
void Outer<A<B>>::Inner<C>::run() {}
void a :: b :: c() {}
}
'''
    facts = extract_blob(src, "logger-inl.h", "cpp")
    assert [(s.name, s.kind, s.container) for s in facts.symbols] == [
        ("spdlog", "namespace", ""),
        ("level", "method", "spdlog.logger"),  # not "spdlog.level.level_enumlogger"
        ("sinks", "method", "spdlog.logger"),
        ("Inner", "method", "spdlog.Outer.Inner"),  # not "spdlog.Outer": template arguments innermost first
        ("run", "method", "spdlog.Outer.Inner"),
        ("c", "method", "spdlog.a.b"),
    ]
    # a macro no rule blanks, read as a return type: the scope is the last word
    facts = extract_blob(b"api level::kind logger::level() const { return 1; }\n", "l.cpp", "cpp")
    assert [(s.name, s.container) for s in facts.symbols] == [("level", "logger")]


def test_cpp_out_of_line_scopes_past_comparisons_in_template_arguments():
    # In parentheses a `<` or `>` is a comparison, not an argument list's bracket (was: the
    # scope cut at the `<` of `1 < 2`, "A<(1", and at a lone `>`, "B>").
    src = b'''void A<(1 < 2)>::f() {}
bool B<C<(1 > 2)>>::g() { return true; }
template <int N> void D<(N >> 1)>::h() {}
'''
    facts = extract_blob(src, "cmp.cpp", "cpp")
    assert [(s.name, s.kind, s.container) for s in facts.symbols] == [
        ("f", "method", "A"), ("g", "method", "B"), ("h", "method", "D")]


def test_cpp_names_qualified_from_the_global_namespace():
    # `::f` is f of the global namespace, `::ns::g` g of ns (was: no symbol for `::f`, and g
    # of ".ns", its scope read with a leading dot)
    src = b"void ::f() {}\nvoid ::ns::g() {}\nvoid ::ns::K::m() {}\nvoid ::ns::K::~K() {}\n"
    facts = extract_blob(src, "global.cpp", "cpp")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("f", "function", "", 1), ("g", "method", "ns", 2), ("m", "method", "ns.K", 3), ("~K", "method", "ns.K", 4)]


def test_c_typedef_is_not_the_scope_of_the_struct_it_names():
    src = b"typedef struct z_stream_s {\n    int avail_in;\n} z_stream;\ntypedef enum color { RED } color_t;\n"
    for language in ("c", "cpp"):
        facts = extract_blob(src, "zlib.h", language)
        assert sorted((s.name, s.kind, s.container, s.line) for s in facts.symbols) == [
            ("RED", "enumerator", "color", 4), ("avail_in", "field", "z_stream_s", 2),
            ("color", "enum", "", 4), ("color_t", "type", "", 4),
            ("z_stream", "type", "", 3), ("z_stream_s", "struct", "", 1)]


def test_c_symbols_starting_together_come_outermost_first():
    # `struct S {...} s;`: the declaration of `s` holds the struct's span, so it comes first;
    # it does not hold the struct, declared where `s` is (was: a struct `s.S`)
    for language in ("c", "cpp"):
        facts = extract_blob(b"struct S { int x; } s;\n", "s.c", language)
        assert [(s.name, s.kind, s.container, s.start_byte, s.end_byte) for s in facts.symbols] == [
            ("s", "variable", "", 0, 22), ("S", "struct", "", 0, 19), ("x", "field", "S", 11, 17)], language


def test_c_untagged_typedef_struct_is_the_scope_of_its_members():
    # no struct name of its own: the typedef names what holds the members
    src = b"typedef struct {\n    int x, *y;\n} point;\ntypedef enum { ON, OFF } mode;\n"
    for language in ("c", "cpp"):
        facts = extract_blob(src, "geo.h", language)
        assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
            ("point", "type", "", 3), ("x", "field", "point", 2), ("y", "field", "point", 2),
            ("mode", "type", "", 4), ("ON", "enumerator", "mode", 4), ("OFF", "enumerator", "mode", 4)]


def test_cpp_export_macro_class_bodies_parse_as_classes():
    # spdlog's logger.h: with the macro read as the class name, the body was a function body,
    # constructors with initializer lists came apart and a local `log_msg msg(...)` became a
    # function; the macro is kept out of the parse (offsets and lines unchanged)
    src = b'''namespace spdlog {
class SPDLOG_API logger
{
public:
    explicit logger(std::string name)
        : name_(std::move(name))
        , sinks_()
    {}
    void log(int lvl)
    {
        details::log_msg msg(lvl, name_);
        sink_it_(msg);
    }
};
class SPDLOG_API async_logger final : public logger { };
}
'''
    facts = extract_blob(src, "logger.h", "cpp")
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("spdlog", "namespace", "", 1, 16),
        ("logger", "class", "spdlog", 2, 14),
        ("logger", "method", "spdlog.logger", 5, 8),
        ("log", "method", "spdlog.logger", 9, 13),
        ("async_logger", "class", "spdlog", 15, 15),
    ]
    assert facts.symbols[1].signature == "class SPDLOG_API logger"  # read from the source as written
    sites = [(o.name, o.line) for o in facts.occurrences]
    assert ("sink_it_", 12) in sites and ("SPDLOG_API", 2) not in sites  # the macro is not in the tree


def test_cpp_macros_around_function_heads_are_kept_out_of_the_parse():
    # spdlog's logger-inl.h: a leading SPDLOG_INLINE and a trailing SPDLOG_NOEXCEPT made the
    # constructors end on their first line and the namespace stop early
    src = b'''namespace spdlog {
SPDLOG_INLINE logger::logger(logger &&other) SPDLOG_NOEXCEPT : name_(std::move(other.name_)),
                                                               sinks_(std::move(other.sinks_))
{}

SPDLOG_INLINE logger &logger::operator=(logger other) SPDLOG_NOEXCEPT
{
    return *this;
}
}
MY_TYPE make(int a) {
  if (a) RETURN_ERROR;
  return a;
}
MY_TYPE declared(int);
'''
    facts = extract_blob(src, "logger-inl.h", "cpp")
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("spdlog", "namespace", "", 1, 10),
        ("logger", "method", "spdlog.logger", 2, 4),
        ("operator=", "method", "spdlog.logger", 6, 9),
        ("make", "function", "", 11, 14),
        ("declared", "function", "", 15, 15),
    ]
    sites = {o.name for o in facts.occurrences}
    # a return type, a macro used as a statement and a declaration's type stay in the tree
    assert {"MY_TYPE", "RETURN_ERROR"} <= sites and "SPDLOG_NOEXCEPT" not in sites


def test_cpp_exception_macros_leave_functions_whole():
    # spdlog's thread_pool-inl.h (SPDLOG_TRY/SPDLOG_CATCH_STD), fmt's format-inl.h (FMT_TRY/
    # FMT_CATCH(...)), boost's copy_move_algo.hpp (BOOST_TRY/BOOST_CATCH/BOOST_RETHROW/
    # BOOST_CATCH_END): read as a type and a stray call, they ended functions at the try block,
    # made FMT_CATCH and BOOST_CATCH functions and closed the namespace early
    src = b'''namespace spdlog {
namespace details {
SPDLOG_INLINE thread_pool::~thread_pool()
{
    SPDLOG_TRY
    {
        for (auto &t : threads_)
        {
            t.join();
        }
    }
    SPDLOG_CATCH_STD
}

SPDLOG_INLINE void thread_pool::post_flush(async_logger_ptr &&worker_ptr)
{
    post_async_msg_(async_msg(std::move(worker_ptr), async_msg_type::flush));
}
} // namespace details

FMT_FUNC void format_system_error(int error_code) noexcept {
  FMT_TRY {
    write(error_code);
    return;
  }
  FMT_CATCH(...) {}
  format_error_code(error_code);
}

template<typename F, typename I>
F uninitialized_move_alloc(A &a, I f, I l, F r)
{
   F back = r;
   BOOST_TRY{
      construct(a, r, boost::move(*f));
   }
   BOOST_CATCH(...){
      destroy(a, back);
      BOOST_RETHROW
   }
   BOOST_CATCH_END
   return r;
}
} // namespace spdlog
'''
    facts = extract_blob(src, "thread_pool-inl.h", "cpp")
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("spdlog", "namespace", "", 1, 44),
        ("details", "namespace", "spdlog", 2, 19),
        ("~thread_pool", "method", "spdlog.details.thread_pool", 3, 13),
        ("post_flush", "method", "spdlog.details.thread_pool", 15, 18),
        ("format_system_error", "function", "spdlog", 21, 28),
        ("uninitialized_move_alloc", "function", "spdlog", 31, 43),
    ]
    sites = [(o.name, o.line, o.role) for o in facts.occurrences]
    assert ("destroy", 38, "call") in sites and ("format_error_code", 27, "call") in sites
    assert not {"SPDLOG_TRY", "FMT_CATCH", "BOOST_CATCH_END"} & {name for name, _, _ in sites}


def test_cpp_macros_around_parameter_types():
    # boost's container/vector.hpp: `BOOST_RV_REF(vector) x` read as a function declarator
    # with a stray `x` lost the move constructor; the wrapped type is the parameter's type
    src = b'''namespace boost { namespace container {
template <class T, class A>
class vector
{
   BOOST_COPYABLE_AND_MOVABLE(vector)
   public:
   vector(BOOST_RV_REF(vector) x) BOOST_NOEXCEPT_OR_NOTHROW
      : m_holder(boost::move(x.m_holder))
   {}
   template<class OtherA>
   vector(BOOST_RV_REF_BEG vector<T, OtherA> BOOST_RV_REF_END x, const allocator_type &a)
      : m_holder(a)
   {}
   template<class ...Args>
   reference emplace_back(BOOST_FWD_REF(Args)...args)
   {  return *this->priv_insert(boost::forward<Args>(args)...);  }
   void push_back(BOOST_RV_REF(T) x, size_type n = 1);
   size_type size() const;
};
}}
'''
    facts = extract_blob(src, "vector.hpp", "cpp")
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("boost", "namespace", "", 1, 20),
        ("container", "namespace", "boost", 1, 20),
        ("vector", "class", "boost.container", 3, 19),
        ("vector", "method", "boost.container.vector", 7, 9),
        ("vector", "method", "boost.container.vector", 11, 13),
        ("emplace_back", "method", "boost.container.vector", 15, 16),
        ("push_back", "method", "boost.container.vector", 17, 17),
        ("size", "method", "boost.container.vector", 18, 18),
    ]
    assert "BOOST_RV_REF" not in {o.name for o in facts.occurrences}


def test_cpp_function_specifier_macros_anywhere_in_a_head():
    # boost's container/vector.hpp: BOOST_CONTAINER_FORCEINLINE after `static` or `inline` read
    # as a second type, and BOOST_NOEXCEPT before `;` as a declarator, broke the class body
    # (`data` and the destructor were lost, BOOST_NOEXCEPT was a method)
    src = b'''namespace boost { namespace container {
template <class T>
class vector
{
   public:
   static BOOST_CONTAINER_FORCEINLINE void f(int a)
   {  g(a);  }
   inline BOOST_CONTAINER_FORCEINLINE T* data() BOOST_NOEXCEPT_OR_NOTHROW
   {  return p;  }
   void swap(vector& x) BOOST_NOEXCEPT_IF(BOOST_NOEXCEPT(x.swap(y)));
   size_type size() const BOOST_NOEXCEPT;
   ~vector() BOOST_NOEXCEPT_OR_NOTHROW;
   template <class U>
   BOOST_CONTAINER_FORCEINLINE vector(const U& u);
   static BOOST_CXX14_CONSTEXPR bool empty(int n) { return !n; }
};
}}
'''
    facts = extract_blob(src, "vector.hpp", "cpp")
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("boost", "namespace", "", 1, 17),
        ("container", "namespace", "boost", 1, 17),
        ("vector", "class", "boost.container", 3, 16),
        ("f", "method", "boost.container.vector", 6, 7),
        ("data", "method", "boost.container.vector", 8, 9),
        ("swap", "method", "boost.container.vector", 10, 10),
        ("size", "method", "boost.container.vector", 11, 11),
        ("~vector", "method", "boost.container.vector", 12, 12),
        ("vector", "method", "boost.container.vector", 14, 14),
        ("empty", "method", "boost.container.vector", 15, 15),
    ]
    assert not {o.name for o in facts.occurrences} & {"BOOST_NOEXCEPT", "BOOST_CONTAINER_FORCEINLINE"}


def test_consteval_nodiscard_noreturn_and_deprecated_macros_are_specifiers():
    # fmt's FMT_CONSTEVAL constructor read as a method `str_` holding a function; curl's
    # `CURL_DEPRECATED(version, message)` before a name on the next line lost the function
    cpp = b'''namespace fmt {
template <typename Char> class basic_fstring {
 public:
  template <typename S>
  FMT_CONSTEVAL basic_fstring(const S& s) : str_(s) { check(s); }
  FMT_NODISCARD auto size() const -> size_t { return n; }
  BOOST_NORETURN static void fail() { throw 1; }
  int n;
};
}
'''
    facts = extract_blob(cpp, "base.h", "cpp")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("fmt", "namespace", "", 1),
        ("basic_fstring", "class", "fmt", 2),
        ("basic_fstring", "method", "fmt.basic_fstring", 5),
        ("size", "method", "fmt.basic_fstring", 6),
        ("fail", "method", "fmt.basic_fstring", 7),
        ("n", "field", "fmt.basic_fstring", 8),
    ]
    c = (b'CURL_EXTERN CURLMcode CURL_DEPRECATED(7.19.5, "Use curl_multi_socket_action()")\n'
         b"curl_multi_socket(CURLM *multi_handle, curl_socket_t s, int *running_handles);\n")
    facts = extract_blob(c, "multi.h", "c")
    assert [(s.name, s.kind, s.line) for s in facts.symbols] == [("curl_multi_socket", "function", 2)]


def test_c_enumerator_macros_are_the_enumerators_they_define():
    # curl.h: `#define CURLOPT(na,t,nu) na = t + nu` fills a 300-entry enum; tree-sitter read
    # each argument as an enumerator (CURLOPTTYPE_LONG 113 times) and a deprecation message
    # as one more (CURLOPT_UPLOAD from "Use CURLOPT_UPLOAD")
    src = b'''typedef enum {
  CURLOPT(CURLOPT_WRITEDATA, CURLOPTTYPE_CBPOINT, 1),
  CURLOPT(CURLOPT_URL, CURLOPTTYPE_STRINGPOINT, 2),
  CURLOPTDEPRECATED(CURLOPT_PUT, CURLOPTTYPE_LONG, 54,
                    7.12.1, "Use CURLOPT_UPLOAD, not (this)"),
#define CURLOPT_PROGRESSDATA CURLOPT_XFERINFODATA
  CURLOPT(CURLOPT_XFERINFODATA, CURLOPTTYPE_CBPOINT, 57),
  PLAIN = 3,
  CURLOPT_LASTENTRY
} CURLoption;
int f(int a) { return MAX(a, 1); }
'''
    facts = extract_blob(src, "curl.h", "c")
    # the enum as the parser sees it
    from indexer.lang.grammars import parser_view
    assert parser_view("c", src).splitlines()[1:5] == [
        b"          CURLOPT_WRITEDATA= CURLOPTTYPE_CBPOINT+ 1 ,",
        b"          CURLOPT_URL= CURLOPTTYPE_STRINGPOINT+ 2 ,",
        b"                    CURLOPT_PUT= CURLOPTTYPE_LONG+ 54+",
        b'                    7.12.1+ "Use CURLOPT_UPLOAD, not (this)" ,']
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("CURLoption", "type", "", 10, 10),
        ("CURLOPT_WRITEDATA", "enumerator", "CURLoption", 2, 2),
        ("CURLOPT_URL", "enumerator", "CURLoption", 3, 3),
        ("CURLOPT_PUT", "enumerator", "CURLoption", 4, 5),
        # a `#define` among the entries is hidden from the parser and read from its line
        ("CURLOPT_PROGRESSDATA", "macro", "", 6, 6),
        ("CURLOPT_XFERINFODATA", "enumerator", "CURLoption", 7, 7),
        ("PLAIN", "enumerator", "CURLoption", 8, 8),
        ("CURLOPT_LASTENTRY", "enumerator", "CURLoption", 9, 9),
        ("f", "function", "", 11, 11),
    ]
    assert ("CURLOPT_PROGRESSDATA", 6, 8, "definition") in [(o.name, o.line, o.col, o.role) for o in facts.occurrences]
    # the other arguments are still read as uses, and a call outside an enum stays a call
    uses = [(o.name, o.line) for o in facts.occurrences if o.role != "definition"]
    assert ("CURLOPTTYPE_CBPOINT", 2) in uses and ("CURLOPTTYPE_LONG", 4) in uses
    assert ("MAX", 11) in uses
    # outside an enum body the same shape is a call: an initializer's entries stay as written
    table = b"static const int t[] = {\n  MIN(a, b),\n  MAX(c, d)\n};\nenum e { A, B };\n"
    assert parser_view("c", table) == table


def test_c_and_cpp_macros_have_no_container():
    # the preprocessor knows no namespace, class or enum: `fmt.FMT_X` names nothing
    src = b"namespace fmt {\n#define FMT_X 1\nclass K {\n#define IN_K(a) a\n};\n}\n"
    facts = extract_blob(src, "core.h", "cpp")
    assert [(s.name, s.kind, s.container) for s in facts.symbols] == [
        ("fmt", "namespace", ""), ("FMT_X", "macro", ""), ("K", "class", "fmt"), ("IN_K", "macro", "")]


def test_cpp_alternative_heads_under_if_else_read_as_the_first():
    # boost's smart_ptr: two heads of one constructor by configuration, one body after `#endif`;
    # tree-sitter read each head as a unit, the body as another method (8-8 and 12-18). Groups
    # whose branches are whole (the rvalue constructors) or directives alone stay as written.
    src = b'''namespace boost {
template<class T> class shared_ptr
{
public:
    template<class Y>
#if !defined( BOOST_SP_NO_SP_CONVERTIBLE )

    shared_ptr( shared_ptr<Y> const & r, typename sp_enable_if_convertible<Y,T>::type = sp_empty() )

#else

    shared_ptr( shared_ptr<Y> const & r )

#endif
    BOOST_SP_NOEXCEPT : px( r.px ), pn( r.pn )
    {
        sp_assert_convertible< Y, T >();
    }

    void reset() BOOST_SP_NOEXCEPT { this_type().swap(*this); }
#if defined(BOOST_MSVC)
#  define BOOST_SP_ALIGN 8
#else
#  define BOOST_SP_ALIGN 16
#endif
#ifdef BOOST_HAS_RVALUE_REFS
    shared_ptr( shared_ptr && r ) BOOST_SP_NOEXCEPT : px( r.px ) {}
#else
    shared_ptr( shared_ptr const & r ) BOOST_SP_NOEXCEPT : px( r.px ) {}
#endif
private:
    T * px;
};
}
'''
    facts = extract_blob(src, "shared_ptr.hpp", "cpp")
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("boost", "namespace", "", 1, 34),
        ("shared_ptr", "class", "boost", 2, 33),
        ("shared_ptr", "method", "boost.shared_ptr", 8, 18),
        ("reset", "method", "boost.shared_ptr", 20, 20),
        ("BOOST_SP_ALIGN", "macro", "", 22, 22),
        ("BOOST_SP_ALIGN", "macro", "", 24, 24),
        ("shared_ptr", "method", "boost.shared_ptr", 27, 27),
        ("shared_ptr", "method", "boost.shared_ptr", 29, 29),
        ("px", "field", "boost.shared_ptr", 32, 32),
    ]
    from indexer.lang.grammars import parser_view
    view = parser_view("cpp", src).split(b"\n")
    assert [line.strip() for line in view[5:14]] == [
        b"", b"", b"shared_ptr( shared_ptr<Y> const & r, typename sp_enable_if_convertible<Y,T>::type = sp_empty() )",
        b"", b"", b"", b"", b"", b""]
    directives = [line for line in view[20:] if line.lstrip().startswith(b"#")]
    assert directives == [line for line in src.split(b"\n")[20:] if line.lstrip().startswith(b"#")]
    assert len(directives) == 8
    # one branch whole, one not: the parser can place the group, and it is left
    mixed = b"#if A\nvoid f(int);\n#else\nvoid f(long\n#endif\n);\n"
    assert parser_view("cpp", mixed) == mixed


def test_c_pre_ansi_prototype_wrappers():
    # zlib.h: `deflate OF((z_streamp strm, int flush))` read as a call of OF; no function of
    # zlib's API came out (zlib 1.2.13's zlib.h: 7 functions, all named OF; now 96, 94 named right)
    src = b'''ZEXTERN int ZEXPORT deflate OF((z_streamp strm, int flush));
ZEXTERN int ZEXPORT deflateInit2_ OF((z_streamp strm, int  level, int  method,
                                      int windowBits, int memLevel,
                                      int strategy, const char *version,
                                      int stream_size));
ZEXTERN gzFile ZEXPORT gzdopen OF((int fd, const char *mode));
'''
    facts = extract_blob(src, "zlib.h", "c")
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("deflate", "function", "", 1, 1),
        ("deflateInit2_", "function", "", 2, 5),
        ("gzdopen", "function", "", 6, 6),
    ]


def test_c_and_cpp_calls_are_call_sites():
    src = b"void f(void) { g(1); s.m(2); p->q(3); }\n"
    for language in ("c", "cpp"):
        roles = {o.name: o.role for o in extract_blob(src, "a.c", language).occurrences}
        assert (roles["g"], roles["m"], roles["q"], roles["s"], roles["p"]) == (
            "call", "call", "call", "identifier", "identifier")
    src = b"void f() { ns::g(1); obj.m<int>(2); h<T>(3); a::b::k<int>(4); a::b::z(5); auto x = new Widget(1); }\n"
    roles = {o.name: o.role for o in extract_blob(src, "a.cpp", "cpp").occurrences}
    assert [roles[n] for n in ("g", "m", "h", "k", "z", "Widget", "ns", "obj", "T")] == [
        "call", "call", "call", "call", "call", "reference", "identifier", "identifier", "identifier"]


def test_plain_and_path_calls_in_csharp_php_and_rust():
    cases = {
        "csharp": (b"class A { void F() { G(1); H<int>(2); obj.M(2); var w = new Widget(); } }",
                   {"G": "call", "H": "call", "M": "call", "Widget": "reference", "obj": "identifier"}),
        "php": (b"<?php function f() { g(1); \\A\\h(2); $o->m(2); new Widget(); new \\N\\W(); }",
                {"g": "call", "h": "call", "m": "call", "Widget": "reference", "W": "reference"}),
        "rust": (b"fn f() { g(1); A::s(3); a::b::t(4); g2::<i32>(5); }\n",
                 {"g": "call", "s": "call", "t": "call", "g2": "call", "A": "identifier"}),
    }
    for language, (src, expected) in cases.items():
        roles = {o.name: o.role for o in extract_blob(src, "x", language).occurrences}
        assert {name: roles[name] for name in expected} == expected, language


def test_bash_function_names_are_definition_sites():
    facts = extract_blob(b"f() { echo x; }\nfunction g { :; }\nf\ng arg\n", "run.sh", "bash")
    assert [(o.name, o.line, o.role) for o in facts.occurrences if o.name in ("f", "g")] == [
        ("f", 1, "definition"), ("g", 2, "definition"), ("f", 3, "call"), ("g", 4, "call")]


def test_jsx_component_uses_are_references():
    src = b"export function App() { return <div><Button onClick={go} /><Nav.Item>x</Nav.Item></div>; }\n"
    for language in ("javascript", "tsx"):
        sites = [(o.name, o.role) for o in extract_blob(src, "App.jsx", language).occurrences]
        assert ("Button", "reference") in sites and ("Item", "reference") in sites, language
        assert ("div", "reference") not in sites and ("div", "identifier") in sites, language
    # the TypeScript grammar has no JSX: its query still compiles and reads plain code
    assert [(o.name, o.role) for o in extract_blob(b"const x = f(1);", "a.ts", "typescript").occurrences] == [
        ("x", "definition"), ("f", "call")]


def test_parser_view_keeps_every_offset():
    from indexer.lang.grammars import parser_view
    src = (b"class SPDLOG_API logger final : public X {\n  FMT_API void print(int);\n"
           b"  logger(int a) SPDLOG_NOEXCEPT : a_(a) {}\n};\nMY_TYPE f(int);\n")
    view = parser_view("cpp", src)
    assert len(view) == len(src) and view != src
    # only macro bytes change, each to a space; everything else (newlines first) stays put
    assert all(v == s or (v == ord(" ") and (chr(s).isalnum() or chr(s) == "_")) for v, s in zip(view, src))
    assert [i for i, c in enumerate(view) if c == ord("\n")] == [i for i, c in enumerate(src) if c == ord("\n")]
    assert b"MY_TYPE f(int);" in view and b"SPDLOG_API" not in view and b"FMT_API" not in view
    # C's rules: a macro before a built-in type only (`FMT_API void`), none of C++'s (the class's
    # export macro, the exception specification)
    assert parser_view("c", src) == src.replace(b"FMT_API", b" " * 7) and parser_view("python", src) is src
    assert parser_view("c", b"MY_TYPE f(int);\n") == b"MY_TYPE f(int);\n"
    # a macro blanked with its argument over lines (boost's BOOST_NOEXCEPT_IF) keeps the lines
    multi = b"void swap(K& x) BOOST_NOEXCEPT_IF(\n    is_nothrow<T>::value);\n"
    assert parser_view("cpp", multi) == b"void swap(K& x)" + b" " * 19 + b"\n" + b" " * 25 + b";\n"


def test_parser_view_blanks_only_macros_in_their_places():
    from indexer.lang.grammars import parser_view
    src = (b"#define SPDLOG_CATCH_STD catch (...) {}\n"
           b"void f(BOOST_RV_REF(T) x, int y) {\n  SPDLOG_TRY { g(); }\n  SPDLOG_CATCH_STD\n}\n"
           b"int deflate OF((z_streamp strm));\n")
    view = parser_view("cpp", src)
    assert len(view) == len(src)
    assert view.splitlines() == [
        b"#define SPDLOG_CATCH_STD catch (...) {}",  # a definition is not a use
        b"void f(             T  x, int y) {",
        b"             { g(); }",
        b"                  ",
        b"}",
        b"int deflate    (z_streamp strm) ;",
    ]
    # not where a macro cannot be told from code: a call, a statement of its own, Catch2's
    # CATCH_TEST_CASE, a parenthesized expression, a type with no wrapper
    kept = (b"void g() { MY_TRY(x); LOG_CATCH; h(FOO_BAR(1) + 2, y); }\n"
            b"CATCH_TEST_CASE(\"x\") {\n}\nint k(MY_TYPE x, MY_T(a));\n"
            # a specifier macro on a directive line, as a macro's argument, or called
            b"#ifndef BOOST_NO_CXX11_NOEXCEPT\nBOOST_PP_REPEAT(N, X_MEMBER_DECL, _)\n#endif\n"
            b"BOOST_IF_CONSTEXPR(a) { f(); }\n")
    assert parser_view("cpp", kept) == kept
    assert parser_view("c", b"int deflate OF((z_streamp strm));\n") == b"int deflate    (z_streamp strm) ;\n"


def test_go_embedded_fields_are_fields_and_uses_of_their_type():
    # testify's suites embed `suite.Suite`; Go promotes through it and ctags lists it. The
    # fields of an anonymous struct in a body (a table-driven test's cases) are locals.
    src = (b"package p\ntype S struct {\n\tsuite.Suite\n\t*Base\n\tList[int]\n\tname string\n}\n"
           b"type I interface {\n\tio.Reader\n\tM()\n}\n"
           b"func TestX(t *testing.T) {\n\tcases := []struct {\n\t\tin   string\n\t\tBase\n\t}{}\n\t_ = cases\n}\n")
    facts = extract_blob(src, "s_test.go", "go")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("S", "struct", "", 2), ("Suite", "field", "S", 3), ("Base", "field", "S", 4), ("List", "field", "S", 5),
        ("name", "field", "S", 6), ("I", "interface", "", 8), ("M", "method", "I", 10), ("TestX", "function", "", 12)]
    # the embedded name is still a use of the type: `references Base` finds the embedding
    assert [(o.name, o.line, o.role) for o in facts.occurrences if o.name in ("Suite", "Base")] == [
        ("Suite", 3, "reference"), ("Base", 4, "reference"), ("Base", 15, "reference")]
    # a struct type named in a body holds its fields; only an anonymous one's are locals
    local = extract_blob(b"package p\nfunc F() {\n\ttype T struct {\n\t\tx int\n\t}\n\t_ = T{}\n}\n", "f.go", "go")
    assert [(s.name, s.kind, s.container) for s in local.symbols] == [
        ("F", "function", ""), ("T", "struct", "F"), ("x", "field", "F.T")]
    # where a type is declared its name is a definition site, though a reference pattern sees it too
    assert [(o.name, o.line, o.role) for o in facts.occurrences if o.name in ("S", "I")] == [
        ("S", 2, "definition"), ("I", 8, "definition")]


def test_go_generic_receivers_type_aliases_and_all_caps_fields():
    # a method's container is its receiver's base type, a generic one's (`List[T]`, `*List[T]`)
    # too; a type alias is a type (`type A = B`, a generic one too, Go 1.24); an all-caps field
    # is storage in each value, a field as any other
    src = (b"package p\n\ntype List[T any] struct{ ID int; URL string }\n\n"
           b"func (l List[T]) Len() int { return 0 }\n\nfunc (l *List[T]) Push(v T) {}\n\n"
           b"type Names = []string\n\ntype Pair[K comparable, V any] = map[K]V\n")
    facts = extract_blob(src, "p.go", "go")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("List", "struct", "", 3), ("ID", "field", "List", 3), ("URL", "field", "List", 3),
        ("Len", "method", "List", 5), ("Push", "method", "List", 7), ("Names", "type", "", 9), ("Pair", "type", "", 11)]


def test_go_every_name_of_a_spec_and_a_var_of_capitals():
    # go/parser lists each name of `b, c = 1, 2` (the query matched a const spec's first name
    # only); `var EOF` is a variable whatever its case, Go writing `const` for a constant
    src = (b"package p\n\nconst (\n\ta = iota\n\tb, c\n)\n\nconst d, e = 1, 2\n\nvar EOF, URL = 1, 2\n\n"
           b"func F() int {\n\tconst x, y = 1, 2\n\treturn y\n}\n")
    facts = extract_blob(src, "p.go", "go")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("a", "constant", "", 4), ("b", "constant", "", 5), ("c", "constant", "", 5), ("d", "constant", "", 8),
        ("e", "constant", "", 8), ("EOF", "variable", "", 10), ("URL", "variable", "", 10), ("F", "function", "", 12)]
    # a body's `const x, y` binds its second name too: `return y` reads the local
    assert [(o.name, o.line, o.role) for o in facts.occurrences if o.name == "y"] == [("y", 13, "local"), ("y", 14, "local")]


def test_go_literal_members_are_held_as_code_selects_them():
    # A struct or interface literal's members are the field's or variable's whose type it is
    # (`S.Sub.Deep`: `s.Deep` is no field of S), names declared together hold none of each other,
    # a method's receiver type holds what its body declares, and in a body an anonymous struct's
    # fields (each name of `in, out string`) and an anonymous interface's methods are locals
    src = (b"package p\n\ntype S struct {\n\tA, B int\n\tSub struct{ Deep int }\n\ti interface{ F() }\n"
           b"\tc, d struct{ X int }\n}\n\nvar Debug struct {\n\tCheckptr int\n\tSub struct{ Deep int }\n}\n\n"
           b"var tests = []struct{ in string }{}\n\n"
           b"func (s *S) Run(v any) {\n\ttype local struct{ Y int }\n"
           b"\tcases := []struct {\n\t\tin, out string\n\t\tn   struct{ Z int }\n\t}{}\n"
           b"\t_, _ = cases, v.(interface{ Name() string })\n}\n")
    facts = extract_blob(src, "p.go", "go")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("S", "struct", "", 3), ("A", "field", "S", 4), ("B", "field", "S", 4), ("Sub", "field", "S", 5),
        ("Deep", "field", "S.Sub", 5), ("i", "field", "S", 6), ("F", "method", "S.i", 6), ("c", "field", "S", 7),
        ("d", "field", "S", 7), ("X", "field", "S.c", 7),
        ("Debug", "variable", "", 10), ("Checkptr", "field", "Debug", 11), ("Sub", "field", "Debug", 12),
        ("Deep", "field", "Debug.Sub", 12), ("tests", "variable", "", 15), ("in", "field", "tests", 15),
        ("Run", "method", "S", 17), ("local", "struct", "S.Run", 18), ("Y", "field", "S.Run.local", 18)]


def test_go_a_generic_types_constraint_literals_declare_no_member_of_it():
    # `Pair.M` and `Pair.a` are no members: Go selects `M` on a value of T, not of Pair; a
    # generic function's are locals of its signature alike, and a literal in the type itself counts
    src = (b"package p\n\ntype Pair[T interface{ M() }, B struct{ a int }] struct{ x T }\n\n"
           b"type A[T interface{ N() }] = Pair[T, struct{ b int }]\n\nfunc F[T interface{ M() }]() {}\n")
    facts = extract_blob(src, "p.go", "go")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("Pair", "struct", "", 3), ("x", "field", "Pair", 3), ("A", "type", "", 5), ("b", "field", "A", 5),
        ("F", "function", "", 7)]


def test_go_a_receiver_type_in_parentheses_holds_its_method():
    # Go's spec lets a receiver's type be parenthesized (go/types' own tests write them); a
    # qualified one is a type of another package, on which Go defines no method
    src = (b"package p\n\nfunc ((T)) a() {}\nfunc ((*T)) b() {}\nfunc (x *(T),) c() {}\n"
           b"func (x ((*((List[K]))))) d() {}\nfunc (x (time.Time)) e() {}\n")
    facts = extract_blob(src, "p.go", "go")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("a", "method", "T", 3), ("b", "method", "T", 4), ("c", "method", "T", 5), ("d", "method", "List", 6),
        ("e", "method", "", 7)]


def test_ruby_accessors_and_reopened_classes_of_every_form():
    # each accessor and each of the four reopening calls; an accessor called on another object
    # defines nothing of this class
    src = (b"class Cart\n  attr_writer :note\n  other.attr_reader :not_ours\nend\n"
           b"Foo.module_eval do\n  def a; end\nend\nFoo.class_exec do\n  def b; end\nend\n"
           b"Foo.module_exec do\n  def c; end\nend\n")
    facts = extract_blob(src, "forms.rb", "ruby")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("Cart", "class", "", 1), ("note", "field", "Cart", 2),
        ("a", "method", "Foo", 6), ("b", "method", "Foo", 9), ("c", "method", "Foo", 12)]


def test_ruby_singleton_class_of_a_constant_reopens_it():
    # ruby's benchmark.rb: `class << Benchmark` adds methods to a module defined elsewhere;
    # the shipped tags made it a second `Benchmark`, a class
    src = (b"module Benchmark\n  def self.a; end\nend\nclass << Benchmark\n  def measure(x); end\nend\n"
           b"class Foo\n  class << self\n    def build; end\n  end\nend\nclass << A::B\n  def z; end\nend\n")
    facts = extract_blob(src, "benchmark.rb", "ruby")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("Benchmark", "module", "", 1), ("a", "method", "Benchmark", 2), ("measure", "method", "Benchmark", 5),
        ("Foo", "class", "", 7), ("build", "method", "Foo", 9), ("z", "method", "A.B", 13)]
    assert [(o.name, o.line, o.role) for o in facts.occurrences if o.name in ("Benchmark", "B")] == [
        ("Benchmark", 1, "definition"), ("Benchmark", 4, "reference"), ("B", 12, "reference")]


def test_ruby_explicit_scopes_of_classes_and_modules():
    # `class Foo::Bar` defines Bar in Foo as Ruby looks Foo up from where it stands: in
    # `module A`, A's Foo (there being no other the tree shows); `class ::Foo::Baz` in the
    # top-level Foo whatever encloses it; `A::B` written inside A is A's B. What is defined inside
    # takes the written scope too. (Was: Bar and Baz of "A", C of "", Foo dropped from the
    # containers of their methods.)
    src = b"""module A
  class Foo::Bar < Base
    def m; end
    X = 1
    class Inner
      def i; end
    end
  end
  class ::Foo::Baz
    def n; end
  end
  module Foo::Mod
    def self.k; end
  end
  class ::Top; end
  class self::Own; end
  class klass::Unknown; end
  class self::Foo::Deep; end
  class klass::Foo::Lost; end
  class A::B::C
    def q; end
  end
  module Lint
    class Lint::Wrapper; end
  end
end
class A::B::C
  def q; end
end
class ::Top2; end
"""
    facts = extract_blob(src, "lib/a.rb", "ruby")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("A", "module", "", 1),
        ("Bar", "class", "A.Foo", 2),
        ("m", "method", "A.Foo.Bar", 3),
        ("X", "constant", "A.Foo.Bar", 4),
        ("Inner", "class", "A.Foo.Bar", 5),
        ("i", "method", "A.Foo.Bar.Inner", 6),
        ("Baz", "class", "Foo", 9),
        ("n", "method", "Foo.Baz", 10),
        ("Mod", "module", "A.Foo", 12),
        ("k", "method", "A.Foo.Mod", 13),
        ("Top", "class", "", 15),
        ("Own", "class", "A", 16),  # `self` in A's body is A
        ("Unknown", "class", "A", 17),  # a variable's value: no constant the tree shows
        ("Deep", "class", "A.Foo", 18),  # `self` is A
        ("Lost", "class", "A", 19),
        ("C", "class", "A.B", 20),
        ("q", "method", "A.B.C", 21),
        ("Lint", "module", "A", 23),
        ("Wrapper", "class", "A.Lint", 24),  # Lint found in A, not A.Lint.Lint
        ("C", "class", "A.B", 27),
        ("q", "method", "A.B.C", 28),
        ("Top2", "class", "", 30),
    ]
    # the written scope is a use of its names, the class's own name its definition
    assert [(o.name, o.line, o.role) for o in facts.occurrences if o.line in (2, 9)] == [
        ("Foo", 2, "identifier"), ("Bar", 2, "definition"), ("Base", 2, "identifier"),
        ("Foo", 9, "identifier"), ("Baz", 9, "definition")]
    # a class's bases are recorded under its qualified name, with the scopes its statement
    # stands in (A, then the top), which are not those of its name (A.Foo)
    assert [(b.cls, b.base, b.nesting) for b in facts.bases] == [("A.Foo.Bar", "Base", ("A", ""))]


def test_ruby_a_written_scope_is_no_lexical_scope():
    # Inside `class Foo::Bar` in `module A` Ruby looks a constant up in A::Foo::Bar, then A
    # (Module.nesting), never in A::Foo, which only the name writes: `class Bar::Q` there is not
    # Bar's own Q (a Bar none of them shows holding: the innermost's), while `Foo::R` finds A's
    # Foo. `self::Foo::Deep` is the enclosing class's Foo's, not looked up (not the top-level
    # Foo around it). The bases record the scopes the class statement stands in where its name
    # shows others. (Was: Q in A.Foo.Bar, Deep in Foo, every base's scopes those of its name.)
    src = b"""module A
  class Foo::Bar < Base
    class Bar::Q; end
    class Foo::R; end
    class Inner < Base
      include Mixin
    end
  end
  class ::Top::T < Base; end
  class Plain < Base; end
end
module Foo
  class K
    class self::Foo::Deep; end
    class self::X < Base; end
  end
end
"""
    facts = extract_blob(src, "lib/a.rb", "ruby")
    assert [(s.name, s.container, s.line) for s in facts.symbols] == [
        ("A", "", 1), ("Bar", "A.Foo", 2), ("Q", "A.Foo.Bar.Bar", 3), ("R", "A.Foo", 4), ("Inner", "A.Foo.Bar", 5),
        ("T", "Top", 9), ("Plain", "A", 10), ("Foo", "", 12), ("K", "Foo", 13), ("Deep", "Foo.K.Foo", 14),
        ("X", "Foo.K", 15)]
    assert [(b.cls, b.base, b.relation, b.nesting) for b in facts.bases] == [
        ("A.Foo.Bar", "Base", "", ("A", "")),
        ("A.Foo.Bar.Inner", "Base", "", ("A.Foo.Bar", "A", "")),
        ("A.Foo.Bar.Inner", "Mixin", "include", ("A.Foo.Bar", "A", "")),
        ("Top.T", "Base", "", ("A", "")),
        ("A.Plain", "Base", "", ()),  # its name's scopes: none recorded
        ("Foo.K.X", "Base", "", ())]


def test_ruby_alias_is_what_a_def_there_is():
    # a top-level `alias` names a function as the `def` beside it (was: a "method" of no
    # container); in a class, a module or a class it reopens, a method of it
    src = (b"alias shout say\ndef say; end\nclass K\n  alias a b\nend\nmodule M\n  alias c d\nend\n"
           b"class << Foo\n  alias e f\nend\n")
    facts = extract_blob(src, "alias.rb", "ruby")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("shout", "function", "", 1), ("say", "function", "", 2), ("K", "class", "", 3), ("a", "method", "K", 4),
        ("M", "module", "", 6), ("c", "method", "M", 7), ("e", "method", "Foo", 10)]


def test_ruby_singleton_method_of_a_constant_is_its_method():
    # `def Foo.bar` adds bar to Foo as `class << Foo` does (was: a method of the scope it is
    # written in); Foo is looked up from there as a written scope is; `def self.x` and a
    # method of a variable's value stay the enclosing scope's
    src = (b"def Foo.bar; end\ndef Foo.size=(v); end\ndef Foo.+(o); end\ndef obj.w; end\n"
           b"module A\n  def Foo.c; end\n  class Foo\n    def Foo.d; end\n    def self.e; end\n  end\nend\n")
    facts = extract_blob(src, "single.rb", "ruby")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("bar", "method", "Foo", 1), ("size=", "method", "Foo", 2), ("+", "method", "Foo", 3),
        ("w", "method", "", 4), ("A", "module", "", 5), ("c", "method", "A.Foo", 6), ("Foo", "class", "A", 7),
        ("d", "method", "A.Foo", 8), ("e", "method", "A.Foo", 9)]


def test_ruby_accessor_names_are_definition_sites():
    src = b"class Cart\n  attr_reader :items, :total\n  def add(x)\n    items << x\n  end\nend\n"
    facts = extract_blob(src, "cart.rb", "ruby")
    assert [(o.name, o.line, o.col, o.role) for o in facts.occurrences if o.name in ("items", "total")] == [
        ("items", 2, 15, "definition"), ("total", 2, 23, "definition"), ("items", 4, 4, "identifier")]
    lines = src.split(b"\n")
    assert lines[1][15:20] == b"items" and lines[1][23:28] == b"total"  # columns point at the names


def test_python_module_names_bound_in_chains_tuples_and_module_level_blocks():
    # Django's psycopg_any.py and postgres test fields: fallbacks bound under try/except and
    # `if`, and a chain of four names; locals of a function and class bodies stay out
    src = (b"a = b = C = 0\n"
           b"x, y = 1, 2\n"
           b"try:\n    from psycopg import Range\n    RANGE_TYPES = (Range,)\n"
           b"except ImportError:\n    is_psycopg3 = False\n"
           b"if X:\n    SEP = '/'\nelif Y:\n    SEP = ':'\nelse:\n    SEP = ';'\n"
           b"def f():\n    local = 1\n    try:\n        inner = 2\n    except E:\n        pass\n"
           b"class K:\n    attr = 1\n")
    facts = extract_blob(src, "compat.py", "python")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("a", "variable", "", 1), ("b", "variable", "", 1), ("C", "variable", "", 1),
        ("x", "variable", "", 2), ("y", "variable", "", 2),
        ("RANGE_TYPES", "constant", "", 5), ("is_psycopg3", "variable", "", 7),
        ("SEP", "constant", "", 9), ("SEP", "constant", "", 11), ("SEP", "constant", "", 13),
        ("f", "function", "", 14), ("K", "class", "", 20), ("attr", "field", "K", 21)]


def test_typescript_declaration_file_ambient_constants():
    # zod's lib/locales/en.d.ts and helpers/parseUtil.d.ts
    src = (b"declare const errorMap: ZodErrorMap;\nexport default errorMap;\n"
           b"export declare const OK: <T>(value: T) => OK<T>;\nexport declare function f(): void;\n")
    for language in ("typescript", "tsx"):
        facts = extract_blob(src, "en.d.ts", language)
        assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
            ("errorMap", "variable", "", 1), ("OK", "constant", "", 3), ("f", "function", "", 4)]


def test_c_typedefs_of_pointers_arrays_and_function_pointers():
    # curl's typecheck-gcc.h and zlib's zlib.h: the shipped tags name a plain typedef only
    src = (b"typedef struct s *s_ptr;\ntypedef int row[4];\ntypedef void (*handler_t)(int);\n"
           b"typedef char **argv_t;\ntypedef int plain_t;\n"
           b"typedef voidpf (*alloc_func) OF((voidpf opaque, uInt items, uInt size));\n")
    for language in ("c", "cpp"):
        facts = extract_blob(src, "types.h", language)
        assert [(s.name, s.kind, s.line) for s in facts.symbols] == [
            ("s_ptr", "type", 1), ("row", "type", 2), ("handler_t", "type", 3), ("argv_t", "type", 4),
            ("plain_t", "type", 5), ("alloc_func", "type", 6)]


def test_c_a_function_returning_a_function_pointer_spans_its_definition():
    # its name is in a declarator inside the one of the definition (was: the span, and so the
    # last line, were that inner declarator's: `get` ended on its first line)
    src = (b"int (*get(void))(int) {\n  return 0;\n}\n"
           b"void (*signal(int sig, void (*func)(int)))(int);\n")
    for language in ("c", "cpp"):
        facts = extract_blob(src, "sig.h", language)
        assert [(s.name, s.kind, s.line, s.end_line, s.start_byte, s.end_byte) for s in facts.symbols] == [
            ("get", "function", 1, 3, 0, 37), ("signal", "function", 4, 4, 38, 86)], language


def test_a_macro_alone_on_its_line_between_declarations_is_not_parsed():
    # nlohmann/json's NLOHMANN_JSON_NAMESPACE_BEGIN, fmt's FMT_BEGIN_NAMESPACE then
    # FMT_MODULE_EXPORT_BEGIN: read as the type of what follows, they broke the class there
    src = (b"#include <cstdint>\n\nNLOHMANN_JSON_NAMESPACE_BEGIN\n\n/// a box\ntemplate<typename T>\n"
           b"class box : public T\n{\n  public:\n    void set(int v) {}\n};\n\nNLOHMANN_JSON_NAMESPACE_END\n"
           b"FMT_BEGIN_NAMESPACE\nFMT_MODULE_EXPORT_BEGIN\n\nenum class color : uint32_t {\n  blue = 1,\n};\n")
    facts = extract_blob(src, "box.hpp", "cpp")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("box", "class", "", 7), ("set", "method", "box", 10), ("color", "enum", "", 17),
        ("blue", "enumerator", "color", 18)]
    # where the name goes on, it is code: the last enumerator of a list, OpenSSL's return type
    # on its own line before `*name(`
    src = (b"enum e {\n  E_FIRST,\n  E_LAST\n};\n"
           b"int set_token(MSG *msg);\nASN1_UTF8STRING\n*get_token(const MSG *msg);\n")
    facts = extract_blob(src, "crmf.h", "c")
    assert [(s.name, s.kind, s.line) for s in facts.symbols] == [
        ("e", "enum", 1), ("E_FIRST", "enumerator", 2), ("E_LAST", "enumerator", 3),
        ("set_token", "function", 5), ("get_token", "function", 7)]


def test_cpp_conversion_operator_to_a_reference_is_named_without_its_parameters():
    # boost's ref.hpp: `operator T& () const` nests its parameter list below the reference
    src = b"template<class T> class reference_wrapper {\n  public:\n    operator T& () const { return *t_; }\n};\n"
    facts = extract_blob(src, "ref.hpp", "cpp")
    assert [(s.name, s.kind, s.container) for s in facts.symbols] == [
        ("reference_wrapper", "class", ""), ("operator T&", "method", "reference_wrapper")]


def test_php_enum_cases_promoted_properties_and_defined_constants():
    """What the shipped PHP tags leave out: enum cases (enumerators, as other languages' enum
    members), constructor-promoted properties (fields of the class, not of `__construct`),
    and `define()` constants (global wherever the call runs); a `$URL` property stays a field."""
    src = (b"<?php\nnamespace Acme\\Shop;\n\n"
           b"enum Status: string\n{\n    case Active = 'active';\n    case Archived = 'archived';\n"
           b"    const DEFAULT = self::Active;\n}\n\n"
           b"final class Product\n{\n    public $URL;\n\n    public function __construct(\n"
           b"        private readonly int $id,\n        protected array &$tags = [],\n        $plain = null,\n"
           b"    ) {\n        define('PRODUCT_READY', true);\n    }\n}\n\n"
           b"if (!defined('SHOP_ROOT')) {\n    define(\"SHOP_ROOT\", __DIR__);\n}\n"
           b"define($dynamic, 1);\ndefine('Other\\\\NAME', 2);\ndefine(\"V{$x}\", 3);\n"
           b"namespace Acme\\Braced {\n    function boot() { define('BOOTED', 1); }\n}\n")
    facts = extract_blob(src, "src/Product.php", "php")
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("Acme\\Shop", "namespace", "", 2, 2),
        ("Status", "enum", "Acme\\Shop", 4, 9),
        ("Active", "enumerator", "Acme\\Shop.Status", 6, 6),
        ("Archived", "enumerator", "Acme\\Shop.Status", 7, 7),
        ("DEFAULT", "constant", "Acme\\Shop.Status", 8, 8),
        ("Product", "class", "Acme\\Shop", 11, 22),
        ("URL", "field", "Acme\\Shop.Product", 13, 13),
        ("__construct", "method", "Acme\\Shop.Product", 15, 21),
        ("id", "field", "Acme\\Shop.Product", 16, 16),
        ("tags", "field", "Acme\\Shop.Product", 17, 17),
        ("PRODUCT_READY", "constant", "", 20, 20),
        ("SHOP_ROOT", "constant", "", 25, 25),
        ("Acme\\Braced", "namespace", "", 30, 32),
        ("boot", "function", "Acme\\Braced", 31, 31),
        ("BOOTED", "constant", "", 31, 31),
    ]


def test_php_a_constant_valued_by_another_constant_is_one_definition():
    # `JPEG = IMAGETYPE_JPEG`: the value is a bare name in the element, a use of PHP's constant
    src = (b"<?php\nnamespace N;\nconst TOP = E_ALL, NEXT = 2;\nclass Image {\n"
           b"    public const JPEG = IMAGETYPE_JPEG, PNG = self::PNG_TYPE, LIST = PHP_EOL;\n}\n")
    facts = extract_blob(src, "Image.php", "php")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("N", "namespace", "", 2), ("NEXT", "constant", "N", 3), ("TOP", "constant", "N", 3),
        ("Image", "class", "N", 4), ("JPEG", "constant", "N.Image", 5), ("LIST", "constant", "N.Image", 5),
        ("PNG", "constant", "N.Image", 5)]
    assert [(o.name, o.role) for o in facts.occurrences if o.name in ("E_ALL", "IMAGETYPE_JPEG", "PHP_EOL")] == [
        ("E_ALL", "identifier"), ("IMAGETYPE_JPEG", "identifier"), ("PHP_EOL", "identifier")]


def test_php_define_is_matched_in_any_case_and_fully_qualified():
    # PHP's function names match in any case, and `\define` is the global function itself;
    # `Other\define` is a function of namespace Other
    src = (b"<?php\n\\define('APACHE_URL', 'x');\nDEFINE('LOUD', 1);\nDefine(\"MIXED\", 2);\n"
           b"Other\\define('NOT_ONE', 3);\n\\Other\\define('NOR_THIS', 4);\nundefine('NOR_THAT', 5);\n")
    facts = extract_blob(src, "gen.php", "php")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("APACHE_URL", "constant", "", 2), ("LOUD", "constant", "", 3), ("MIXED", "constant", "", 4)]


def test_php_a_keyword_key_in_a_string_keeps_the_methods_after_it():
    # PEAR's package.xml generator: the grammar lexes `extends` in "$info[extends]" as the
    # keyword, and its recovery ran the method on to the end of the class, `fileXml` a function in it
    src = (b'<?php\nclass Gen\n{\n    function toXml($info)\n    {\n        if ($this->ok()) {\n        }\n'
           b'        if (isset($info["extends"])) {\n            $ret .= "\\n<extends>$info[extends]</extends>";\n'
           b'        }\n        $ret .= "</package>\\n";\n    }\n\n    function fileXml($file)\n    {\n    }\n}\n')
    facts = extract_blob(src, "v1.php", "php")
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("Gen", "class", "", 2, 17), ("toXml", "method", "Gen", 4, 12), ("fileXml", "method", "Gen", 14, 16)]
    # names are still read from the source itself
    assert ("extends", 9) in [(o.name, o.line) for o in facts.occurrences]


def test_php_a_function_or_class_declared_in_a_function_is_its_namespaces():
    # PHP declares them in the namespace when the function runs: `inner()` is then
    # App\inner, callable from anywhere, and Made a class of App
    src = (b"<?php\nnamespace App {\n    function outer() {\n        function inner() { return new class { function run() {} }; }\n"
           b"        class Made { public function __construct(private int $id) {} function m() {} }\n"
           b"        interface Shape {}\n        $f = function () { function in_closure() {} };\n    }\n"
           b"    class Host { function boot() { function booted() {} define('BOOTED', 1); } }\n}\n"
           b"namespace {\n    function top() { function top_inner() {} }\n}\n")
    facts = extract_blob(src, "hoist.php", "php")
    assert [(s.name, s.kind, s.container) for s in facts.symbols] == [
        ("App", "namespace", ""), ("outer", "function", "App"), ("inner", "function", "App"),
        ("run", "method", "App.inner.class@anonymous"), ("Made", "class", "App"),
        ("__construct", "method", "App.Made"), ("id", "field", "App.Made"), ("m", "method", "App.Made"),
        ("Shape", "interface", "App"), ("in_closure", "function", "App"), ("Host", "class", "App"),
        ("boot", "method", "App.Host"), ("booted", "function", "App"), ("BOOTED", "constant", ""),
        ("top", "function", ""), ("top_inner", "function", "")]


def test_php_namespace_statements_hold_what_follows_up_to_the_next():
    src = b"<?php\nnamespace A;\nclass K { function m() {} }\nnamespace B\\C;\nfunction f() {}\nconst X = 1;\n"
    facts = extract_blob(src, "two.php", "php")
    assert [(s.name, s.kind, s.container) for s in facts.symbols] == [
        ("A", "namespace", ""), ("K", "class", "A"), ("m", "method", "A.K"),
        ("B\\C", "namespace", ""), ("f", "function", "B\\C"), ("X", "constant", "B\\C")]


def test_php_parents_interfaces_and_traits_are_references():
    src = (b"<?php\nclass X extends \\A\\Base implements I, \\N\\J {\n    use Greets, \\T\\Other {\n"
           b"        Greets::hi insteadof Other;\n    }\n}\ninterface K extends L {}\nclass Y extends Z {}\n")
    roles = [(o.name, o.line, o.role) for o in extract_blob(src, "x.php", "php").occurrences]
    assert roles == [
        ("X", 2, "definition"), ("A", 2, "identifier"), ("Base", 2, "reference"), ("I", 2, "reference"),
        ("N", 2, "identifier"), ("J", 2, "reference"), ("Greets", 3, "reference"), ("T", 3, "identifier"),
        ("Other", 3, "reference"), ("Greets", 4, "identifier"), ("hi", 4, "identifier"), ("Other", 4, "identifier"),
        ("K", 7, "definition"), ("L", 7, "reference"), ("Y", 8, "definition"), ("Z", 8, "reference")]


def test_csharp_operators_destructors_indexers_events_and_local_functions():
    """Members the shipped tags leave out: an operator is named from its keyword to its
    parameters and a destructor with its `~`, as C++'s are (`operator ==`, `operator int`,
    `~Shape`); an indexer is its `this`; an event with accessors is a field like a field-like
    event; a local function is a function of the method it is declared in."""
    src = b"""namespace Geo
{
    public class Shape
    {
        ~Shape() { }
        public int this[int i] => i;
        public event EventHandler Moved
        {
            add { }
            remove { }
        }
        public static Shape operator +(Shape a, Shape b) => a;
        public static bool operator ==(Shape a, Shape b) => true;
        public static implicit operator int(Shape s) => 0;
        public static explicit operator Shape(int n) => null;
        public int Area()
        {
            int Twice(int y) => y * 2;
            return Twice(1);
        }
    }
}
"""
    facts = extract_blob(src, "Shape.cs", "csharp")
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("Geo", "namespace", "", 1, 22),
        ("Shape", "class", "Geo", 3, 21),
        ("~Shape", "method", "Geo.Shape", 5, 5),
        ("this", "field", "Geo.Shape", 6, 6),
        ("Moved", "field", "Geo.Shape", 7, 11),
        ("operator +", "method", "Geo.Shape", 12, 12),
        ("operator ==", "method", "Geo.Shape", 13, 13),
        ("operator int", "method", "Geo.Shape", 14, 14),
        ("operator Shape", "method", "Geo.Shape", 15, 15),
        ("Area", "method", "Geo.Shape", 16, 20),
        ("Twice", "function", "Geo.Shape.Area", 18, 18),
    ]
    roles = [(o.name, o.line, o.role) for o in facts.occurrences if o.name in ("Shape", "Twice")]
    assert ("Shape", 5, "definition") in roles and ("Twice", 18, "definition") in roles


def test_csharp_records_constants_and_upper_case_members():
    """`record struct` is a struct; a record's positional parameters are its properties; a
    `const` field is a constant, and an upper-case name alone makes none (`ID { get; }`, a
    mutable static `UTF8`)."""
    src = b"""public record Point(int X, int Y);
public readonly record struct Size(int W);
public class Codes
{
    public const int MaxCount = 10, MinCount = 1;
    public int ID { get; }
    public static Encoding UTF8 = null;
    static readonly string Name = "n";
}
"""
    facts = extract_blob(src, "Point.cs", "csharp")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("Point", "class", "", 1), ("X", "field", "Point", 1), ("Y", "field", "Point", 1),
        ("Size", "struct", "", 2), ("W", "field", "Size", 2),
        ("Codes", "class", "", 3), ("MaxCount", "constant", "Codes", 5), ("MinCount", "constant", "Codes", 5),
        ("ID", "field", "Codes", 6), ("UTF8", "field", "Codes", 7), ("Name", "field", "Codes", 8),
    ]


def test_csharp_using_alias_of_a_generic_type_names_the_type():
    src = b"using MaybeInfo = Acme.Reflection.Maybe<System.Reflection.MethodInfo>;\nusing Map = Acme.Dict<string, Acme.List<int>>;\n"
    facts = extract_blob(src, "Binder.cs", "csharp")
    assert [(i.kind, i.spec, i.line) for i in facts.imports] == [
        ("csharp_using", "Acme.Reflection.Maybe", 1), ("csharp_using", "Acme.Dict", 2)]


def test_csharp_conditional_directive_inside_a_parameter_list():
    """pythonnet's Finalizer.cs: an `#if` inside a parameter list made the whole file one ERROR
    (no namespace, no class, every member without its container). The file is parsed again
    as one configuration shows it (first branches), and that tree kept."""
    src = b"""namespace Python.Runtime
{
    public class Finalizer
    {
        internal void AddFinalizedObject(ref IntPtr obj, int run
#if TRACE_ALLOC
                                         , StackTrace stackTrace
#elif OTHER
                                         , int other
#else
                                         , string rest
#endif
        )
        {
            obj = IntPtr.Zero;
        }

        internal static void Shutdown() { }
    }
}
"""
    facts = extract_blob(src, "Finalizer.cs", "csharp")
    assert facts.skipped == ""
    assert facts.package_name == "Python.Runtime"
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("Python.Runtime", "namespace", "", 1, 20),
        ("Finalizer", "class", "Python.Runtime", 3, 19),
        ("AddFinalizedObject", "method", "Python.Runtime.Finalizer", 5, 16),
        ("Shutdown", "method", "Python.Runtime.Finalizer", 18, 18),
    ]
    # names are still read from the source itself: the parameter of the kept branch is a site
    assert ("stackTrace", 7) in [(o.name, o.line) for o in facts.occurrences]


def test_csharp_branch_view_keeps_first_branches_and_every_offset():
    from indexer.lang import grammars
    from indexer.lang.csharp.retry import csharp_branch_view

    # directives the grammar placed, and an error elsewhere: not worth a second parse
    other = b"class A {\n#if X\nvoid F() {}\n#endif\nvoid G() { int x = ; }\n}\n"
    other_root = grammars.parse("csharp", other).root_node
    assert other_root.has_error and csharp_branch_view(other, other_root) is None
    src = b"class A {\nvoid F(int a\n#if X\n, int b\n  #if Y\n, int c\n  #endif\n#else\n, int d\n#endif\n) {}\n}\n"
    root = grammars._parse("csharp", src).root_node
    assert root.has_error
    view = csharp_branch_view(src, root)
    assert len(view) == len(src) and view.count(b"\n") == src.count(b"\n")
    assert view.split(b"\n") == [b"class A {", b"void F(int a", b"     ", b", int b", b"       ", b", int c",
                                 b"        ", b"     ", b"       ", b"      ", b") {}", b"}", b""]


BASH_COMPLETION_SOURCE = r"""# lsusb(8) completion                                     -*- shell-script -*-

_lsusb()
{
    local cur prev words cword
    _init_completion || return

    case $prev in
        --help | --version | -!(-*)@([sD]|[hV]*))
            return
            ;;
    esac
    if [[ $cur =~ ^(\$\{[#!]?)([A-Za-z0-9_]*)\[([^]]*)$ ]]; then
        COMPREPLY=($(compgen -W '$(_parse_help "$1")' -- "$cur"))
    fi
    (( n = cword*(2+1) ))
}

_usb_ids() {
    [[ $cur == *.@(ids|txt) ]] && return
}

complete -F _lsusb lsusb
"""


def test_bash_extglob_patterns_and_bracketed_regexes_do_not_swallow_the_file():
    """tree-sitter-bash has no extglob in case patterns or `[[ == ]]` operands and ends a `=~`
    regex at the `]]` of `[^]]`: bash-completion's files turned into one ERROR, without their
    functions. Parsed again with those operands as plain words, they are whole."""
    facts = extract_blob(BASH_COMPLETION_SOURCE.encode(), "completions/lsusb", "bash")
    assert facts.skipped == ""
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("_lsusb", "function", "", 3, 17), ("_usb_ids", "function", "", 19, 21)]
    sites = [(o.name, o.line, o.role) for o in facts.occurrences]
    assert ("_init_completion", 6, "call") in sites and ("complete", 23, "call") in sites
    # arithmetic is not a pattern: its `*(` is left to the parser, and its names stay sites
    assert ("cword", 16, "identifier") in sites


def test_bash_pattern_view_offsets_and_arithmetic():
    from indexer.lang.bash.retry import bash_pattern_view

    src = b"[[ $x == *.@(a|b) ]]\n[[ $y =~ \\\n  ^([^]]*)$ ]]\n(( z = a*(b) ))\n"
    view = bash_pattern_view(src, None)
    assert view == b"[[ $x == *.xxxxxx ]]\n[[ $y =~  \n  xxxxxxxxx ]]\n(( z = a*(b) ))\n"


BASH_EXPANSION_PATTERNS_SOURCE = r"""# Helper function for _parse_help and _parse_usage.
__parse_options()
{
    local option option2
    option2=${option2%%[<{().[]*}
    printf '%s\n' "${option2/=*/=}"
}

_known_hosts_real()
{
    host="${host%]?(:+([0-9]))}"
    COMPREPLY+=($host)
}

_cd()
{
    local cur prev words cword
    _init_completion || return
}

complete -F _cd cd
"""


def test_bash_braces_and_stray_brackets_in_expansion_patterns_do_not_swallow_the_file():
    """bash ends `${...}` at its first `}`, but tree-sitter-bash counts the `{` of the pattern
    `[<{().[]*` as one more brace to close (the next function became a nested one, and the
    file's end a missing `}`), and a `]` closing no `[` (`${host%]*}`) is an ERROR up to the
    file's end: bash-completion's main script lost its 15 last functions, `_cd` among them."""
    facts = extract_blob(BASH_EXPANSION_PATTERNS_SOURCE.encode(), "bash_completion", "bash")
    assert facts.skipped == ""
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("__parse_options", "function", "", 2, 7), ("_known_hosts_real", "function", "", 9, 13),
        ("_cd", "function", "", 15, 19)]
    sites = [(o.name, o.line, o.role) for o in facts.occurrences]
    assert ("printf", 6, "call") in sites and ("complete", 21, "call") in sites
    assert ("option2", 5, "identifier") in sites and ("host", 12, "identifier") in sites


def test_bash_pattern_view_expansion_patterns():
    from indexer.lang.bash.retry import bash_pattern_view

    src = (b"a=${o%%[<{().[]*}\nb=\"${h%]?(x)}\"\nc=${w[0]}${d:-${e}}${f%[[:alpha:]]}\n"
           b"g=${x%\"{\"}\nh=${y#[}\n")
    view = bash_pattern_view(src, None)
    # the subscript, a nested `${`, balanced brackets, a quoted `{` and a lone `[` are left be
    assert view == (b"a=${o%%[<x().[]*}\nb=\"${h%xxxxx}\"\nc=${w[0]}${d:-${e}}${f%[[:alpha:]]}\n"
                    b"g=${x%\"{\"}\nh=${y#[}\n")
    assert bash_pattern_view(b"c=${w[0]}${d:-${e}}\n", None) is None


TS_CALL_SIGNATURES_SOURCE = """export interface BoxFactory {
    <T>(value: T): Box<T>
    <T>(value?: T, options?: Options): Box<T | undefined>
}

export interface Factory {
    <K = any, V = any>(value: Map<K, V>): Map<K, V>
    <T extends Base<X>>(
        value: T
    ): T
    box: BoxFactory
}

const factories: Factory = {
    box<T = any>(value: T, options?: Options): Box<T> {
        const o = options
        return new Box(value, o)
    },
}

export function observable(v: any) {
    return factories.box(v)
}
"""


@pytest.mark.parametrize("language, path", [("typescript", "src/observable.ts"), ("tsx", "src/observable.tsx")])
def test_typescript_call_signatures_on_their_own_lines_do_not_swallow_the_file(language, path):
    """tree-sitter-typescript reads a generic call signature starting its own line (`<T>(v: T)`
    after `): Box<T>`, no `;` between, as the compiler allows) as a comparison going on from the
    member above: the ERROR ran to the end of mobx's observable.ts, whose object-literal methods
    were lost and whose method-local `const o` became a module variable."""
    facts = extract_blob(TS_CALL_SIGNATURES_SOURCE.encode(), path, language)
    assert [(s.name, s.kind, s.container, s.line, s.end_line) for s in facts.symbols] == [
        ("BoxFactory", "interface", "", 1, 4), ("Factory", "interface", "", 6, 12),
        ("box", "field", "Factory", 11, 11), ("factories", "variable", "", 14, 19),
        ("box", "method", "factories", 15, 18), ("observable", "function", "", 21, 23)]
    assert {(o.line, o.role) for o in facts.occurrences if o.name == "o"} == {(16, "local"), (17, "local")}


MULTILINE_CALL_SIGNATURE_SOURCE = """\
interface Creator<State> {
  <R>(payload: R): Definition<
    State,
    R
  >
  <
    R,
    Arg extends Base<Config> = {},
  >(
    payload: Creator<
      R,
      Arg
    >,
  ): Definition<State, R>
  withTypes<Arg extends Base<Config>>(): Creator<State>
}

export interface Reducers<State> {
  reducer(state: State): void
}

export const createSlice = build()
"""


@pytest.mark.parametrize("language, path", [("typescript", "src/slice.ts"), ("tsx", "src/slice.tsx")])
def test_a_call_signature_whose_type_parameters_span_lines_swallows_nothing(language, path):
    """Redux Toolkit's createSlice.ts, formatted so: a `<` alone on its line, one type parameter
    a line, then `>(`. The ERROR from it swallowed the members after it and the next interface
    (was: read only where the type parameters stand on one line)."""
    facts = extract_blob(MULTILINE_CALL_SIGNATURE_SOURCE.encode(), path, language)
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("Creator", "interface", "", 1), ("withTypes", "method", "Creator", 15),
        ("Reducers", "interface", "", 18), ("reducer", "method", "Reducers", 19),
        ("createSlice", "variable", "", 22)]


def test_typescript_signature_view_puts_a_semicolon_only_where_the_parse_failed():
    from indexer.lang import grammars
    from indexer.lang.typescript.retry import signature_view

    src = b"interface A {\n    <T>(v: T): B<T>\n    <T>(v?: T): B<T>\n}\n"
    view = signature_view(src, grammars.parser("typescript").parse(src).root_node)  # the first parse's errors
    assert view == src.replace(b"    <T>(v?", b"   ;<T>(v?")
    clean = b"interface A {\n    <T>(v: T): B<T>;\n    <T>(v?: T): B<T>\n}\nconst x =\n    <T>(y: T) => y\n"
    assert signature_view(clean, grammars.parser("typescript").parse(clean).root_node) is None


def test_ruby_definitions_run_in_a_method_are_the_class_s():
    # a `def`, `define_method` or `alias_method` in a method body defines a method of the class
    # around both when it runs, as Ruby's parser places it (bundler's errors.rb, irb's
    # use-loader.rb); a class in a constant's value is the enclosing scope's (thor's
    # `Correctable = if ... class NoKwargSpellChecker`). Was: members of the method or constant
    # (`Err.status_code.status_code`, `Err.Correctable.Checker`), a def there a "function"
    src = b'''class Err
  def self.status_code(code)
    define_method(:status_code) { code }
  end
  def use_loader=(opt)
    alias_method :load, :ruby_load
    def helper; end
  end
  Correctable = if defined?(X)
    class Checker
      def initialize(d); end
    end
  end
end
def outer
  def inner; end
  def obj.single; end
end
'''
    facts = extract_blob(src, "errors.rb", "ruby")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("Err", "class", "", 1),
        ("status_code", "method", "Err", 2),
        ("status_code", "method", "Err", 3),
        ("use_loader=", "method", "Err", 5),
        ("load", "method", "Err", 6),
        ("helper", "method", "Err", 7),
        ("Correctable", "constant", "Err", 9),
        ("Checker", "class", "Err", 10),
        ("initialize", "method", "Err.Checker", 11),
        ("outer", "function", "", 15),
        ("inner", "function", "", 16),  # Object's, as a top-level def
        ("single", "method", "", 17),  # a variable's value: the enclosing scope's (top), as at the top
    ]


def test_ruby_constants_of_every_assignment():
    # Ruby defines a constant in each of these, as its parser shows (net/http's exceptions.rb,
    # getoptlong.rb, rake's version.rb, resolv.rb, rdoc's heading.rb); was: none of them, and
    # `alias $ARGV $*` (English.rb) a function named `$ARGV`
    src = b'''module Net
  Net::HTTPClientException = HTTPServerException
  STATUS_A, STATUS_B, *OTHER = 0, 1, 2
  DefaultFileName ||= "/etc/hosts"
end
RDoc::Markup::Heading = Struct.new :level do
  def accept; end
end
alias $ARGV $*
'''
    facts = extract_blob(src, "net.rb", "ruby")
    assert [(s.name, s.kind, s.container, s.line) for s in facts.symbols] == [
        ("Net", "module", "", 1),
        ("HTTPClientException", "constant", "Net", 2),  # Net found at the top, not in Net
        ("OTHER", "constant", "Net", 3),  # (one span: by name)
        ("STATUS_A", "constant", "Net", 3),
        ("STATUS_B", "constant", "Net", 3),
        ("DefaultFileName", "constant", "Net", 4),
        ("Heading", "class", "RDoc.Markup", 6),
        ("accept", "method", "RDoc.Markup.Heading", 7),
    ]
    assert "$ARGV" not in {o.name for o in facts.occurrences if o.role == "definition"}


BASH_TOP_VARIABLES_SOURCE = r"""#!/bin/sh
do_help= do_version=

base=$1 url=$2 status=0

test -n "$base" || usage
if [ "$1" = purge ]; then
	MIMEDIR=/usr/share/mime
elif [ -n "$2" ]; then
	export mode=fast LIMIT
else
	{ [ -d /x ] && retries=3; } 2>/dev/null
fi
case $x in a) picked=a ;; esac
for e in $list; do n=$((n+1)); done
( sub=1 )
piped=1 | cat
LC_ALL=C sort
env=1 \
  run
seen=$(x=1; echo)
f() { inner=1; }
arr[1]=2
jinfo=$top/.$jname.jinfo
tmp=/tmp/ins$RANDOM-$$
prefix=$a$b run
"""


def test_bash_top_level_variables_in_compounds_and_grouped_assignments():
    # every assignment the shell runs outside a function, in compound commands too (was: only a
    # statement of the file itself, and `a=1 b=2` before a command on a later line read as its
    # environment, as the grammar reads it, and a value the grammar ends at a `$name` inside the
    # word, the rest its command); not a subshell's, a pipeline's, a command's prefix
    facts = extract_blob(BASH_TOP_VARIABLES_SOURCE.encode(), "postrm", "bash")
    assert [(s.name, s.kind, s.line) for s in facts.symbols if s.kind != "function"] == [
        ("do_help", "variable", 2), ("do_version", "variable", 2), ("base", "variable", 4),
        ("url", "variable", 4), ("status", "variable", 4), ("MIMEDIR", "constant", 8),
        ("mode", "variable", 10), ("retries", "variable", 12), ("picked", "variable", 14),
        ("n", "variable", 15), ("seen", "variable", 21), ("jinfo", "variable", 24), ("tmp", "variable", 25)]
    assert [(o.name, o.line) for o in facts.occurrences if o.role == "definition" and o.name == "retries"] == [
        ("retries", 12)]


_BASH_COMPOUNDS = ("if t; then\n@\nfi", "if t; then :; elif u; then\n@\nfi", "if t; then :; else\n@\nfi",
                   "while t; do\n@\ndone", "until t; do\n@\ndone", "for i in 1; do\n@\ndone",
                   "case $c in\n*)\n@\n;;\nesac", "{\n@\n}", "t &&\n@", "{\n@\n} >/dev/null")


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.sampled_from(_BASH_COMPOUNDS), max_size=5), st.sampled_from(("v=1", "export v=1", "v=1 w=2")))
def test_bash_assignments_nested_in_compounds_are_top_level_variables(nesting, assignment):
    # a compound command at the top runs in the script's own shell, nested to any depth
    src = assignment
    for shape in reversed(nesting):
        src = shape.replace("@", src)
    line = src.split("\n").index(assignment) + 1
    facts = extract_blob(src.encode() + b"\n", "x.sh", "bash")
    assert ("v", "variable", line) in [(s.name, s.kind, s.line) for s in facts.symbols]
    # in a subshell or a function body, the same nesting defines no variable
    for box in (b"(\n%s\n)\n", b"f() {\n%s\n}\n"):
        assert [s for s in extract_blob(box % src.encode(), "x.sh", "bash").symbols if s.name == "v"] == []


def test_bash_source_path_split_at_a_backquote_is_one_word():
    # the grammar splits the word at the backquote (was: the path `/usr/lib/`); the shell reads it whole
    src = b". /usr/lib/`dpkg-architecture -qX`/tcl8.6/tclConfig.sh\nsource ./lib.sh arg\n"
    assert [(i.spec, i.line) for i in extract_blob(src, "tkConfig.sh", "bash").imports] == [
        ("/usr/lib/`dpkg-architecture -qX`/tcl8.6/tclConfig.sh", 1), ("./lib.sh", 2)]


def test_bash_alias_arguments_quoted_whole_define_aliases():
    # `alias 'la=ls -a'` is `alias la='ls -a'` to the shell (was: no alias); the name's site is
    # inside the quotes; a quoted argument without a name before `=` defines none
    facts = extract_blob(b"alias \"ll=ls -l\" 'la=ls -a' x=y \"=z\" 'q'\necho \"a=b\"\n", "aliases.sh", "bash")
    assert [(s.name, s.kind, s.line) for s in facts.symbols] == [
        ("ll", "alias", 1), ("la", "alias", 1), ("x", "alias", 1)]
    assert [(o.name, o.col) for o in facts.occurrences if o.role == "definition"] == [("ll", 8), ("la", 19), ("x", 29)]
