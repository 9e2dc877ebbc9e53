"""Ruby requires as real gems write them (rack, thor, i18n): `autoload`, paths built from
the file's own location, and the load path, which never holds the importer's folder."""

from __future__ import annotations

import pytest

from corpora.gitbuild import make_repo
from indexer.api import open_store, snapshot
from indexer.build import index
from indexer.extract.blob import extract_blob
from indexer.model import ImportSpec
from tests.test_resolve import run, statuses

GEM = {
    "lib/rack.rb": "",
    "lib/rack/builder.rb": "",
    "lib/rack/logger.rb": "",
    "lib/rack/handler/thin.rb": "",
    "lib/rack/handler/webrick.rb": "",
    "lib/rack/handler/json.rb": "",
    "lib/rack/handler/utils.rb": "",
    "lib/thor/actions.rb": "",
    "lib/thor/base.rb": "",
    "spec/spec_helper.rb": "",
    "spec/rack/builder_spec.rb": "",
    "test/test_helper.rb": "",
    "test/unit/logger_test.rb": "",
    "engines/blog/lib/rack/builder.rb": "",
    "engines/blog/lib/blog.rb": "",
    "tasks/release.rb": "",
}


def req(spec: str) -> ImportSpec:
    return ImportSpec("ruby_require", spec, 3)


RUBY_CASES = [
    ("lib/rack.rb", req("rack/builder"), ["lib/rack/builder.rb"]),  # autoload / require: the load path
    ("lib/rack/handler/thin.rb", req("thin"), "external"),  # the gem, not the file itself
    ("lib/rack/handler/webrick.rb", req("json"), "external"),  # not handler/json.rb beside it
    ("lib/rack/handler/webrick.rb", req("./utils"), ["lib/rack/handler/utils.rb"]),
    ("lib/rack/handler/webrick.rb", req("../logger"), ["lib/rack/logger.rb"]),
    ("lib/thor/base.rb", req("./actions"), ["lib/thor/actions.rb"]),
    ("lib/thor/base.rb", req("./gone"), "unresolved"),
    ("spec/rack/builder_spec.rb", req("spec_helper"), ["spec/spec_helper.rb"]),  # RSpec puts spec/ on it
    ("test/unit/logger_test.rb", req("test_helper"), ["test/test_helper.rb"]),
    ("test/unit/logger_test.rb", req("rack/logger"), ["lib/rack/logger.rb"]),
    ("engines/blog/lib/blog.rb", req("rack/builder"), ["engines/blog/lib/rack/builder.rb"]),  # nearest lib/
    ("tasks/release.rb", req("rack/builder"), ["lib/rack/builder.rb"]),
    ("lib/rack.rb", req("#{root}/rack/builder"), "unresolved"),  # interpolated: known only when run
]


@pytest.mark.parametrize("importer,imp,expected", RUBY_CASES)
def test_ruby(importer, imp, expected):
    edges, unresolved = run(GEM, {importer: [imp]})
    if isinstance(expected, str):
        assert edges == [] and statuses(unresolved) == [(importer, imp.spec, expected)]
    else:
        assert unresolved == [] and [e.target for e in edges] == expected


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
