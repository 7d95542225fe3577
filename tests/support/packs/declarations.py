"""Pack declarations for the loader's tests: a good one, a dependent one, and wrong ones."""

from __future__ import annotations

from tools.packs import Pack

NOT_A_PACK = {"name": "dict_pack"}
MISNAMED = Pack(name="other_name", summary="declared under another name")
BASE = Pack(name="base", summary="a pack others build on")
DEPENDENT = Pack(name="dependent", summary="needs base", requires=("base",))
