//! Statements after a loop whose lanes all leave it: the lowering tests
//! whether any lane still runs after a statement that may have ended some
//! (a `break` or `continue` of the enclosing loop, a `return`) and skips
//! the rest of the block when none does. A loop's own `break`s end its
//! trips, not the lanes' run after it, so a loop is such a statement only
//! when it holds a `return`. Testing after every loop with a `break` also
//! left the values computed after the test (the skipped stretch) in use
//! past the skip's join: a barrier kernel's group-level statements after
//! a loop then gave Cranelift a value used where its definition does not
//! dominate, and the optimised tier failed to compile (a kernel found by
//! `vecl fuzz`, seed 770102, as the fuzzer reduced it).

use vecl_ir::interp::NdRange;
use vecl_jit::{compile_kernel, JitOptions, Tiers};
use vecl_testkit::{build, compare_launches, Spec};

const FUZZ_770102: &str = r#"
uint mix(uint h, uint v) { h = (h ^ v) * 0x01000193u; return h ^ (h >> 15); }
uint mix64(uint h, ulong v) { return mix(mix(h, (uint)v), (uint)(v >> 32)); }
struct S0 {
    int4 f0;
    long f1;
};
struct S1 {
    short f0[4];
    long4 f1;
    ushort f2;
    int4 f3;
};
union U0 {
    uchar16 m0;
    long2 m1;
    uchar16 m2;
    int4 m3;
};
ushort pf0(global const uint *src, uchar8 arg0, short arg1)
{
    uint h = 0x12345u;
    uint d1 = 0u;
    do {
        d1++;
    } while (d1 < ((h) & 3u) + 1u);
    uchar2 v2 = select(((uchar2)((uchar)0x7fu, (uchar)0x1u) & (uchar2)((uchar)(src[47]))), (~(uchar2)((uchar)(src[14]))), clamp((char2)((char)0x0u, (char)0x7fu), min((char2)((char)0x7fu, (char)0xffu), (char2)((char)0xffu, (char)0x7fu)), max((char2)((char)0x7fu, (char)0xffu), (char2)((char)0xffu, (char)0x7fu))));
    h = mix(h, (uint)arg1); h = mix(h, (uint)d1); h = mix(h, (uint)(v2).s0); h = mix(h, (uint)(v2).s1);
    return (ushort)(ushort)h ^ ((ushort)(((ushort)((uint)((ushort)(src[3])) + (uint)(((ushort)(((ushort)(((uint)(src[42]) % (h | 1u)))))))))));
}
kernel void fuzz(global uint *out, global const uint *in, global uint *gatom)
{
    const uint gid = (uint)get_global_id(0);
    const uint gid1 = (uint)get_global_id(1);
    const uint lid = (uint)(get_local_id(1) * get_local_size(0) + get_local_id(0));
    const uint lsz = (uint)(get_local_size(0) * get_local_size(1));
    const uint grp = (uint)get_group_id(0);
    const uint idx = (uint)((get_global_id(1) - get_global_offset(1)) * get_global_size(0) + (get_global_id(0) - get_global_offset(0)));
    local ulong2 lbx[64];
    uint h = 0x811c9dc5u ^ idx;
    uchar a3[4] = { ((uchar)(((uchar)((uint)((uchar)0x1u) - (uint)((uchar)(lid)))))), ((uchar)(((0xffffffffffffffffUL) ? (uchar)(in[61]) : (uchar)0xffu))), ((uchar)(convert_uchar_sat_rtz((convert_float(gid & 0x7ffu) * 0.5f - 512.0f)))), (uchar)0x1u };
    uint d4 = 0u;
    for (uint b6 = 0u; b6 < 1u; b6++) {
        lbx[lid] = select(((ulong2)(0x0UL, 0x9UL) & (ulong2)((ulong)(in[(gid + 59u) & 63u]))), upsample((uint2)((uint)(grp)), (uint2)((uint)(in[46]))), convert_ulong2(vload2((gid1 & 31u), in))); barrier(CLK_LOCAL_MEM_FENCE); h = mix64(h, (ulong)(lbx[(lid + 33u) % lsz]).s0); h = mix64(h, (ulong)(lbx[(lid + 33u) % lsz]).s1); barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (((ushort)(pf0(in, ((uchar8)((uchar)0x7fu) % ((uchar8)((uchar)(in[(gid + 27u) & 63u])) | (uchar8)(1))), (short)0x25a4u))) > ((ushort)((((ushort16)((ushort)0x1u) | (ushort16)((ushort)(grp)))).s5))) {
    }
    if (((ushort)(select(((ushort)(upsample(((uchar)(((uchar)((uint)(a3[(d4 & 3u)]) >> (lsz & 31u))))), ((uchar)(convert_uchar((short)0x72adu)))))), ((ushort)(pf0(in, (uchar8)((uchar)(in[(lid + 50u) & 63u])), (short)(in[(lid + 48u) & 63u])))), ((short)(((short)(!(uchar)(idx)))))))) >= ((ushort)((((ushort)(((ushort)0xffffu ^ (ushort)(grp)))) & ((ushort)(((ushort)(idx) ^ (ushort)(in[46])))))))) {
    }
}
"#;

fn range(global: [u64; 2], local: [u64; 2]) -> NdRange {
    NdRange {
        work_dim: 2,
        global_offset: [0; 3],
        global_size: [global[0], global[1], 1],
        local_size: [local[0], local[1], 1],
    }
}

#[test]
fn group_level_statements_after_a_loop_with_a_break_compile_at_every_width_and_tier() {
    let m = build(FUZZ_770102, "");
    let ranges = [range([32, 4], [16, 4]), range([16, 4], [8, 2])];
    for tiers in [Tiers::QuickOnly, Tiers::OptimisedOnly] {
        for w in [4, 8, 16, 32] {
            let opts = JitOptions {
                simd_width: Some(w),
                tiers,
                wide: false,
                ..JitOptions::default()
            };
            let k = compile_kernel(&m, "fuzz", &opts)
                .unwrap_or_else(|e| panic!("W = {w}, {tiers:?}: {e}"));
            compare_launches(&m, "fuzz", &k, &ranges, |_| {
                vec![Spec::Ints(64, 1), Spec::Ints(64, 2), Spec::Ints(64, 0)]
            });
        }
    }
}
