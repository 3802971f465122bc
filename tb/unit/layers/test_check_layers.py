#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""test_check_layers.py: scripts/check_layers.py fails on each way of building shipped code from
tb/ and on the bridge reaching into the simulator outside its sim:// backend, and passes the
same trees without the fault. TAP on stdout (suite layers runs it after the check itself).

Each case writes a small tree into a temporary folder (the files the check reads, laid out as
in gpuref), runs the check on it with --root, and asserts its exit status and the words of the
failure. The build-product cases compile the fixture with gcc -g, as the real build does.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.normpath(os.path.join(HERE, "..", "..", "..", "scripts", "check_layers.py"))


def write(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)


def check(root, *args):
    run = subprocess.run([sys.executable, CHECK, "--root", root] + list(args),
                         capture_output=True, text=True)
    return run.returncode, run.stdout + run.stderr


def gcc_archive(root, sources, flags, name="libfx.a"):
    """Compile sources (relative to root, from root as make does) into root/name."""
    objs = []
    for i, src in enumerate(sources):
        obj = os.path.join(root, "obj%d.o" % i)
        subprocess.run(["gcc", "-std=c11", "-O2", "-g", "-c", src, "-o", obj] + flags,
                       cwd=root, check=True)
        objs.append(obj)
    out = os.path.join(root, name)
    subprocess.run(["ar", "rcs", out] + objs, check=True)
    return out


HEADER = '#ifndef FX_H\n#define FX_H\nstatic inline int fx(void) { return 3; }\n#endif\n'
USER = '#include "fx.h"\nint fx_user(void) { return fx(); }\n'


def case_host_includes_tb(root):
    write(root, {"tb/unit/fx/fx.h": HEADER,
                 "host/lib/gr_fx.c": '#include "../../tb/unit/fx/fx.h"\nint gr_fx(void) { return fx(); }\n'})
    rc, out = check(root)
    return rc == 1 and "host/lib/gr_fx.c includes tb/unit/fx/fx.h" in out, out


def case_sim_includes_tb(root):
    write(root, {"tb/fx/fx_model.vh": "localparam Fx = 1;\n",
                 "sim/models/fx/fx_model.v": '`include "../../../tb/fx/fx_model.vh"\nmodule fx_model; endmodule\n'})
    rc, out = check(root)
    return rc == 1 and "sim/models/fx/fx_model.v includes tb/fx/fx_model.vh" in out, out


def case_sim_clean(root):
    write(root, {"tb/fx/fx_model.vh": "localparam Fx = 1;\n",
                 "sim/models/fx/fx_model.vh": "localparam Fx = 1;\n",
                 "sim/models/fx/fx_model.v": '`include "fx_model.vh"\nmodule fx_model; endmodule\n',
                 "sim/harness/fx.h": HEADER, "sim/harness/fx.cpp": USER})
    rc, out = check(root)
    return rc == 0, out


def case_bridge_outside_sim_backend(root):
    write(root, {"sim/harness/gr_sim.h": HEADER,
                 "bridge/host/gr_link_fx.c": '#include "gr_sim.h"\nint gr_link_fx(void) { return fx(); }\n'})
    rc, out = check(root)
    return rc == 1 and "bridge/host/gr_link_fx.c includes sim/harness/gr_sim.h: bridge may not " \
                       "depend on sim" in out, out


def case_bridge_sim_backend(root):
    write(root, {"sim/harness/gr_sim.h": HEADER,
                 "bridge/host/gr_link_sim.c": '#include "gr_sim.h"\nint gr_link_fx(void) { return fx(); }\n'})
    rc, out = check(root)
    return rc == 0, out


def case_product_compiled_from_tb(root):
    write(root, {"tb/system/fx.c": "int fx_test(void) { return 1; }\n",
                 "sim/harness/fx.c": "int fx_sim(void) { return 2; }\n"})
    lib = gcc_archive(root, ["sim/harness/fx.c", "tb/system/fx.c"], [])
    rc, out = check(root, "--shipped", lib)
    return rc == 1 and "is built from tb/system/fx.c" in out, out


def case_product_header_from_tb(root):
    # An -I into tb/: no include names tb/, but the object's line table does.
    write(root, {"tb/unit/fx/fx.h": HEADER, "sim/harness/fx.c": USER})
    lib = gcc_archive(root, ["sim/harness/fx.c"], ["-Itb/unit/fx"])
    rc, out = check(root, "--shipped", lib)
    return rc == 1 and "is built from tb/unit/fx" in out, out


def case_product_clean(root):
    write(root, {"sim/harness/fx.h": HEADER, "sim/harness/fx.c": USER})
    lib = gcc_archive(root, ["sim/harness/fx.c"], ["-Isim/harness"])
    rc, out = check(root, "--shipped", lib)
    return rc == 0, out


def case_verilate_cmd_from_tb(root):
    cmd = os.path.join(root, "verilate.cmd")
    write(root, {"verilate.cmd": "verilator --cc -Wall -Irtl/common -Itb/fx --top-module board "
                                 "sim/board/board.v tb/fx/fx_model.v\n"})
    rc, out = check(root, "--shipped", cmd)
    return rc == 1 and "is built from tb/fx/fx_model.v" in out and "is built from tb/fx (" in out, out


def case_verilate_cmd_clean(root):
    cmd = os.path.join(root, "verilate.cmd")
    write(root, {"verilate.cmd": "verilator --cc -Wall -Irtl/common --top-module board "
                                 "sim/board/board.v sim/models/ft601/ft601_model.v\n"})
    rc, out = check(root, "--shipped", cmd)
    return rc == 0, out


def case_missing_product(root):
    rc, out = check(root, "--shipped", os.path.join(root, "no-such-lib.a"))
    return rc == 1 and "no build product" in out, out


CASES = [
    ("a host file including a header of tb/ fails", case_host_includes_tb),
    ("a Verilog model in sim/ including a file of tb/ fails", case_sim_includes_tb),
    ("the same includes within sim/ pass", case_sim_clean),
    ("a bridge file other than the sim:// backend including gr_sim.h fails",
     case_bridge_outside_sim_backend),
    ("the sim:// backend (gr_link_sim) including gr_sim.h passes", case_bridge_sim_backend),
    ("an archive with an object compiled from tb/ fails", case_product_compiled_from_tb),
    ("an object that read a header through -Itb/... fails", case_product_header_from_tb),
    ("an archive built from sim/ alone passes", case_product_clean),
    ("a Verilator command naming a model and an -I of tb/ fails", case_verilate_cmd_from_tb),
    ("a Verilator command of sim/ and rtl/ passes", case_verilate_cmd_clean),
    ("a shipped product that is not there fails", case_missing_product),
]


def main():
    print("1..%d" % len(CASES))
    bad = 0
    for i, (name, case) in enumerate(CASES, 1):
        with tempfile.TemporaryDirectory(prefix="gr-layers-") as root:
            try:
                ok, out = case(root)
            except (OSError, subprocess.CalledProcessError) as e:
                ok, out = False, str(e)
        if not ok:
            bad += 1
            for line in out.splitlines():
                print("# " + line)
        print("%s %d - check_layers: %s" % ("ok" if ok else "not ok", i, name))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
