"""`context symbol I --hierarchy` of a Go interface lists its implementations in the tree,
which Go never declares: the types whose method sets hold every method of the interface and
of the interfaces it embeds, a method promoted from an embedded type too, in any package.
Was: only the interfaces embedding it, so client_golang's `Collector --hierarchy` named none
of the 31 types implementing it. From a real index."""

from __future__ import annotations

from tests.indexed import Indexed

FILES = {
    "go.mod": "module example.com/zoo\n\ngo 1.21\n",
    "zoo/animal.go": ("package zoo\n\ntype Walker interface {\n\tWalk() string\n}\n\n"
                      "type Animal interface {\n\tWalker\n\tName() string\n}\n\n"
                      "type Base struct{}\n\nfunc (b *Base) Walk() string { return \"\" }\n\n"
                      "type Empty interface{}\n"),
    # Dog walks through the Base it embeds; Cat has no Walk; Puppy embeds Dog
    "zoo/dog.go": ("package zoo\n\ntype Dog struct{ Base }\n\nfunc (d Dog) Name() string { return \"dog\" }\n\n"
                   "type Cat struct{}\n\nfunc (c *Cat) Name() string { return \"cat\" }\n\n"
                   "type Puppy struct{ Dog }\n"),
    # another package's type, its methods in two files
    "other/robot.go": "package other\n\ntype Robot struct{}\n\nfunc (r Robot) Walk() string { return \"\" }\n",
    "other/name.go": "package other\n\nfunc (r Robot) Name() string { return \"\" }\n",
}

REPO = Indexed(FILES, "rennet-ctx-go-implementations-", message="go implementations")


zoo = REPO.fixture()


def _relatives(zoo, name: str) -> list[tuple[str, str, str]]:
    r = zoo.call("context.symbol", name=name, hierarchy=True)
    return [(x.relation, x.qualified or x.spec, x.path) for x in r.data.hierarchy]


def test_an_interface_lists_the_types_whose_method_sets_hold_its_methods(zoo):
    assert _relatives(zoo, "Animal") == [
        ("base", "Walker", "zoo/animal.go"),
        ("implementation", "Robot", "other/robot.go"),
        ("implementation", "Dog", "zoo/dog.go"),  # Walk promoted from Base
        ("implementation", "Puppy", "zoo/dog.go"),  # through Dog
    ]


def test_an_embedded_interface_lists_its_embedders_then_its_implementations(zoo):
    assert _relatives(zoo, "Walker") == [
        ("subclass", "Animal", "zoo/animal.go"),
        ("implementation", "Robot", "other/robot.go"),
        ("implementation", "Base", "zoo/animal.go"),
        ("implementation", "Dog", "zoo/dog.go"),
        ("implementation", "Puppy", "zoo/dog.go"),
    ]


def test_an_interface_of_no_methods_lists_no_implementation(zoo):
    assert _relatives(zoo, "Empty") == []
