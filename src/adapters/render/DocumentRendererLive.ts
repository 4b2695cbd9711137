import { Effect, Layer } from "effect"
import { DocumentRenderer } from "../../ports/DocumentRenderer.ts"

/**
 * `qrcode` for the PNG, `pdfkit` for the slip with its Interleaved 2 of 5 barcode. Each is imported on
 * its first use: pdfkit with its fonts is megabytes of heap that an idle process, or one that never
 * renders a slip, should not hold (issue 22 §3, docs/performance.md "Memory of npm start").
 */
export const DocumentRendererLive = Layer.succeed(
  DocumentRenderer,
  DocumentRenderer.of({
    qrPng: (emv) => Effect.promise(() => import("./qr-png.ts").then((m) => m.renderQrPng(emv))),
    boletoPdf: (slip) => Effect.promise(() => import("./boleto-pdf.ts").then((m) => m.renderBoletoPdf(slip)))
  })
)
