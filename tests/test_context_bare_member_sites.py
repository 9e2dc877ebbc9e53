"""A member asked by its name alone has the sites it has asked through its class: those
qualified through the known subclasses of its class (a Go type embedding it, a Python
subclass), `d.Walk()` after `d := &zoo.Dog{}` where Dog embeds Base. Was: only through the
class itself, so `references strictSlash` in gorilla/mux listed `route.strictSlash` (a
`*Route`, which embeds routeConf) as a `name_match` where `references routeConf.strictSlash`
listed it as the field's. From a real index."""

from __future__ import annotations

import pytest

from tests.indexed import Indexed, sites

FILES = {
    "go.mod": "module example.com/zoo\n\ngo 1.21\n",
    "zoo/zoo.go": ("package zoo\n\ntype Base struct{ Name string }\n\n"
                   "func (b *Base) Walk() string { return b.Name }\n\ntype Dog struct {\n\tBase\n}\n"),
    "cmd/main.go": ("package main\n\nimport \"example.com/zoo/zoo\"\n\nfunc main() {\n\td := &zoo.Dog{}\n"
                    "\td.Walk()\n"  # 7
                    "\t_ = d.Name\n"  # 8
                    "}\n"),
    "base.py": "class Base:\n    def handle(self):\n        return 1\n",
    "app.py": "from base import Base\n\n\nclass App(Base):\n    pass\n",
    "use.py": "from app import App\n\na = App()\na.handle()\n",
}

REPO = Indexed(FILES, "rennet-ctx-bare-members-", message="bare member sites")


zoo = REPO.fixture()


@pytest.mark.parametrize(("bare", "qualified", "expected"), [
    ("Walk", "Base.Walk", [("cmd/main.go", 7, "import")]),
    ("Name", "Base.Name", [("cmd/main.go", 8, "import"), ("zoo/zoo.go", 5, "same_file")]),
    ("handle", "Base.handle", [("use.py", 4, "import")]),
])
def test_a_member_asked_by_its_name_alone_has_the_sites_its_class_gives_it(zoo, bare, qualified, expected):
    assert sorted(sites(zoo, bare)) == sorted(sites(zoo, qualified)) == expected
