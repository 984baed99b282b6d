//! The open "block" that is a run of the text dialect (docs/providers.md, "Text dialect"): its
//! end is a `FlushText` marker in the queue, and blocks started behind it are numbered when
//! the dialect has been drained (`settle`).

use super::*;

impl Out<'_> {
    /// Is this choice's text running through the text dialect now?
    pub(crate) fn is_routed(&self, choice: u32) -> bool {
        matches!(self.open, Some(o) if o.routed && o.choice == choice)
    }

    /// The choice's text runs through the text dialect from here (completing the open block).
    pub(crate) fn open_routed(&mut self, choice: u32) {
        self.close();
        self.admit(choice);
        self.open = Some(OpenBlock {
            index: 0,
            ty: BlockType::Text,
            choice,
            refusal: false,
            server: false,
            compaction: false,
            call: 0,
            routed: true,
        });
    }

    /// A block of the text dialect starts: its index, in the order blocks start.
    pub(crate) fn take_index(&mut self, choice: u32) -> u32 {
        self.admit(choice);
        if let Some(s) = self.slot_of(choice) {
            self.choices[s].error_last = false;
        }
        let i = self.next_index;
        self.next_index += 1;
        i
    }

    /// A `FlushText` is queued (and its run not yet drained).
    pub(crate) fn flush_queued(&self) -> bool {
        self.deferring
    }

    /// The next queued event is the end of the text dialect's run.
    pub(crate) fn flush_next(&self) -> bool {
        matches!(self.queue.front(), Some(Pending::FlushText))
    }

    /// Takes the `FlushText` marker; the decoder drains the dialect, then calls `settle`.
    pub(crate) fn take_flush(&mut self) {
        if self.flush_next() {
            self.queue.pop_front();
        }
    }

    /// The dialect is drained: blocks started behind the marker get their indices now,
    /// after the dialect's last ones (indices follow the order blocks start). Blocks behind a
    /// later `FlushText` still queued wait for that run's end.
    pub(crate) fn settle(&mut self) {
        if !self.deferring {
            return;
        }
        // Blocks started before the next queued `FlushText`: the first `now` deferred ones.
        let mut now = 0;
        let mut more = false;
        for p in self.queue.iter() {
            match p {
                Pending::FlushText => {
                    more = true;
                    break;
                }
                Pending::Start { index, .. } if *index >= DEFERRED => now += 1,
                _ => {}
            }
        }
        if !more {
            now = self.deferred;
        }
        let base = self.next_index;
        let fix = |i: &mut u32| {
            if *i >= DEFERRED {
                let k = *i - DEFERRED;
                *i = if k < now {
                    base + k
                } else {
                    DEFERRED + (k - now)
                };
            }
        };
        for p in self.queue.iter_mut() {
            match p {
                Pending::Start { index, .. } => fix(index),
                Pending::Chunk { block, .. } => fix(&mut block.index),
                Pending::Complete { open, .. } => fix(&mut open.index),
                _ => {}
            }
        }
        if let Some(b) = &mut self.acc_block {
            fix(&mut b.index);
        }
        if let Some(o) = &mut self.open {
            fix(&mut o.index);
        }
        if let Some(i) = &mut self.sig_block {
            fix(i);
        }
        self.next_index = base + now;
        self.deferred = self.deferred.saturating_sub(now);
        self.deferring = more;
    }
}
