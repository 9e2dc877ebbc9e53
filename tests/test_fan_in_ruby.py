"""Ruby requires as fan-in, each tree indexed for real: the cases hand-made mutants of
indexer/lang/ruby/resolve.py got past, asserted as Ruby's `require` finds the files on the
load path docs/languages.md describes (the nearest lib/ folders, then spec/ and test/, then
the root)."""

from __future__ import annotations

from tests.indexed import import_graph


def test_require_loads_the_rb_file_not_an_extensionless_one(tmp_path):
    # Ruby adds `.rb` to a name without an extension: bin-style lib/shop/cart (no
    # extension) is no candidate before lib/shop/cart.rb
    graph = import_graph(tmp_path, {
        "lib/shop.rb": 'require "shop/cart"\n',
        "lib/shop/cart.rb": "module Shop\n  class Cart; end\nend\n",
        "lib/shop/cart": "#!/bin/sh\necho cart\n",
    })
    assert graph.edges == {("lib/shop.rb", "lib/shop/cart.rb")}
    assert graph.fan_in == {"lib/shop/cart.rb": 1}


def test_require_never_loads_a_file_named_exactly_as_written(tmp_path):
    # Ruby tries `shop/tool.rb` (and shared libraries), never `shop/tool` itself: with no
    # `.rb` beside it the require is a gem's; `tasks.rake` is required as `tasks.rake.rb`
    graph = import_graph(tmp_path, {
        "lib/shop.rb": 'require "shop/tool"\nrequire "tasks.rake"\n',
        "lib/shop/tool": "#!/usr/bin/env ruby\nputs 1\n",
        "lib/tasks.rake": "task :x do\nend\n",
    })
    assert graph.edges == set()
    assert graph.unresolved == {("lib/shop.rb", "shop/tool", "external"), ("lib/shop.rb", "tasks.rake", "external")}


def test_a_dot_slash_require_not_beside_the_file_is_from_the_root(tmp_path):
    # `require "./app"` in a spec helper is relative to where the suite runs, the root
    graph = import_graph(tmp_path, {
        "app.rb": "class App; end\n",
        "spec/spec_helper.rb": 'require "./app"\n',
    })
    assert graph.edges == {("spec/spec_helper.rb", "app.rb")}
    assert graph.fan_in == {"app.rb": 1}


def test_a_file_requiring_its_own_load_path_name_means_the_gem(tmp_path):
    # lib/redis.rb wrapping the redis gem: `require "redis"` is the gem, never the file itself
    graph = import_graph(tmp_path, {"lib/redis.rb": 'require "redis"\n\nmodule Cache; end\n'})
    assert graph.edges == set()
    assert graph.unresolved == {("lib/redis.rb", "redis", "external")}


def test_lib_comes_before_spec_on_the_load_path(tmp_path):
    graph = import_graph(tmp_path, {
        "lib/user.rb": "class User; end\n",
        "spec/user.rb": "class User; end\n",
        "spec/models/user_spec.rb": 'require "user"\n',
    })
    assert graph.edges == {("spec/models/user_spec.rb", "lib/user.rb")}
    assert graph.fan_in == {"lib/user.rb": 1}


def test_the_test_folder_holding_the_importer_comes_before_a_spec_folder(tmp_path):
    # `rake test` puts test/ on the load path: test/models/user_test.rb's `require
    # "test_helper"` is test/test_helper.rb, though spec/ sorts first
    graph = import_graph(tmp_path, {
        "test/test_helper.rb": "require 'minitest/autorun'\n",
        "spec/test_helper.rb": "require 'rspec'\n",
        "test/models/user_test.rb": 'require "test_helper"\n',
    })
    assert graph.edges == {("test/models/user_test.rb", "test/test_helper.rb")}
    assert graph.fan_in == {"test/test_helper.rb": 1}


def test_the_root_is_on_the_load_path(tmp_path):
    # a Sinatra-style app with no lib/: its spec's `require "app"` is the root's app.rb
    graph = import_graph(tmp_path, {
        "app.rb": "class App; end\n",
        "spec/app_spec.rb": 'require "app"\n',
    })
    assert graph.edges == {("spec/app_spec.rb", "app.rb")}
    assert graph.fan_in == {"app.rb": 1}


def test_a_components_own_spec_folder_is_on_its_load_path(tmp_path):
    graph = import_graph(tmp_path, {
        "components/billing/spec/support/fakes.rb": "module Fakes; end\n",
        "components/billing/spec/invoice_spec.rb": 'require "support/fakes"\n',
    })
    assert graph.edges == {("components/billing/spec/invoice_spec.rb", "components/billing/spec/support/fakes.rb")}
    assert graph.fan_in == {"components/billing/spec/support/fakes.rb": 1}
