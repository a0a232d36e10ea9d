"""The program that runs inside the sandbox: load one candidate, run all its items, report each.

It is executed as a script by a bare interpreter (``python -I -S``) and imports nothing from accord,
and from the standard library only modules that cost no start-up (not even json: its regular
expressions cost more than a small test). The job arrives on stdin as a Python literal; one record
(a dict literal on one line) per item goes to the file
descriptor named in the job as soon as the item finishes, so a candidate that crashes half-way still leaves the
results before the crash. Every record carries the job's nonce: records a candidate forges without
it are detected by the caller.

Items:
- ``{"kind": "expr", "expr": SRC, "expected": SRC}``: evaluate ``expr`` with the candidate's
  top-level names in scope and compare with ``expected`` (evaluated before the candidate is loaded).
- ``{"kind": "stmt", "src": SRC}``: an assert-style test; it passes if it runs without raising.
- ``{"kind": "probe", "args": SRC}``: call the entry point on the literal argument tuple and report
  the canonical repr of the result (for agreement between candidates).
- ``{"kind": "check", "src": SRC}``: run a ``check(candidate)`` test function (ground truth).

Defences against a candidate that tampers with the harness from inside the same process: expected
values and the builtins used by tests are captured before the candidate runs; results must be plain
built-in values (an object whose ``__eq__`` always says True is refused); the recursion limit and
alarm are reset before each item; ``BaseException`` of any kind, ``SystemExit`` included, is caught
per item.
"""

SOURCE = r"""
import builtins, math, os, sys
import _signal as signal  # the C module: the enum-based wrapper costs more start-up than a test
from builtins import (type, list, tuple, set, frozenset, dict, int, float, bool, str, bytes, complex, len, all,
                      zip, repr, sorted, isinstance, callable, enumerate, BaseException, Exception, AssertionError)

_write = os.write
_exit = os._exit
_setitimer = signal.setitimer
_setrec = sys.setrecursionlimit
_REC = sys.getrecursionlimit()
_isclose, _isnan, _isinf = math.isclose, math.isnan, math.isinf
_compile, _exec, _eval = compile, exec, eval
_NO_BUILTINS = {"__builtins__": {}}
_SAFE_BUILTINS = dict(vars(builtins))
_PLAIN = (int, float, bool, str, type(None), bytes, complex)
_MAX_ITEMS = 100000


class _Timeout(BaseException):
    pass


class _Bad(Exception):
    pass


_STREAMS = (sys.stdout, sys.stderr)


def _finish():
    for stream in _STREAMS + (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    _exit(0)


def _alarm(signum, frame):
    raise _Timeout()


def _plain(x, budget):
    t = type(x)
    budget[0] -= 1
    if budget[0] < 0:
        raise _Bad("result is too large")
    if t in _PLAIN:
        return x
    if t in (list, tuple):
        return t([_plain(v, budget) for v in x])
    if t in (set, frozenset):
        return t(_plain(v, budget) for v in x)
    if t is dict:
        return {_plain(k, budget): _plain(v, budget) for k, v in x.items()}
    raise _Bad("returned an object of type %s, not a plain value" % t.__name__)


def _canon(x):
    t = type(x)
    if t is float:
        if _isnan(x) or _isinf(x):
            return repr(x)
        return repr(float("%.10g" % x))
    if t in (list, tuple):
        inner = ", ".join(_canon(v) for v in x)
        return ("[%s]" if t is list else "(%s)") % inner
    if t in (set, frozenset):
        return "%s{%s}" % (t.__name__, ", ".join(sorted(_canon(v) for v in x)))
    if t is dict:
        return "{%s}" % ", ".join(sorted("%s: %s" % (_canon(k), _canon(v)) for k, v in x.items()))
    return repr(x)


def _same(a, b):
    ta, tb = type(a), type(b)
    if ta is bool or tb is bool:
        return ta is tb and a == b
    if ta in (int, float) and tb in (int, float):
        if ta is float or tb is float:
            if _isnan(a) or _isnan(b):
                return _isnan(a) and _isnan(b)
            return _isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
        return a == b
    if ta is not tb:
        return False
    if ta in (list, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if ta is dict:
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def _describe(exc):
    name = type(exc).__name__
    msg = str(exc) if not isinstance(exc, _Timeout) else ""
    text = (name + (": " + msg if msg else ""))
    return text[:300]


def main():
    job = eval(sys.stdin.read(), {"__builtins__": {}})  # a Python literal written by the caller
    nonce = job.pop("nonce")
    timeout = float(job.get("item_timeout", 2.0))
    fd = int(job.get("fd", 3))

    def emit(rec):
        rec["nonce"] = nonce
        data = (repr(rec) + "\n").encode()
        while data:
            data = data[_write(fd, data):]

    items = job["items"][:_MAX_ITEMS]
    expected = []
    for it in items:
        if it["kind"] == "expr":
            try:
                expected.append((True, eval(it["expected"], {"__builtins__": dict(_SAFE_BUILTINS)})))
            except BaseException as exc:  # a malformed test, not the candidate's fault
                expected.append((False, "bad expected value: " + _describe(exc)))
        else:
            expected.append((True, None))
    signal.signal(signal.SIGALRM, _alarm)
    ns = {"__name__": "__candidate__", "__builtins__": builtins}
    try:
        _setitimer(signal.ITIMER_REAL, timeout * 2)
        exec(compile(job["program"], "<candidate>", "exec"), ns)
        _setitimer(signal.ITIMER_REAL, 0)
    except BaseException as exc:
        _setitimer(signal.ITIMER_REAL, 0)
        emit({"load_error": "timeout while loading" if isinstance(exc, _Timeout) else _describe(exc)})
        _finish()
    entry = ns.get(job.get("entry_point") or "")
    emit({"loaded": True})
    for i, it in enumerate(items):
        _setrec(_REC)
        rec = {"i": i}
        try:
            _setitimer(signal.ITIMER_REAL, timeout)
            kind = it["kind"]
            if kind == "expr":
                ok, exp = expected[i]
                scope = dict(ns)
                scope["__builtins__"] = dict(_SAFE_BUILTINS)
                got = _plain(_eval(it["expr"], scope), [_MAX_ITEMS])
                _setitimer(signal.ITIMER_REAL, 0)
                if not ok:
                    rec.update(status="error", error=exp)
                else:
                    rec.update(status="pass" if _same(got, exp) else "fail", output=_canon(got)[:500])
            elif kind == "stmt":
                scope = dict(ns)
                scope["__builtins__"] = dict(_SAFE_BUILTINS)
                _exec(_compile(it["src"], "<test>", "exec"), scope)
                _setitimer(signal.ITIMER_REAL, 0)
                rec.update(status="pass")
            elif kind == "probe":
                if not callable(entry):
                    raise _Bad("entry point %r is not defined" % job.get("entry_point"))
                args = _eval(it["args"], dict(_NO_BUILTINS))  # a literal tuple, evaluated afresh per call
                got = _plain(entry(*args), [_MAX_ITEMS])
                _setitimer(signal.ITIMER_REAL, 0)
                rec.update(status="ok", output=_canon(got)[:2000])
            elif kind == "check":
                if not callable(entry):
                    raise _Bad("entry point %r is not defined" % job.get("entry_point"))
                scope = dict(ns)
                scope["__builtins__"] = dict(_SAFE_BUILTINS)
                _exec(_compile(it["src"], "<check>", "exec"), scope)

                def guarded(*a, **k):
                    return _plain(entry(*a, **k), [_MAX_ITEMS])

                scope["check"](guarded)
                _setitimer(signal.ITIMER_REAL, 0)
                rec.update(status="pass")
            else:
                rec.update(status="error", error="unknown item kind %r" % kind)
        except BaseException as exc:
            _setitimer(signal.ITIMER_REAL, 0)
            if isinstance(exc, _Timeout):
                rec.update(status="timeout", error="item exceeded %.3g s" % timeout)
            elif isinstance(exc, AssertionError):
                rec.update(status="fail", error=_describe(exc))
            else:
                rec.update(status="error", error=_describe(exc))
        emit(rec)
    emit({"done": True})
    _finish()


main()
"""
