import { type QuickJSContext, type QuickJSHandle, Scope } from 'quickjs-emscripten-core'

// Runs inside the guest before any skill code. It captures the genuine
// JSON functions so a guest that replaces `JSON.stringify` still cannot make
// the host emit invalid JSON text, and it removes the ambient sources of
// nondeterminism that context intrinsics cannot switch off. The returned
// helpers are held only by the host: nothing is left on `globalThis`.
const PRELUDE = `(() => {
  'use strict';
  delete Math.random;
  delete globalThis.SharedArrayBuffer;
  delete globalThis.Atomics;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const toText = String;
  const sliceText = Function.prototype.call.bind(String.prototype.slice);
  const short = (key) => (key.length > 64 ? key.slice(0, 64) + '…' : key);
  const where = (key) => (key === '' ? '' : ' at key "' + short(key) + '"');
  const replacer = function (key, value) {
    const kind = typeof value;
    if (kind === 'function') throw new TypeError('the result contains a function' + where(key));
    if (kind === 'symbol') throw new TypeError('the result contains a symbol' + where(key));
    if (kind === 'bigint') throw new TypeError('the result contains a BigInt' + where(key));
    return value;
  };
  const describe = (value) => {
    try {
      if (typeof value === 'object' && value !== null) {
        const name = toText(value.name);
        return name.length + ':' + name + toText(value.message);
      }
      return '0:' + toText(value);
    } catch {
      return '0:a value that cannot be described';
    }
  };
  const format = (value) => {
    if (typeof value === 'string') return value;
    try {
      const text = stringify(value);
      if (typeof text === 'string') return text;
    } catch {}
    try {
      return toText(value);
    } catch {
      return '[unprintable]';
    }
  };
  return [(value) => stringify(value, replacer), (text) => parse(text), describe, format, (text, n) => sliceText(text, 0, n)];
})()`

/** Host-held handles on the prelude's helpers. Valid as long as their context. */
export interface GuestPrelude {
  /** JSON text of a value; throws a TypeError naming functions, symbols and BigInts. */
  serialize: QuickJSHandle
  /** The genuine `JSON.parse`. */
  parse: QuickJSHandle
  /** `<name length>:<name><message>` of a thrown value, never throwing itself. */
  describe: QuickJSHandle
  /** Console text of one value. */
  format: QuickJSHandle
  /** The genuine `String.prototype.slice(0, n)`, immune to guest patches. */
  cut: QuickJSHandle
}

/**
 * Hardens a fresh context (no `Math.random`, `SharedArrayBuffer`, `Atomics`)
 * and returns the helpers the host uses to move JSON in and out of it. The
 * helpers belong to `owner`, the scope that owns the context.
 */
export function installPrelude(ctx: QuickJSContext, owner: Scope): GuestPrelude {
  return Scope.withScope((scope) => {
    const list = scope.manage(
      ctx.unwrapResult(ctx.evalCode(PRELUDE, 'prelude.js', { strict: true })),
    )
    const at = (i: number) => owner.manage(ctx.getProp(list, i))
    return { serialize: at(0), parse: at(1), describe: at(2), format: at(3), cut: at(4) }
  })
}
