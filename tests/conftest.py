import os
import sys
from pathlib import Path

# Tests import the package from the checkout even without an editable install.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("MPLBACKEND", "Agg")
