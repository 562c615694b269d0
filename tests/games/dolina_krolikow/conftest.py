"""Lets the tests import the scenario helpers of ``test_dolina_rules`` (pytest runs in
importlib mode)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
