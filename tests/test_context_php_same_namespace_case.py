"""PHP class and function names are case-insensitive, and so are namespace names: a file of the
namespace App\\Models uses its class User as `user::find()` or `new USER` without a `use`, and a
file declaring `namespace app\\models;` is of that namespace too; both are `same_package` sites
of User, and the defining file's own other spellings `same_file`. Variables, properties, class
constants and methods of another case are not the class; a file of another namespace spelling
it in another case without a `use` is not either. A spelling a file's `use` of it finds is
counted once. Exact sites, from a real index."""

from __future__ import annotations

from indexer.api import open_store, snapshot
from tests.indexed import Indexed, sites

FILES = {
    "src/Models/User.php": "<?php\nnamespace App\\Models;\n\nclass User {\n"
                           "    public static function make() { return new user(); }\n}\n",  # 5: its own, in lower case
    "src/Models/Post.php": "<?php\nnamespace App\\Models;\n\nclass Post {\n"
                           "    public function author() { return user::find(); }\n"  # 5
                           "    public function make() { return new USER(); }\n"  # 6
                           "    public function same() { return new User(); }\n"  # 7
                           "    public function user() { return $this->user ?? self::$user ?? $user ?? Roles::USER; }\n"
                           "}\n",
    "src/Models/Lower.php": "<?php\nnamespace app\\models;\n\nfunction f() { return new User() ?? new uSeR(); }\n",
    # the same namespace, and a `use` of User too: its `user` is found once
    "src/Models/Used.php": "<?php\nnamespace App\\Models;\n\nuse App\\Models\\User;\n\nfunction g() { return new user(); }\n",
    # another namespace, no `use`: not User's
    "src/Http/Ctl.php": "<?php\nnamespace App\\Http;\n\nfunction h() { return new user(); }\n",
    # a function of the namespace, called in another case
    "src/Models/helpers.php": "<?php\nnamespace App\\Models;\n\nfunction slugify($s) { return $s; }\n",
    "src/Models/Tag.php": "<?php\nnamespace App\\Models;\n\nfunction tag() { return SLUGIFY('x'); }\n",
}

REPO = Indexed(FILES, "rennet-ctx-php-case-", message="php case")


app = REPO.fixture()


def test_a_class_of_the_namespace_in_another_case(app):
    assert sites(app, "User") == [
        ("src/Models/User.php", 5, "same_file"),
        ("src/Models/Lower.php", 4, "same_package"), ("src/Models/Lower.php", 4, "same_package"),
        ("src/Models/Post.php", 5, "same_package"), ("src/Models/Post.php", 6, "same_package"),
        ("src/Models/Post.php", 7, "same_package"),
        ("src/Models/Used.php", 4, "import"), ("src/Models/Used.php", 6, "import")]


def test_a_function_of_the_namespace_in_another_case(app):
    assert sites(app, "slugify") == [("src/Models/Tag.php", 4, "same_package")]


def test_the_spellings_of_a_name_in_the_index():
    repo, store_path = REPO.paths
    with open_store(store_path) as store:
        snap = snapshot(repo, "main", store=store)
        assert snap.spellings("user") == ["USER", "User", "uSeR", "user"]
        assert snap.spellings("SLUGIFY") == ["SLUGIFY", "slugify"]
        assert snap.spellings("nothing") == []
