"""Token counts without the network, for models that report no usage (inspect_ai's `mockllm`).

When a model's output carries no usage, inspect_ai estimates it with tiktoken's o200k_base encoding, and
tiktoken downloads that vocabulary on first use. Offline, that download fails, and so does the eval:
`inspect eval lexsym/openexempt_basic --model mockllm/model` breaks in the first sample. litellm, one of
lexsym's own dependencies, ships the same vocabulary file under the name tiktoken caches it by, and
points TIKTOKEN_CACHE_DIR at it whenever litellm is imported. An inspect eval of a lexsym task may never
import litellm, so this module does the same, once, when `lexsym.inspect` is loaded: only when the user
has set no tiktoken cache of their own, and only when the bundled file is there. tiktoken checks the
file's sha256 before using it, so a wrong file can only lead to the download it replaces.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path

#: Where tiktoken fetches o200k_base; the sha1 of this URL is the file's name in a tiktoken cache.
O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"


def bundled_vocabulary_dir() -> Path | None:
    """litellm's folder of tiktoken vocabularies, when it holds o200k_base (found without importing
    litellm, which takes seconds)."""
    try:
        spec = importlib.util.find_spec("litellm")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"
    name = hashlib.sha1(O200K_URL.encode()).hexdigest()
    return folder if (folder / name).is_file() else None


def use_bundled_vocabulary() -> Path | None:
    """Point TIKTOKEN_CACHE_DIR at litellm's vocabularies unless a tiktoken cache is already chosen;
    returns the folder now in use, or None when nothing was changed."""
    if "TIKTOKEN_CACHE_DIR" in os.environ or "DATA_GYM_CACHE_DIR" in os.environ:
        return None
    folder = bundled_vocabulary_dir()
    if folder is not None:
        os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
    return folder
