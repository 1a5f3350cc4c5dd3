#!/usr/bin/env python3
"""Checks the packaging recipes against the project, where they cannot be
run here (no Spack, no container engine):

  packaging/spack/packages/nbcguard/package.py
    - compiles, and loads against a stand-in of Spack's package API that
      records its directives;
    - cmake_args() for each launcher and tests variant, with a stand-in MPI
      provider, passes only cache variables this build knows (a variable
      renamed in CMake breaks the recipe, and this check);
    - its launcher values are launchers NbcguardLauncher.cmake allows.
  packaging/container/Dockerfile
    - every tools/ script and --preset it runs exists;
    - .dockerignore keeps the checkout's build/ out of the copied source (its
      CMake caches name the checkout's path: the preset would refuse them);
    - its runtime stage installs, directly or as their dependencies, the
      Debian packages owning every library the installed programs need
      (their NEEDED entries), beside Debian's essential ones.

usage: check-packaging.py SOURCE_DIR BUILD_DIR INSTALL_PREFIX
(INSTALL_PREFIX: an installed tree of BUILD_DIR, as cmake --install writes it)
"""
import json
import os
import re
import subprocess
import sys
import types

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


# ----------------------------------------------------------------- Spack


class Directives:
    def __init__(self):
        self.versions, self.variants, self.depends = [], {}, []


def spack_stub(record):
    """A module standing in for spack.package: the directives record
    what the recipe declares; CMakePackage.define* build -D options as
    Spack's do."""
    mod = types.ModuleType("spack.package")

    def version(name, **kw):
        record.versions.append((name, kw))

    def variant(name, default=None, values=None, description="", multi=None, **kw):
        if not description:
            fail("package.py: variant %s has no description" % name)
        record.variants[name] = {"default": default, "values": values}

    def depends_on(spec, when=None, type=None):
        record.depends.append((spec, when))

    class CMakePackage:
        def define(self, name, value):
            if isinstance(value, bool):
                value = "ON" if value else "OFF"
            return "-D%s=%s" % (name, value)

        def define_from_variant(self, name, variant):
            if variant not in record.variants:
                fail("package.py: define_from_variant(%s, %s): no such variant" % (name, variant))
                return "-D%s=" % name
            return self.define(name, self.spec.variants[variant])

    mod.version, mod.variant, mod.depends_on = version, variant, depends_on
    mod.conflicts = lambda *a, **k: None
    mod.CMakePackage = CMakePackage
    mod.join_path = os.path.join
    return mod


class FakeMpi:
    mpicc = "/opt/mpi/bin/mpicc"

    class prefix:
        bin = "/opt/mpi/bin"


class FakeSpec:
    def __init__(self, variants):
        self.variants = variants

    def __getitem__(self, name):
        if name != "mpi":
            raise KeyError(name)
        return FakeMpi()


def cache_variables(build):
    names = set()
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)(:[A-Z]+)?=", line)
            if m:
                names.add(m.group(1))
    return names


def check_spack(source, build):
    path = os.path.join(source, "packaging/spack/packages/nbcguard/package.py")
    text = open(path).read()
    code = compile(text, path, "exec")
    record = Directives()
    spack = types.ModuleType("spack")
    spack.package = spack_stub(record)
    sys.modules["spack"], sys.modules["spack.package"] = spack, spack.package
    namespace = {}
    exec(code, namespace)
    cls = namespace.get("Nbcguard")
    if cls is None:
        fail("package.py defines no class Nbcguard")
        return
    if not record.versions:
        fail("package.py declares no version")
    if not any(d[0] == "mpi" for d in record.depends):
        fail("package.py does not depend on the virtual package mpi")
    launcher = os.path.join(source, "cmake/NbcguardLauncher.cmake")
    allowed = re.search(r"set\(_nbcguard_launchers ([a-z ]+)\)", open(launcher).read()).group(1).split()
    values = record.variants.get("launcher", {}).get("values") or ()
    for v in values:
        if v not in allowed:
            fail("package.py: launcher=%s is not a launcher NbcguardLauncher.cmake allows (%s)" % (v, allowed))
    known = cache_variables(build)
    for launch in values or ("mpiexec",):
        for tests in (True, False):
            pkg = cls.__new__(cls)
            pkg.spec = FakeSpec({"launcher": launch, "tests": tests})
            for arg in pkg.cmake_args():
                m = re.match(r"^-D([A-Za-z0-9_]+)(:[A-Z]+)?=", arg)
                if not m:
                    fail("package.py: cmake_args() gives %r, not -DNAME=VALUE" % arg)
                elif m.group(1) not in known:
                    fail("package.py: cmake_args() sets %s, which is not a cache variable of %s"
                         % (m.group(1), build))
    print("package.py: %d dependencies, variants %s, cmake_args checked against %d cache variables"
          % (len(record.depends), sorted(record.variants), len(known)))


# ----------------------------------------------------------------- Dockerfile


def dockerfile_stages(text):
    """[(instruction, argument)] per stage, continuation lines joined."""
    text = re.sub(r"\\\n", " ", text)
    stages = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        if word.upper() == "FROM":
            stages.append([])
        if stages:
            stages[-1].append((word.upper(), rest))
    return stages


def owner(lib_path):
    """The Debian package owning a library (symlinks resolved, /lib and
    /usr/lib both tried: Debian 12 has a merged /usr)."""
    candidates = {lib_path, os.path.realpath(lib_path)}
    for c in list(candidates):
        if c.startswith("/usr/lib/"):
            candidates.add(c[len("/usr"):])
        elif c.startswith("/lib/"):
            candidates.add("/usr" + c)
    for c in candidates:
        r = subprocess.run(["dpkg", "-S", c], capture_output=True, text=True)
        if r.returncode == 0:
            return r.stdout.split(":")[0].strip()
    return None


def depends_of(packages):
    """The packages and, one level down, what they depend on (installed here)."""
    out = set(packages)
    for p in packages:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Depends},${Pre-Depends}", p],
                           capture_output=True, text=True)
        for alt in r.stdout.split(","):
            for name in alt.split("|"):
                name = name.strip().split(" ")[0].split(":")[0]
                if name:
                    out.add(name)
    return out


def essential_packages():
    r = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Essential} ${Priority}\n"],
                       capture_output=True, text=True)
    out = set()
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and (parts[1] == "yes" or parts[2] == "required"):
            out.add(parts[0])
    return out


def check_dockerfile(source, prefix):
    path = os.path.join(source, "packaging/container/Dockerfile")
    stages = dockerfile_stages(open(path).read())
    if len(stages) < 2:
        fail("Dockerfile: expected a build stage and a runtime stage, found %d stage(s)" % len(stages))
        return
    presets = {p["name"] for p in json.load(open(os.path.join(source, "CMakePresets.json")))["configurePresets"]}
    for stage in stages:
        for word, arg in stage:
            if word == "FROM" and not arg.startswith("debian:12"):
                fail("Dockerfile: FROM %s, expected debian:12" % arg)
            if word != "RUN":
                continue
            for script in re.findall(r"tools/[A-Za-z0-9_.-]+", arg):
                if not os.path.exists(os.path.join(source, script)):
                    fail("Dockerfile runs %s, which does not exist" % script)
            for preset in re.findall(r"--preset\s+\"?\$?([A-Za-z0-9_-]+)", arg):
                if preset != "mpi" and preset not in presets:
                    fail("Dockerfile names preset %s; CMakePresets.json has %s" % (preset, sorted(presets)))
            for loop in re.findall(r"for mpi in ([a-z ]+);", arg):
                for preset in loop.split():
                    if preset not in presets:
                        fail("Dockerfile builds preset %s; CMakePresets.json has %s" % (preset, sorted(presets)))
    ignore = os.path.join(source, ".dockerignore")
    ignored = open(ignore).read().split() if os.path.exists(ignore) else []
    if any(word == "COPY" and arg.split()[0] == "." for stage in stages for word, arg in stage) and \
            not {"build", "build/", "/build", "/build/"} & set(ignored):
        fail("Dockerfile copies the source tree, and .dockerignore does not leave build/ out")
    runtime = set()
    for word, arg in stages[-1]:
        if word == "RUN" and "apt-get install" in arg:
            after = arg.split("apt-get install", 1)[1].split("&&")[0]
            runtime |= {w for w in after.split() if not w.startswith("-")}
    if not runtime:
        fail("Dockerfile: the runtime stage installs no package")
        return
    provided = depends_of(runtime) | essential_packages()
    expected = ["bin/nbcguard", "libexec/nbcguard/nbcguard-harness", "libexec/nbcguard/nbcguard-compute",
                "lib/nbcguard/libnbcguard-reference.so", "lib/nbcguard/libnbcguard_compute.so"]
    missing = [p for p in expected if not os.path.isfile(os.path.join(prefix, p))]
    if missing:
        fail("the installed tree %s lacks %s" % (prefix, ", ".join(missing)))
        return
    programs = []
    for sub in ("bin", "libexec/nbcguard", "lib/nbcguard"):
        d = os.path.join(prefix, sub)
        programs += [os.path.join(d, f) for f in sorted(os.listdir(d))]
    private = set(os.listdir(os.path.join(prefix, "lib/nbcguard")))
    checked = 0
    for prog in programs:
        if os.path.isdir(prog):
            continue
        ldd = subprocess.run(["ldd", prog], capture_output=True, text=True).stdout
        where = dict(re.findall(r"^\s*(\S+) => (/\S+)", ldd, re.M))
        dyn = subprocess.run(["readelf", "-d", prog], capture_output=True, text=True).stdout
        for needed in re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn):
            if needed in private:
                continue
            checked += 1
            if needed not in where:
                fail("%s needs %s, which ldd does not resolve here" % (prog, needed))
                continue
            pkg = owner(where[needed])
            if pkg is None:
                fail("%s needs %s (%s), which no Debian package owns" % (prog, needed, where[needed]))
            elif pkg not in provided:
                fail("%s needs %s from the package %s, which the Dockerfile's runtime stage does not install"
                     % (prog, needed, pkg))
    print("Dockerfile: %d stages; %d NEEDED libraries of %d installed programs, each from a package the "
          "runtime stage installs (%s)" % (len(stages), checked, len(programs), " ".join(sorted(runtime))))


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    source, build, prefix = sys.argv[1:]
    check_spack(source, build)
    check_dockerfile(source, prefix)
    if failures:
        print("check-packaging: %d problem(s)" % len(failures))
        return 1
    print("check-packaging: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
