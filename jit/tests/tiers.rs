//! The two JIT tiers: the optimised code replaces the quick code of a
//! kernel, barrier regions and module-scope data included (the layout the
//! runtime sizes launches from must agree between the two, or the quick
//! code would stay).

mod common;

use common::versus_interp::{build, try_compile};
use vecl_jit::FinalCode;

#[test]
fn optimised_code_replaces_the_quick_code() {
    if std::env::var_os("VECL_JIT_TIERS").is_some() {
        // One tier only was asked for.
        return;
    }
    let src = "constant int bias[4] = {1, 2, 3, 4};
    kernel void reduce(global const int* in, global int* out, local int* t) {
        size_t l = get_local_id(0);
        t[l] = in[get_global_id(0)] + bias[l & 3];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
            if (l < s) t[l] += t[l + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (l == 0) out[get_group_id(0)] = t[0];
    }";
    let m = build(src, "");
    for w in [4, 8, 16] {
        let k = match try_compile(&m, "reduce", w) {
            Ok(k) => k,
            Err(e) => panic!("W = {w}: {e}"),
        };
        assert!(
            matches!(k.wait_for_final_code(), FinalCode::Optimised(_)),
            "W = {w}: {:?}",
            k.final_code()
        );
        assert!(k.explain().contains("quick tier"), "{}", k.explain());
    }
}
