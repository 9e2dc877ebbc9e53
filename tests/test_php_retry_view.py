"""PHP's second view of a source with errors (indexer/lang/php/retry.py): keyword keys and
properties in strings renamed, every offset and line kept."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.lang import grammars
from indexer.lang.php.retry import php_keyword_key_view
from tests.examples import examples


def test_php_keyword_key_view_renames_keys_and_properties_only_where_in_error():
    # a keyword key the grammar placed, and an error elsewhere: not worth a second parse
    other = b'<?php\n$a = $b->list;\nfunction f() { $x = ; }\n'
    other_root = grammars._parse("php", other).root_node
    assert other_root.has_error and php_keyword_key_view(other, other_root) is None
    src = b'<?php\n$s = "$a[extends] $b->CLASS $c[extendsX] $d->classic $f[Default]";\n'
    root = grammars._parse("php", src).root_node
    assert root.has_error
    view = php_keyword_key_view(src, root)
    assert view == b'<?php\n$s = "$a[_xtends] $b->_LASS $c[extendsX] $d->classic $f[_efault]";\n'
    assert not grammars._parse("php", view).root_node.has_error


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.sampled_from([b"$a", b"$", b"[", b"]", b"->", b"class", b"Extends", b"x", b"_", b"\n", b'"', b" "]),
                max_size=24).map(b"".join))
def test_php_keyword_key_view_keeps_every_offset_and_line(data):
    src = b'<?php\nclass A { function f() { $s = "' + data + b'"; } function g() {} }\n'
    tree = grammars._parse("php", src)
    assert tree is not None
    view = php_keyword_key_view(src, tree.root_node)
    if view is not None:
        assert len(view) == len(src)
        assert [(at, src[at:at + 1]) for at in range(len(src)) if view[at] != src[at]] == [
            (at, src[at:at + 1]) for at in range(len(src)) if view[at] != src[at] and view[at:at + 1] == b"_"]
        assert all(src[at - 1:at] in (b"[", b">") for at in range(len(src)) if view[at] != src[at])
