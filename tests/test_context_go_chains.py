"""A Go selector broken after its dot, as gofmt keeps a chain over lines (`WithField("a",
1).` above `WithField("b", 2)`): the name starting the next line is an attribute of what the
line above ends with, a call's result or a name (`e.` alone: `e`'s), not a bare name. Was:
bare, so in logrus each `WithField` continuing a chain was a site of the package's function
`WithField`. A comment's line ending a sentence continues nothing. From a real index."""

from __future__ import annotations

from tests.indexed import Indexed

FILES = {
    "go.mod": "module example.com/log\n\ngo 1.21\n",
    "log/log.go": ("package log\n\ntype Entry struct{}\n\n"
                   "func (e *Entry) With(k string) *Entry { return e }\n\n"
                   "func With(k string) *Entry { return &Entry{} }\n\n"
                   "func use(e *Entry) {\n"
                   "\tWith(\"a\").\n"  # 10: the package's function
                   "\t\tWith(\"b\")\n"  # 11: the method of what With("a") returns
                   "\te.\n"
                   "\t\tWith(\"c\")\n"  # 13: e's method
                   "\t// A sentence ends.\n"
                   "\tWith(\"d\")\n"  # 15: the function again
                   "}\n"),
}

REPO = Indexed(FILES, "rennet-ctx-go-chains-", message="go chains")


def test_a_name_continuing_a_chain_broken_after_its_dot_is_an_attribute():
    asked = REPO.asked()
    r = asked.call("context.references", name="With")
    owners = sorted((s.line, s.resolution, r.data.definitions[s.definition].qualified
                     if s.definition is not None else s.rule) for s in r.data.sites)
    assert owners == [
        (10, "same_file", "With"),
        (11, "same_file", "Entry.With"),  # of what With("a") returns, an *Entry
        (13, "same_file", "Entry.With"),
        (15, "same_file", "With"),
    ]
