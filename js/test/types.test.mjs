// The hand-written TypeScript declarations compile against real use (tsc --strict --noEmit).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
test('index.d.ts, membrane.d.ts, ai-sdk.d.ts type-check', { skip: !existsSync(tsc) && 'typescript not installed (npm ci)' }, () => {
  const project = fileURLToPath(new URL('./types/tsconfig.json', import.meta.url));
  try {
    execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
  } catch (e) {
    assert.fail(e.stdout || e.message);
  }
});
