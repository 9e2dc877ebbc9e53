/* The native floor of the cold index: tree-sitter's parse and the grammar's shipped tags
 * query, in C, with nothing built for Python. Compiled by benchmarks/native_floor.py
 * against the runtime of the installed tree-sitter release, with the flags and allocator
 * its Python binding uses, so the parse costs what the indexer's does. */

#include <Python.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#define EXPORT __attribute__((visibility("default")))
#define LANGUAGES 64

/* One parser per language, as the indexer keeps them: setting a parser's language resets it. */
static const TSLanguage *languages[LANGUAGES];
static TSParser *parsers[LANGUAGES];

static TSParser *parser_for(const TSLanguage *language) {
  int i = 0;
  for (; i < LANGUAGES && languages[i]; i++)
    if (languages[i] == language) return parsers[i];
  if (i == LANGUAGES) return NULL;
  parsers[i] = ts_parser_new();
  if (!ts_parser_set_language(parsers[i], language)) {
    ts_parser_delete(parsers[i]);
    parsers[i] = NULL;
    return NULL;
  }
  languages[i] = language;
  return parsers[i];
}

/* The binding's allocator (pymalloc): the callers hold the interpreter lock (ctypes.PyDLL). */
EXPORT void use_python_allocator(void) {
  ts_set_allocator(PyMem_Malloc, PyMem_Calloc, PyMem_Realloc, PyMem_Free);
}

/* NULL when the source does not compile against the language. */
EXPORT TSQuery *compile_query(const TSLanguage *language, const char *source, uint32_t length) {
  uint32_t error_offset;
  TSQueryError error_type;
  return ts_query_new(language, source, length, &error_offset, &error_type);
}

EXPORT void delete_query(TSQuery *query) { ts_query_delete(query); }

/* Parse `source`; run `query` over the tree when not NULL. Writes the tree's node count and
 * the query's match count (text predicates are left to the caller, as in the binding: none
 * is evaluated here, so this does less than any indexer must). Returns 0, or -1 when the
 * parse gave no tree. */
EXPORT int parse_and_match(const TSLanguage *language, const char *source, uint32_t length, const TSQuery *query,
                           uint64_t *nodes, uint64_t *matches) {
  TSParser *parser = parser_for(language);
  if (!parser) return -1;
  TSTree *tree = ts_parser_parse_string(parser, NULL, source, length);
  if (!tree) return -1;
  TSNode root = ts_tree_root_node(tree);
  *nodes = ts_node_descendant_count(root);
  *matches = 0;
  if (query) {
    TSQueryCursor *cursor = ts_query_cursor_new();
    TSQueryMatch match;
    ts_query_cursor_exec(cursor, query, root);
    while (ts_query_cursor_next_match(cursor, &match)) ++*matches;
    ts_query_cursor_delete(cursor);
  }
  ts_tree_delete(tree);
  return 0;
}
