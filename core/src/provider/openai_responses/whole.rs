//! A call's arguments written whole (docs/providers.md, "Readings the vectors pin",
//! "Responses calls"): deltas win; a call without deltas takes its arguments from the first
//! place that carries them — its `output_item.added` item, else the `*_arguments.done` /
//! `custom_tool_call_input.done` event, else its `output_item.done` item. `Call::fed` says a
//! place was taken; nothing after it is read (a snapshot). The dispatch (`mod.rs`) hands
//! these places here.

use super::super::Sink;
use super::super::out::Out;
use super::wire::{CUSTOM_CLOSE, Kind};
use super::{Ev, OpenAiResponses, What};

impl OpenAiResponses {
    /// The whole arguments of a `*.done` event (`arguments` / `input`): the call's content
    /// when no delta fed it (a server that writes them whole), else a snapshot.
    pub(super) fn done_args(&mut self, custom: bool, out: &Out) -> Sink {
        let pos = self.call_at(self.at);
        if !self.is_open_call(pos, out) {
            // No call, or another block opened since: a snapshot.
            return Sink::Skip;
        }
        match pos.and_then(|i| self.calls.get_mut(i)) {
            Some(c) if !c.fed && c.custom == custom => {
                c.fed = true;
                if custom { Sink::ArgsString } else { Sink::Args }
            }
            _ => Sink::Skip,
        }
    }

    /// A streamed item's `arguments` / `input` (`output_item.added` or `.done`): content
    /// when the call had none yet (docs/providers.md: deltas win; a call without deltas
    /// takes the item's arguments). The added item's, and a done item whose call was never
    /// added, are held until the item's name and id are read (`item_close`); a done item's
    /// for its open call streams into it.
    pub(super) fn item_args(&mut self, out: &mut Out) -> What {
        let (.., custom) = self.item_call();
        if self.ev == Ev::ItemDone {
            let pos = self.call_at(self.at);
            match pos.and_then(|i| self.calls.get(i)) {
                Some(c) if c.fed => return What::None,
                Some(c) if c.custom == custom && self.is_open_call(pos, out) => {
                    if let Some(c) = pos.and_then(|i| self.calls.get_mut(i)) {
                        c.fed = true;
                    }
                    return if custom {
                        What::StreamCustom
                    } else {
                        What::StreamArgs
                    };
                }
                // Another item's call, or an MCP call never added (its result would come
                // before its call): as before, a snapshot.
                Some(_) => return What::None,
                None if self.item.kind == Kind::Mcp => return What::None,
                None => {}
            }
        }
        self.item.holding = true;
        self.item.overflow = false;
        out.held.clear();
        if custom {
            What::HeldCustom
        } else {
            What::HeldArgs
        }
    }

    /// A streamed item's call opens with the arguments its item carried (`item_args`): they
    /// are replayed into it (a call cut by `max_call_bytes` fails as too large).
    fn open_held(&mut self, pos: usize, done: bool, out: &mut Out) {
        let item = self.item;
        let custom = self.calls[pos].custom;
        if item.holding && !item.overflow && custom && done && !out.held.push(CUSTOM_CLOSE) {
            self.item.overflow = true;
        }
        self.open_call(pos, out);
        if !item.holding || (out.held.len() == 0 && !done) {
            out.held.clear();
            return;
        }
        self.calls[pos].fed = true;
        if self.item.overflow {
            out.cut_args(true);
        } else {
            // A done item's call stays open until the next block or the finish (the held
            // bytes are fed after this step).
            out.replay_held();
        }
    }

    /// An `output_item.added` call item closes: its call is remembered and opens, with the
    /// arguments the item carried.
    pub(super) fn added_call(&mut self, out: &mut Out) {
        let (name, id, server, custom) = self.item_call();
        let pos = self.remember(self.at, name, id, server, custom);
        self.open_held(pos, false, out);
    }

    /// A call whose `output_item.added` never came: made from its done item.
    pub(super) fn done_call(&mut self, out: &mut Out) {
        let (name, id, server, custom) = self.item_call();
        let pos = self.remember(self.at, name, id, server, custom);
        self.open_held(pos, true, out);
    }
}
