// Interleaved 2 of 5 (ITF), the symbology FEBRABAN mandates for the 44-digit boleto barcode.
// Widths are in narrow-module units; FEBRABAN fixes the narrow:wide ratio at 1:3.

export type ItfModule = { bar: boolean; width: 1 | 3 }

const N = 1 as const
const W = 3 as const

// Two wide elements out of five per digit; index = digit.
const DIGIT_PATTERNS: ReadonlyArray<ReadonlyArray<1 | 3>> = [
  [N, N, W, W, N],
  [W, N, N, N, W],
  [N, W, N, N, W],
  [W, W, N, N, N],
  [N, N, W, N, W],
  [W, N, W, N, N],
  [N, W, W, N, N],
  [N, N, N, W, W],
  [W, N, N, W, N],
  [N, W, N, W, N]
]

const START: ReadonlyArray<ItfModule> = [
  { bar: true, width: N },
  { bar: false, width: N },
  { bar: true, width: N },
  { bar: false, width: N }
]
const STOP: ReadonlyArray<ItfModule> = [
  { bar: true, width: W },
  { bar: false, width: N },
  { bar: true, width: N }
]

const patternOf = (digit: string): ReadonlyArray<1 | 3> => {
  const p = DIGIT_PATTERNS[digit.charCodeAt(0) - 48]
  if (p === undefined) throw new RangeError(`ITF: not a digit: ${JSON.stringify(digit)}`)
  return p
}

export const encodeItf = (digits: string): Array<ItfModule> => {
  if (!/^(?:\d\d)+$/.test(digits)) {
    throw new RangeError(`ITF needs a non-empty, even number of digits, got ${JSON.stringify(digits)}`)
  }
  const out: Array<ItfModule> = [...START]
  for (let i = 0; i < digits.length; i += 2) {
    // First digit of the pair is carried by the bars, the second by the spaces between them.
    const bars = patternOf(digits.charAt(i))
    const spaces = patternOf(digits.charAt(i + 1))
    for (let k = 0; k < 5; k++) {
      out.push({ bar: true, width: bars[k] ?? N }, { bar: false, width: spaces[k] ?? N })
    }
  }
  out.push(...STOP)
  return out
}

const sameModule = (a: ItfModule | undefined, b: ItfModule): boolean =>
  a !== undefined && a.bar === b.bar && a.width === b.width

const digitOf = (widths: ReadonlyArray<number>): string => {
  const d = DIGIT_PATTERNS.findIndex((p) => p.every((w, k) => w === widths[k]))
  if (d < 0) throw new RangeError(`ITF: invalid symbol ${widths.join("")}`)
  return String(d)
}

// Strict inverse of encodeItf; exists so tests can prove the round trip.
export const decodeItf = (modules: ReadonlyArray<ItfModule>): string => {
  const body = modules.length - START.length - STOP.length
  if (body < 0 || body % 10 !== 0) throw new RangeError(`ITF: bad module count ${modules.length}`)
  if (
    !START.every((m, i) => sameModule(modules[i], m)) ||
    !STOP.every((m, i) => sameModule(modules[START.length + body + i], m))
  ) {
    throw new RangeError("ITF: missing start or stop pattern")
  }
  let digits = ""
  for (let i = START.length; i < START.length + body; i += 10) {
    const chunk = modules.slice(i, i + 10)
    if (!chunk.every((m, k) => m.bar === (k % 2 === 0))) throw new RangeError("ITF: bars and spaces must alternate")
    digits += digitOf(chunk.filter((_, k) => k % 2 === 0).map((m) => m.width))
    digits += digitOf(chunk.filter((_, k) => k % 2 === 1).map((m) => m.width))
  }
  return digits
}

// Total symbol width in narrow units (405 for a 44-digit boleto barcode).
export const itfWidth = (modules: ReadonlyArray<ItfModule>): number => modules.reduce((sum, m) => sum + m.width, 0)
