from app.service import UserService


def test_create_normalizes_name():
    user = UserService().create("  ada  ", "ada@example.invalid")
    assert user.name == "ada"
