"""Ruby requires as real gems write them (rack, thor, i18n): `autoload`, paths built from
the file's own location, and the load path, which never holds the importer's folder."""

from __future__ import annotations

from corpora.gitbuild import make_repo
from indexer.api import open_store, snapshot
from indexer.build import index
from indexer.extract.blob import extract_blob

# The load path and the file's own location, case by case: tests/fixtures/resolve/ruby_gem_load_path.txt.

SOURCE = b'''require "rack/version"
require_relative "helpers"
require_relative "../up"
autoload :Builder, "rack/builder"
autoload(:Actions, File.expand_path("actions", __dir__))
require File.expand_path("../parser", __FILE__)
require File.expand_path("../../lib/shared", __FILE__)
require File.join(File.dirname(__FILE__), "util", "text")
require File.dirname(__FILE__) + "/errors"
require "#{File.dirname(__FILE__)}/stream"
require "#{__dir__}/body"
require %q(set)
require "#{root}/plugins"
require name
Kernel.require "not_this"
autoload :Lazy
'''


def test_the_forms_a_require_takes():
    facts = extract_blob(SOURCE, "lib/rack/app.rb", "ruby")
    assert [(i.spec, i.line) for i in facts.imports] == [
        ("rack/version", 1), ("./helpers", 2), ("../up", 3), ("rack/builder", 4), ("./actions", 5),
        ("./parser", 6), ("../lib/shared", 7), ("./util/text", 8), ("./errors", 9), ("./stream", 10),
        ("./body", 11), ("set", 12), ("#{root}/plugins", 13)]


# Expressions that build no path beside the file (each a different part of the rule fails),
# then the file's own folder in each spelling the rule knows.
NOT_BESIDE = b'''require File.dirname(__FILE__) - "/errors"
require x + "/y"
require __dir__ + "errors"
require __dir__ + name
require Other.join(__dir__, "x")
require File.join("lib", "x")
require File.join(__dir__)
require File.join(__dir__, name, "x")
require File.expand_path("lib/x")
require File.expand_path("../x", ROOT)
require File.expand_path("lib/x", __FILE__)
require File.expand_path(name, __dir__)
require File.join(__dir__, "two")
require "#{File.dirname __FILE__}/three"
require File.join(File.expand_path(File.dirname(__FILE__)), "four")
require File.join(File.expand_path(__dir__), "five")
require "#{__dir__}six"
'''


def test_what_builds_a_path_beside_the_file_and_what_does_not():
    facts = extract_blob(NOT_BESIDE, "lib/rack/app.rb", "ruby")
    assert [(i.spec, i.line) for i in facts.imports] == [
        ("./two", 13), ("./three", 14), ("./four", 15), ("./five", 16),
        ("#{__dir__}six", 17)]  # `__dir__` and a name glued: kept as written, resolving nowhere


def test_an_indexed_gem_has_its_autoload_and_expand_path_edges(tmp_path):
    files = {
        "lib/shop.rb": 'module Shop\n  autoload :Cart, "shop/cart"\n  autoload :Tax, File.expand_path("shop/tax", __dir__)\nend\n',
        "lib/shop/cart.rb": 'require "json"\nrequire File.expand_path("../pricing", __FILE__)\n',
        "lib/shop/pricing.rb": "",
        "lib/shop/tax.rb": "",
        "lib/shop/json.rb": "",
    }
    oid = make_repo(tmp_path / "repo", [files])[-1]
    store = open_store(tmp_path / "store")
    try:
        index(str(tmp_path / "repo"), oid, store=store, workers=1)
        snap = snapshot(str(tmp_path / "repo"), oid, store=store, index_if_absent=False)
        record = snap.record
        assert sorted((e.source, e.target) for e in record.edges) == [
            ("lib/shop.rb", "lib/shop/cart.rb"), ("lib/shop.rb", "lib/shop/tax.rb"),
            ("lib/shop/cart.rb", "lib/shop/pricing.rb")]
        assert [(u.path, u.spec, u.status) for u in record.unresolved] == [("lib/shop/cart.rb", "json", "external")]
        assert snap.fan_in("lib/shop/cart.rb") == 1
    finally:
        store.close()
