/* The native floor of the cold index: tree-sitter's parse and the grammar's shipped tags
 * query, in C, with nothing built for Python; and a compiled extraction's floor: the same
 * parse and the indexer's whole tags query, every match and capture visited in C. Compiled
 * by benchmarks/native_floor.py against the runtime of the installed tree-sitter release,
 * with the flags and allocator its Python binding uses, so the parse costs what the
 * indexer's does. */

#include <Python.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

static TSTree *parse(const TSLanguage *language, const char *source, uint32_t length) {
  TSParser *parser = parser_for(language);
  return parser ? ts_parser_parse_string(parser, NULL, source, length) : NULL;
}

/* Parse `source`; run `query` over the tree when not NULL. Writes the tree's node count and
 * the query's match count (text predicates are left to the caller, as in the binding: none
 * is evaluated here, so this does less than any indexer must). Returns 0, or -1 when the
 * parse gave no tree. */
EXPORT int parse_and_match(const TSLanguage *language, const char *source, uint32_t length, const TSQuery *query,
                           uint64_t *nodes, uint64_t *matches) {
  TSTree *tree = parse(language, source, length);
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

/* --- a compiled extraction's floor ---------------------------------------------------------
 * The indexer's whole tags query run as its Python binding runs it (the same match limit,
 * the text predicates evaluated as the binding evaluates them, so the same matches come),
 * and every capture of every match visited: the least an extraction compiled to C must do. */

enum { EQ_STRING, EQ_CAPTURE, MATCH, ANY_OF };

typedef struct {
  const char *text;
  uint32_t length;
} Text;

typedef struct {
  int kind;
  bool positive, any;
  uint32_t capture, other;  /* other: the second capture of EQ_CAPTURE */
  Text *values;             /* EQ_STRING: one; ANY_OF: `count` */
  uint32_t count;
  regex_t regex;            /* MATCH */
} Predicate;

typedef struct {
  TSQuery *query;
  uint32_t match_limit, count;  /* count: of `predicates` */
  uint32_t *first;              /* pattern -> its first predicate; first[pattern count] = count */
  Predicate *predicates;
} Extraction;

static bool equal(const char *a, uint32_t a_length, const char *b, uint32_t b_length) {
  return a_length == b_length && memcmp(a, b, a_length) == 0;
}

static bool name_is(const char *name, uint32_t length, const char *wanted) {
  return equal(name, length, wanted, (uint32_t)strlen(wanted));
}

static Text *strings(const TSQuery *query, const TSQueryPredicateStep *steps, uint32_t n) {
  Text *values = calloc(n, sizeof *values);
  for (uint32_t k = 0; values && k < n; k++)
    values[k].text = ts_query_string_value_for_id(query, steps[k].value_id, &values[k].length);
  return values;
}

/* One predicate of the four kinds the binding filters on, from its `n` steps (the first names
 * it), as the binding reads it: 1 when read, 0 for one the binding does not filter on (#is?,
 * #set! and the like), -1 for a shape the binding rejects. */
static int read_predicate(const TSQuery *query, const TSQueryPredicateStep *steps, uint32_t n, Predicate *out) {
  uint32_t length;
  const char *name = ts_query_string_value_for_id(query, steps[0].value_id, &length);
  bool eq = name_is(name, length, "eq?") || name_is(name, length, "not-eq?") || name_is(name, length, "any-eq?")
            || name_is(name, length, "any-not-eq?");
  bool match = name_is(name, length, "match?") || name_is(name, length, "not-match?")
               || name_is(name, length, "any-match?") || name_is(name, length, "any-not-match?");
  bool any_of = name_is(name, length, "any-of?") || name_is(name, length, "not-any-of?");
  if (!eq && !match && !any_of) return 0;
  if (n < 3 || steps[1].type != TSQueryPredicateStepTypeCapture || (!any_of && n != 3)) return -1;
  out->capture = steps[1].value_id;
  out->any = !any_of && length > 4 && memcmp(name, "any-", 4) == 0;
  if (eq) {
    out->positive = name_is(name, length, "eq?") || name_is(name, length, "any-eq?");
    if (steps[2].type == TSQueryPredicateStepTypeCapture) {
      out->kind = EQ_CAPTURE;
      out->other = steps[2].value_id;
      return 1;
    }
    out->kind = EQ_STRING;
    out->count = 1;
    return (out->values = strings(query, steps + 2, 1)) ? 1 : -1;
  }
  for (uint32_t k = 2; k < n; k++)
    if (steps[k].type != TSQueryPredicateStepTypeString) return -1;
  if (any_of) {
    out->kind = ANY_OF;
    out->positive = name_is(name, length, "any-of?");
    out->count = n - 2;
    return (out->values = strings(query, steps + 2, n - 2)) ? 1 : -1;
  }
  out->positive = name_is(name, length, "match?") || name_is(name, length, "any-match?");
  Text *pattern = strings(query, steps + 2, 1);
  char *text = pattern ? malloc(pattern->length + 1) : NULL;
  if (text) {
    memcpy(text, pattern->text, pattern->length);
    text[pattern->length] = 0;
  }
  int failed = !text || regcomp(&out->regex, text, REG_EXTENDED | REG_NOSUB);
  free(text);
  free(pattern);
  if (failed) return -1;
  out->kind = MATCH;
  return 1;
}

EXPORT void delete_extraction(Extraction *extraction) {
  if (!extraction) return;
  for (uint32_t i = 0; i < extraction->count; i++) {
    if (extraction->predicates[i].kind == MATCH) regfree(&extraction->predicates[i].regex);
    free(extraction->predicates[i].values);
  }
  free(extraction->first);
  free(extraction->predicates);
  ts_query_delete(extraction->query);
  free(extraction);
}

/* The query compiled with the `disabled` patterns off (as the indexer disables them), and its
 * text predicates read; NULL when the source does not compile or holds a predicate the
 * binding would reject. */
EXPORT Extraction *compile_extraction(const TSLanguage *language, const char *source, uint32_t length,
                                      uint32_t match_limit, const uint32_t *disabled, uint32_t disabled_count) {
  uint32_t error_offset, steps, total = 0;
  TSQueryError error_type;
  Extraction *extraction = calloc(1, sizeof *extraction);
  if (!extraction) return NULL;
  extraction->match_limit = match_limit;
  extraction->query = ts_query_new(language, source, length, &error_offset, &error_type);
  if (!extraction->query) {
    free(extraction);
    return NULL;
  }
  for (uint32_t i = 0; i < disabled_count; i++) ts_query_disable_pattern(extraction->query, disabled[i]);
  uint32_t patterns = ts_query_pattern_count(extraction->query);
  for (uint32_t p = 0; p < patterns; p++) {
    ts_query_predicates_for_pattern(extraction->query, p, &steps);
    total += steps;  /* more than the predicates: each takes two steps at least */
  }
  extraction->first = calloc(patterns + 1, sizeof *extraction->first);
  extraction->predicates = calloc(total ? total : 1, sizeof *extraction->predicates);
  if (!extraction->first || !extraction->predicates) {
    delete_extraction(extraction);
    return NULL;
  }
  for (uint32_t p = 0; p < patterns; p++) {
    extraction->first[p] = extraction->count;
    const TSQueryPredicateStep *step = ts_query_predicates_for_pattern(extraction->query, p, &steps);
    const TSQueryPredicateStep *end = step + steps;
    while (step < end) {
      uint32_t n = 0;
      while (step + n < end && step[n].type != TSQueryPredicateStepTypeDone) n++;
      int read = n && step[0].type == TSQueryPredicateStepTypeString
                 ? read_predicate(extraction->query, step, n, &extraction->predicates[extraction->count])
                 : -1;
      if (read < 0) {
        delete_extraction(extraction);
        return NULL;
      }
      extraction->count += (uint32_t)read;
      step += n + 1;
    }
  }
  extraction->first[patterns] = extraction->count;
  return extraction;
}

EXPORT uint32_t extraction_patterns(const Extraction *extraction) { return ts_query_pattern_count(extraction->query); }

/* The binding hands #match? a node's text as a C string: up to its first NUL byte. */
static char *text_buffer;
static size_t text_capacity;

static const char *c_string(const char *text, uint32_t length) {
  if (length + 1 > text_capacity) {
    size_t capacity = ((size_t)length + 1) * 2;
    char *grown = realloc(text_buffer, capacity);
    if (!grown) return NULL;
    text_buffer = grown;
    text_capacity = capacity;
  }
  memcpy(text_buffer, text, length);
  text_buffer[length] = 0;
  return text_buffer;
}

static Text node_text(const char *source, TSNode node) {
  uint32_t start = ts_node_start_byte(node);
  return (Text){source + start, ts_node_end_byte(node) - start};
}

/* As the binding's satisfies_* functions decide, over the nodes of the predicate's capture
 * in the match: an `any-` predicate stops at the first node that holds, the others at the
 * first that does not; no node, and it holds. */
static bool satisfies(const Predicate *predicate, const TSQueryMatch *match, const char *source) {
  const TSQueryCapture *captures = match->captures;
  uint16_t count = match->capture_count;
  int result = 1;
  if (predicate->kind == EQ_CAPTURE) {  /* pairs of the two captures' nodes, in order */
    for (uint16_t i = 0, j = 0;; i++, j++) {
      while (i < count && captures[i].index != predicate->capture) i++;
      while (j < count && captures[j].index != predicate->other) j++;
      if (i == count || j == count) break;
      Text a = node_text(source, captures[i].node), b = node_text(source, captures[j].node);
      result = equal(a.text, a.length, b.text, b.length) == predicate->positive;
      if ((result != 1 && !predicate->any) || (result == 1 && predicate->any)) break;
    }
    return result == 1;
  }
  for (uint16_t i = 0; i < count; i++) {
    if (captures[i].index != predicate->capture) continue;
    Text text = node_text(source, captures[i].node);
    if (predicate->kind == ANY_OF) {
      /* the binding compares with != for not-any-of?: a value the text differs from counts */
      bool found = false;
      for (uint32_t k = 0; k < predicate->count && !found; k++)
        found = equal(text.text, text.length, predicate->values[k].text, predicate->values[k].length)
                == predicate->positive;
      if (!found) return false;
      continue;
    }
    if (predicate->kind == EQ_STRING) {
      result = equal(text.text, text.length, predicate->values[0].text, predicate->values[0].length)
               == predicate->positive;
    } else {
      const char *string = c_string(text.text, text.length);
      result = string && (regexec(&predicate->regex, string, 0, NULL, 0) == 0) == predicate->positive;
    }
    if ((result != 1 && !predicate->any) || (result == 1 && predicate->any)) break;
  }
  return result == 1;
}

/* Keeps the visit of each capture from being optimized away. */
static volatile uint64_t capture_sink;

/* Parse `source` and run the extraction's query over the tree: the tree's node count, the
 * matches that pass their pattern's predicates and their captures, each capture's node read.
 * Returns 0, or -1 when the parse gave no tree. */
EXPORT int parse_and_extract(const TSLanguage *language, const char *source, uint32_t length,
                             const Extraction *extraction, uint64_t *nodes, uint64_t *matches, uint64_t *captures) {
  TSTree *tree = parse(language, source, length);
  if (!tree) return -1;
  TSNode root = ts_tree_root_node(tree);
  *nodes = ts_node_descendant_count(root);
  *matches = *captures = 0;
  TSQueryCursor *cursor = ts_query_cursor_new();
  ts_query_cursor_set_match_limit(cursor, extraction->match_limit);
  ts_query_cursor_exec(cursor, extraction->query, root);
  TSQueryMatch match;
  uint64_t visited = 0;
  while (ts_query_cursor_next_match(cursor, &match)) {
    bool holds = true;
    for (uint32_t i = extraction->first[match.pattern_index]; holds && i < extraction->first[match.pattern_index + 1]; i++)
      holds = satisfies(&extraction->predicates[i], &match, source);
    if (!holds) continue;
    ++*matches;
    for (uint16_t i = 0; i < match.capture_count; i++) {
      visited += ts_node_start_byte(match.captures[i].node) ^ match.captures[i].index;
      ++*captures;
    }
  }
  capture_sink += visited;
  ts_query_cursor_delete(cursor);
  ts_tree_delete(tree);
  return 0;
}
