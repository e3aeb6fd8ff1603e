;async (args) => {
  const counts = { object: 0, array: 0, string: 0, number: 0, boolean: 0, null: 0 }
  const keys = new Map()
  let maxDepth = 0
  const stack = [[args.value, 1]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()
    if (depth > maxDepth) maxDepth = depth
    if (v === null) counts.null++
    else if (Array.isArray(v)) {
      counts.array++
      for (const item of v) stack.push([item, depth + 1])
    } else if (typeof v === 'object') {
      counts.object++
      for (const [k, item] of Object.entries(v)) {
        keys.set(k, (keys.get(k) || 0) + 1)
        stack.push([item, depth + 1])
      }
    } else counts[typeof v]++
  }
  const common = [...keys].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 10)
  return [
    `types: ${Object.entries(counts)
      .map(([k, n]) => `${k}=${n}`)
      .join(' ')}`,
    `max depth: ${maxDepth}`,
    `distinct keys: ${keys.size}`,
    `common keys: ${common.map(([k, n]) => `${k}(${n})`).join(', ') || 'none'}`,
  ].join('\n')
}
