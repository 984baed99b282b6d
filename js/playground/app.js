// The playground: replays pasted model output or a provider body through the JS API, chunk by
// chunk, drawing each block as it streams. `?vector=<url>&size=N` runs a conformance vector at
// once and writes the events to #result (the headless-Chromium test reads it); `?writers=1`
// calls the writers (their module compiled synchronously, on the page's main thread, at the
// first call) and writes their texts to #result.
import { Sieve, Decoder, formatToolCalls, formatToolDefinitions, formatToolResults, stopSequences } from '../src/index.js';

const DIALECTS = ['hermes', 'anthropic-xml', 'morph-xml', 'qwen3-coder', 'minimax-m2', 'glm-4.5', 'harmony',
  'kimi-k2', 'deepseek-v3.1', 'deepseek-v3', 'mistral', 'llama3-json', 'pythonic', 'passthrough'];
const PROVIDERS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'bedrock'];
const $ = (id) => document.getElementById(id);

function fillKinds() {
  const list = $('mode').value === 'provider' ? PROVIDERS : DIALECTS;
  $('kind').innerHTML = list.map((k) => `<option>${k}</option>`).join('');
}

function view() {
  const els = new Map();
  return (ev) => {
    const line = document.createElement('div');
    line.textContent = JSON.stringify(ev);
    $('log').append(line);
    $('log').scrollTop = 1e9;
    if (ev.event === 'block_start') {
      const el = document.createElement('div');
      el.className = `block ${ev.type}`;
      el.innerHTML = `<span class="tag">${ev.index} · ${ev.type}</span>`;
      els.set(ev.index, el);
      $('blocks').append(el);
    } else if (ev.event === 'chunk') {
      const el = els.get(ev.block);
      if (!el) return;
      if (ev.part === 'name') {
        const tag = el.querySelector('.tag');
        if (!el.dataset.named) { el.dataset.named = '1'; tag.textContent += ' · '; }
        tag.textContent += ev.text;
      }
      else if (ev.part !== 'id') el.append(ev.text);
    } else if (ev.event === 'block_complete' && ev.error) {
      els.get(ev.index)?.classList.add('error');
    }
  };
}

async function replay() {
  $('blocks').innerHTML = '';
  $('log').innerHTML = '';
  const config = $('mode').value === 'provider' ? { provider: $('kind').value } : { dialect: $('kind').value };
  const show = view();
  let feeder;
  try { feeder = 'provider' in config ? new Decoder(config) : new Sieve(config); } catch (e) { show({ event: 'error', message: e.message }); return; }
  const bytes = new TextEncoder().encode($('input').value);
  const size = Number($('size').value);
  const delay = Number($('delay').value);
  for (let i = 0; i < bytes.length; i += size) {
    feeder.feed(bytes.subarray(i, i + size)).forEach(show);
    if (delay) await new Promise((r) => setTimeout(r, delay));
  }
  feeder.finish().forEach(show);
  feeder.free();
}

async function runVector(url, size) {
  const v = await (await fetch(url)).json();
  let data;
  if (v.input !== undefined) data = new TextEncoder().encode(v.input);
  else if (v.input_hex !== undefined) data = Uint8Array.from(v.input_hex.match(/../g) ?? [], (h) => parseInt(h, 16));
  else data = new Uint8Array(await (await fetch(new URL(v.input_file, new URL(url, location.href)))).arrayBuffer());
  const feeder = 'provider' in v.config ? new Decoder(v.config) : new Sieve(v.config);
  if (v.prefill != null) feeder.prefill(v.prefill);
  const show = view();
  const events = [];
  const n = size > 0 ? size : Math.max(data.length, 1);
  for (let i = 0; i < data.length; i += n) events.push(...feeder.feed(data.subarray(i, i + n)));
  events.push(...feeder.finish());
  events.forEach(show);
  $('result').textContent = JSON.stringify(events);
}

// The same calls as browser-test.mjs makes in Node, whose answers it compares with these.
function writersSample() {
  const calls = [{ name: 'get_weather', input: { city: 'Paris', n: 1.50 } }];
  return [
    formatToolCalls('hermes', calls),
    formatToolCalls({ dialect: 'qwen3-coder', tools: [{ name: 'get_weather' }] }, calls),
    formatToolDefinitions('kimi-k2', [{ name: 'ping', description: 'Is it up?', schema: { type: 'object' } }]),
    formatToolResults('harmony', [{ content: '18°C', name: 'get_weather' }]),
    stopSequences('harmony'),
  ];
}

$('mode').onchange = fillKinds;
$('size').oninput = () => { $('sizev').textContent = $('size').value; };
$('run').onclick = replay;
fillKinds();
const params = new URLSearchParams(location.search);
if (params.get('vector')) runVector(params.get('vector'), Number(params.get('size') ?? 0));
else if (params.get('writers')) {
  try { $('result').textContent = JSON.stringify(writersSample()); } catch (e) { $('result').textContent = JSON.stringify({ error: String(e) }); }
}
else replay();
