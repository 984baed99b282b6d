//! An error object being read by a mapper: its fields, kept until it is reported.
//!
//! docs/providers.md: an error's `code` is the object's `code` when it is a non-empty string,
//! else its `type`, else its `status`, else a numeric `code` in decimal; its message is
//! collected in `Out::message`.

use super::out::{Out, Slot};
use crate::emit::decimal;
use crate::event::ErrorSource;

#[derive(Clone, Copy)]
pub(crate) struct ErrorFields {
    /// The depth of the error object's members (0: no error object is being read).
    pub(crate) depth: u32,
    pub(crate) code: Slot,
    pub(crate) ty: Slot,
    pub(crate) status: Slot,
    /// A numeric `code`, in decimal.
    pub(crate) num: Slot,
    /// Reported (once per document).
    pub(crate) seen: bool,
}

impl ErrorFields {
    pub(crate) const NEW: ErrorFields = ErrorFields {
        depth: 0,
        code: Slot::EMPTY,
        ty: Slot::EMPTY,
        status: Slot::EMPTY,
        num: Slot::EMPTY,
        seen: false,
    };

    /// An error object's members start at `depth`: the fields and message start empty.
    pub(crate) fn start(&mut self, depth: u32, out: &mut Out) {
        self.depth = depth;
        self.code.clear();
        self.ty.clear();
        self.status.clear();
        self.num.clear();
        out.message.clear();
    }

    /// A numeric `code`.
    pub(crate) fn number(&mut self, n: u64) {
        let mut digits = [0u8; 20];
        self.num.set(decimal(n, &mut digits));
    }

    /// Reports the error (once: later calls until `seen` is cleared do nothing).
    pub(crate) fn report(&mut self, out: &mut Out) {
        if self.seen {
            return;
        }
        self.seen = true;
        let code = [&self.code, &self.ty, &self.status, &self.num]
            .into_iter()
            .find(|c| !c.is_empty())
            .map(Slot::bytes);
        out.error_held(ErrorSource::Provider, code);
    }
}
