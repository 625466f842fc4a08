"""What the Python tests against Linux perf 6.1 with served counts share
(metrics_perf61.py, stat_layout_perf61.py, topdown_shadow_perf61.py, and
whether perf 6.1 is here for the others with a _perf61 name): whether perf 6.1 and a mount
namespace are here, and peo_stub.c built into a fresh folder.

  oracle61.have_perf61()                      False: skipped (said why)
  tmp, stub = oracle61.prepare(src, prefix)   None, None: skipped (said why)
  env = oracle61.stub_env(PERF_CPUID=...)     the environment of a stubbed run"""
import os
import subprocess
import tempfile


def have_perf61():
    """Whether perf 6.1 is on PATH; False after printing that the test is
    skipped (exit 77)."""
    try:
        v = subprocess.run(["perf", "--version"], capture_output=True, text=True).stdout
    except OSError:
        v = ""
    if "perf version 6.1" not in v:
        print("perf 6.1 not installed: skipped")
        return False
    return True


def prepare(src, prefix):
    """(tmp folder, stub path), or (None, None) after printing why the test
    is skipped (exit 77): no perf 6.1, or no mount namespace (needs root)."""
    if not have_perf61():
        return None, None
    if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode:
        print("no mount namespace (needs root): skipped")
        return None, None
    tmp = tempfile.mkdtemp(prefix=prefix)
    stub = os.path.join(tmp, "peo_stub.so")
    if subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", stub,
                       os.path.join(src, "tests/oracle/peo_stub.c"), "-ldl"]).returncode:
        raise SystemExit("cannot build peo_stub.c")
    return tmp, stub


def stub_env(**kw):
    """os.environ with kw, without PMUKIT_CPUID (the tools take PERF_CPUID),
    and ASan told not to insist on coming first: an ASan build of pmukit
    runs with the stub preloaded before its runtime."""
    env = dict(os.environ, **kw)
    env.pop("PMUKIT_CPUID", None)
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"),
                                                 "verify_asan_link_order=0"]))
    return env
