"""The PHP view of a source whose parse has errors (indexer.lang.retry_views).

In a double-quoted string or heredoc, PHP reads `"$a[extends]"` and `"$a->class"` as the
key `extends` and the property `class`; tree-sitter-php lexes a keyword there as the keyword,
and its recovery may then close the class around the string early, leaving the methods after
it as functions of no class (PEAR's `"extends=\"$what[extends]\" "`).
"""

from __future__ import annotations

import re

from tree_sitter import Node

from indexer.lang.retry_views import in_error

# A variable's key or property spelled as one of PHP's keywords (in any case, as PHP reads
# them). Outside a string such a key is no PHP (a parse error) and such a property parses
# alike under another name, so the view may rename it wherever it stands.
_KEYWORDS = (
    "abstract|and|as|break|callable|case|catch|class|clone|const|continue|declare|default|do|"
    "echo|else|elseif|enddeclare|endfor|endforeach|endif|endswitch|endwhile|extends|final|"
    "finally|fn|for|foreach|function|global|goto|if|implements|include|include_once|instanceof|"
    "insteadof|interface|match|namespace|new|or|print|private|protected|public|readonly|"
    "require|require_once|return|static|switch|throw|trait|try|use|var|while|xor|yield")
_KEYWORD_KEY = re.compile(
    rb"\$[A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*+(?:\[(" + _KEYWORDS.encode() + rb")\]|->("
    + _KEYWORDS.encode() + rb")(?![A-Za-z0-9_\x80-\xff]))", re.IGNORECASE)


def php_keyword_key_view(data: bytes, root: Node) -> bytes | None:
    """`data` with each keyword read as a variable's key or property (`$a[extends]`,
    `$a->class`) starting with `_` instead (`$a[_xtends]`): a name the grammar takes there.
    None when no such keyword stands in an ERROR of `root` (the tree of `data`)."""
    if b"$" not in data:
        return None
    found = [m.start(1) if m.start(1) >= 0 else m.start(2) for m in _KEYWORD_KEY.finditer(data)]
    if not any(in_error(root, at) for at in found):
        return None
    view = bytearray(data)
    for at in found:
        view[at] = 0x5F  # _
    return bytes(view)


retry_view = php_keyword_key_view
