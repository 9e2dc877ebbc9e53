"""polyapp: users and their storage."""

from .models import User

VERSION = "0.3.0"
