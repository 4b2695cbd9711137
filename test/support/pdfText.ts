import { inflateSync } from "node:zlib"

/**
 * The text lines of a PDF made by pdfkit with its standard fonts: each page content stream is inflated
 * and each `[<hex> kern <hex> …] TJ` array decoded from WinAnsi. Enough for our own documents, not a
 * general PDF reader.
 */
const contentStreams = (pdf: Buffer): Array<string> =>
  [...pdf.toString("latin1").matchAll(/stream\n([\s\S]*?)\nendstream/g)].flatMap((m) => {
    try {
      return [inflateSync(Buffer.from(m[1] ?? "", "latin1")).toString("latin1")]
    } catch {
      return [] // an image or font stream that is not deflated text
    }
  })

// WinAnsi is Latin-1 plus a few in 0x80–0x9F.
const WIN_ANSI_EXTRA: Record<string, string> = { "\x85": "…", "\x96": "–", "\x97": "—" }

export const pdfTextRuns = (pdf: Buffer): Array<string> =>
  contentStreams(pdf).flatMap((s) =>
    [...s.matchAll(/\[([^\]]*)\] TJ/g)].map((m) =>
      Buffer.from([...(m[1] ?? "").matchAll(/<([0-9a-f]*)>/g)].map((h) => h[1]).join(""), "hex")
        .toString("latin1")
        .replace(/[\x85\x96\x97]/g, (c) => WIN_ANSI_EXTRA[c] ?? c)
    )
  )
