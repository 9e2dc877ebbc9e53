"""The demo repository of the README's tour: a small Python and JavaScript web project with
a release (`v1`) and one change on `main` after it.

    python -m corpora.demo DIR

Commits are written by `RepoBuilder` with fixed authors and times, so every build has the
same OIDs and the outputs the README shows are the ones a reader gets.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pygit2

from corpora.gitbuild import Content, RepoBuilder


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


RELEASE: dict[str, Content] = {
    "pyproject.toml": _src('''
        [project]
        name = "shop"
        version = "1.0.0"
        dependencies = ["click>=8", "httpx>=0.27"]

        [project.scripts]
        shop = "shop.cli:main"
        '''),
    "src/shop/__init__.py": "from .cart import Cart\n",
    "src/shop/cart.py": _src('''
        from .prices import Price


        class Cart:
            def __init__(self, owner):
                self.owner = owner
                self.items = []

            def add(self, sku, price: Price):
                self.items.append((sku, price))

            def total(self):
                return sum(p.cents for _, p in self.items)
        '''),
    "src/shop/prices.py": _src('''
        from dataclasses import dataclass


        @dataclass
        class Price:
            cents: int
            currency: str = "EUR"


        def parse_price(text):
            whole, _, cents = text.partition(".")
            return Price(int(whole) * 100 + int(cents or 0))
        '''),
    "src/shop/cli.py": _src('''
        import click

        from shop.cart import Cart
        from shop.prices import parse_price


        @click.command()
        @click.argument("prices", nargs=-1)
        def main(prices):
            cart = Cart("cli")
            for n, text in enumerate(prices):
                cart.add(f"sku-{n}", parse_price(text))
            click.echo(cart.total())
        '''),
    "tests/test_cart.py": _src('''
        from shop.cart import Cart
        from shop.prices import Price


        def test_total():
            cart = Cart("t")
            cart.add("a", Price(150))
            assert cart.total() == 150
        '''),
    "web/checkout.js": _src('''
        import { formatPrice } from "./format.js";

        export function renderTotal(cents) {
          return `Total: ${formatPrice(cents)}`;
        }
        '''),
    "web/format.js": _src('''
        export function formatPrice(cents) {
          return (cents / 100).toFixed(2);
        }
        '''),
}

CHANGE: dict[str, Content] = {
    "src/shop/cart.py": _src('''
        from .prices import Price


        class Cart:
            def __init__(self, owner):
                self.owner = owner
                self.items = []

            def add(self, sku, price: Price, quantity=1):
                self.items.append((sku, price, quantity))

            def remove(self, sku):
                self.items = [item for item in self.items if item[0] != sku]

            def total(self):
                return sum(p.cents * q for _, p, q in self.items)
        '''),
    "src/shop/discounts.py": _src('''
        from shop.cart import Cart


        def apply_discount(cart: Cart, percent):
            return cart.total() * (100 - percent) // 100
        '''),
    "web/format.js": _src('''
        export function formatPrice(cents) {
            return (cents / 100).toFixed(2);
        }
        '''),
}


@dataclass(frozen=True)
class Demo:
    path: Path
    release: str  # the commit tagged v1
    head: str  # the commit main points to


def build_demo(path: str | Path) -> Demo:
    builder = RepoBuilder(path)
    release = builder.commit(RELEASE, message="shop 1.0")
    builder.tag("v1", release)
    head = builder.commit(CHANGE, message="cart: quantities, remove; discounts")
    # a checkout whose files match main, as a clone's would: nothing uncommitted
    builder.repo.checkout_head(strategy=pygit2.GIT_CHECKOUT_FORCE)
    return Demo(Path(path), release, head)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m corpora.demo", description=__doc__.splitlines()[0])
    parser.add_argument("path", help="folder to create the repository in (must not exist or be empty)")
    args = parser.parse_args(argv)
    target = Path(args.path)
    if target.exists() and any(target.iterdir()):
        print(f"corpora.demo: {target} exists and is not empty", file=sys.stderr)
        return 1
    demo = build_demo(target)
    print(f"{demo.path}: v1 {demo.release[:12]}, main {demo.head[:12]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
