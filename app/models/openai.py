"""`openai:<model>` through langchain-openai's ChatOpenAI (any OpenAI-compatible server)."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from app.models.errors import ModelConfigError
from app.settings import Settings


def openai_chat_model(model_name: str, settings: Settings) -> BaseChatModel:
    """Build ChatOpenAI for `model_name`, honouring OPENAI_BASE_URL."""
    from langchain_openai import ChatOpenAI

    if not model_name:
        raise ModelConfigError("openai: needs a model name, e.g. openai:gpt-4o")
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    if key is None:
        if settings.openai_base_url is None:
            raise ModelConfigError(
                f"openai:{model_name} needs OPENAI_API_KEY "
                "(or OPENAI_BASE_URL pointing at an OpenAI-compatible server)"
            )
        # Local OpenAI-compatible servers (vLLM, Ollama, llama.cpp) accept any key.
        key = "not-needed"
    return ChatOpenAI(
        model=model_name,
        api_key=key,
        base_url=settings.openai_base_url,
        timeout=settings.model_timeout_s,
        max_retries=settings.model_max_retries,
        streaming=settings.model_streaming,
        stream_usage=True,
    )
