#!/usr/bin/env python3
import sys

from app.storage.db import Database


def migrate(path):
    Database(path)._connect().execute("create table users (name, email)")


if __name__ == "__main__":
    migrate(sys.argv[1])
