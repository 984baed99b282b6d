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
    len: u32,
    limit: u32,
}

impl<'m> Buf<'m> {
    pub(crate) fn slice(mem: &'m mut [u8]) -> Buf<'m> {
        // Lengths are u32: a parser buffer never needs 4 GiB.
        let n = mem.len().min(u32::MAX as usize);
        Buf {
            store: Store::Slice(&mut mem[..n]),
            len: 0,
            limit: n as u32,
        }
    }

    #[cfg(feature = "alloc")]
    pub(crate) fn heap(limit: usize) -> Buf<'m> {
        Buf {
            store: Store::Heap(Vec::new()),
            len: 0,
            limit: limit.min(u32::MAX as usize) as u32,
        }
    }

    /// How many bytes it may hold.
    pub(crate) fn limit(&self) -> usize {
        self.limit as usize
    }

    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    pub(crate) fn clear(&mut self) {
        self.len = 0;
        #[cfg(feature = "alloc")]
        if let Store::Heap(v) = &mut self.store {
            v.clear();
        }
    }

    pub(crate) fn truncate(&mut self, n: usize) {
        if n < self.len() {
            self.len = n as u32;
            #[cfg(feature = "alloc")]
            if let Store::Heap(v) = &mut self.store {
                v.truncate(n);
            }
        }
    }

    /// Appends what fits; returns false when some bytes did not fit.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> bool {
        let len = self.len();
        let n = bytes.len().min(self.limit as usize - len);
        match &mut self.store {
            Store::Slice(s) => s[len..len + n].copy_from_slice(&bytes[..n]),
            #[cfg(feature = "alloc")]
            Store::Heap(v) => v.extend_from_slice(&bytes[..n]),
        }
        self.len += n as u32;
        n == bytes.len()
    }

    /// Writes `bytes` at `offset` (zero-filling any gap); returns false if it does not fit.
    pub(crate) fn write_at(&mut self, offset: usize, bytes: &[u8]) -> bool {
        let end = offset + bytes.len();
        if end > self.limit as usize {
            return false;
        }
        let len = self.len();
        match &mut self.store {
            Store::Slice(s) => {
                if offset > len {
                    s[len..offset].fill(0);
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
        self.len = self.len.max(end as u32);
        true
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        match &self.store {
            Store::Slice(s) => &s[..self.len()],
            #[cfg(feature = "alloc")]
            Store::Heap(v) => v,
        }
    }
}
