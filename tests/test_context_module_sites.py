"""Module sites (segments of an import's path) in context.references: a reference to a module
or namespace definition, or to a name nothing defines; never to a same-named function."""

from __future__ import annotations


def test_module_sites_refer_only_to_modules_or_to_undefined_names(indexed_files):
    asked = indexed_files({
        "web/__init__.py": "",
        "web/urls.py": "def path(route):\n    return route\n",
        "app.py": "import os.path\nfrom web.urls import path\n\nX = path('a')\nY = os.path.join('a', 'b')\n",
        "fetch.py": "import requests\nimport requests.adapters\n",
        "src/lib.rs": "pub mod net;\n",
        "src/net.rs": "pub struct Stream;\n",
        "src/main.rs": "use crate::net::Stream;\n\nfn main() {}\n",
    })

    def sites(name: str) -> set[tuple[str, int, str]]:
        r = asked.call("context.references", name=name)
        return {(s.path, s.line, s.role) for s in r.data.sites}

    # `path` the function: its import, call and the attribute `os.path`, not `import os.path`
    assert sites("path") == {("app.py", 2, "identifier"), ("app.py", 4, "call"), ("app.py", 5, "identifier")}
    # `net` is a Rust module: the use path refers to it
    assert ("src/main.rs", 1, "module") in sites("net")
    # nothing defines `requests`: every import of it is a site
    assert sites("requests") == {("fetch.py", 1, "module"), ("fetch.py", 2, "module")}
