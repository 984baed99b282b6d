//! The decoder's step loop: framing, then each JSON payload token read quickly where it can be
//! (text runs straight from the input), handed to the mapper, and what comes out of it.

use super::*;

impl<'a> Decoder<'a> {
    /// One framing or JSON step.
    pub(super) fn step<'i>(&mut self, input: &mut &'i [u8]) -> Step<'i> {
        if self.finished {
            // Input after the end is left unread, as `Sieve::next` does (`pull` refuses it).
            return Step::NeedMore;
        }
        if let Some(f) = self.fault.take() {
            self.out.fault(f.code(), f.message());
            return Step::Again;
        }
        // A nested document's decoded bytes are read before the outer one goes on.
        if let Some(n) = self.map.nested() {
            if n.pending() {
                n.step(TextTo {
                    route: &mut self.route,
                    route_in: &mut self.route_in,
                    out: &mut self.out,
                });
                return Step::Again;
            }
        }
        let aws = self.aws;
        let framed = match &mut self.framing {
            Framing::Detect { bom } => {
                if input.is_empty() {
                    if self.finishing {
                        self.framing = Framing::Whole;
                        return Step::Again;
                    }
                    return Step::NeedMore;
                }
                let b = input[0];
                if aws {
                    // The event stream's first byte is its length's high byte: no BOM or
                    // whitespace skipping.
                    self.framing = if b == b'{' {
                        Framing::Whole
                    } else {
                        Framing::EventStream(EventStreamFramer::new(self.max_frame_bytes))
                    };
                    return Step::Again;
                }
                const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
                if (*bom as usize) < 3 && b == BOM[*bom as usize] {
                    *bom += 1;
                    *input = &input[1..];
                    return Step::Again;
                }
                if matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
                    *input = &input[1..];
                    return Step::Again;
                }
                self.framing = if b == b'{' {
                    Framing::Whole
                } else if b == b'[' {
                    Framing::JsonArray(JsonArrayFramer::new())
                } else {
                    Framing::Sse(SseFramer::new())
                };
                return Step::Again;
            }
            Framing::Whole => {
                if input.is_empty() {
                    if self.finishing {
                        if self.reader.doc == DocState::Open {
                            Framed::End
                        } else {
                            Framed::Finished
                        }
                    } else {
                        Framed::NeedMore
                    }
                } else if self.reader.doc == DocState::Between {
                    // Whitespace between whole documents is not a document.
                    let ws = input
                        .iter()
                        .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
                        .unwrap_or(input.len());
                    if ws > 0 {
                        if self.whole_seen && input[..ws].contains(&b'\n') {
                            // A line end after a whole document, and more: newline-delimited
                            // JSON (docs/providers.md), so a bad line costs only that line.
                            self.framing = Framing::Ndjson(NdjsonFramer::new());
                        }
                        *input = &input[ws..];
                        return Step::Again;
                    }
                    Framed::Begin
                } else {
                    Framed::Payload(input.len())
                }
            }
            Framing::Sse(f) => {
                if self.finishing && input.is_empty() {
                    f.finish()
                } else {
                    f.next(input)
                }
            }
            Framing::JsonArray(f) => {
                if self.finishing && input.is_empty() {
                    f.finish()
                } else {
                    f.next(input)
                }
            }
            Framing::EventStream(f) => {
                if self.finishing && input.is_empty() {
                    f.finish()
                } else {
                    f.next(input)
                }
            }
            Framing::Ndjson(f) => {
                if self.finishing && input.is_empty() {
                    f.finish()
                } else {
                    f.next(input)
                }
            }
        };
        match framed {
            Framed::NeedMore => Step::NeedMore,
            Framed::Begin if self.ended => {
                // Data after the end marker is not decoded: the response is over and its
                // finish is out, which stays the last event (docs/providers.md). The
                // document stays `Between`, so its bytes are consumed unread.
                Step::Again
            }
            Framed::Begin => {
                self.begin_doc();
                Step::Again
            }
            Framed::Payload(n) => self.payload(input, n),
            Framed::Held => {
                let mut held = [0u8; 8];
                let h = match &mut self.framing {
                    Framing::Sse(f) => f.held(),
                    Framing::Ndjson(f) => f.held(),
                    _ => &[],
                };
                let n = h.len().min(8);
                held[..n].copy_from_slice(&h[..n]);
                self.bytes_from_self(&held[..n]);
                Step::Again
            }
            Framed::Newline => {
                self.bytes_from_self(b"\n");
                Step::Again
            }
            Framed::End => {
                self.end_doc();
                Step::Again
            }
            Framed::Done => {
                if !self.ended {
                    self.ended = true;
                    self.map.get().done(&mut self.out);
                }
                Step::Again
            }
            // After the end marker nothing is decoded, broken framing included.
            Framed::Fault(_) if self.ended => Step::Again,
            Framed::Fault(f) => {
                if self.reader.doc != DocState::Between {
                    // A document cut by the fault is not also reported as bad JSON.
                    self.reader.quiet();
                    self.end_doc();
                    // What the document's end queued (an exception frame's error) goes out
                    // before the fault is reported.
                    self.fault = Some(f);
                } else {
                    self.out.fault(f.code(), f.message());
                }
                Step::Again
            }
            Framed::Finished => {
                if self.reader.doc != DocState::Between {
                    self.end_doc();
                }
                if let Some(n) = self.map.nested() {
                    n.eof(&mut self.out);
                }
                self.map.get().eof(&mut self.out);
                self.finished = true;
                Step::Again
            }
        }
    }

    pub(super) fn begin_doc(&mut self) {
        self.reader.begin();
        let info = match &self.framing {
            Framing::Sse(f) => DocInfo {
                event: f.event_name(),
                ..DocInfo::default()
            },
            Framing::EventStream(f) => DocInfo {
                event: f.event_type(),
                message_type: f.message_type(),
                exception_type: f.exception_type(),
                error_code: f.error_code(),
                error_message: f.error_message(),
            },
            _ => DocInfo::default(),
        };
        self.map.get().begin(info, &mut self.out);
    }

    pub(super) fn end_doc(&mut self) {
        let inner = self.reader.sink == Sink::Inner;
        let to = TextTo {
            route: &mut self.route,
            route_in: &mut self.route_in,
            out: &mut self.out,
        };
        self.reader.end(self.map.get(), to);
        if inner {
            // The document ended inside its nested one's base64 text.
            if let Some(n) = self.map.nested() {
                n.abort(TextTo {
                    route: &mut self.route,
                    route_in: &mut self.route_in,
                    out: &mut self.out,
                });
            }
        }
    }

    /// Payload bytes that are not in the input (an SSE line join, held `[DONE]` look-alike).
    pub(super) fn bytes_from_self(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while !rest.is_empty() && self.reader.doc == DocState::Open {
            match self.reader.lexer.next(&mut rest) {
                Lex::Token(t) => {
                    if let Some(text) = self.token(t) {
                        // Only text pieces of a string can come from these bytes; route
                        // them through the queue (they are not in the input).
                        text_bytes(self.reader.sink, self.text_to(), text.bytes());
                    }
                }
                Lex::NeedMore => break,
                Lex::Done => {
                    self.reader.doc = DocState::Skip;
                }
                Lex::Error(_) => self.reader.json_error(&mut self.out),
            }
        }
    }

    pub(super) fn payload<'i>(&mut self, input: &mut &'i [u8], n: usize) -> Step<'i> {
        let n = n.min(input.len());
        if self.reader.doc != DocState::Open {
            // Skipping a failed document (or bytes after its value).
            self.consume(input, n);
            return Step::Again;
        }
        // The framing is told once what the step used.
        let start: &'i [u8] = input;
        let step = self.payload_run(input, n);
        let used = start.len() - input.len();
        self.consumed(&start[..used]);
        step
    }

    /// Tokens that make no event are handled in the same step (no trip through the framing
    /// for each). Advances `input` without telling the framing.
    pub(super) fn payload_run<'i>(&mut self, input: &mut &'i [u8], n: usize) -> Step<'i> {
        let mut n = n;
        loop {
            // (Not while text is gathered: a plain string would be handed out before it.)
            if self.reader.capture.is_none() && !self.out.acc_pending() {
                let before = input.len();
                let (read, chunk) = self.quick(input, n);
                n -= before - input.len();
                if let Some(s) = chunk {
                    return Step::Chunk(s);
                }
                if n == 0 {
                    return Step::Again;
                }
                match read {
                    // A key changes the path only: nothing to hand out.
                    QuickRead::Key => continue,
                    QuickRead::Value if self.may_go_on() => continue,
                    QuickRead::Value => return Step::Again,
                    QuickRead::No => {}
                }
            }
            let before = input.len();
            let (step, quiet) = self.payload_token(input, n);
            n -= before - input.len();
            if !quiet || n == 0 || !self.may_go_on() {
                return step;
            }
        }
    }

    /// Skips what it can of the value being skipped (`Capture::Skip`) in the first `n`
    /// bytes of `input` (`Lexer::skip`), ending the skip with the value; `true` when it
    /// read anything. Out of line, and reached from `payload_token` only while a value is
    /// captured: the payload loop of documents with nothing to skip does not carry it.
    #[inline(never)]
    fn skip_run(&mut self, input: &mut &[u8], n: usize) -> bool {
        let Some(skip) = self.reader.capture else {
            return false;
        };
        let mut rest = &input[..n];
        let done = self.reader.lexer.skip(&mut rest, skip.depth as usize);
        let used = n - rest.len();
        *input = &input[used..];
        if done {
            self.reader.capture = None;
        }
        done || used > 0
    }

    /// Can `payload` read on after a token: the document is open and nothing waits to be
    /// handed out or read first (queued events, held text to replay, text dialect input, a
    /// nested document's bytes).
    pub(super) fn may_go_on(&mut self) -> bool {
        self.reader.doc == DocState::Open
            && !self.out.has_pending()
            && !self.out.replaying()
            && self.fault.is_none()
            && self.map.nested().is_none_or(|n| !n.pending())
            && self
                .route
                .as_ref()
                .is_none_or(|r| !r.draining && r.at >= r.len)
    }

    /// The lexer's fast path for strict JSON ([`Quick`]): whole keys, plain strings that are
    /// not text, integers and literals, handed to `token` as `next` would give them. `true`
    /// when it read a value or key.
    pub(super) fn quick<'i>(
        &mut self,
        input: &mut &'i [u8],
        n: usize,
    ) -> (QuickRead, Option<&'i str>) {
        let all: &'i [u8] = &input[..n];
        let mut rest = all;
        let mut chunk = None;
        let q = self.reader.lexer.quick(&mut rest);
        let read = match q {
            Quick::No => QuickRead::No,
            Quick::Key(k) => {
                // What `token` does with its KeyStart, Text and KeyEnd (no value is captured).
                self.reader.path.whole_key(k);
                QuickRead::Key
            }
            Quick::Str(c) => {
                self.token(Token::StringStart);
                // Text goes out through `payload_token` (zero-copy chunks), and so does a
                // nested document's base64; the lexer is inside the string then.
                if self.reader.capture.is_none() && self.may_go_on() {
                    match self.reader.sink {
                        // What `Reader::token` does with its Text (nothing) and StringEnd.
                        Sink::Skip => self.reader.lexer.quick_string_end(&mut rest, c.len()),
                        Sink::Collect => {
                            // What `Reader::token` does with its Text and StringEnd.
                            self.reader.lexer.quick_string_end(&mut rest, c.len());
                            let map = self.map.get();
                            if !c.is_empty() {
                                map.piece(c, &mut self.out);
                            }
                            map.string_end(&self.reader.path, &mut self.out);
                            self.reader.sink = Sink::Skip;
                        }
                        // Text of the open block: handed out without a copy, as
                        // `payload_token` does.
                        Sink::Text {
                            ty,
                            choice,
                            refusal,
                        } if !c.is_empty()
                            && !self.routes(ty, refusal)
                            && self.out.is_open(ty, choice, refusal) =>
                        {
                            self.reader.lexer.quick_text(&mut rest, c.len());
                            let t = Token::Text(Text::Plain(Piece::Input(c)));
                            if let Some(TextOut::Input(s)) =
                                self.reader.token(t, self.map.get(), &mut self.out)
                            {
                                chunk = Some(s);
                            }
                        }
                        _ => {}
                    }
                }
                QuickRead::Value
            }
            Quick::Int(d) => {
                let map = self.map.get();
                self.reader.token(Token::NumberStart, map, &mut self.out);
                if self.reader.capture.is_none() && self.may_go_on() {
                    // What `Reader::token` does with its Number pieces and NumberEnd.
                    self.reader.lexer.quick_word_end();
                    let mut v = Some(0u64);
                    for &b in d {
                        v = v
                            .and_then(|v| v.checked_mul(10))
                            .and_then(|v| v.checked_add(u64::from(b - b'0')));
                    }
                    let v = v.map_or(Scalar::Number, Scalar::Int);
                    self.map.get().scalar(&self.reader.path, v, &mut self.out);
                }
                QuickRead::Value
            }
            Quick::Literal(l) => {
                // Not a string: `Decoder::token`'s nested-document work does not apply.
                let t = Token::Literal(l);
                self.reader.token(t, self.map.get(), &mut self.out);
                QuickRead::Value
            }
            Quick::Token(t @ (Token::StringEnd | Token::KeyEnd)) => {
                self.token(t);
                QuickRead::Value
            }
            Quick::Token(t) => {
                // A container's start or end (see above).
                self.reader.token(t, self.map.get(), &mut self.out);
                QuickRead::Value
            }
        };
        let used = n - rest.len();
        *input = &input[used..];
        (read, chunk)
    }

    /// One token of a payload; `true` with it when it was a token that made no event.
    pub(super) fn payload_token<'i>(&mut self, input: &mut &'i [u8], n: usize) -> (Step<'i>, bool) {
        // Text that must first open its block, arguments and nested base64 text are read in
        // small steps (their bytes are copied; see `out.rs`).
        let limit = match self.reader.sink {
            // Text for the text dialect is copied to its input.
            Sink::Text { ty, refusal, .. } if self.routes(ty, refusal) => ROUTE_IN,
            Sink::Text {
                ty,
                choice,
                refusal,
            } if !self.out.is_open(ty, choice, refusal) => SMALL,
            // Text gathered behind an escape (`Out::text_via_queue`): what still fits.
            Sink::Text { .. } if self.out.acc_pending() => match self.out.acc_room() {
                room if room < ACC_MARGIN * 2 => {
                    self.out.flush_acc();
                    return (Step::Again, false);
                }
                room => room - ACC_MARGIN,
            },
            Sink::Args => ARGS_STEP,
            // Escaping may grow text six-fold; one step's stays within one `args_text`.
            Sink::ArgsString => ARGS_STEP / 6,
            Sink::Inner => NESTED_STEP,
            // A mapper's held text (Gemini) goes to the text dialect a `small` at a time,
            // else it is gathered.
            Sink::Hold if self.route.is_some() => SMALL,
            Sink::Hold => match self.out.acc_room() {
                room if room < ACC_MARGIN * 2 => {
                    self.out.flush_acc();
                    return (Step::Again, false);
                }
                room => room - ACC_MARGIN,
            },
            // A captured value's output pieces are copied (one token's text ≤ ARGS_STEP). A
            // value no mapper reads: whole runs of it at once (`skip_run`); what that does not
            // read (a token not whole here, JSON that is not strict) a token at a time.
            _ if self.reader.capture.is_some() => {
                if self.reader.capture.is_some_and(|c| c.kind != Capture::Skip) {
                    ARGS_STEP
                } else if self.skip_run(input, n) {
                    return (Step::Again, true);
                } else {
                    n
                }
            }
            _ => n,
        };
        let all = &input[..n];
        let mut rest = &all[..n.min(limit)];
        let lexed = self.reader.lexer.next(&mut rest);
        let used = n.min(limit) - rest.len();
        let mut quiet = false;
        let step = match lexed {
            Lex::Token(t) => match self.token(t) {
                Some(text) => {
                    if let Sink::Text {
                        ty,
                        choice,
                        refusal,
                    } = self.reader.sink
                    {
                        if self.out.is_open(ty, choice, refusal)
                            && !self.out.has_pending()
                            && !self.out.acc_pending()
                        {
                            if let TextOut::Input(s) = text {
                                if self.out.gathering && s.len() < out::GATHER_PLAIN {
                                    self.out.text_via_queue(s.as_bytes());
                                    *input = &input[used..];
                                    return (Step::Again, false);
                                }
                                // `s` borrows the input: handed out without a copy.
                                *input = &input[used..];
                                return (Step::Chunk(s), false);
                            }
                        }
                    }
                    text_bytes(self.reader.sink, self.text_to(), text.bytes());
                    Step::Again
                }
                None => {
                    quiet = true;
                    Step::Again
                }
            },
            Lex::NeedMore => Step::Again,
            Lex::Done => {
                if matches!(self.framing, Framing::Whole) {
                    // Whole documents one after another: the next byte may start the next.
                    *input = &input[used..];
                    self.end_doc();
                    self.whole_seen = true;
                    return (Step::Again, false);
                }
                self.reader.doc = DocState::Skip;
                Step::Again
            }
            Lex::Error(e) => {
                if e.kind == crate::json::relaxed::ErrorKind::TooDeep
                    && self
                        .reader
                        .capture
                        .is_some_and(|c| matches!(c.kind, Capture::Args | Capture::InitialArgs))
                {
                    // An inline arguments value (Gemini's `args`) nested past the lexer's
                    // bound: the call fails as too deep (the document is lost with it).
                    self.out.fail_args_nesting();
                }
                self.reader.json_error(&mut self.out);
                if matches!(self.framing, Framing::Whole) {
                    // A `{`-first body whose document failed: the rest of this line goes
                    // with it, and the next line is read as a document of its own (NDJSON),
                    // not skipped with the rest of the body.
                    self.framing = Framing::Ndjson(NdjsonFramer::in_line());
                }
                Step::Again
            }
        };
        *input = &input[used..];
        (step, quiet)
    }

    pub(super) fn text_to(&mut self) -> TextTo<'_, 'a, 'a> {
        TextTo {
            route: &mut self.route,
            route_in: &mut self.route_in,
            out: &mut self.out,
        }
    }

    /// Does text of this kind run through the text dialect? (A provider's text does; its
    /// thinking and refusals do not.)
    pub(super) fn routes(&self, ty: BlockType, refusal: bool) -> bool {
        ty == BlockType::Text && !refusal && self.route.is_some()
    }

    pub(super) fn consume(&mut self, input: &mut &[u8], n: usize) {
        self.consumed(&input[..n]);
        *input = &input[n..];
    }

    /// Tells the framing that these payload bytes were used.
    pub(super) fn consumed(&mut self, payload: &[u8]) {
        match &mut self.framing {
            Framing::Sse(f) => f.consumed(payload),
            Framing::JsonArray(f) => f.consumed(payload),
            Framing::EventStream(f) => f.consumed(payload),
            Framing::Ndjson(f) => f.consumed(payload),
            _ => {}
        }
    }

    /// One token of the body's document. A `Sink::Inner` string's start, base64 text and
    /// end go to the nested reader.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn token<'i>(&mut self, t: Token<'i>) -> Option<TextOut<'i>> {
        let before = self.reader.sink;
        let text = self.reader.token(t, self.map.get(), &mut self.out);
        let after = self.reader.sink;
        if before != Sink::Inner && after != Sink::Inner {
            return text;
        }
        if let Some(n) = self.map.nested() {
            if before != Sink::Inner {
                n.begin(&mut self.out);
            }
            if let Some(text) = &text {
                n.feed(text.bytes());
            }
            if after != Sink::Inner {
                n.end_text();
            }
        }
        None
    }
}
