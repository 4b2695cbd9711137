import fc from "fast-check"
import jsqrModule from "jsqr"
import { PNG } from "pngjs"
import { describe, expect, it } from "vitest"
import { renderQrPng } from "./qr-png.ts"

// jsqr's typings declare an ES default export, but its CJS bundle assigns the function itself to
// module.exports, which is what Node hands ESM importers as the default.
const jsQR = jsqrModule as unknown as typeof jsqrModule.default

const decode = (png: Buffer) => {
  const img = PNG.sync.read(png)
  const qr = jsQR(new Uint8ClampedArray(img.data), img.width, img.height)
  return { text: qr?.data, modes: qr?.chunks.map((c) => c.type), width: img.width }
}

const PIX =
  "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR" +
  "5913Fulano de Tal6008BRASILIA62070503***63041D3D"

describe("renderQrPng", () => {
  it("round-trips a PIX BR Code", async () => {
    const { text, modes, width } = decode(await renderQrPng(PIX))
    expect(text).toBe(PIX)
    expect(modes).toEqual(["byte"])
    expect(width).toBeGreaterThanOrEqual(250)
    expect(width).toBeLessThanOrEqual(350)
  })

  it("round-trips non-ASCII text as UTF-8", async () => {
    const s = "Pagamento à vista — São João"
    expect(decode(await renderQrPng(s)).text).toBe(s)
  })

  it("round-trips random printable ASCII", async () => {
    const printable = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      minLength: 1,
      maxLength: 200
    })
    await fc.assert(
      fc.asyncProperty(printable, async (s) => {
        expect(decode(await renderQrPng(s)).text).toBe(s)
      }),
      { numRuns: 40 }
    )
  })
})
