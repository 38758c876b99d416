//! Samplers: `clCreateSampler`, `clCreateSamplerWithProperties`,
//! retain/release, `clGetSamplerInfo`.
//!
//! A sampler is the runtime's `Sampler` (normalised coordinates, addressing
//! and filter modes) and its context; a kernel's `sampler_t` argument
//! receives its `SAMPLER_*` bits as a 4-byte value.

use std::ffi::c_void;
use std::sync::Arc;

use opencl_sys::*;
use vecl::runtime::Sampler as RawSampler;

use crate::context::Context;
use crate::device_caps::IMAGE_SUPPORT;
use crate::entry::{api, api_create, property_list};
use crate::handle::{cl_type, ClType, Object};
use crate::info::{query, Info};
use crate::ClResult;

/// A sampler object.
pub struct Sampler {
    pub context: Arc<Object<Context>>,
    pub raw: RawSampler,
    /// The property list as given, with its terminating 0 (empty for
    /// `clCreateSampler` and a null list).
    properties: Vec<cl_sampler_properties>,
}

cl_type!(Sampler, CL_INVALID_SAMPLER);

fn create_sampler(
    context: cl_context,
    normalized_coords: cl_bool,
    addressing_mode: cl_addressing_mode,
    filter_mode: cl_filter_mode,
    properties: Vec<cl_sampler_properties>,
) -> ClResult<cl_sampler> {
    let context = Context::get(context)?;
    // "CL_INVALID_OPERATION if images are not supported by any device
    // associated with context."
    if !IMAGE_SUPPORT {
        return Err(CL_INVALID_OPERATION);
    }
    if normalized_coords != CL_FALSE && normalized_coords != CL_TRUE {
        return Err(CL_INVALID_VALUE);
    }
    let raw = RawSampler::new(normalized_coords == CL_TRUE, addressing_mode, filter_mode)
        .map_err(|e| e.cl_code())?;
    let sampler = Sampler::register(Sampler {
        context,
        raw,
        properties,
    })?;
    Ok(sampler.handle())
}

/// `clCreateSampler`.
pub unsafe extern "C" fn clCreateSampler(
    context: cl_context,
    normalized_coords: cl_bool,
    addressing_mode: cl_addressing_mode,
    filter_mode: cl_filter_mode,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    let body = || {
        create_sampler(
            context,
            normalized_coords,
            addressing_mode,
            filter_mode,
            Vec::new(),
        )
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// `clCreateSamplerWithProperties`: "CL_INVALID_VALUE if the property name
/// in sampler_properties is not a supported property name, if the value
/// specified for a supported property name is not valid, or if the same
/// property name is specified more than once." Unnamed properties take
/// their defaults: normalised coordinates, `CL_ADDRESS_CLAMP`,
/// `CL_FILTER_NEAREST`.
pub unsafe extern "C" fn clCreateSamplerWithProperties(
    context: cl_context,
    sampler_properties: *const cl_sampler_properties,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    let body = || {
        Context::get(context)?;
        // SAFETY: null or a zero-terminated list, per the API contract.
        let pairs = unsafe { property_list(sampler_properties) };
        let mut stored = Vec::new();
        let (mut normalized, mut addressing, mut filter) =
            (None, None::<cl_addressing_mode>, None::<cl_filter_mode>);
        for &(name, value) in pairs.iter().flatten() {
            let fresh = match cl_sampler_info::try_from(name).unwrap_or(0) {
                CL_SAMPLER_NORMALIZED_COORDS => normalized.replace(value as cl_bool).is_none(),
                CL_SAMPLER_ADDRESSING_MODE => addressing
                    .replace(cl_addressing_mode::try_from(value).map_err(|_| CL_INVALID_VALUE)?)
                    .is_none(),
                CL_SAMPLER_FILTER_MODE => filter
                    .replace(cl_filter_mode::try_from(value).map_err(|_| CL_INVALID_VALUE)?)
                    .is_none(),
                _ => false,
            };
            if !fresh {
                return Err(CL_INVALID_VALUE);
            }
            stored.extend([name, value]);
        }
        if pairs.is_some() {
            stored.push(0);
        }
        create_sampler(
            context,
            normalized.unwrap_or(CL_TRUE),
            addressing.unwrap_or(CL_ADDRESS_CLAMP),
            filter.unwrap_or(CL_FILTER_NEAREST),
            stored,
        )
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// `clRetainSampler`.
pub extern "C" fn clRetainSampler(sampler: cl_sampler) -> cl_int {
    api(|| Sampler::retain(sampler))
}

/// `clReleaseSampler`.
pub extern "C" fn clReleaseSampler(sampler: cl_sampler) -> cl_int {
    api(|| Sampler::release(sampler).map(drop))
}

/// `clGetSamplerInfo`.
pub unsafe extern "C" fn clGetSamplerInfo(
    sampler: cl_sampler,
    param_name: cl_sampler_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let body = || {
        let sampler = Sampler::get(sampler)?;
        let raw = sampler.raw;
        Ok(match param_name {
            CL_SAMPLER_REFERENCE_COUNT => Info::value(sampler.ref_count()),
            CL_SAMPLER_CONTEXT => Info::value(sampler.context.handle()),
            CL_SAMPLER_NORMALIZED_COORDS => Info::bool(raw.normalized_coords),
            CL_SAMPLER_ADDRESSING_MODE => Info::value(raw.addressing_mode),
            CL_SAMPLER_FILTER_MODE => Info::value(raw.filter_mode),
            CL_SAMPLER_PROPERTIES => Info::array(&sampler.properties),
            _ => return Err(CL_INVALID_VALUE),
        })
    };
    // SAFETY: the query protocol's pointers, per the API contract.
    unsafe { query(param_value_size, param_value, param_value_size_ret, body) }
}
