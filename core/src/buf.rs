//! Bounded byte buffers: caller-provided memory, or (with `alloc`) a heap vector with a limit.
//!
//! Some decisions need the whole of something (an untyped value, a failed call's raw text).
//! Those bytes live here; nothing else on the feed path is buffered. Pushing past the limit
//! stores what fits and reports the overflow, so the caller degrades instead of failing.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

enum Store<'m> {
    Slice(&'m mut [u8]),
    #[cfg(feature = "alloc")]
    Heap(Vec<u8>),
}

pub(crate) struct Buf<'m> {
    store: Store<'m>,
    len: usize,
    limit: usize,
}

impl<'m> Buf<'m> {
    pub(crate) fn slice(mem: &'m mut [u8]) -> Buf<'m> {
        let limit = mem.len();
        Buf {
            store: Store::Slice(mem),
            len: 0,
            limit,
        }
    }

    #[cfg(feature = "alloc")]
    pub(crate) fn heap(limit: usize) -> Buf<'m> {
        Buf {
            store: Store::Heap(Vec::new()),
            len: 0,
            limit,
        }
    }

    pub(crate) fn is_heap(&self) -> bool {
        !matches!(self.store, Store::Slice(_))
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn clear(&mut self) {
        self.len = 0;
        #[cfg(feature = "alloc")]
        if let Store::Heap(v) = &mut self.store {
            v.clear();
        }
    }

    pub(crate) fn truncate(&mut self, n: usize) {
        if n < self.len {
            self.len = n;
            #[cfg(feature = "alloc")]
            if let Store::Heap(v) = &mut self.store {
                v.truncate(n);
            }
        }
    }

    /// Appends what fits; returns false when some bytes did not fit.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> bool {
        let room = self.limit - self.len;
        let n = bytes.len().min(room);
        match &mut self.store {
            Store::Slice(s) => s[self.len..self.len + n].copy_from_slice(&bytes[..n]),
            #[cfg(feature = "alloc")]
            Store::Heap(v) => v.extend_from_slice(&bytes[..n]),
        }
        self.len += n;
        n == bytes.len()
    }

    /// Writes `bytes` at `offset` (zero-filling any gap); returns false if it does not fit.
    pub(crate) fn write_at(&mut self, offset: usize, bytes: &[u8]) -> bool {
        let end = offset + bytes.len();
        if end > self.limit {
            return false;
        }
        match &mut self.store {
            Store::Slice(s) => {
                if offset > self.len {
                    s[self.len..offset].fill(0);
                }
                s[offset..end].copy_from_slice(bytes);
            }
            #[cfg(feature = "alloc")]
            Store::Heap(v) => {
                if v.len() < end {
                    v.resize(end, 0);
                }
                v[offset..end].copy_from_slice(bytes);
            }
        }
        self.len = self.len.max(end);
        true
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        match &self.store {
            Store::Slice(s) => &s[..self.len],
            #[cfg(feature = "alloc")]
            Store::Heap(v) => v,
        }
    }
}
