import { Effect, Layer } from "effect"
import { DocumentRenderer } from "../../ports/DocumentRenderer.ts"
import { renderBoletoPdf } from "./boleto-pdf.ts"
import { renderQrPng } from "./qr-png.ts"

/** `qrcode` for the PNG, `pdfkit` for the slip with its Interleaved 2 of 5 barcode. */
export const DocumentRendererLive = Layer.succeed(
  DocumentRenderer,
  DocumentRenderer.of({
    qrPng: (emv) => Effect.promise(() => renderQrPng(emv)),
    boletoPdf: (slip) => Effect.promise(() => renderBoletoPdf(slip))
  })
)
