"""Execution backends beyond the local process: Ray (a local or remote cluster)."""

from __future__ import annotations

from accord.errors import UserError


def connect_ray(address: str | None = None, num_cpus: int | None = None):
    """The ``ray`` module, connected: to ``address`` (or RAY_ADDRESS) if given, else a local cluster.

    An already initialised Ray (in tests, in a notebook) is reused as it is.
    """
    try:
        import ray
    except ImportError:
        raise UserError("--backend ray needs Ray: pip install 'accord[ray]'") from None
    if not ray.is_initialized():
        kwargs = {"include_dashboard": False, "log_to_driver": False, "ignore_reinit_error": True}
        if address:
            ray.init(address=address, **kwargs)
        else:
            ray.init(num_cpus=num_cpus, **kwargs)
    return ray


def user_error_from(exc: BaseException) -> BaseException:
    """The UserError raised inside a Ray task, if that is what failed; else the Ray error itself."""
    seen = exc
    while seen is not None:
        if isinstance(seen, UserError):
            return UserError(str(seen))
        cause = getattr(seen, "cause", None)
        seen = cause if isinstance(cause, BaseException) and cause is not seen else seen.__cause__
    text = str(exc)
    marker = "UserError: "
    if marker in text:
        return UserError(text.split(marker, 1)[1].strip().splitlines()[0])
    return exc
