//! One Python class per kind of event, each a final subclass of [`Event`].

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::{Event, Kind};

/// One class per kind of event, each a final subclass of [`Event`] with no fields of its
/// own: `isinstance(ev, ChunkEvent)` and `case ChunkEvent(text=t)` narrow the type (the
/// stubs give each its non-optional attributes), while `Event` stays the one class to
/// annotate and to match on by kind. Only these are ever made, so every event object is a
/// final class without a `__dict__` (see `untrack`).
macro_rules! event_kinds {
    ($($(#[$doc:meta])* $class:ident = $name:literal, $kind:ident, ($($arg:literal),*);)*) => {
        $(
            $(#[$doc])*
            #[pyclass(frozen, extends = Event, freelist = 256, module = "tokensieve", name = $name)]
            pub struct $class {}

            #[pymethods]
            impl $class {
                /// The positional patterns of `case <Class>(…)`.
                #[classattr]
                fn __match_args__(py: Python<'_>) -> PyResult<Py<PyTuple>> {
                    Ok(PyTuple::new(py, [$($arg),*])?.unbind())
                }
            }
        )*

        /// A Python object of the kind's class holding `event`.
        pub(super) fn make_object(py: Python<'_>, event: Event) -> PyResult<Py<PyAny>> {
            Ok(match event.kind {
                $(Kind::$kind => Py::new(py, PyClassInitializer::from(event).add_subclass($class {}))?.into_any(),)*
            })
        }

        /// Registers the per-kind classes in the module.
        pub(crate) fn add_kinds(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(m.add_class::<$class>()?;)*
            Ok(())
        }

        /// The class name of a kind (the repr).
        pub(super) fn class_name(kind: Kind) -> &'static str {
            match kind {
                $(Kind::$kind => $name,)*
            }
        }
    };
}

event_kinds! {
    /// `block_start`.
    BlockStartEvent = "BlockStartEvent", BlockStart, ("type", "index");
    /// `chunk`.
    ChunkEvent = "ChunkEvent", Chunk, ("text", "type");
    /// `block_complete`.
    BlockCompleteEvent = "BlockCompleteEvent", BlockComplete, ("type", "index");
    /// `stop`.
    StopEvent = "StopEvent", Stop, ("sequence");
    /// `finish` (provider streams).
    FinishEvent = "FinishEvent", Finish, ("reason");
    /// `error` (provider streams).
    ErrorEvent = "ErrorEvent", Error, ("code", "message");
}
