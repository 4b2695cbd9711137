import QRCode from "qrcode"

const TARGET_WIDTH_PX = 300
const MARGIN_MODULES = 4 // the quiet zone ISO/IEC 18004 requires

// PNG of a QR code holding exactly `text` as UTF-8 bytes.
export const renderQrPng = async (text: string): Promise<Buffer> => {
  // One explicit byte segment: qrcode's automatic segmentation would otherwise switch to
  // numeric/alphanumeric runs, and PIX BR Codes are specified as byte-mode payloads.
  const segments = [{ mode: "byte" as const, data: Buffer.from(text, "utf8") }]
  const errorCorrectionLevel = "M"
  const size = QRCode.create(segments, { errorCorrectionLevel }).modules.size
  // An integer pixels-per-module keeps every module the same width (qrcode's `width` option
  // allows fractional scales, which makes modules uneven); the image lands near 300 px.
  const scale = Math.max(1, Math.round(TARGET_WIDTH_PX / (size + 2 * MARGIN_MODULES)))
  return QRCode.toBuffer(segments, { type: "png", errorCorrectionLevel, margin: MARGIN_MODULES, scale })
}
