"""C++: C's local scopes, and a class, struct or union inside a function as a barrier
(indexer.lang.local_scopes)."""

from indexer.lang.c.scopes import SCOPES as C_SCOPES
from indexer.lang.local_scopes import BLOCK

SCOPES = C_SCOPES.extended(
    definitions=dict.fromkeys(("class_specifier", "struct_specifier", "union_specifier"), (BLOCK, True, "", ())))
