//! [`Pod`]: the element types a typed [`Buffer`](crate::Buffer) may hold and
//! a typed kernel argument may be.
//!
//! A kernel sees buffer bytes and argument bytes, so a Rust type is usable
//! only when every bit pattern is a valid value and it has no padding: the
//! primitive numbers and arrays of them (OpenCL's vector types, `float4` as
//! `[f32; 4]`).

/// Plain old data: any bit pattern is a valid value, there is no padding,
/// and the layout is the C one.
///
/// # Safety
/// Implement only for types meeting those rules; buffer reads reinterpret
/// kernel-written bytes as `Self`.
pub unsafe trait Pod: Copy + Send + Sync + 'static {
    /// What kind of number this is, for the primitive numbers and arrays of
    /// them (`None`, the default, for other types): a kernel argument of a
    /// known kind must match the parameter's (`Kernel::set_arg` refuses an
    /// `i32` for a `float` parameter, whose sizes agree).
    const NUMBER: Option<Number> = None;
}

/// A number or a vector of numbers, as a kernel parameter holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Number {
    /// Floating point (else an integer of either signedness).
    pub float: bool,
    /// Components (1 for a scalar).
    pub lanes: usize,
}

macro_rules! pod {
    ($float:expr => $($t:ty),*) => {
        $(
            // SAFETY: a primitive number: no padding, every bit pattern valid.
            unsafe impl Pod for $t {
                const NUMBER: Option<Number> = Some(Number { float: $float, lanes: 1 });
            }
        )*
    };
}

pod!(false => u8, i8, u16, i16, u32, i32, u64, i64);
pod!(true => f32, f64);

// SAFETY: an array of `Pod` elements has no padding between elements and
// every bit pattern of each element is valid.
unsafe impl<T: Pod, const N: usize> Pod for [T; N] {
    const NUMBER: Option<Number> = match T::NUMBER {
        Some(Number { float, lanes: 1 }) => Some(Number { float, lanes: N }),
        _ => None,
    };
}

/// The bytes of a slice of `Pod` values.
pub fn as_bytes<T: Pod>(values: &[T]) -> &[u8] {
    // SAFETY: `T: Pod` has no padding, so every byte is initialised; the
    // length is the slice's size in bytes.
    unsafe {
        std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
    }
}

/// The bytes of one `Pod` value.
pub fn value_bytes<T: Pod>(value: &T) -> &[u8] {
    as_bytes(std::slice::from_ref(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_little_endian_layout() {
        assert_eq!(as_bytes(&[1u32, 2]), &[1, 0, 0, 0, 2, 0, 0, 0]);
        assert_eq!(value_bytes(&[1.0f32, 2.0]).len(), 8);
        assert_eq!(value_bytes(&0x0102u16), &[2, 1]);
    }
}
