"""Rust definitions as rustc's own parser (syn) reads them: the kinds and containers that a
check against it over the standard library and Debian's crates found wrong."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.extract.blob import extract_blob


def _symbols(src: bytes) -> set[tuple[int, str, str, str]]:
    facts = extract_blob(src, "src/lib.rs", "rust")
    assert not facts.skipped
    return {(s.line, s.kind, s.container, s.name) for s in facts.symbols}


def test_functions_an_extern_block_declares_are_functions():
    src = (b'extern "C" {\n'
           b"    fn strlen(p: *const u8) -> usize;\n"
           b"    static environ: *const u8;\n"
           b"}\n"
           b"trait T {\n"
           b"    fn sig(&self);\n"
           b"}\n")
    assert _symbols(src) == {
        (2, "function", "", "strlen"),
        (3, "variable", "", "environ"),
        (5, "trait", "", "T"),
        (6, "method", "T", "sig"),
    }


def test_impl_blocks_of_primitives_references_paths_and_trait_objects_hold_their_methods():
    src = (b"impl str {\n    fn shout(&self) {}\n}\n"
           b"impl<'a, T> Iterator for &'a mut a::Heap<T> {\n    type Item = T;\n    fn next(&mut self) {}\n}\n"
           b"impl ops::Range<u8> {\n    const MAX: u8 = 1;\n}\n"
           b"impl dyn Any + Send {\n    fn is(&self) {}\n}\n"
           b"impl Tr for &&Wrap {\n    fn get(&self) {\n        fn helper() {}\n    }\n}\n")
    assert _symbols(src) == {
        (2, "method", "str", "shout"),
        (5, "type", "Heap", "Item"),
        (6, "method", "Heap", "next"),
        (9, "constant", "Range", "MAX"),
        (12, "method", "Any", "is"),
        (15, "method", "Wrap", "get"),
        (16, "function", "Wrap.get", "helper"),
    }


def test_a_static_is_a_variable_whatever_its_case():
    src = b"static mut COUNT: u32 = 0;\nstatic NAME: &str = \"x\";\nconst LIMIT: u32 = 3;\n"
    assert _symbols(src) == {
        (1, "variable", "", "COUNT"),
        (2, "variable", "", "NAME"),
        (3, "constant", "", "LIMIT"),
    }


@settings(max_examples=60, deadline=None)
@given(refs=st.lists(st.sampled_from(["&", "&mut ", "&'a ", "&'a mut "]), max_size=6),
       path=st.sampled_from(["", "a::", "a::b::"]),
       generic=st.booleans(),
       name=st.sampled_from(["Wrap", "Node", "Heap"]))
def test_an_impl_for_a_named_type_behind_references_holds_its_methods(refs, path, generic, name):
    ty = "".join(refs) + path + name + ("<T>" if generic else "")
    src = f"impl<'a, T> Tr for {ty} {{\n    fn run(&self) {{}}\n}}\n".encode()
    assert _symbols(src) == {(2, "method", name, "run")}


@pytest.mark.parametrize("comments", [2000, 4000])
def test_definitions_before_an_unclosed_block_and_a_long_comment_tail_are_kept(comments):
    # the tail's comments are children of one ERROR node, which counted them as too wide to
    # query: the file was `unparseable` and its earlier definitions lost
    src = (b"pub struct Early;\nfn early() {}\nfn broken() {\n    let x = 1; // note\n"
           + b"// a comment line\n" * comments)
    facts = extract_blob(src, "src/lib.rs", "rust")
    assert facts.skipped == ""
    assert facts.lines == comments + 4
    assert {(s.line, s.kind, s.name) for s in facts.symbols} == {(1, "struct", "Early"), (2, "function", "early")}


def test_a_const_holds_what_its_initializer_defines_down_to_fields():
    # a variable holds no variable written directly in it (`J` in `K`'s block), but a struct in
    # between holds its fields (was: `S.a` beside `_.S`)
    src = (b"const _: () = {\n    struct S {\n        a: u8,\n    }\n};\n"
           b"const K: u8 = {\n    const J: u8 = 1;\n    J\n};\n")
    assert _symbols(src) == {
        (1, "constant", "", "_"),
        (2, "struct", "_", "S"),
        (3, "field", "_.S", "a"),
        (6, "constant", "", "K"),
        (7, "constant", "", "J"),
    }


def test_impls_of_types_without_a_name_hold_their_items_under_rustdocs_primitive_names():
    src = (b"impl<T> [T] {\n    fn sort(&mut self) {}\n}\n"
           b"impl<T, const N: usize> Tr for [T; N] {\n    type Item = T;\n}\n"
           b"impl<A, B> Tr for &'a (A, B) {\n    fn pair(&self) {}\n}\n"
           b"impl Tr for () {\n    fn unit(&self) {}\n}\n"
           b"impl<T> *const T {\n    fn is_null(self) {}\n}\n"
           b"impl<T> Tr for fn() -> T {\n    fn call(&self) {}\n}\n"
           b"impl<'a, T> Tr for &'a mut (dyn Future<Output = T> + Unpin + 'a) {\n    fn poll(&self) {}\n}\n"
           b"impl Tr for dyn Fn(u8) -> u8 + 'a {\n    fn run(&self) {}\n}\n")
    assert _symbols(src) == {
        (2, "method", "slice", "sort"),
        (5, "type", "array", "Item"),
        (8, "method", "tuple", "pair"),
        (11, "method", "unit", "unit"),
        (14, "method", "pointer", "is_null"),
        (17, "method", "fn", "call"),
        (20, "method", "Future", "poll"),
        (23, "method", "Fn", "run"),
    }
