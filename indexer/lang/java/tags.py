"""Java's tags hooks (indexer.lang.tags_hooks)."""

from indexer.lang.declared_bases import finish_reading
from indexer.lang.java.bases import RULES
from indexer.lang.tags_hooks import TagsHooks

HOOKS = TagsHooks(
    kinds={"class_declaration": "class", "interface_declaration": "interface", "enum_declaration": "enum",
           "record_declaration": "class", "annotation_type_declaration": "interface",
           "method_declaration": "method", "constructor_declaration": "method",
           "compact_constructor_declaration": "method", "field_declaration": "field",
           "annotation_type_element_declaration": "method"},
    declarators_hold=True,  # an anonymous class's members are the field's it initializes
    finish=finish_reading(RULES),
)
