"""`python -m context_tools.faces.schemas`: regenerate the shipped JSON Schemas from the types."""

from context_tools.faces.schemas import FOLDER
from context_tools.faces.schemas.shipping import write

if __name__ == "__main__":
    names = write()
    print(f"wrote {len(names)} schemas to {FOLDER}")
