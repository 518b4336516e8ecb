"""Loads the bochscpu wheel (0.4.0) and selects the emulated CPU model.

Two things must happen before `import bochscpu` is usable here:

* glibc: the wheel references C23-renamed glibc symbols (`__isoc23_strtoull`, ...) that
  glibc < 2.38 lacks. `shim.c` forwards them; it is compiled once with the system C
  compiler into EMU_BUILD_DIR (default: next to this file's venv, or /tmp) and loaded with
  RTLD_GLOBAL so the wheel's extension module resolves against it.
* CPU model: the wheel's own model table is shifted by two against Bochs 3.0's `cpudb`
  list, so its default "tigerlake" really is Cannon Lake, which has AVX-512 F/BW/VL but
  neither VAES nor VPCLMULQDQ. `select_model` writes Bochs's `cpu.model` enum parameter
  directly, by its index in the real list. It must run before the (only) Session exists.
"""
import ctypes
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD_DIR = os.environ.get("EMU_BUILD_DIR") or os.path.join(sys.prefix, "emu-build")


def _load_glibc_shim():
    os.makedirs(BUILD_DIR, exist_ok=True)
    so = os.path.join(BUILD_DIR, "libisoc23shim.so")
    src = os.path.join(HERE, "shim.c")
    if not os.path.exists(so) or os.path.getmtime(so) < os.path.getmtime(src):
        compilers = [c for c in (os.environ.get("CC"), "cc", "gcc", "clang") if c]
        cc = next((c for c in compilers if shutil.which(c)), None)
        if cc is None:
            raise RuntimeError(f"no C compiler found (tried {', '.join(compilers)}); "
                               "the glibc shim for the bochscpu wheel needs one")
        subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", so, src], check=True)
    ctypes.CDLL(so, mode=ctypes.RTLD_GLOBAL)


_load_glibc_shim()
import bochscpu  # noqa: E402  (needs the shim first)

# Bochs 3.0 cpudb.h, in enum order: the index is what `cpu.model` takes.
BOCHS_MODELS = [
    "bx_generic", "i486dx4", "pentium", "pentium_mxx", "amd_k6_2_chomper", "athlon_xp",
    "p2_klamath", "p3_katmai", "p4_willamette", "core_duo_t2500_yonah", "atom_n270",
    "p4_prescott_celeron_336", "athlon64_clawhammer", "athlon64_venice", "turion64_tyler",
    "phenom_8650_toliman", "core2_penryn_t9600", "corei5_lynnfield_750",
    "corei5_arrandale_m520", "corei7_sandy_bridge_2600k", "zambezi", "trinity_apu", "ryzen",
    "corei7_ivy_bridge_3770k", "corei7_haswell_4770", "broadwell_ult", "corei7_skylake_x",
    "corei3_cnl", "corei7_icelake_u", "tigerlake", "sapphire_rapids", "arrow_lake",
]

_lib = ctypes.CDLL(bochscpu._bochscpu.__file__)


def select_model(name):
    """Sets Bochs's `cpu.model`; returns (index before, index after)."""
    want = BOCHS_MODELS.index(name)
    _lib.sim_get_param_enum.restype = ctypes.c_void_p
    _lib.sim_get_param_enum.argtypes = [ctypes.c_char_p]
    param = _lib.sim_get_param_enum(b"cpu.model")
    if not param:
        raise RuntimeError("bochscpu: no cpu.model parameter")
    get = getattr(_lib, "_ZN14bx_param_num_c3getEv")
    get.restype, get.argtypes = ctypes.c_int32, [ctypes.c_void_p]
    set_range = getattr(_lib, "_ZN14bx_param_num_c9set_rangeEmm")
    set_range.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64]
    set_value = getattr(_lib, "_ZN15bx_param_enum_c3setEl")
    set_value.argtypes = [ctypes.c_void_p, ctypes.c_int64]
    before = get(param)
    set_range(param, 0, len(BOCHS_MODELS) - 1)
    set_value(param, want)
    after = get(param)
    if after != want:
        raise RuntimeError(f"bochscpu: cpu.model is {after}, wanted {want} ({name})")
    return before, after
