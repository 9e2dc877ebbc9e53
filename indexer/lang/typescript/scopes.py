"""TypeScript and TSX: JavaScript's local scopes, and an abstract class's name settled as a
class declaration's is (indexer.lang.local_scopes)."""

from indexer.lang.javascript.scopes import SCOPES as JS_SCOPES

SCOPES = JS_SCOPES.extended(nested=frozenset({"abstract_class_declaration"}))
