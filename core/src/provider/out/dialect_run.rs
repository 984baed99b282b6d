//! The open "block" that is a run of the text dialect (docs/providers.md, "Text dialect"): its
//! end is a `FlushText` marker in the queue: the decoder drains the dialect when the marker
//! reaches the front, so the dialect's blocks draw their indices (`take_index`) before the
//! blocks queued behind the marker draw theirs (when their starts are handed out).

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

    /// A `FlushText` is queued (its run is not drained yet).
    pub(crate) fn flush_queued(&self) -> bool {
        self.queue.iter().any(|p| matches!(p, Pending::FlushText))
    }

    /// The next queued event is the end of the text dialect's run.
    pub(crate) fn flush_next(&self) -> bool {
        matches!(self.queue.front(), Some(Pending::FlushText))
    }

    /// Takes the `FlushText` marker; the decoder drains the dialect before what follows.
    pub(crate) fn take_flush(&mut self) {
        if self.flush_next() {
            self.queue.pop_front();
        }
    }
}
