# lit configuration for running compiler-rt's XRay lit tests (a checkout of
# llvm-project, never copied into this repository) against a chosen runtime.
# tools/upstream-lit/run.sh fills in the parameters; see docs/usage.md.
import os
import lit.formats

def param(name):
    value = lit_config.params.get(name)
    if value is None:
        lit_config.fatal("missing --param %s=... (use run.sh)" % name)
    return value

runtime = param("runtime")          # "ours" or "compiler-rt"
clang = param("clang")              # e.g. clang-14
clangxx = param("clangxx")          # e.g. clang++-14
llvm_bin = param("llvm_bin")        # holds llvm-xray, FileCheck, split-file

config.name = "XRay-upstream-" + runtime
config.test_source_root = param("tests")
config.test_exec_root = param("exec_root")
config.suffixes = [".c", ".cpp"]
# Upstream runs these with a real shell: they use backquotes and `[ ... ]`.
config.test_format = lit.formats.ShTest(execute_external=True)

if runtime == "ours":
    # The README's hand link line: instrument, keep compiler-rt's runtime
    # out, link our whole archive and export its symbols.
    root = param("src_root")
    archive = param("archive")
    link = ("-Wl,--whole-archive %s -Wl,--no-whole-archive -lpthread "
            "-Wl,--dynamic-list=%s" % (archive,
                                        os.path.join(root, "cmake", "xray.dynlist")))
    xray_flags = "-fxray-instrument %s -I%s %s" % (
        param("no_link_deps"), os.path.join(root, "include"), link)
    xraylib = link
elif runtime == "compiler-rt":
    xray_flags = "-fxray-instrument"
    crt_libdir = param("crt_libdir")
    xraylib = ("-lm -lpthread -ldl -lrt -L%s -Wl,-whole-archive "
               "-lclang_rt.xray-x86_64 -Wl,-no-whole-archive" % crt_libdir)
else:
    lit_config.fatal("runtime must be 'ours' or 'compiler-rt'")

if runtime == "ours" and lit_config.params.get("adapt_xray_shared") == "1":
    # Opt-in, not upstream's test as written: clang before 20 has no
    # -fxray-shared, so a shared object links our libxray-dso.a instead
    # (docs/usage.md, "Shared libraries") and an executable drops the flag.
    dso_flags = "-fxray-instrument %s -I%s -Wl,--whole-archive %s -Wl,--no-whole-archive" % (
        param("no_link_deps"), os.path.join(root, "include"), param("dso_archive"))
    config.substitutions.append((r"%clangxx_xray(.*) -fxray-shared -shared ",
                                 r" %s %s\1 -shared " % (clangxx, dso_flags)))
    config.substitutions.append((r" -fxray-shared", ""))

# The substitutions of compiler-rt/test/xray/lit.cfg.py, same spellings.
config.substitutions.append(("%clang ", " %s " % clang))
config.substitutions.append(("%clangxx ", " %s " % clangxx))
config.substitutions.append(("%clang_xray ", " %s %s " % (clang, xray_flags)))
config.substitutions.append(("%clangxx_xray", " %s %s " % (clangxx, xray_flags)))
config.substitutions.append(("%llvm_xray", os.path.join(llvm_bin, "llvm-xray")))
config.substitutions.append(("%xraylib", xraylib))
config.substitutions.append(("%run", ""))
# Newer lit's %{readfile:F} (the file's text), for older lit and bash.
config.substitutions.append((r"%\{readfile:([^}]*)\}", r"$(cat \1)"))

config.environment["PATH"] = os.pathsep.join(
    [param("tools_path"), os.environ.get("PATH", "")])

# What compiler-rt's own configuration declares on x86-64 Linux.
config.target_triple = "x86_64-unknown-linux-gnu"
for feature in ["built-in-llvm-tree", "x86_64-target-arch", "linux", "shell",
                "target=x86_64-unknown-linux-gnu"]:
    config.available_features.add(feature)
