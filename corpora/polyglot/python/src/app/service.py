from .models import MAX_NAME, User
from .storage.db import Database


class UserService:
    def __init__(self, db=None):
        self.db = db or Database()

    def create(self, name, email):
        user = User(self.normalize(name), email)
        self.db.save(user)
        return user

    @staticmethod
    def normalize(name):
        return name.strip()[:MAX_NAME]
