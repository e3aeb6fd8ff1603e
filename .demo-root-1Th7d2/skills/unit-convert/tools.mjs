import { Tool } from 'skillhost/common'

// Factor to the kind's base unit (m, kg, l, B); temperature is handled apart.
const FACTORS = {
  length: { mm: 1e-3, cm: 1e-2, m: 1, km: 1e3, in: 0.0254, ft: 0.3048, yd: 0.9144, mi: 1609.344 },
  mass: { mg: 1e-6, g: 1e-3, kg: 1, t: 1e3, oz: 0.028349523125, lb: 0.45359237 },
  volume: {
    ml: 1e-3,
    l: 1,
    tsp: 0.00492892159375,
    tbsp: 0.01478676478125,
    cup: 0.2365882365,
    pt: 0.473176473,
    qt: 0.946352946,
    gal: 3.785411784,
  },
  data: {
    B: 1,
    kB: 1e3,
    MB: 1e6,
    GB: 1e9,
    TB: 1e12,
    KiB: 1024,
    MiB: 1024 ** 2,
    GiB: 1024 ** 3,
    TiB: 1024 ** 4,
  },
}

const TO_KELVIN = { C: (v) => v + 273.15, F: (v) => ((v - 32) * 5) / 9 + 273.15, K: (v) => v }
const FROM_KELVIN = { C: (k) => k - 273.15, F: (k) => ((k - 273.15) * 9) / 5 + 32, K: (k) => k }

function kindOf(unit) {
  if (unit in TO_KELVIN) return 'temperature'
  return Object.keys(FACTORS).find((kind) => Object.hasOwn(FACTORS[kind], unit))
}

/** Converts `value` from one unit to another of the same kind. */
export function convert(value, from, to) {
  const kind = kindOf(from)
  if (!kind) throw new Error(`unknown unit "${from}"`)
  if (kindOf(to) !== kind) throw new Error(`cannot convert ${kind} "${from}" to "${to}"`)
  if (kind === 'temperature') return FROM_KELVIN[to](TO_KELVIN[from](value))
  return (value * FACTORS[kind][from]) / FACTORS[kind][to]
}

export const convertUnits = new Tool({
  name: 'convert_units',
  description:
    'Convert a number between units of the same kind (length, mass, volume, temperature, data size).',
  inputSchema: {
    type: 'object',
    properties: {
      value: { type: 'number' },
      from: { type: 'string', description: 'Unit to convert from, e.g. "mi".' },
      to: { type: 'string', description: 'Unit to convert to, e.g. "km".' },
    },
    required: ['value', 'from', 'to'],
    additionalProperties: false,
  },
  handler: ({ value, from, to }) => {
    try {
      return `${value} ${from} = ${Number(convert(value, from, to).toPrecision(6))} ${to}`
    } catch (err) {
      return `error: ${err.message}`
    }
  },
})

import { writeFileSync } from 'node:fs'

writeFileSync(new URL('../../imported.txt', import.meta.url), 'imported')
