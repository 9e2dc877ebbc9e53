"""context.symbol and context.references: definitions and reference sites of a name.

A query is a simple name (`route`), or a qualified one whose leading parts name
enclosing definitions and, optionally, the module path before them (`Flask.route`,
`app.Flask.route`, `flask.app.Flask.route` for `src/flask/app.py`). Qualification must
match the tail of `module path + container chain` part by part, the module path being the
defining file's or that of a file re-exporting the top-level name, directly or through
other re-exports (`models.Model` for django/db/models/base.py's Model, imported by
django/db/models/__init__.py; `attrs.define` through attr/__init__.py), under the name the
re-exporting file gives it (`pytest.mark` over `from _pytest.mark import MARK_GEN as mark`).
A Python module bound to a name qualifies under it, aliased or not (`pkg.s.Thing` after
pkg/__init__.py's `from . import sub as s`, `api.sub.Thing` after `from pkg import sub`); a
Rust path may start at a crate's name (`demo::net::Conn`). `::` separates parts as `.` does
(`Serializer::serialize_str`, `spdlog::logger::flush`).

A reference site is tagged with how it was tied to the definition:
`same_file` (in a defining file), `same_package` (in a file of a defining file's Go or
Java package, PHP or C# namespace or Ruby outermost module, which sees its names without an
import), `import` (in a file whose resolved imports reach a defining file, directly or
through files that re-export it under the name, up to four re-exports away, or through C
headers including it, or in such a file; a Python or JS import must bind the definition's
name, its class's for a method, or the module offering it; and a file's sites of its own
name for the definition, an import's alias, or, asked by the definition's own name, a name a
file re-exports it under; an import's binding is one, the variable of `const W =
require(...)` too, though `symbol` lists it as a definition; a `require` of a file exporting by
ES syntax binds its module object, whose `default` is its default export: `m.default()` is a
use of it, `m()` is not), `name_match` (only the name is the same), or `text` (the name in a
file of prose, markup or data: Markdown, plain text, configuration, ignore files; listed after
every code site, counted apart in `text_sites`). A Java, C#, PHP, Ruby or C++ site written on
`this` (and its spellings) or bare in a method is the member its class's hierarchy gives it
(`members`). A PHP class or function
is its name in any case, in the files of its namespace too (`new USER` for User); a C# file
sees a namespace's files only in its own project and those its .csproj references. A JS/TS name qualified by a module offering a definition under another name
is that definition (`lib.Gadget2` over lib/index.js's `export { default as Gadget2 } from
"./gadget"`); its references are the sites of the name asked.

With `workspace`, both run per member and merge, each item tagged with its `member`;
a site in a file importing (as an external package) what another member declares, in
the folder of the member's definition, is `import`-resolved across the members.

The package holds one concern a module: `names` (module paths and qualified names), `walks`
(the files a module path names and where re-exports of a name lead), `imports` (what one
file's imports bind and pass on), `lookup` (definitions of a name, exact or near), `sites`
(reference sites and how each is resolved), `members` (sites through the class hierarchy),
`hierarchy` (bases, ancestors, subclasses), `answers` (what the tools reply), and the two
handlers, `symbol` and `references`. What each language binds is asked of its bindings
(indexer/lang/bindings.py), by language name.
"""
