"""Domain objects."""

MAX_NAME = 64


class User:
    def __init__(self, name, email):
        self.name = name
        self.email = email

    def display(self):
        return f"{self.name} <{self.email}>"

    class Meta:
        def table(self):
            return "users"
