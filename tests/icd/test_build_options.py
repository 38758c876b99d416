"""Build options through the driver, taken as clang takes them.

`-D` defines function-like macros with `#` and `##` in their value, the
option string splits like a shell command line, the options of the
specification's lists are accepted, and unknown `-f…`/`-W…` options are
warnings in the build log while other unknown options are
CL_INVALID_BUILD_OPTIONS.
"""

import numpy as np
import pyopencl as cl
import pytest

from conftest import build

PASTE_AND_STRINGIZE = """
constant char name[] = S(vecl);
kernel void k(global int *out) {
    int i = get_global_id(0);
    int ab = 100 + i;
    out[i] = F(a, b) * 10 + name[i % 4] - 'a';
}
"""


def raw_program(ctx, source, options):
    """Builds with `options` exactly as given (PyOpenCL's `Program.build`
    splits and rejoins an option string, dropping its quotes)."""
    program = cl._cl._Program(ctx, source)
    program.build(options.encode())
    return program


def run_k(ctx, queue, program, n, global_size):
    """Runs `k(global int *out)` and returns `out[0..n]`."""
    out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, n * 4)
    kernel = cl.Kernel(program, "k")
    kernel.set_args(out)
    cl.enqueue_nd_range_kernel(queue, kernel, (global_size,), None)
    got = np.empty(n, np.int32)
    cl.enqueue_copy(queue, got, out)
    return got


def log_of(program, device):
    return program.get_build_info(device, cl.program_build_info.LOG)


def test_function_like_defines_paste_and_stringize(ctx, queue, compiler):
    program = build(ctx, PASTE_AND_STRINGIZE, options="-DF(a,b)=a##b -DS(x)=#x")
    got = run_k(ctx, queue, program, 8, 8)
    letters = np.frombuffer(b"vecl", np.uint8).astype(np.int32) - ord("a")
    expected = (100 + np.arange(8)) * 10 + np.tile(letters, 2)
    np.testing.assert_array_equal(got, expected)


def test_quoted_values_and_undefine(ctx, queue, device, compiler):
    source = """
    kernel void k(global int *out) {
        out[0] = SPACED;
        out[1] = sizeof(MSG);
    #ifdef GONE
        out[2] = 1;
    #else
        out[2] = 2;
    #endif
    }
    """
    program = raw_program(
        ctx, source, """-D"SPACED=3 + 4" -D 'MSG="a b"' -DGONE -UGONE -x cl -g -cl-kernel-arg-info"""
    )
    np.testing.assert_array_equal(run_k(ctx, queue, program, 3, 1), [7, 4, 2])


def test_spec_options_are_accepted(ctx, compiler):
    source = "kernel void k(global int *a) { a[0] = 1; }"
    for options in [
        "-cl-std=CL1.0",
        "-cl-std=CL1.1",
        "-cl-std=CL2.0 -cl-uniform-work-group-size",
        "-cl-std=CL3.0 -cl-no-subgroup-ifp",
        "-cl-opt-disable -w -Werror -I /tmp -I/tmp",
        "-cl-fp32-correctly-rounded-divide-sqrt -cl-denorms-are-zero",
    ]:
        raw_program(ctx, source, options)


def test_unknown_options_clang_warns_about_are_log_warnings(ctx, device, compiler):
    source = "kernel void k(global int *a) { a[0] = 1; }"
    program = raw_program(ctx, source, "-DX -ffast-math -Wshadow")
    log = log_of(program, device)
    assert "<command line>:1:5: warning: argument unused during compilation: '-ffast-math'" in log
    assert "<command line>:1:17: warning: unknown warning option '-Wshadow'" in log


@pytest.mark.parametrize("options", ["-cl-no-such-option", "-cl-std=CL9.9", "-D", "-D=1", "-bogus"])
def test_invalid_options_are_invalid_build_options(ctx, compiler, options):
    with pytest.raises(cl.RuntimeError) as error:
        raw_program(ctx, "kernel void k(global int *a) { a[0] = 1; }", options)
    assert error.value.code == cl.status_code.INVALID_BUILD_OPTIONS


def test_link_options_make_a_library_then_an_executable(ctx, queue, device, compiler):
    # Each object keeps its own -D through the link.
    first = cl._cl._Program(ctx, "int first(void) { return N; }")
    first.compile(b"-DN=5")
    second = cl._cl._Program(
        ctx,
        """int first(void);
        kernel void k(global int *out) {
        #ifdef N
            out[0] = -1;
        #else
            out[0] = first() * M;
        #endif
        }""",
    )
    second.compile(b"-D M=3")
    library = cl._cl._Program.link(ctx, [first, second], b"-create-library -enable-link-options")
    binary_type = library.get_build_info(device, cl.program_build_info.BINARY_TYPE)
    assert binary_type == cl.program_binary_type.LIBRARY
    executable = cl._cl._Program.link(ctx, [library], b"-cl-denorms-are-zero -cl-no-signed-zeroes")
    assert run_k(ctx, queue, executable, 1, 1)[0] == 15
