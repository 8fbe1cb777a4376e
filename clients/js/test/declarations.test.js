// index.d.ts and index.js agree: every class and function the declarations export is exported by
// the module, as that kind of value, and the module exports nothing undeclared. (CI also runs
// `tsc --noEmit` over test/typecheck/usage.ts, which uses every declaration.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as module from '../index.js';

const declarations = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8');
const declared = new Map([...declarations.matchAll(/^export (class|function) (\w+)/gm)].map(([, kind, name]) => [name, kind]));

test('every declared class and function is exported as declared', () => {
  assert.ok(declared.size >= 7, `only ${declared.size} declarations found`);
  for (const [name, kind] of declared) {
    assert.equal(typeof module[name], 'function', `${name} (${kind}) is not exported by index.js`);
    if (kind === 'class') assert.match(Function.prototype.toString.call(module[name]), /^class /, `${name} is not a class`);
  }
});

test('index.js exports nothing that index.d.ts does not declare', () => {
  const undeclared = Object.keys(module).filter((name) => !declared.has(name));
  assert.deepEqual(undeclared, []);
});
