import argparse
import functools

from app import VERSION
from .service import UserService


@functools.lru_cache(maxsize=None)
def build_parser():
    parser = argparse.ArgumentParser(prog="polyapp")
    parser.add_argument("--version", action="version", version=VERSION)
    parser.add_argument("name")
    parser.add_argument("email")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    UserService().create(args.name, args.email)
    return 0
