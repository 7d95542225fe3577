"""`openai:<model>` through langchain-openai's ChatOpenAI (any OpenAI-compatible server).

Built directly rather than by langchain's `init_chat_model`, which would add the `langchain`
package to the runtime for a call that only forwards these arguments, and which accepts an
empty model name: the checks and their one-line errors below would stay ours anyway.
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from core.models.errors import ModelConfigError
from core.settings import Settings


def openai_chat_model(model_name: str, settings: Settings) -> BaseChatModel:
    """Build ChatOpenAI for `model_name`, honouring OPENAI_BASE_URL.

    The model gets an HTTP client of its own: langchain-openai would share one per base URL
    across the process, and a kept-alive connection belongs to the event loop that opened it
    (a second `asyncio.run` in the process, or a test's, failed on "Event loop is closed").
    """
    import openai
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
        http_async_client=openai.DefaultAsyncHttpxClient(),
    )


def unavailable_reason(exc: BaseException) -> str | None:
    """Describe a failure the OpenAI client retries by itself; None for any other error.

    These are the client's transient failures (rate limits, timeouts, lost connections, server
    errors): when one reaches the caller, the client's retries with backoff are used up.
    Anything else (a bad key, an unknown model, a rejected request) is a configuration or
    request problem, not an outage.
    """
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return "it did not answer in time"
    if isinstance(exc, openai.APIConnectionError):
        return "it could not be reached"
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status == 429:
            return "rate limited, HTTP 429"
        if status >= 500:
            return f"server error, HTTP {status}"
        if status in (408, 409):
            return f"HTTP {status}"
    return None
