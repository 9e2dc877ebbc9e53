import sqlite3

from ..models import User


class Database:
    def __init__(self, path=":memory:"):
        self.path = path

    def _connect(self):
        return sqlite3.connect(self.path)

    def save(self, user: User):
        with self._connect() as conn:
            conn.execute("insert into users values (?, ?)", (user.name, user.email))
