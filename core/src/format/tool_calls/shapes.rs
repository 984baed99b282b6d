//! The data shapes, written from a description's markers (presets and host descriptions).

use super::*;

impl Writer<'_, '_> {
    pub(super) fn shape(
        &mut self,
        d: &Description<'_>,
        preset: Option<Dialect>,
        calls: &[ToolCallIn<'_>],
        args: &[Args<'_>],
    ) -> Result<(), FormatError> {
        match d.shape {
            Shape::JsonCall => self.json_call(d, preset, calls, args),
            Shape::XmlParams => self.xml_params(d, preset, calls, args),
            Shape::Invoke => self.invoke(d, calls, args),
            Shape::Pythonic => self.pythonic(d, preset, calls, args),
            // The presets with a writer of their own keep their template's layout.
            Shape::KeyValue | Shape::Sectioned
                if matches!(
                    preset,
                    Some(
                        Dialect::Glm45
                            | Dialect::KimiK2
                            | Dialect::DeepSeekV3
                            | Dialect::DeepSeekV31
                    )
                ) =>
            {
                self.machine(preset.unwrap_or(Dialect::Glm45), calls, args)
            }
            Shape::KeyValue => self.key_value(d, calls, args),
            Shape::Sectioned => self.sectioned(d, calls, args),
        }
    }

    /// The key-value shape from its description: the call element holding the name (then
    /// the separator element, if any) and `<key>K</key><value>V</value>` pairs, a line
    /// apart; the calls inside the markup pair when there is one (Hunyuan's
    /// `<tool_calls>`).
    pub(super) fn key_value(
        &mut self,
        d: &Description<'_>,
        calls: &[ToolCallIn<'_>],
        args: &[Args<'_>],
    ) -> Result<(), FormatError> {
        let key = d.elements.get(0).unwrap_or("arg_key");
        let value = d.elements.get(1).unwrap_or("arg_value");
        let sep = d.elements.get(2);
        let closer = alloc::format!("</{value}");
        let closers = [closer.as_str()];
        let x = XmlValue {
            framing: false,
            closers: &closers,
            cdata: false,
            entities: false,
        };
        let out = &mut self.out;
        if let Some((open, _)) = d.markup {
            out.push_str(open);
        }
        for (i, c) in calls.iter().enumerate() {
            check(c.name, |ch| ws_or(ch, "<>")).map_err(|e| name_err(i, e))?;
            if i > 0 {
                out.push('\n');
            }
            out.push_str(d.wrapper.0);
            out.push_str(c.name);
            if let Some(sep) = sep {
                out.push('<');
                out.push_str(sep);
                out.push('>');
            }
            out.push('\n');
            for (k, v) in &args[i] {
                check(k, |ch| ch == '<')
                    .and_then(|()| trimmed(k))
                    .map_err(|e| key_err(i, k, e))?;
                let ty = param_type(self.config, c.name, k);
                let _ = fmt::Write::write_fmt(out, format_args!("<{key}>{k}</{key}>\n<{value}>"));
                push_xml_value(out, v, ty, x);
                let _ = fmt::Write::write_fmt(out, format_args!("</{value}>\n"));
            }
            out.push_str(d.wrapper.1);
        }
        if let Some((_, close)) = d.markup {
            out.push_str(close);
        }
        Ok(())
    }

    /// The sectioned shape from its description: the section's markers around the calls,
    /// each `call_markers` around its header (a `function` type first when the header has
    /// two parts; Kimi's `functions.NAME:I` id with `wire_id`) and its JSON body (in the
    /// fence, if any).
    pub(super) fn sectioned(
        &mut self,
        d: &Description<'_>,
        calls: &[ToolCallIn<'_>],
        args: &[Args<'_>],
    ) -> Result<(), FormatError> {
        let markers: Vec<&str> = [d.wrapper.0, d.call_markers.0, d.call_markers.1]
            .into_iter()
            .filter(|m| !m.is_empty())
            .collect();
        let out = &mut self.out;
        out.push_str(d.wrapper.0);
        for (i, c) in calls.iter().enumerate() {
            check(c.name, |ch| ch == '\n' || ch == '\r')
                .and_then(|()| trimmed(c.name))
                .map_err(|e| name_err(i, e))?;
            if markers.iter().any(|m| c.name.contains(m)) {
                return Err(name_err(i, "holds a marker"));
            }
            out.push_str(d.call_markers.0);
            let ends: Vec<&str> = d.header_ends.iter().collect();
            if let [first, _] = ends[..] {
                out.push_str("function");
                out.push_str(first);
            }
            if d.wire_id {
                let _ = fmt::Write::write_fmt(out, format_args!("functions.{}:{i}", c.name));
            } else {
                out.push_str(c.name);
            }
            if let Some(last) = ends.last() {
                out.push_str(last);
            }
            if let Some((open, _)) = d.fence {
                out.push_str(open);
                out.push('\n');
            }
            push_json_obj(
                out,
                &args[i],
                JsonStyle {
                    spaced: true,
                    markers: &markers,
                },
            );
            if let Some((_, close)) = d.fence {
                out.push('\n');
                out.push_str(close);
            }
            out.push_str(d.call_markers.1);
        }
        out.push_str(d.wrapper.1);
        Ok(())
    }

    pub(super) fn json_call(
        &mut self,
        d: &Description<'_>,
        preset: Option<Dialect>,
        calls: &[ToolCallIn<'_>],
        args: &[Args<'_>],
    ) -> Result<(), FormatError> {
        let (open, close) = d.wrapper;
        let mut markers: Vec<&str> = Vec::new();
        for m in [open, close] {
            if !m.is_empty() {
                markers.push(m);
            }
        }
        if let Some((a, b)) = d.result_wrapper {
            markers.push(a);
            markers.push(b);
        }
        if let Some((a, b)) = d.markup {
            markers.push(a);
            markers.push(b);
        }
        markers.extend(d.more_markup.iter());
        markers.retain(|m| !m.is_empty());
        let st = JsonStyle {
            spaced: true,
            markers: &markers,
        };
        let name_key = d.name_keys.get(0).unwrap_or("name");
        let args_key = d.argument_keys.get(0).unwrap_or("arguments");
        let cohere = preset == Some(Dialect::CohereCommand);
        let write_call = |out: &mut String, i: usize, c: &ToolCallIn<'_>| {
            if d.name_as_key {
                out.push('{');
                push_json_str(out, c.name, st.markers);
                out.push_str(": ");
                push_json_obj(out, &args[i], st);
                out.push('}');
                return;
            }
            out.push('{');
            if cohere {
                out.push_str("\"tool_call_id\": ");
                let idx = i.to_string();
                push_json_str(out, c.id.unwrap_or(&idx), st.markers);
                out.push_str(", ");
            }
            push_json_str(out, name_key, &[]);
            out.push_str(": ");
            push_json_str(out, c.name, st.markers);
            out.push_str(", ");
            push_json_str(out, args_key, &[]);
            out.push_str(": ");
            push_json_obj(out, &args[i], st);
            out.push('}');
        };
        for (i, c) in calls.iter().enumerate() {
            check(c.name, |_| false).map_err(|e| name_err(i, e))?;
        }
        let out = &mut self.out;
        if let Some((header, _)) = d.call_header {
            // Inkling's template (TokenSpeed's `inkling.jinja`): each call a model message
            // of its own, named in its header, `{"name":N,"args":{…}}` compact with the
            // arguments' keys sorted at every depth (`tojson(sort_keys=True,
            // separators=[",", ":"])`), no line between them (it would be visible text); the
            // turn ends with the end-of-sampling marker, as the template ends a model turn.
            let compact = JsonStyle {
                spaced: false,
                ..st
            };
            for (i, c) in calls.iter().enumerate() {
                out.push_str(header);
                // A name the parser would not read as a header (over 64 bytes, a newline or
                // a `<`) is left out of it: the JSON names the call all the same.
                if c.name.len() <= 64 && !c.name.contains(['\n', '<']) {
                    out.push_str(c.name);
                }
                out.push_str(open);
                out.push('{');
                push_json_str(out, name_key, &[]);
                out.push(':');
                push_json_str(out, c.name, compact.markers);
                out.push(',');
                push_json_str(out, args_key, &[]);
                out.push(':');
                push_json_obj(out, &sorted(&args[i]), compact);
                out.push('}');
                out.push_str(close);
            }
            if d.more_markup.iter().any(|m| m == END_SAMPLING) {
                out.push_str(END_SAMPLING);
            }
            return Ok(());
        }
        let one_per_wrapper = !close.is_empty() && !d.bare_array && !d.name_as_key && !cohere;
        if one_per_wrapper {
            // hermes: one call per wrapper, a line between (Qwen's and Hermes' templates).
            for (i, c) in calls.iter().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(open);
                out.push('\n');
                write_call(out, i, c);
                out.push('\n');
                out.push_str(close);
            }
            return Ok(());
        }
        // A list of calls: in the wrapper (cohere, apertus, granite, phi), or bare (xlam).
        if !d.bare_array {
            out.push_str(open);
        }
        out.push('[');
        for (i, c) in calls.iter().enumerate() {
            if cohere {
                out.push_str(if i > 0 { ",\n    " } else { "\n    " });
            } else if i > 0 {
                out.push_str(", ");
            }
            write_call(out, i, c);
        }
        if cohere {
            out.push('\n');
        }
        out.push(']');
        if !d.bare_array {
            out.push_str(close);
        }
        Ok(())
    }

    pub(super) fn xml_params(
        &mut self,
        d: &Description<'_>,
        preset: Option<Dialect>,
        calls: &[ToolCallIn<'_>],
        args: &[Args<'_>],
    ) -> Result<(), FormatError> {
        let seed = preset == Some(Dialect::SeedOss);
        // `</parameter` ends a value; `</function` and the wrapper's closer are kept out of
        // raw values too (a value cut off before `</parameter>` ends there).
        let closers = ["</parameter", "</function", d.wrapper.1];
        let x = XmlValue {
            framing: !seed,
            closers: &closers,
            cdata: false,
            entities: false,
        };
        for (i, c) in calls.iter().enumerate() {
            check(c.name, |ch| ch == '<' || ch == '>')
                .and_then(|()| trimmed(c.name))
                .map_err(|e| name_err(i, e))?;
            if i > 0 {
                self.out.push('\n');
            }
            self.out.push_str(d.wrapper.0);
            self.out.push_str("\n<function=");
            self.out.push_str(c.name);
            self.out.push_str(">\n");
            for (k, v) in &args[i] {
                check(k, |ch| ch == '<' || ch == '>')
                    .and_then(|()| trimmed(k))
                    .map_err(|e| key_err(i, k, e))?;
                self.out.push_str("<parameter=");
                self.out.push_str(k);
                self.out.push('>');
                let ty = param_type(self.config, c.name, k);
                push_xml_value(&mut self.out, v, ty, x);
                self.out.push_str("</parameter>\n");
            }
            self.out.push_str("</function>\n");
            self.out.push_str(d.wrapper.1);
        }
        Ok(())
    }

    pub(super) fn invoke(
        &mut self,
        d: &Description<'_>,
        calls: &[ToolCallIn<'_>],
        args: &[Args<'_>],
    ) -> Result<(), FormatError> {
        let prefix = d.tag_prefixes.get(0).unwrap_or("");
        let region = d.elements.get(0).unwrap_or("minimax:tool_call");
        let call_el = d.elements.get(1).unwrap_or("invoke");
        let param_el = d.elements.get(2).unwrap_or("parameter");
        let mut closers: Vec<String> = Vec::new();
        for p in d.tag_prefixes.iter().chain(core::iter::once("")) {
            closers.push(alloc::format!("</{p}{param_el}"));
        }
        if d.cdata {
            // A string that spells a CDATA opener goes in CDATA itself (there it is data).
            closers.push("<![CDATA[".into());
        }
        let closers: Vec<&str> = closers.iter().map(String::as_str).collect();
        let x = XmlValue {
            framing: false,
            closers: &closers,
            cdata: d.cdata,
            entities: false,
        };
        // The region: an element, or (unnamed) the wrapper's markers with the markup pair
        // around each call (Step-3), or nothing (MiniCPM5: the calls stand in text).
        let markers = region.is_empty() && !d.wrapper.0.is_empty();
        let out = &mut self.out;
        if !region.is_empty() {
            out.push('<');
            out.push_str(prefix);
            out.push_str(region);
            out.push_str(">\n");
        } else if markers {
            out.push_str(d.wrapper.0);
        }
        for (i, c) in calls.iter().enumerate() {
            check(c.name, xml_attr_bad).map_err(|e| name_err(i, e))?;
            if region.is_empty() && !markers && i > 0 {
                out.push('\n');
            }
            if let (true, Some((open, _))) = (markers, d.markup) {
                out.push_str(open);
            }
            out.push('<');
            out.push_str(prefix);
            out.push_str(call_el);
            out.push_str(" name=\"");
            out.push_str(c.name);
            out.push_str("\">\n");
            for (k, v) in &args[i] {
                check(k, xml_attr_bad).map_err(|e| key_err(i, k, e))?;
                out.push('<');
                out.push_str(prefix);
                out.push_str(param_el);
                out.push_str(" name=\"");
                out.push_str(k);
                out.push('"');
                let ty = param_type(self.config, c.name, k);
                match d.string_attribute {
                    Some(attr) => {
                        // DSML: `string="true"` is a string as written, `"false"` JSON.
                        let raw = matches!(v, J::Str(s) if !closers.iter().any(|c| s.contains(c)));
                        out.push(' ');
                        out.push_str(attr);
                        out.push_str(if raw { "=\"true\">" } else { "=\"false\">" });
                        let ty = if raw {
                            ValueType::String
                        } else {
                            ValueType::Object
                        };
                        push_xml_value(out, v, ty, x);
                    }
                    None => {
                        out.push('>');
                        push_xml_value(out, v, ty, x);
                    }
                }
                out.push_str("</");
                out.push_str(prefix);
                out.push_str(param_el);
                out.push_str(">\n");
            }
            out.push_str("</");
            out.push_str(prefix);
            out.push_str(call_el);
            out.push('>');
            if let (true, Some((_, close))) = (markers, d.markup) {
                out.push_str(close);
            }
            if !region.is_empty() {
                out.push('\n');
            }
        }
        if !region.is_empty() {
            out.push_str("</");
            out.push_str(prefix);
            out.push_str(region);
            out.push('>');
        } else if markers {
            out.push_str(d.wrapper.1);
        }
        Ok(())
    }

    pub(super) fn pythonic(
        &mut self,
        d: &Description<'_>,
        preset: Option<Dialect>,
        calls: &[ToolCallIn<'_>],
        args: &[Args<'_>],
    ) -> Result<(), FormatError> {
        let markers: Vec<&str> = [d.wrapper.0, d.wrapper.1]
            .into_iter()
            .filter(|m| !m.is_empty())
            .collect();
        let mut body = String::new();
        for (i, c) in calls.iter().enumerate() {
            pythonic_name(c.name).map_err(|e| name_err(i, e))?;
            if i > 0 {
                body.push_str(if d.bare_calls { "\n" } else { ", " });
            }
            body.push_str(c.name);
            body.push('(');
            for (j, (k, v)) in args[i].iter().enumerate() {
                if !is_identifier(k) {
                    return Err(key_err(i, k, "not a Python identifier"));
                }
                if j > 0 {
                    body.push_str(", ");
                }
                body.push_str(k);
                body.push('=');
                push_python(&mut body, v, &markers);
            }
            body.push(')');
        }
        let out = &mut self.out;
        if d.bare_calls {
            // Olmo 3: the calls one per line inside the wrapper.
            out.push_str(d.wrapper.0);
            out.push('\n');
            out.push_str(&body);
            out.push('\n');
            out.push_str(d.wrapper.1);
        } else if preset == Some(Dialect::Pythonic) {
            // Llama 3.2's template (vLLM's pythonic examples): the bare list.
            out.push('[');
            out.push_str(&body);
            out.push(']');
        } else {
            out.push_str(d.wrapper.0);
            out.push('[');
            out.push_str(&body);
            out.push(']');
            out.push_str(d.wrapper.1);
        }
        Ok(())
    }
}

/// Inkling's end-of-sampling marker: its template ends a model turn with it.
const END_SAMPLING: &str = "<|content_model_end_sampling|>";

/// An object's members with the keys sorted at every depth (Jinja's `sort_keys`: by code
/// point, which byte order of UTF-8 is; a stable sort keeps repeated keys in order).
fn sorted<'a>(members: &[(String, J<'a>)]) -> Vec<(String, J<'a>)> {
    fn value<'a>(v: &J<'a>) -> J<'a> {
        match v {
            J::Obj(m) => J::Obj(sorted(m)),
            J::Arr(items) => J::Arr(items.iter().map(value).collect()),
            other => other.clone(),
        }
    }
    let mut out: Vec<(String, J<'a>)> =
        members.iter().map(|(k, v)| (k.clone(), value(v))).collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}
