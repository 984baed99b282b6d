// Shared by the tests: merging adjacent chunks with equal metadata (as check.py does).
export function coalesce(events) {
  const out = [];
  for (const ev of events) {
    const last = out[out.length - 1];
    if (ev.event === 'chunk' && last?.event === 'chunk') {
      const { text: a, ...ra } = last;
      const { text: b, ...rb } = ev;
      if (JSON.stringify(ra) === JSON.stringify(rb)) {
        out[out.length - 1] = { ...last, text: a + b };
        continue;
      }
    }
    out.push(ev);
  }
  return out;
}
