"""An import's spec is what its string literal holds, without the quotes, down to the empty
string (indexer/lang/import_specs.py, `unquote`)."""

from __future__ import annotations

import pytest

from indexer.extract.blob import extract_blob


@pytest.mark.parametrize(("source", "path", "language", "kinds"), [
    (b'import x from "";\nconst y = require(\'\');\n', "m.js", "javascript", ["js", "js"]),
    (b'package m\nimport ""\n', "m.go", "go", ["go"]),
    (b'#include ""\n', "m.c", "c", ["c_include"]),
    (b'require ""\n', "m.rb", "ruby", ["ruby_require"]),
])
def test_an_empty_string_import_is_the_empty_spec(source, path, language, kinds):
    facts = extract_blob(source, path, language)
    assert [(i.kind, i.spec) for i in facts.imports] == [(kind, "") for kind in kinds]


def test_a_quoted_spec_loses_its_quotes_only():
    facts = extract_blob(b'#include "a.h"\n#include <b.h>\nimport "c";\n', "m.c", "c")
    assert [i.spec for i in facts.imports][:2] == ["a.h", "b.h"]
    src = b'package m\nimport (\n\t"x"\n\tq `y/z`\n)\n'
    assert [(i.spec, i.aliases) for i in extract_blob(src, "m.go", "go").imports] == [("x", ()), ("y/z", ("q",))]


def test_a_java_import_of_a_one_segment_package_keeps_its_name():
    # `import util.*;` names the package util of the source root: the spec is an identifier,
    # no scoped_identifier
    src = b"package a;\nimport util.*;\nimport static a.b.C.*;\nimport a.b.C;\n"
    assert [i.spec for i in extract_blob(src, "A.java", "java").imports] == ["util.*", "a.b.C.*", "a.b.C"]
