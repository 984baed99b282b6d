//! What `feed` and `prefill` accept: a `str` (fed as its UTF-8), `bytes`, or any object
//! with the buffer protocol (`bytearray`, `memoryview`, `array('B')`, `mmap`, …).

use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// The bytes of `data`. `str` and `bytes` are immutable and read in place; other buffers
/// are copied into `scratch` first, because Python code (another thread while the GIL is
/// released, or a finalizer run by an allocation) could write to them while they are parsed.
pub(crate) fn bytes_of<'a>(
    py: Python<'_>,
    what: &str,
    data: &'a Bound<'_, PyAny>,
    scratch: &'a mut Vec<u8>,
) -> PyResult<&'a [u8]> {
    if let Ok(s) = data.cast::<PyString>() {
        // A str with lone surrogates has no UTF-8: UnicodeEncodeError (a ValueError).
        return Ok(s.to_str()?.as_bytes());
    }
    if let Ok(b) = data.cast::<PyBytes>() {
        return Ok(b.as_bytes());
    }
    let type_error = || {
        let name = data
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "?".into());
        crate::errors::argument(format!(
            "{what}() takes str or a bytes-like object (bytes, bytearray, memoryview), not {name}"
        ))
    };
    let buf = PyBuffer::<u8>::get(data).map_err(|_| type_error())?;
    scratch.clear();
    scratch.resize(buf.len_bytes(), 0);
    buf.copy_to_slice(py, scratch)?;
    drop(buf);
    Ok(scratch)
}
