;async (args) => {
  const out = []
  const show = (v) => JSON.stringify(v)
  const escapePointer = (key) => String(key).replace(/~/g, '~0').replace(/\//g, '~1')
  const kind = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)
  const walk = (a, b, path) => {
    const ka = kind(a)
    if (ka !== kind(b) || (ka !== 'object' && ka !== 'array')) {
      if (show(a) !== show(b)) out.push(`~ ${path || '/'}: ${show(a)} -> ${show(b)}`)
      return
    }
    const keys =
      ka === 'array'
        ? Array.from({ length: Math.max(a.length, b.length) }, (_, i) => i)
        : [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()
    for (const key of keys) {
      const p = `${path}/${escapePointer(key)}`
      const inA = ka === 'array' ? key < a.length : Object.hasOwn(a, key)
      const inB = ka === 'array' ? key < b.length : Object.hasOwn(b, key)
      if (inA && !inB) out.push(`- ${p}: ${show(a[key])}`)
      else if (!inA && inB) out.push(`+ ${p}: ${show(b[key])}`)
      else walk(a[key], b[key], p)
    }
  }
  walk(args.before, args.after, '')
  return out.length === 0 ? 'no differences' : out.join('\n')
}
