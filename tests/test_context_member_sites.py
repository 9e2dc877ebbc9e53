"""Java, C#, PHP, Ruby and C++ sites resolved by their own syntax through the class hierarchy
(context_tools/query/symbols/members.py): `this.name` and its spellings, `super.name`, a bare
name in a method, `Type.name`, an untyped receiver; each site says which binding decided it
(`rule`). Exact sites, from a real index of tests/fixtures/sites/<lang>_members.txt, where a
comment beside each line says which sites of a qualified name it holds, or why it holds none."""

from __future__ import annotations

import pytest

from indexer.lang.bindings import of_language
from indexer.lang.member_syntax import SELF_CLASS, SUPER, THIS
from tests.annotated import FIXTURES, load, noted_sites
from tests.indexed import Indexed, sites

LANGUAGES = ("java", "csharp", "php", "ruby", "cpp")
CASES = {lang: load(FIXTURES / "sites" / f"{lang}_members.txt", keys=("site:",)) for lang in LANGUAGES}
REPOS = {lang: Indexed(case.files, f"rennet-ctx-members-{lang}-", message=f"members {lang}")
         for lang, case in CASES.items()}


@pytest.mark.parametrize(("lang", "name"), [(lang, name) for lang in LANGUAGES for name in sorted(noted_sites(CASES[lang]))])
def test_each_site_is_where_its_comment_says(lang, name):
    assert sorted(sites(REPOS[lang].asked(), name)) == noted_sites(CASES[lang])[name]


def _rules(lang: str, name: str) -> dict[tuple[str, int], tuple[str, str]]:
    r = REPOS[lang].asked().call("context.references", name=name)
    return {(s.path.rsplit("/", 1)[-1], s.line): (s.resolution, s.rule) for s in r.data.sites}


def test_each_site_says_which_binding_decided_it():
    java = _rules("java", "close")
    assert java[("App.java", 11)] == ("same_package", "bare name in App, which inherits it from Handler")
    assert java[("Handler.java", 11)] == ("import", "`super` in Handler, which inherits it from Base")
    # each `close` is told apart: a Session's is Session's own, a Base's Base's
    assert java[("App.java", 14)] == ("same_file", "attribute of `session`, declared Session")
    assert _rules("java", "handle")[("App.java", 27)] == (
        "same_file", "attribute of `other`, declared Session")
    assert java[("App.java", 16)] == ("import", "attribute of `peer`, declared Base")
    handle = _rules("java", "handle")
    # App.java neither imports Base.java nor shares its package: the inherits edges tie it
    assert handle[("App.java", 10)] == ("import", "`this` in App, which inherits it from Base")
    assert handle[("App.java", 52)] == ("import", "attribute of a cast, declared com.acme.base.Base")
    php = _rules("php", "save")
    assert php[("User.php", 18)] == ("same_file", "`this` in App\\Models.User")
    assert php[("User.php", 19)] == ("name_match", "attribute of an untyped receiver")
    assert _rules("php", "touch")[("User.php", 20)] == ("name_match", "bare name, not a method's")
    assert _rules("cpp", "make")[("circle.cpp", 5)] == (
        "import", "bare name in geo.Circle, which inherits it from geo.Shape")


def test_a_site_of_another_definition_of_the_name_is_that_ones():
    # `save` in User's method is User's own save: a site of it, not of Base.save
    ruby = _rules("ruby", "save")
    assert ruby[("user.rb", 15)] == ("same_file", "bare name in Shop.User")
    assert sites(REPOS["ruby"].asked(), "Shop.User.save") == [("lib/shop/user.rb", 15, "same_file")]


def test_a_php_variable_is_no_site():
    assert ("Model.php", 11) not in _rules("php", "save")  # `find($save)`


@pytest.mark.parametrize(("lang", "line", "col", "name", "form", "receiver"), [
    ("java", "this.close();", 5, "close", "attribute", (THIS,)),
    ("java", "super.close();", 6, "close", "attribute", (SUPER,)),
    ("java", "a.b.Base.make();", 9, "make", "attribute", ("a", "b", "Base")),
    ("java", "session.close();", 8, "close", "attribute", ("session",)),
    ("java", "make().close();", 7, "close", "attribute", ()),
    ("java", "new a.Till(1, x).open();", 17, "open", "attribute", ("a", "Till")),
    ("java", "close();", 0, "close", "bare", ()),
    ("csharp", "base.Save();", 5, "Save", "attribute", (SUPER,)),
    ("csharp", "repo?.Load();", 6, "Load", "attribute", ("repo",)),
    ("csharp", "Make(save: true);", 5, "save", "keyword", ()),
    ("php", "$this->save();", 7, "save", "attribute", (THIS,)),
    ("php", "$this->repo->save();", 13, "save", "attribute", ()),
    ("php", "static::find();", 8, "find", "attribute", (THIS,)),
    ("php", "parent::save();", 8, "save", "attribute", (SUPER,)),
    ("php", "\\App\\Model::find();", 12, "find", "attribute", ("Model",)),
    ("php", "$repo->save();", 7, "save", "attribute", ()),
    ("php", "f(save: 1);", 2, "save", "keyword", ()),
    ("php", "$save = 1;", 1, "save", "keyword", ()),
    ("php", "$repo::LIMIT;", 7, "LIMIT", "attribute", ()),  # a variable's class: untyped, not a class `repo`
    ("ruby", "self.trace", 5, "trace", "attribute", (THIS,)),
    ("ruby", "Shop::Base.find", 11, "find", "attribute", ("Base",)),
    ("ruby", "Shop::Base", 6, "Base", "attribute", ("Shop",)),
    ("ruby", "repo&.save", 6, "save", "attribute", ("repo",)),
    ("ruby", "self.class.find", 11, "find", "attribute", (SELF_CLASS,)),
    ("ruby", "self.class::LIMIT", 12, "LIMIT", "attribute", (SELF_CLASS,)),
    ("ruby", "x = self . class.find", 17, "find", "attribute", (SELF_CLASS,)),
    ("ruby", "repo.self.class.find", 16, "find", "attribute", ()),
    ("ruby", "myself.class.find", 13, "find", "attribute", ()),
    ("ruby", "@self.class.find", 12, "find", "attribute", ()),
    ("cpp", "this->draw();", 6, "draw", "attribute", (THIS,)),
    ("cpp", "Holder<int>::get();", 13, "get", "attribute", ("Holder",)),
    ("cpp", "s->draw();", 3, "draw", "attribute", ()),
])
def test_the_form_of_a_site_read_from_its_line(lang, line, col, name, form, receiver):
    found = of_language(lang).site_syntax(line.encode(), col, name)
    assert found is not None and (found.form, found.receiver) == (form, receiver)


@pytest.mark.parametrize("language", ["python", "javascript", "typescript", "tsx", "go", "rust", "php", "csharp",
                                      "ruby", "java", "c", "cpp"])
def test_every_language_with_rules_of_its_own_loads_them(language):
    from indexer.lang.bindings_base import Bindings

    rules = of_language(language)
    assert isinstance(rules, Bindings) and type(rules) is not Bindings and rules is of_language(language)
    assert (of_language("typescript") is of_language("javascript")) and of_language("c") is not of_language("cpp")
