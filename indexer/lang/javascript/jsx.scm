; Rennet Context: JSX facts, read for JavaScript and TSX (both grammars parse JSX; the
; TypeScript one does not). `<Button />` and `<Nav.Item>` use a component as a call uses a
; function; lowercase elements (`<div>`) are the host's, not symbols of the code.

((jsx_opening_element name: (identifier) @name) @reference.class (#match? @name "^[A-Z]"))
((jsx_self_closing_element name: (identifier) @name) @reference.class (#match? @name "^[A-Z]"))
(jsx_opening_element name: (member_expression property: (property_identifier) @name)) @reference.class
(jsx_self_closing_element name: (member_expression property: (property_identifier) @name)) @reference.class
